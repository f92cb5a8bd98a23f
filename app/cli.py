"""The `rwaopt` command line. Every command builds the same request models as the REST API
(validated once, by pydantic) and calls the same functions in `app.service`.

The solvers, the plotting and the database load only inside the command that needs them, so
`rwaopt --help`, `--version` and argument errors answer at once."""

from __future__ import annotations

import os
import re
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TypeVar

import typer

from models.errors import InvalidInputError, RwaoptError

if TYPE_CHECKING:
    from pydantic import BaseModel
    from rich.console import Console
    from rich.progress import Progress, TaskID

    from app.settings import Settings

# --method of `rwa` and `plan`: a stage with a known optimal construction gets it whatever
# the method asked, and the answer's `method` says what produced it.
MethodOption = Annotated[
    str,
    typer.Option(
        help="auto, exact, exact-highs or heuristic; a stage with a known optimal "
        "construction (solver.constructions) gets it whatever the method, and the "
        "answer's method says what produced it"
    ),
]
MAX_TX_HELP = "most lightpaths a node may transmit per slot (default: no limit)"
MAX_RX_HELP = "most lightpaths a node may receive per slot (default: no limit)"

# Where a request field comes from on the command line, so a validation error names the flag.
FLAGS = {
    "ring.nodes": "--nodes",
    "ring.wavelengths_per_fiber": "--wavelengths",
    "ring.fibers_per_direction": "--fibers",
    "collective": "--collective",
    "algorithms": "--algorithm",
    "parameters": "--param",
    "message_sizes_bytes": "--message-bytes",
    "method": "--method",
    "time_limit_s": "--time-limit",
    "max_tx_per_node": "--max-tx",
    "max_rx_per_node": "--max-rx",
    "optics": "--optics",
    "hardware": "--hardware",
    "shape": "--shape",
    "search_budget_s": "--search-budget",
    "max_lightpath_hops": "--max-hops",
    "workloads": "--workload",
    "electrical": "--electrical",
    "targets": "target",
}

T = TypeVar("T")
M = TypeVar("M", bound="BaseModel")

# Plain click help: rich help rendering alone costs about 0.3 s per `--help`.
cli = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__, rich_markup_mode=None)


def _version(value: bool) -> None:
    if value:
        from app import version

        typer.echo(f"rwaopt {version()}")
        raise typer.Exit()


@cli.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="print the version and exit"
        ),
    ] = False,
) -> None:
    """rwaopt: true step counts, times and feasibility of collectives on WDM rings."""


def _fail(error: RwaoptError) -> NoReturn:
    from app.errors import exit_code

    typer.echo(f"error: {error.message}", err=True)
    raise typer.Exit(exit_code(error))


def _run(work: Callable[[], T]) -> T:
    """Run a command's work; every error (a bug too) ends as `error: ...` and its exit code.
    The settings are read first, so a bad RWAOPT_* variable is one line naming it."""
    try:
        _settings()
        return work()
    except RwaoptError as error:
        _fail(error)
    except Exception as error:  # a bug: the traceback for the report, then the error format
        from app.errors import internal

        traceback.print_exc()
        _fail(internal(error))


def _keys_of(flag: str) -> str | None:
    """The keys a key=value flag takes (--hardware, --optics), for an unknown key's error."""
    from app.schemas.requests import HardwareSpec, OpticsSpec

    models: dict[str, type[BaseModel]] = {"--hardware": HardwareSpec, "--optics": OpticsSpec}
    model = models.get(flag)
    return None if model is None else ", ".join(model.model_fields)


def _validated(model: type[M], data: object, flags: Mapping[str, str] | None = FLAGS) -> M:
    """The request model, or an InvalidInputError naming the flag at fault (`flags`: where
    each field comes from on the command line; None for a file's fields, named as written)."""
    from pydantic import ValidationError

    from app.schemas.requests import did_you_mean, error_text, readable_loc

    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        loc = readable_loc(first["loc"])
        message = error_text(first)
        for cut in range(len(loc), 0, -1):
            flag = (flags or {}).get(".".join(loc[:cut]))
            if flag is not None:
                # --param's place is parameters.<algorithm>.<key>: name the key
                at = cut + 1 if flag == "--param" else cut
                keyed = ("--optics", "--param", "--hardware")
                key = loc[at] if flag in keyed and at < len(loc) else ""
                known = _keys_of(flag) if first["type"] == "extra_forbidden" else None
                if known is not None:
                    message = f"not a key of {flag}; its keys: {known}"
                raise InvalidInputError(f"{flag} {key}".strip() + f": {message}") from None
        if flags:  # a rule across fields names them as the request's JSON does: name the flags
            for field, flag in flags.items():
                leaf = field.rpartition(".")[2]
                if "_" in leaf or leaf == "workloads":
                    message = re.sub(rf"\b{leaf}\b", flag, message)
        if first["type"] == "extra_forbidden":  # a grid file's "algorithm": "algorithms"?
            message += did_you_mean(model, first["loc"])
        raise InvalidInputError(f"{'.'.join(loc) or 'options'}: {message}") from None


@cli.command("algorithms")
def algorithms_command(
    collective: Annotated[
        str | None,
        typer.Option(help="allgather, allreduce, alltoall or reducescatter (default: all)"),
    ] = None,
    nodes: Annotated[int | None, typer.Option(help="ring size N, to evaluate closed forms")] = None,
    wavelengths: Annotated[int | None, typer.Option(help="wavelengths per fibre w")] = None,
    fibers: Annotated[int, typer.Option(help="fibres per direction F")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """List the algorithm catalog with the papers' closed forms."""
    from pydantic import TypeAdapter

    from app.presentation.text import catalog_text
    from app.schemas.results import CatalogEntry
    from app.service import catalog

    entries = _run(lambda: catalog(collective, nodes, wavelengths, fibers))
    if as_json:
        typer.echo(TypeAdapter(list[CatalogEntry]).dump_json(entries, indent=2).decode())
    else:
        typer.echo(catalog_text(entries), nl=False)


@cli.command("rwa")
def rwa_command(
    input_path: Annotated[str, typer.Option("--input", help="stage JSON file ('-' = stdin)")],
    method: MethodOption = "auto",
    time_limit: Annotated[float, typer.Option("--time-limit", help="seconds")] = 10.0,
    max_tx: Annotated[int | None, typer.Option("--max-tx", help=MAX_TX_HELP)] = None,
    max_rx: Annotated[int | None, typer.Option("--max-rx", help=MAX_RX_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Solve one stage's RWA: chi, lower bound, status, steps and the assignment."""
    from pydantic import ValidationError

    from app.presentation.text import rwa_text
    from app.schemas.requests import RwaInput, SolveSettings, error_text, readable_loc
    from app.service import rwa

    def work() -> str:
        text = _read_text(input_path)
        try:
            data = RwaInput.model_validate_json(text)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(readable_loc(first["loc"])) or "file"
            raise InvalidInputError(f"{input_path}: {where}: {error_text(first)}") from None
        settings = _validated(
            SolveSettings,
            {
                "method": method,
                "time_limit_s": time_limit,
                "max_tx_per_node": max_tx,
                "max_rx_per_node": max_rx,
            },
        )
        answer = rwa(data, settings)
        return answer.model_dump_json(indent=2) + "\n" if as_json else rwa_text(answer)

    typer.echo(_run(work), nl=False)


def _parse_params(raw: list[str]) -> dict[str, int | list[int]]:
    """--param key=value: one integer, or a list separated by commas or by 'x' as the plan's
    shape column prints it (branching=4,4 or radices=4x4x16). One --param may hold several
    pairs separated by commas, as the shape column prints a shape
    (radices=4x4,pieces=2,direct=1)."""
    params: dict[str, int | list[int]] = {}
    pairs = [pair for item in raw for pair in re.split(r",(?=[A-Za-z_]\w*=)", item)]
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InvalidInputError(f"--param {item!r}: write key=value, e.g. --param group=5")
        try:
            numbers = [int(v) for v in re.split(r"[,x]", value)]
        except ValueError:
            raise InvalidInputError(
                f"--param {item!r}: the value must be integers, a list as 4,4 or 4x4"
            ) from None
        if key in params:
            raise InvalidInputError(f"--param {key} is given twice; give each parameter once")
        params[key] = numbers if len(numbers) > 1 else numbers[0]
    return params


def _parse_pairs(raw: list[str], flag: str, example: str) -> dict[str, int | float | str]:
    """`key=value` pairs as the request's JSON would hold them: a value written as a number
    is one (16 an integer, 0.5 a float; the schema refuses a number in quotes), any other
    value stays text (`snr_scale=linear`)."""
    values: dict[str, int | float | str] = {}
    for item in raw:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InvalidInputError(f"{flag} {item!r}: write key=value, e.g. {example}")
        if key in values:
            raise InvalidInputError(f"{flag} {key} is given twice; give each setting once")
        values[key] = _number_or_text(value.strip())
    return values


def _number_or_text(value: str) -> int | float | str:
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            continue
    return value


def _parse_max_hops(raw: str | None) -> int | str | None:
    if raw is None or raw == "loss_budget":
        return raw
    try:
        return int(raw)
    except ValueError:
        raise InvalidInputError(
            f"--max-hops {raw!r}: give a number of hops or 'loss_budget'"
        ) from None


@cli.command("plan")
def plan_command(
    collective: Annotated[
        str, typer.Option(help="allgather, allreduce, alltoall or reducescatter")
    ],
    nodes: Annotated[int, typer.Option(help="ring size N")],
    wavelengths: Annotated[int, typer.Option(help="wavelengths per fibre w")],
    message_bytes: Annotated[
        list[str],
        typer.Option(
            "--message-bytes",
            help="message size per node: bytes, or with a unit (64KiB, 1MiB, 4MB, 1e6); repeatable",
        ),
    ] = [],  # noqa: B006
    algorithm: Annotated[
        list[str], typer.Option("--algorithm", help="algorithm name, repeatable, or 'all'")
    ] = ["all"],  # noqa: B006
    param: Annotated[
        list[str],
        typer.Option(
            "--param",
            help="key=value for the algorithm (a list as 4,4 or 4x4); repeatable, or "
            "several pairs as the shape column prints them (radices=4x4,pieces=2)",
        ),
    ] = [],  # noqa: B006
    fibers: Annotated[int, typer.Option(help="fibres per direction F")] = 1,
    method: MethodOption = "auto",
    time_limit: Annotated[float, typer.Option("--time-limit", help="seconds per stage")] = 10.0,
    max_tx: Annotated[int | None, typer.Option("--max-tx", help=MAX_TX_HELP)] = None,
    max_rx: Annotated[int | None, typer.Option("--max-rx", help=MAX_RX_HELP)] = None,
    max_hops: Annotated[
        str | None,
        typer.Option(
            "--max-hops",
            help="routing constraint: longest lightpath allowed, or 'loss_budget'",
        ),
    ] = None,
    optics: Annotated[
        list[str],
        typer.Option(
            "--optics", help="key=value optical parameter, e.g. laser_power_dbm=12; repeatable"
        ),
    ] = [],  # noqa: B006
    hardware: Annotated[
        list[str],
        typer.Option(
            "--hardware",
            help="key=value time constant, e.g. bandwidth_per_wavelength_gbps=100, "
            "mrr_reconfiguration_us, oeo_cycles_per_flit, flit_bytes, clock_ghz; repeatable",
        ),
    ] = [],  # noqa: B006
    as_json: Annotated[
        bool, typer.Option("--json", help="print the plan document as JSON")
    ] = False,
    as_csv: Annotated[
        bool, typer.Option("--csv", help="print one CSV row per algorithm and message size")
    ] = False,
    shape: Annotated[
        str,
        typer.Option(
            help="'best' (search the family on true RWA) or 'paper' (the paper's own shape); "
            "an algorithm with --param is planned at that explicit shape"
        ),
    ] = "best",
    search_budget: Annotated[
        float | None,
        typer.Option(
            "--search-budget",
            help="seconds per algorithm for the best-shape search "
            "(default RWAOPT_SHAPE_SEARCH_BUDGET_S)",
        ),
    ] = None,
    workload: Annotated[
        list[str],
        typer.Option(
            "--workload",
            help="a DNN's gradient as a message size: alexnet, vgg16, resnet50, googlenet; "
            "repeatable",
        ),
    ] = [],  # noqa: B006
    electrical: Annotated[
        bool,
        typer.Option(
            "--electrical",
            help="all-reduce: compare with E-Ring and E-RD on the electrical fat-tree "
            "(Hockney and SimGrid)",
        ),
    ] = False,
) -> None:
    """Plan algorithms: true steps (certified RWA per stage) beside the papers' claims, time
    per message size and the fastest algorithm for each."""
    from app.planning import prepare
    from app.presentation.text import parse_size, plan_csv, plan_text
    from app.schemas.requests import PlanRequest
    from app.service import answer

    def work() -> str:
        if as_json and as_csv:
            raise InvalidInputError("choose one of --json and --csv")
        params = _parse_params(param)
        if "all" in algorithm and len(algorithm) > 1:
            raise InvalidInputError("--algorithm all already names every algorithm: give it alone")
        if params and (len(algorithm) != 1 or algorithm == ["all"]):
            raise InvalidInputError("--param needs exactly one --algorithm")
        if shape not in ("best", "paper"):
            raise InvalidInputError(f"--shape {shape!r}: use 'best' or 'paper'")
        fields = {
            "ring": {
                "nodes": nodes,
                "fibers_per_direction": fibers,
                "wavelengths_per_fiber": wavelengths,
            },
            "collective": collective,
            "algorithms": "all" if algorithm == ["all"] else algorithm,
            "parameters": {algorithm[0]: params} if params else {},
            "message_sizes_bytes": [parse_size(text) for text in message_bytes],
            "hardware": _parse_pairs(hardware, "--hardware", "bandwidth_per_wavelength_gbps=100"),
            "method": method,
            "time_limit_s": time_limit,
            "max_tx_per_node": max_tx,
            "max_rx_per_node": max_rx,
            "optics": _parse_pairs(optics, "--optics", "laser_power_dbm=12"),
            "shape": shape,
            "search_budget_s": search_budget,
            "max_lightpath_hops": _parse_max_hops(max_hops),
            "workloads": workload,
            "electrical": electrical,
        }
        spec = prepare(_validated(PlanRequest, fields))
        with LazyProgress(enabled=sys.stderr.isatty()) as progress:
            result = answer(spec, progress.update)
        if as_json:
            return result.model_dump_json(indent=2) + "\n"
        return plan_csv(result) if as_csv else plan_text(result)

    typer.echo(_run(work), nl=False)


class LazyProgress:
    """A rich progress bar on stderr that appears only once a plan has run for `delay_s`
    seconds, so quick plans print nothing extra."""

    def __init__(self, enabled: bool, delay_s: float = 1.5, console: Console | None = None) -> None:
        self.enabled = enabled
        self.delay_s = delay_s
        self.console = console
        self.started = time.monotonic()
        self.bar: Progress | None = None
        self.tasks: dict[str, TaskID] = {}

    def __enter__(self) -> LazyProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def update(self, name: str, done: int, total: int) -> None:
        if not self.enabled or time.monotonic() - self.started < self.delay_s:
            return
        if self.bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self.bar = Progress(
                TextColumn("{task.description:<8}"),
                # a named green when done: rich's own (rgb 114,156,31) becomes grey on a
                # 16-colour terminal (TERM=xterm), so a finished bar looked untouched
                BarColumn(finished_style="green"),
                MofNCompleteColumn(),
                TextColumn("stages"),
                # since the plan started: a task's own clock starts at its first report,
                # often its last too (rich's elapsed column read 0:00:00)
                TextColumn("{task.fields[since]}"),
                console=self.console or Console(stderr=True),
                transient=False,
            )
            self.bar.start()
        since = f"{time.monotonic() - self.started:.1f} s"
        if name not in self.tasks:
            self.tasks[name] = self.bar.add_task(name, total=total, since=since)
        self.bar.update(self.tasks[name], completed=done, since=since)


@cli.command("reproduce")
def reproduce_command(
    targets: Annotated[
        list[str] | None,
        typer.Argument(
            help="optree-journal, optree-conference, wrht, optical-electrical, tra or all "
            "(default)"
        ),
    ] = None,
    out: Annotated[Path, typer.Option("--out", help="directory for the report")] = Path(
        "reproduction"
    ),
    quick: Annotated[bool, typer.Option(help="smaller grids (about a minute)")] = False,
) -> None:
    """Rebuild the papers' tables and figures: printed vs formula vs true, verdicts computed
    (report.md, report.html, figures/, tables/, findings.json)."""
    from typing import get_args

    from app.schemas.requests import ReproductionRequest, ReproductionTarget
    from app.service import reproduce

    def work() -> str:
        names = targets or ["all"]
        known = [*get_args(ReproductionTarget), "all"]
        unknown = [n for n in names if n not in known]
        if unknown:  # the schema's own message left out "all", which is no list item
            raise InvalidInputError(
                f"unknown target {unknown[0]!r}; targets: {', '.join(known)}"
            )
        request = _validated(
            ReproductionRequest, {"targets": "all" if "all" in names else names, "quick": quick}
        )
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            reason = "it is a file" if out.is_file() else error.strerror
            raise InvalidInputError(f"--out {out}: cannot make the directory ({reason})") from None
        done = reproduce(request, out)
        summary = ", ".join(f"{k} {v}" for k, v in sorted(done.verdicts.items()))
        return f"wrote {out}/report.md, report.html, findings.json ({summary})\n"

    typer.echo(_run(work), nl=False)


@cli.command("sweep")
def sweep_command(
    grid: Annotated[
        Path, typer.Argument(help="the grid: a YAML or JSON file with POST /api/v1/sweeps' body")
    ],
    server: Annotated[
        str | None,
        typer.Option(help="submit to this rwaopt service (e.g. http://127.0.0.1:8000) and follow"),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="write the results CSV here (default: stdout)")
    ] = None,
    api_key: Annotated[
        str | None,
        typer.Option(
            envvar="RWAOPT_API_KEY",
            show_envvar=True,
            help="with --server: the key a server with RWAOPT_API_KEYS needs (X-API-Key)",
        ),
    ] = None,
) -> None:
    """Plan a whole grid (every plan option one value or a list): locally on a process pool
    (RWAOPT_SOLVER_PROCESSES, results kept in RWAOPT_DATABASE_URL), or on a server. Points
    solved before are reused. Writes one CSV row per point, algorithm and message size."""
    from app.schemas.sweeps import SweepRequest
    from app.sweep_runner import follow_remote, run_local

    def work() -> tuple[str, bool]:
        if api_key is not None and server is None:
            raise InvalidInputError("--api-key is for --server; a local sweep needs none")
        if out is not None:
            _writable(out)
        request = _validated(SweepRequest, _read_grid(grid), flags=None)
        show = sys.stderr.isatty()
        if server is None:
            settings = _settings()
            _database(settings)
            return run_local(request, settings, show)
        return follow_remote(request, server, show, api_key)

    csv_text, complete = _run(work)
    if out is None:
        typer.echo(csv_text, nl=False)
    else:
        try:
            out.write_text(csv_text)
        except OSError as error:  # checked before the sweep; changed since
            _fail(InvalidInputError(
                f"cannot write {out}: {error.strerror}; the points are kept, and the same "
                "sweep again reads them back without solving"
            ))
        typer.echo(f"wrote {out}", err=True)
    if not complete:
        raise typer.Exit(1)


def _read_text(name: str) -> str:
    """A file's text ('-': standard input), UTF-8; one line saying what to change when it
    cannot be read or is not UTF-8 (a file saved as UTF-16 starts with bytes 0xff 0xfe)."""
    try:
        return sys.stdin.read() if name == "-" else Path(name).read_text("utf-8")
    except OSError as error:
        raise InvalidInputError(f"cannot read {name}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise InvalidInputError(
            f"{name} is not UTF-8 text (byte 0x{error.object[error.start]:02x} at offset "
            f"{error.start}); save it as UTF-8"
        ) from None


def _writable(path: Path) -> None:
    """Refuse, before any work, an output path that cannot be written: a directory, or a
    file in a folder that does not exist or that this user cannot write."""
    if path.is_dir():
        raise InvalidInputError(f"--out {path} is a directory; give a file name in it")
    folder = path.parent
    if not folder.is_dir():
        raise InvalidInputError(f"--out {path}: the folder {folder} does not exist")
    if not os.access(path if path.exists() else folder, os.W_OK):
        raise InvalidInputError(f"--out {path}: permission denied")


def _read_grid(path: Path) -> object:
    """A grid file as data: YAML (a superset of JSON) for .yaml/.yml, else JSON. Its message
    sizes may be written as on the command line ('1MiB', '64 KB'), like --message-bytes."""
    import json

    import yaml

    from app.presentation.text import parse_size

    text = _read_text(str(path))
    is_yaml = path.suffix in (".yaml", ".yml")
    try:
        grid = yaml.safe_load(text) if is_yaml else json.loads(text)
    except (ValueError, yaml.YAMLError) as error:
        kind = "YAML" if is_yaml else "JSON"
        raise InvalidInputError(f"{path} is not valid {kind}: {error}") from None
    if not isinstance(grid, dict):
        raise InvalidInputError(
            f"{path}: a grid is a mapping of plan options (collective: ..., nodes: [...]), "
            f"not a {type(grid).__name__}"
        )
    sizes = grid.get("message_sizes_bytes")
    if isinstance(sizes, list):
        grid["message_sizes_bytes"] = [
            parse_size(size) if isinstance(size, str) else size for size in sizes
        ]
    return grid


@cli.command("serve")
def serve_command(
    host: Annotated[str | None, typer.Option(help="bind address (default RWAOPT_HOST)")] = None,
    port: Annotated[
        int | None, typer.Option(min=1, max=65535, help="port (default RWAOPT_PORT)")
    ] = None,
) -> None:
    """Run the HTTP service (uvicorn); the database is migrated at start-up. Refuses to listen
    beyond loopback without RWAOPT_API_KEYS. On SIGTERM it stops accepting, ends running
    solves (their plans are re-queued at the next start) and exits within about 10 s."""
    import uvicorn

    from app.jobs.pool import shutting_down

    class Server(uvicorn.Server):
        """Tells waiting calls first, so they answer in the error format (503)."""

        def handle_exit(self, sig: int, frame: object) -> None:
            shutting_down.set()
            super().handle_exit(sig, frame)  # type: ignore[arg-type]

    _warn_unknown_variables()
    settings = _run(lambda: _serving(host, port))
    config = uvicorn.Config(
        "app.main:app",
        host=host or settings.host,
        port=settings.port if port is None else port,
        timeout_graceful_shutdown=5,  # then open requests are cancelled and solves ended
        timeout_keep_alive=5,
    )
    Server(config).run()


def _serving(host: str | None, port: int | None) -> Settings:
    """Checks before `serve` starts: settings valid, keys set beyond loopback, the port free,
    database reachable; each failure one line and an exit code (a port in use is a setting
    to change: 2, not uvicorn's exit after start-up)."""
    import os
    import socket

    from app.settings import LOOPBACK

    settings = _settings()
    bind = host or settings.host
    if bind not in LOOPBACK and not settings.keys():
        raise InvalidInputError(
            f"refusing to listen on {bind} without API keys: set RWAOPT_API_KEYS (see README "
            "'Deploying'), or listen on 127.0.0.1"
        )
    _database(settings)
    chosen = settings.port if port is None else port
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    try:
        with socket.create_server((bind, chosen), family=family):
            pass
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else str(error)
        raise InvalidInputError(
            f"cannot listen on {bind}:{chosen} ({reason}); choose another port with --port "
            "or RWAOPT_PORT"
        ) from None
    return settings


def _database(settings: Settings) -> None:
    """The database at RWAOPT_DATABASE_URL answers; else UnavailableError (one line, exit 3:
    a missing directory of a SQLite file too). Whoever uses it migrates it (the API's
    start-up, the worker, a local sweep)."""
    from sqlalchemy.engine import make_url

    from app.errors import UnavailableError
    from app.persistence.database import reachable

    if not reachable(settings.database_url):
        shown = make_url(settings.database_url).render_as_string(hide_password=True)
        raise UnavailableError(f"cannot reach the database at {shown} (RWAOPT_DATABASE_URL)")


def _warn_unknown_variables() -> None:
    """A serving process names the RWAOPT_* variables it does not read (on stderr)."""
    from app.settings import unknown_variables

    for warning in unknown_variables(os.environ):
        typer.echo(f"warning: {warning}", err=True)


def _settings() -> Settings:
    """The process's settings; a bad RWAOPT_* variable is one InvalidInputError naming it."""
    from pydantic import ValidationError

    from app.schemas.requests import error_text
    from app.settings import get_settings

    try:
        return get_settings()
    except ValidationError as error:
        first = error.errors()[0]
        name = "RWAOPT_" + "_".join(str(x) for x in first["loc"]).upper()
        raise InvalidInputError(f"{name}: {error_text(first)}") from None


@cli.command("worker")
def worker_command(
    burst: Annotated[bool, typer.Option(help="stop when the queue is empty")] = False,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="health check: exit 0 if a worker on this host heartbeat recently, else 3",
        ),
    ] = False,
) -> None:
    """Run an RQ worker for queued plans (RWAOPT_JOBS=rq; Redis at RWAOPT_REDIS_URL)."""
    from app.jobs.queue import run_worker, worker_alive

    if not check:
        _warn_unknown_variables()
    settings = _run(_settings)
    if check:
        _run(lambda: worker_alive(settings))
        typer.echo("ok")
        return
    _run(lambda: _worker_ready(settings))
    run_worker(settings, burst=burst)


def _worker_ready(settings: Settings) -> None:
    """Redis and the database answer, and the database is migrated; else one line, exit 3."""
    from app.errors import UnavailableError
    from app.jobs.queue import redis_reachable, shown_redis_url
    from app.persistence.database import migrate

    if not redis_reachable(settings.redis_url):
        shown = shown_redis_url(settings.redis_url)
        raise UnavailableError(f"cannot reach Redis at {shown} (RWAOPT_REDIS_URL)")
    _database(settings)
    migrate(settings.database_url)


def main() -> None:
    cli(prog_name="rwaopt")


if __name__ == "__main__":
    main()
