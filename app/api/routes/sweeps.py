"""Sweeps: POST /api/v1/sweeps (a grid of plans, queued point by point), progress, results
as CSV / NDJSON / JSON, plots, paging, and DELETE to cancel (or delete once finished)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Depends, Path, Query, Response, status
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse

from app.api.auth import Caller, caller
from app.api.deps import admitted
from app.api.errors import BINARY, TEXT, responses
from app.api.examples import accepted
from app.api.params import JobId, Limit, Offset
from app.errors import NotFoundError
from app.jobs.queue import stop, submit
from app.persistence.store import SweepStore
from app.presentation.plots import render, sweep_steps_figure, sweep_time_figure
from app.schemas.documents import JobStatus
from app.schemas.sweeps import (
    ResultFormat,
    SweepDocument,
    SweepPage,
    SweepRequest,
    SweepRow,
    SweepSummary,
)
from app.settings import get_settings
from app.sweeps import csv_lines, result_rows, start

router = APIRouter(prefix="/sweeps", tags=["sweeps"])


def get_sweeps() -> SweepStore:
    return SweepStore(get_settings().database_url)


Store = Annotated[SweepStore, Depends(get_sweeps)]
Who = Annotated[Caller, Depends(caller)]
EXAMPLES = {
    "grid": {
        "summary": "every all-reduce algorithm on a 2 x 2 grid (seconds)",
        "value": {
            "collective": "allreduce",
            "algorithms": "all",
            "nodes": [8, 16],
            "wavelengths_per_fiber": [4, 8],
            "fibers_per_direction": [1],
            "message_sizes_bytes": [1048576],
            "method": "auto",
            "time_limit_s": 10,
        },
    },
    "shapes": {
        "summary": "paper against best shapes of every all-gather algorithm, N = 16 and 32",
        "value": {
            "collective": "allgather",
            "nodes": [16, 32],
            "wavelengths_per_fiber": 4,
            "shape": ["paper", "best"],
            "message_sizes_bytes": [65536, 4194304],
        },
    },
}


@router.post(
    "",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=SweepDocument,
    responses={**accepted("sweep.json"), **responses(400, 404, 408, 413, 422, 429, 503)},
)
async def create_sweep(
    body: Annotated[SweepRequest, Body(openapi_examples=EXAMPLES)],
    store: Store,
    who: Who,
    response: Response,
) -> SweepDocument:
    """Queue a grid of plans: every plan option may be one value or a list to sweep over, and
    the points are every combination. A point solved before (same request, same rwaopt
    version) by any plan or sweep is reused and counted `cached`. Poll GET .../{id} for
    progress, then GET .../{id}/results."""
    settings = get_settings()
    document = await run_in_threadpool(
        admitted,
        len(body.points()),  # at most: reused points add nothing
        lambda: start(store, body, settings.shape_search_budget_s, submit, who.owner),
    )
    response.headers["Location"] = f"/api/v1/sweeps/{document.id}"
    return document


@router.get("", response_model=SweepPage, responses=responses(422))
def list_sweeps(
    store: Store,
    who: Who,
    offset: Offset = 0,
    limit: Limit = 20,
) -> SweepPage:
    """Stored sweeps, newest first."""
    total, found = store.page(offset, limit, who.owner)
    items = [SweepSummary.model_validate(d, from_attributes=True) for d in found]
    return SweepPage(total=total, offset=offset, limit=limit, items=items)


def _sweep(store: SweepStore, sweep_id: str, who: Caller) -> SweepDocument:
    found = store.get(sweep_id, who.owner)
    if found is None:
        raise NotFoundError(f"no sweep {sweep_id!r}; GET /api/v1/sweeps lists them")
    return found


@router.get("/{sweep_id}", response_model=SweepDocument, responses=responses(404, 422))
def get_sweep(sweep_id: JobId, store: Store, who: Who) -> SweepDocument:
    """Status (queued, running, done, failed, cancelled), point counts and an ETA."""
    return _sweep(store, sweep_id, who)


@router.delete("/{sweep_id}", status_code=204, responses=responses(404, 422))
def cancel_sweep(sweep_id: JobId, store: Store, who: Who) -> Response:
    """Cancel a queued or running sweep: queued points are dropped, running solves stop,
    finished points stay and the sweep stays readable (`cancelled`). Delete a finished one
    (done, failed or cancelled): it is then 404, and so are the plans made for it that no
    other sweep uses (plans posted on their own, or another sweep's, stay)."""
    stopped = store.discard(sweep_id, who.owner)
    if stopped is None:
        raise NotFoundError(f"no sweep {sweep_id!r}")
    stop(stopped)
    return Response(status_code=204)


@router.get(
    "/{sweep_id}/results",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {
                "text/csv": TEXT,
                "application/x-ndjson": TEXT,
                "application/json": {"schema": {"type": "array", "items": {"type": "object"}}},
            },
            "description": "one row per point, algorithm and message size (see SweepRow); a "
            "point without a result has one row with its status and error",
        },
        **responses(404, 422),
    },
)
def sweep_results(
    sweep_id: JobId,
    store: Store,
    who: Who,
    format: Annotated[ResultFormat, Query(description="csv, ndjson or json")] = "csv",
) -> StreamingResponse:
    """The results so far, streamed (finished points have rows; the others say their status)."""
    sweep = _sweep(store, sweep_id, who).request
    rows = result_rows(sweep, store.points(sweep_id))
    body: Iterator[str]
    if format == "csv":
        body, media = csv_lines(sweep, rows), "text/csv"
    elif format == "ndjson":
        body, media = (r.model_dump_json() + "\n" for r in rows), "application/x-ndjson"
    else:
        body, media = _json_array(rows), "application/json"
    return StreamingResponse(
        body,
        media_type=media,
        headers={"Content-Disposition": f'attachment; filename="sweep-{sweep_id}.{format}"'},
    )


def _json_array(rows: Iterator[SweepRow]) -> Iterator[str]:
    yield "["
    for index, row in enumerate(rows):
        yield ("," if index else "") + row.model_dump_json()
    yield "]"


@router.get(
    "/{sweep_id}/plots/{kind}.{fmt}",
    response_class=Response,
    responses={
        200: {
            "content": {"image/png": BINARY, "image/svg+xml": BINARY},
            "description": "the plot",
        },
        **responses(404, 422),
    },
)
def sweep_plot(
    sweep_id: JobId,
    kind: Annotated[Literal["steps-vs-nodes", "time-vs-message"], Path(description="which plot")],
    fmt: Annotated[Literal["png", "svg"], Path(description="image format")],
    store: Store,
    who: Who,
) -> Response:
    """steps-vs-nodes: true steps against N per algorithm; time-vs-message: true time
    against message size per algorithm and point (finished points so far)."""
    sweep = _sweep(store, sweep_id, who).request
    rows = [r for r in result_rows(sweep, store.points(sweep_id)) if r.status == JobStatus.DONE]
    fig = sweep_steps_figure(rows) if kind == "steps-vs-nodes" else sweep_time_figure(rows)
    media = "image/png" if fmt == "png" else "image/svg+xml"
    return Response(render(fig, fmt), media_type=media)
