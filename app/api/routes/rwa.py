"""POST /api/v1/rwa: one stage's certified RWA (the body of `rwaopt rwa --input`)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query

from app.schemas import MAX_TIME_LIMIT_S, Method, RwaInput
from app.service import rwa, rwa_payload
from models.ring import Ring

router = APIRouter(prefix="/rwa", tags=["rwa"])

EXAMPLE = {
    "nodes": 6,
    "fibers": 1,
    "wavelengths": 2,
    "demands": [[0, 3, 2], [1, 4, 1], [2, 5, 1, "cw"], [5, 0, 1, "ccw"]],
}


@router.post("")
def solve(
    body: Annotated[RwaInput, Body(openapi_examples={"small": {"value": EXAMPLE}})],
    method: Annotated[Method, Query(description="auto, exact, exact-highs or heuristic")] = "auto",
    time_limit_s: Annotated[float, Query(gt=0, le=MAX_TIME_LIMIT_S)] = 10.0,
) -> dict[str, Any]:
    """chi, lower bound, status, steps, method and the validated assignment. Runs in a worker
    thread (a plain `def` endpoint), so a long solve does not block the event loop."""
    stage, result = rwa(body, method, time_limit_s)
    return rwa_payload(stage, result, Ring(body.nodes, body.fibers, body.wavelengths))
