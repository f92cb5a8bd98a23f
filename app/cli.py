"""The `rwaopt` command line. Every command calls the same typed functions as the REST API."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from app.catalog_view import catalog
from app.schemas import RwaInput
from app.service import plan as plan_service
from app.service import plan_payload, rwa, rwa_payload
from models.errors import InvalidInputError, RwaoptError
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
        if "claimed_steps" in e:
            line += f"  = {e['claimed_steps']}"
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
        first = error.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "file"
        _fail(InvalidInputError(f"{input_path}: {where}: {first['msg']}"))
        return
    try:
        _check_method(method)
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


def _check_method(method: str) -> None:
    if method not in ("auto", "exact", "exact-highs", "heuristic"):
        raise InvalidInputError(
            f"unknown method {method!r}; use auto, exact, exact-highs or heuristic"
        )


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
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Plan algorithms: true steps (certified RWA per stage) beside the papers' claims."""
    try:
        _check_method(method)
        params = _parse_params(param)
        if params and (len(algorithm) != 1 or algorithm == ["all"]):
            raise InvalidInputError("--param needs exactly one --algorithm")
        ring = Ring(nodes, fibers, wavelengths)
        per_algorithm = {algorithm[0]: params} if params else {}
        progress = _progress if sys.stderr.isatty() else None
        plans = plan_service(
            collective,
            algorithm,
            ring,
            per_algorithm,
            message_bytes,
            None,
            method,
            time_limit,
            progress,
            max_tx,
            max_rx,
        )
    except RwaoptError as error:
        _fail(error)
        return
    payload = [plan_payload(p) for p in plans]
    if as_json:
        _emit_json(payload)
        return
    typer.echo(f"{'algorithm':<10}{'claimed':>10}{'true':>8}{'bound':>8}{'optimal':>9}  time (s)")
    for p in payload:
        claimed = "-" if p["claimed_steps"] is None else f"{p['claimed_steps']:g}"
        optimal = sum(s["status"] == "optimal" for s in p["stages"])
        typer.echo(
            f"{p['algorithm']:<10}{claimed:>10}{p['true_steps']:>8}{p['steps_lower_bound']:>8}"
            f"{optimal:>5}/{len(p['stages']):<3}  {p['time_s']:.6g}"
        )


def _progress(done: int, total: int) -> None:
    if total >= 20 and (done == total or done % max(1, total // 50) == 0):
        sys.stderr.write(f"\r  stages {done}/{total}")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


@cli.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="bind address")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port")] = 8000,
) -> None:
    """Run the HTTP service (uvicorn) on the embedded default."""
    import uvicorn

    uvicorn.run("app.main:app", host=host, port=port)


def main() -> None:
    cli(prog_name="rwaopt")


if __name__ == "__main__":
    main()
