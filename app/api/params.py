"""Query-parameter types stricter than pydantic's lax defaults."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator

_INTEGER = re.compile(r"-?[0-9]+")


def _plain_integer(value: Any) -> Any:
    """Accept "12" but not "+12.0" or "1e1" for an integer parameter (pydantic's lax mode
    would read all three as 12; the OpenAPI schema says integer)."""
    if isinstance(value, str) and not _INTEGER.fullmatch(value):
        raise ValueError(f"{value!r} is not an integer")
    return value


QueryInt = Annotated[int, BeforeValidator(_plain_integer)]
