"""POST /api/v1/rwa: one stage's certified RWA (the body of `rwaopt rwa --input`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query, Request

from app.api.errors import responses
from app.jobs.pool import rwa_async
from app.schemas.requests import MAX_PER_NODE, MAX_TIME_LIMIT_S, RwaInput, SolveSettings
from app.schemas.results import RwaResponse
from app.settings import get_settings
from solver.outcome import Method

router = APIRouter(prefix="/rwa", tags=["rwa"])

EXAMPLE = {
    "nodes": 6,
    "fibers": 1,
    "wavelengths": 2,
    "demands": [[0, 3, 2], [1, 4, 1], [2, 5, 1, "cw"], [5, 0, 1, "ccw"]],
}


@router.post("", response_model=RwaResponse, responses=responses(400, 408, 413, 422, 503))
async def solve(
    body: Annotated[RwaInput, Body(openapi_examples={"small": {"value": EXAMPLE}})],
    request: Request,
    method: Annotated[Method, Query(description="auto, exact, exact-highs or heuristic")] = (
        Method.AUTO
    ),
    time_limit_s: Annotated[
        float,
        Query(
            gt=0,
            le=MAX_TIME_LIMIT_S,
            allow_inf_nan=False,  # nan was "less than or equal to 600" (review, session 34)
            description="seconds the exact search may take",
        ),
    ] = 10.0,
    max_tx_per_node: Annotated[
        int | None,
        Query(ge=1, le=MAX_PER_NODE, description="most lightpaths a node sends per slot"),
    ] = None,
    max_rx_per_node: Annotated[
        int | None,
        Query(ge=1, le=MAX_PER_NODE, description="most lightpaths a node receives per slot"),
    ] = None,
) -> RwaResponse:
    """chi, lower bound, status, steps, method and the validated assignment. Solved in a solver
    process (app.jobs.pool), so a long solve does not block the event loop; a small stage goes
    to a process of its own, so it does not wait behind long plans. A client that disconnects
    ends its solve."""
    solve_settings = SolveSettings(
        method=method,
        time_limit_s=time_limit_s,
        max_tx_per_node=max_tx_per_node,
        max_rx_per_node=max_rx_per_node,
    )
    settings = get_settings()
    return await rwa_async(
        body,
        solve_settings,
        settings.solver_processes,
        request.is_disconnected,
        settings.solve_wait_s,
    )
