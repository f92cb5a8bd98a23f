"""How users reach rwaopt: the HTTP service, the CLI, jobs and persistence."""

from __future__ import annotations

from functools import cache


@cache
def version() -> str:
    """rwaopt's version: one source, pyproject.toml (read from the installed metadata on
    first use; importlib.metadata costs 60 ms, too much for `rwaopt --help`)."""
    from importlib.metadata import version as installed

    return installed("rwaopt")
