"""Pydantic types at the boundary (CLI input files and, later, REST bodies)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

MAX_NODES = 4096
MAX_DEMANDS = 2_000_000
MAX_TIME_LIMIT_S = 600.0


class RwaInput(BaseModel):
    """One stage: `{"nodes", "fibers", "wavelengths", "demands": [[s, d, k(, dir)], ...]}`."""

    model_config = ConfigDict(extra="forbid")

    nodes: Annotated[int, Field(ge=2, le=MAX_NODES, description="ring size N")]
    fibers: Annotated[int, Field(ge=1, le=64, description="fibres per direction F")] = 1
    wavelengths: Annotated[int, Field(ge=1, le=4096, description="wavelengths per fibre w")] = 64
    demands: Annotated[
        list[list[int | str]],
        Field(
            max_length=MAX_DEMANDS,
            description="[source, destination, count] or with a 4th "
            "element 'cw', 'ccw' or 'any' restricting the direction",
        ),
    ]

    @field_validator("demands")
    @classmethod
    def _shape(cls, demands: list[list[int | str]]) -> list[list[int | str]]:
        for i, row in enumerate(demands):
            if len(row) not in (3, 4):
                raise ValueError(f"demand {i} must be [s, d, k] or [s, d, k, direction]")
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in row[:3]):
                raise ValueError(f"demand {i}: s, d and k must be integers")
            if len(row) == 4 and row[3] not in ("cw", "ccw", "any"):
                raise ValueError(f"demand {i}: direction must be 'cw', 'ccw' or 'any'")
        return demands


Method = Literal["auto", "exact", "exact-highs", "heuristic"]
