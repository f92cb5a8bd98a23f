"""The `rwaopt` command line. Every command calls the same typed functions as the REST API."""

from __future__ import annotations

import csv
import io
import json
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from app.catalog_view import catalog
from app.persistence.database import migrate
from app.plans import document
from app.schemas import OpticsSpec, RwaInput
from app.service import prepare_plan, run_plan, rwa, rwa_payload
from app.settings import get_settings
from models.algorithms.base import ShapeMode
from models.errors import InvalidInputError, RwaoptError
from models.optics import OpticalParameters
from models.ring import Ring

MAX_TX_HELP = "most lightpaths a node may transmit per slot (default: no limit)"
MAX_RX_HELP = "most lightpaths a node may receive per slot (default: no limit)"

cli = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)


@cli.callback()
def _root() -> None:
    """rwaopt: true step counts, times and feasibility of collectives on WDM rings."""


def _fail(error: RwaoptError) -> None:
    typer.echo(f"error: {error.message}", err=True)
    raise typer.Exit(2)


def _emit_json(payload: Any) -> None:
    typer.echo(json.dumps(payload, indent=2, default=_json_default))


def _json_default(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value)}")


@cli.command("algorithms")
def algorithms_command(
    collective: Annotated[
        str | None, typer.Option(help="allgather, allreduce or alltoall (default: all)")
    ] = None,
    nodes: Annotated[int | None, typer.Option(help="ring size N, to evaluate closed forms")] = None,
    wavelengths: Annotated[int | None, typer.Option(help="wavelengths per fibre w")] = None,
    fibers: Annotated[int, typer.Option(help="fibres per direction F")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """List the algorithm catalog with the papers' closed forms."""
    try:
        entries = catalog(collective, nodes, wavelengths, fibers)
    except RwaoptError as error:
        _fail(error)
        return
    if as_json:
        _emit_json(entries)
        return
    for e in entries:
        line = f"{e['collective']:<10} {e['name']:<7} {e['closed_form']['steps']}"
        if "claimed" in e:
            unit = "" if e["claimed"]["unit"] == "steps" else f" {e['claimed']['unit']}"
            line += f"  = {e['claimed']['value']}{unit}"
        typer.echo(line)
        typer.echo(f"{'':<18} source: {e['closed_form']['source']}")


@cli.command("rwa")
def rwa_command(
    input_path: Annotated[str, typer.Option("--input", help="stage JSON file ('-' = stdin)")],
    method: Annotated[str, typer.Option(help="auto, exact, exact-highs or heuristic")] = "auto",
    time_limit: Annotated[float, typer.Option("--time-limit", help="seconds")] = 10.0,
    max_tx: Annotated[int | None, typer.Option("--max-tx", help=MAX_TX_HELP)] = None,
    max_rx: Annotated[int | None, typer.Option("--max-rx", help=MAX_RX_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Solve one stage's RWA: chi, lower bound, status, steps and the assignment."""
    try:
        text = sys.stdin.read() if input_path == "-" else Path(input_path).read_text("utf-8")
    except OSError as error:
        _fail(InvalidInputError(f"cannot read {input_path}: {error.strerror}"))
        return
    try:
        data = RwaInput.model_validate_json(text)
    except ValidationError as error:
        _fail(InvalidInputError(f"{input_path}: {_first_error(error, 'file')}"))
        return
    try:
        stage, result = rwa(data, method, time_limit, max_tx, max_rx)
    except RwaoptError as error:
        _fail(error)
        return
    ring = Ring(data.nodes, data.fibers, data.wavelengths)
    payload = rwa_payload(stage, result, ring)
    if as_json:
        _emit_json(payload)
        return
    typer.echo(
        f"chi={payload['chi']} lower_bound={payload['lower_bound']} status={payload['status']} "
        f"steps={payload['steps']} method={payload['method']} "
        f"lightpaths={len(payload['assignment'])}"
    )


def _first_error(error: ValidationError, whole: str) -> str:
    """'where: what' of the first pydantic error; `whole` names a value without a location."""
    first = error.errors()[0]
    where = ".".join(str(x) for x in first["loc"]) or whole
    return f"{where}: {first['msg']}"


def _parse_params(raw: list[str]) -> dict[str, int | tuple[int, ...]]:
    params: dict[str, int | tuple[int, ...]] = {}
    for item in raw:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InvalidInputError(f"--param {item!r}: write key=value, e.g. --param group=5")
        try:
            numbers = tuple(int(v) for v in value.split(","))
        except ValueError:
            raise InvalidInputError(f"--param {item!r}: the value must be integers") from None
        params[key] = numbers if len(numbers) > 1 or key == "branching" else numbers[0]
    return params


@cli.command("plan")
def plan_command(
    collective: Annotated[str, typer.Option(help="allgather, allreduce or alltoall")],
    nodes: Annotated[int, typer.Option(help="ring size N")],
    wavelengths: Annotated[int, typer.Option(help="wavelengths per fibre w")],
    message_bytes: Annotated[
        list[float], typer.Option("--message-bytes", help="bytes; repeatable")
    ],
    algorithm: Annotated[
        list[str], typer.Option("--algorithm", help="algorithm name, repeatable, or 'all'")
    ] = ["all"],  # noqa: B006
    param: Annotated[
        list[str], typer.Option("--param", help="key=value for the algorithm; repeatable")
    ] = [],  # noqa: B006
    fibers: Annotated[int, typer.Option(help="fibres per direction F")] = 1,
    method: Annotated[str, typer.Option(help="auto, exact, exact-highs or heuristic")] = "auto",
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
) -> None:
    """Plan algorithms: true steps (certified RWA per stage) beside the papers' claims, time
    per message size and the fastest algorithm for each."""
    try:
        if as_json and as_csv:
            raise InvalidInputError("choose one of --json and --csv")
        params = _parse_params(param)
        if params and (len(algorithm) != 1 or algorithm == ["all"]):
            raise InvalidInputError("--param needs exactly one --algorithm")
        ring = Ring(nodes, fibers, wavelengths)
        if shape not in ("best", "paper"):
            raise InvalidInputError(f"--shape {shape!r}: use 'best' or 'paper'")
        spec = prepare_plan(
            collective,
            algorithm,
            ring,
            {algorithm[0]: params} if params else {},
            message_bytes,
            None,
            method,
            time_limit,
            max_tx,
            max_rx,
            _parse_optics(optics),
            _parse_max_hops(max_hops),
            ShapeMode(shape),
            search_budget or get_settings().shape_search_budget_s,
        )
        with LazyProgress(enabled=sys.stderr.isatty()) as progress:
            plans = run_plan(spec, progress.update)
    except RwaoptError as error:
        _fail(error)
        return
    result = document(spec, plans)
    if as_json:
        _emit_json(result)
    elif as_csv:
        _emit_csv(result)
    else:
        _emit_table(result)


def _parse_optics(raw: list[str]) -> OpticalParameters:
    """--optics key=value pairs, checked by the same pydantic model as the REST body."""
    values: dict[str, str] = {}
    for item in raw:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InvalidInputError(f"--optics {item!r}: write key=value, e.g. laser_power_dbm=12")
        values[key] = value
    try:
        spec = OpticsSpec.model_validate(values)
    except ValidationError as error:
        raise InvalidInputError(f"--optics {_first_error(error, 'optics')}") from None
    return OpticalParameters(**spec.model_dump())


def _parse_max_hops(raw: str | None) -> int | Literal["loss_budget"] | None:
    if raw is None or raw == "loss_budget":
        return raw  # type: ignore[return-value]
    try:
        return int(raw)
    except ValueError:
        raise InvalidInputError(
            f"--max-hops {raw!r}: give a number of hops or 'loss_budget'"
        ) from None


def _shape_text(p: dict[str, Any]) -> str:
    """'best k=..' style: which shape the row is, with its parameters."""
    values = ",".join(
        f"{k}={'x'.join(map(str, v)) if isinstance(v, list) else v}"
        for k, v in p["parameters"].items()
        if k != "stages"
    )
    optimal = "" if p["steps_optimal"] else " (gap)"
    return f"{p['shape']} {values}".strip() + optimal


def _emit_table(result: dict[str, Any]) -> None:
    sizes = [t["message_bytes"] for t in result["algorithms"][0]["timings"]]
    head = f"{'algorithm':<10}{'shape':<28}{'claimed':>14}{'true':>8}{'bound':>8}{'paper':>8}"
    head += "".join(f"{_size(m) + ' (s)':>14}" for m in sizes)
    typer.echo(head)
    for p in result["algorithms"]:
        claim = p["claimed"]
        claimed = "-"
        if claim is not None and claim["value"] is not None:
            claimed = f"{claim['value']:g}" + (
                "" if claim["unit"] == "steps" else f" {claim['unit']}"
            )
        line = f"{p['algorithm']:<10}{_shape_text(p):<28}{claimed:>14}{p['true_steps']:>8}"
        line += f"{p['steps_lower_bound']:>8}{p['shapes']['paper']['true_steps']:>8}"
        line += "".join(f"{t['time_s']:>14.6g}" for t in p["timings"])
        typer.echo(line)
    for p in result["algorithms"]:
        search = p["shapes"]["search"]
        if search is not None and (
            search["evaluated"] + search["pruned"] > 1 or not search["exhaustive"]
        ):
            how = "exhaustive" if search["exhaustive"] else f"cut: {search['note']}"
            typer.echo(
                f"search {p['algorithm']}: {search['candidates']} shapes, "
                f"{search['evaluated']} solved, {search['pruned']} pruned by bounds, "
                f"{search['seconds']:.1f} s, {how}"
            )
        counts = p["message_counts"]
        if counts is not None:
            typer.echo(
                f"{p['algorithm']}: K = {counts['rounds']} rounds, D = "
                f"{counts['blocks_sent_per_process']} blocks per process (counted on the "
                f"{counts['counted_on']}); optical steps are rwaopt's own measure"
            )
    for skipped in result["skipped"]:
        typer.echo(f"skipped {skipped['algorithm']}: {skipped['reason']}")
    for r in result["recommendation"]:
        typer.echo(f"fastest feasible at {_size(r['message_bytes'])}: {r['why']}")
    first = result["algorithms"][0]["feasibility"]
    scale = first["parameters"]["snr_scale"]
    typer.echo(
        f"optics (OpTree eqs. 4-9, SNR read in {scale} by eq. 9, needs "
        f"{first['required_snr_db']:.1f} dB; defaults are assumptions, see README):"
    )
    typer.echo(
        f"{'algorithm':<10}{'hops':>6}{'L_max':>8}{'margin dB':>11}{'worst BER':>11}"
        f"{'min laser dBm':>15}  feasible"
    )
    for p in result["algorithms"]:
        f = p["feasibility"]
        margin = "-" if f["margin_db"] is None else f"{f['margin_db']:.2f}"
        ber = "-" if f["ber"] is None else f"{f['ber']:.3g}"
        laser = "-" if f["min_laser_power_dbm"] is None else f"{f['min_laser_power_dbm']:.2f}"
        verdict = "yes"
        if not f["feasible"]:
            st = f["stages"][f["blocking"]["stage"]]
            verdict = (
                f"no: stage {st['index']}: {st['failing']}/{st['lightpaths']} lightpaths fail "
                f"({st['failing_power']} power, {st['failing_ber']} BER)"
            )
        if f["max_hops"] > f["closed_form"]["l_max_hops"]:
            verdict += " [longest lightpath exceeds L_max]"
        typer.echo(
            f"{p['algorithm']:<10}{f['max_hops']:>6}{f['closed_form']['l_max_hops']:>8.4g}"
            f"{margin:>11}{ber:>11}{laser:>15}  {verdict}"
        )


CSV_COLUMNS = (
    "algorithm",
    "shape",
    "parameters",
    "claimed_steps",
    "true_steps",
    "steps_lower_bound",
    "steps_optimal",
    "channels_optimal",
    "paper_true_steps",
    "message_bytes",
    "time_s",
    "claimed_time_s",
    "hardware_bound_s",
    "efficiency",
)


def _emit_csv(result: dict[str, Any]) -> None:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for p in result["algorithms"]:
        for t in p["timings"]:
            writer.writerow(
                [
                    p["algorithm"],
                    p["shape"],
                    json.dumps(p["parameters"], separators=(",", ":")),
                    p["claimed_steps"],
                    p["true_steps"],
                    p["steps_lower_bound"],
                    p["steps_optimal"],
                    p["channels_optimal"],
                    p["shapes"]["paper"]["true_steps"],
                    t["message_bytes"],
                    t["time_s"],
                    t["claimed_time_s"],
                    t["hardware_bound_s"],
                    t["efficiency"],
                ]
            )
    typer.echo(out.getvalue(), nl=False)


def _size(message_bytes: float) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if message_bytes >= scale and message_bytes % scale == 0:
            return f"{message_bytes / scale:g} {unit}"
    return f"{message_bytes:g} B"


class LazyProgress:
    """A rich progress bar on stderr that appears only once a plan has run for `delay_s`
    seconds, so quick plans print nothing extra."""

    def __init__(self, enabled: bool, delay_s: float = 1.5) -> None:
        self.enabled = enabled
        self.delay_s = delay_s
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
            self.bar = Progress(
                TextColumn("{task.description:<8}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("stages"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=False,
            )
            self.bar.start()
        if name not in self.tasks:
            self.tasks[name] = self.bar.add_task(name, total=total)
        self.bar.update(self.tasks[name], completed=done)


@cli.command("serve")
def serve_command(
    host: Annotated[str | None, typer.Option(help="bind address (default RWAOPT_HOST)")] = None,
    port: Annotated[int | None, typer.Option(help="port (default RWAOPT_PORT)")] = None,
) -> None:
    """Run the HTTP service (uvicorn); the database is migrated at start-up."""
    import uvicorn

    settings = get_settings()
    uvicorn.run("app.main:app", host=host or settings.host, port=port or settings.port)


@cli.command("worker")
def worker_command(
    burst: Annotated[bool, typer.Option(help="stop when the queue is empty")] = False,
) -> None:
    """Run an RQ worker for queued plans (RWAOPT_JOBS=rq; Redis at RWAOPT_REDIS_URL)."""
    from app.jobs import run_worker

    settings = get_settings()
    migrate(settings.database_url)
    run_worker(settings, burst=burst)


def main() -> None:
    cli(prog_name="rwaopt")


if __name__ == "__main__":
    main()
