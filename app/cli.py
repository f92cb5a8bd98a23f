"""The `rwaopt` command line. Every command calls the same typed functions as the REST API."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from app.catalog_view import catalog
from models.errors import RwaoptError

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


def main() -> None:
    cli(prog_name="rwaopt")


if __name__ == "__main__":
    sys.exit(main())
