"""Query-parameter types stricter than pydantic's lax defaults."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import Path, Query
from pydantic import BeforeValidator

_INTEGER = re.compile(r"-?[0-9]+")


def _plain_integer(value: Any) -> Any:
    """Accept "12" but not "+12.0" or "1e1" for an integer parameter (pydantic's lax mode
    would read all three as 12; the OpenAPI schema says integer)."""
    if isinstance(value, str) and not _INTEGER.fullmatch(value):
        raise ValueError(f"{value!r} is not an integer")
    return value


PlainInteger = BeforeValidator(_plain_integer)
"""Placed after a parameter's `Query(ge=.., le=..)`, so the limits stay in the number's own
schema (`minimum` / `maximum` in the OpenAPI document); before them, pydantic checks the
limits in a step of their own and writes its `ge` / `le` there, which no client reads."""


# A job id as the stores make them (UUIDs); anything else (a NUL byte, a 10 kB string) is a
# 422 before it reaches the database.
JobId = Annotated[
    str,
    Path(pattern=r"^[A-Za-z0-9-]{1,64}$", description="the id the job was created with (a UUID)"),
]


# A file of a reproduction's report: printable text without NUL or control characters (a NUL
# reaching PostgreSQL would be a 503, not the 404 / 422 it is).
FilePath = Annotated[
    str,
    Path(
        pattern=r"^[^\x00-\x1f\x7f]{1,512}$",
        description="a file of the report, as the reproduction's `files` lists it",
    ),
]


# Paging of every job list (plans, sweeps), newest first.
Offset = Annotated[int, Query(ge=0, le=10**9, description="entries to skip"), PlainInteger]
Limit = Annotated[int, Query(ge=1, le=200, description="entries per page"), PlainInteger]
