"""POST /api/v1/rwa: one stage's certified RWA (the body of `rwaopt rwa --input`)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query

from app.api.errors import responses
from app.compute import rwa_async
from app.schemas import MAX_TIME_LIMIT_S, Method, RwaInput
from app.settings import get_settings

router = APIRouter(prefix="/rwa", tags=["rwa"])

EXAMPLE = {
    "nodes": 6,
    "fibers": 1,
    "wavelengths": 2,
    "demands": [[0, 3, 2], [1, 4, 1], [2, 5, 1, "cw"], [5, 0, 1, "ccw"]],
}


@router.post("", responses=responses(400, 413, 422, 503))
async def solve(
    body: Annotated[RwaInput, Body(openapi_examples={"small": {"value": EXAMPLE}})],
    method: Annotated[Method, Query(description="auto, exact, exact-highs or heuristic")] = "auto",
    time_limit_s: Annotated[float, Query(gt=0, le=MAX_TIME_LIMIT_S)] = 10.0,
) -> dict[str, Any]:
    """chi, lower bound, status, steps, method and the validated assignment. Solved in a solver
    process (app.compute), so a long solve does not block the event loop."""
    return await rwa_async(body.model_dump(), method, time_limit_s, get_settings().solver_processes)
