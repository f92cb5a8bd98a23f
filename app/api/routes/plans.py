"""Plans: POST /api/v1/plans (solve now or queue), read, page, delete, lightpath table, plots."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Depends, Path, Query, Request, Response, status
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse

from app.api.auth import Caller, caller
from app.api.deps import admitted, enqueue, get_store
from app.api.errors import BINARY, TEXT, responses
from app.api.examples import accepted
from app.api.params import JobId, Limit, Offset
from app.errors import NotFoundError, NotReadyError
from app.jobs.pool import plan_async
from app.jobs.queue import stop, submit
from app.persistence.store import PlanStore
from app.planning import prepare
from app.presentation.lightpath_table import rows
from app.presentation.plots import KINDS, channel_usage_figure, render, time_figure
from app.schemas.documents import JobStatus, PlanDocument, PlanPage, PlanSummary
from app.schemas.requests import PlanRequest
from app.schemas.results import PlanResult
from app.settings import get_settings
from app.sweeps import request_hash

router = APIRouter(prefix="/plans", tags=["plans"])

SMALL = {
    "ring": {"nodes": 16, "fibers_per_direction": 1, "wavelengths_per_fiber": 4},
    "collective": "allgather",
    "algorithms": "all",
    "message_sizes_bytes": [4096, 1048576, 67108864],
    "time_limit_s": 5,
}
N1024 = {
    "ring": {"nodes": 1024, "fibers_per_direction": 1, "wavelengths_per_fiber": 64},
    "collective": "allgather",
    "algorithms": "all",
    "message_sizes_bytes": [65536, 1048576, 4194304, 67108864],
    "time_limit_s": 10,
}
EXAMPLES = {
    "small": {
        "summary": "every all-gather algorithm, N=16, w=4 (a second)",
        "value": SMALL,
    },
    "allgather_1024": {
        "summary": "every all-gather algorithm, N=1024, w=64 (about 20 s; "
        "or set wait=false and poll)",
        "value": N1024,
    },
    "hring_group": {
        "summary": "H-Ring all-reduce with its group size, N=64",
        "value": {
            "ring": {"nodes": 64, "wavelengths_per_fiber": 8},
            "collective": "allreduce",
            "algorithms": ["hring", "ring", "wrht"],
            "parameters": {"hring": {"group": 8}},
            "message_sizes_bytes": [1048576],
        },
    },
}

Store = Annotated[PlanStore, Depends(get_store)]
Who = Annotated[Caller, Depends(caller)]


@router.post(
    "",
    status_code=status.HTTP_200_OK,
    response_model=PlanDocument,
    responses={
        202: {"model": PlanDocument, **accepted("plan_allreduce.json")[202]},
        **responses(400, 404, 408, 413, 422, 429, 503),
    },
)
async def create_plan(
    body: Annotated[PlanRequest, Body(openapi_examples=EXAMPLES)],
    store: Store,
    who: Who,
    request: Request,
    response: Response,
    wait: Annotated[
        bool,
        Query(
            description="true: solve now and return the stored plan (200); false: queue it and "
            "return at once (202), then poll GET /api/v1/plans/{id}"
        ),
    ] = True,
) -> PlanDocument:
    """Plan the algorithms: per algorithm its stages (chi, steps, bound, gap, status, method),
    claimed vs true steps, time per message size, efficiency against the hardware bound, and
    a recommendation per message size. The request is checked completely before anything is
    solved or stored; solves run in solver processes (or RQ workers), never on the event
    loop."""
    received_at = datetime.now(UTC)
    spec = prepare(body)  # every input error is a 4xx now, before anything is stored
    key = request_hash(body, get_settings().shape_search_budget_s)  # sweeps reuse it by this
    if not wait:
        row = await run_in_threadpool(
            admitted,
            1,
            lambda: store.create(body, JobStatus.QUEUED, None, (), None, key, who.owner),
        )
        await enqueue(row.id, submit, store.delete)
        response.status_code = status.HTTP_202_ACCEPTED
        response.headers["Location"] = f"/api/v1/plans/{row.id}"
        return row
    settings = get_settings()
    solved = await plan_async(
        spec, settings.solver_processes, request.is_disconnected, settings.solve_wait_s
    )
    row = await run_in_threadpool(
        store.create,
        body,
        JobStatus.DONE,
        solved.result,
        solved.solutions,
        solved.seconds,
        key,
        who.owner,
        received_at,
    )
    response.headers["Location"] = f"/api/v1/plans/{row.id}"
    return row


@router.get("", response_model=PlanPage, responses=responses(422))
def list_plans(
    store: Store,
    who: Who,
    offset: Offset = 0,
    limit: Limit = 20,
) -> PlanPage:
    """Stored plans, newest first."""
    total, found = store.page(offset, limit, who.owner)
    return PlanPage(
        total=total, offset=offset, limit=limit, items=[PlanSummary.of(p) for p in found]
    )


def _row(store: PlanStore, plan_id: str, who: Caller) -> PlanDocument:
    row = store.get(plan_id, who.owner)
    if row is None:
        raise NotFoundError(f"no plan {plan_id!r}; GET /api/v1/plans lists the stored plans")
    return row


def _done(store: PlanStore, plan_id: str, who: Caller) -> PlanResult:
    row = _row(store, plan_id, who)
    if row.status != JobStatus.DONE or row.result is None:
        unfinished = row.status in (JobStatus.QUEUED, JobStatus.RUNNING)
        raise NotReadyError(
            f"plan {plan_id} is {row.status}; its lightpaths and plots exist once it is done"
            if unfinished
            else f"plan {plan_id} is {row.status}: it has no lightpaths or plots; post it "
            "again for them",
            {"status": row.status.value},
        )
    return row.result


@router.get("/{plan_id}", response_model=PlanDocument, responses=responses(404, 422))
def get_plan(plan_id: JobId, store: Store, who: Who) -> PlanDocument:
    return _row(store, plan_id, who)


@router.delete("/{plan_id}", status_code=204, responses=responses(404, 422))
def delete_plan(plan_id: JobId, store: Store, who: Who) -> Response:
    if not store.delete(plan_id, who.owner):
        raise NotFoundError(f"no plan {plan_id!r}")
    stop([plan_id])  # a running solve ends now (inline jobs notice the deletion themselves)
    return Response(status_code=204)


@router.get(
    "/{plan_id}/assignment",
    responses={
        200: {
            "content": {"text/csv": TEXT, "application/x-ndjson": TEXT},
            "description": "one row per lightpath: algorithm, stage, source, destination, "
            "direction, fiber, wavelength, slot, hops",
        },
        **responses(404, 409, 422),
    },
    response_class=StreamingResponse,
)
def assignment(
    plan_id: JobId,
    store: Store,
    who: Who,
    format: Annotated[Literal["csv", "ndjson"], Query(description="csv or ndjson")] = "csv",
    algorithm: Annotated[
        str | None, Query(description="only this algorithm (default: all)", max_length=32)
    ] = None,
) -> StreamingResponse:
    """The lightpath table, streamed in chunks (an N=1024 plan has millions of rows)."""
    result = _done(store, plan_id, who)
    if algorithm is not None:
        result = result.model_copy(update={"algorithms": [result.algorithm(algorithm)]})
    media = "text/csv" if format == "csv" else "application/x-ndjson"
    return StreamingResponse(
        rows(result, store.solutions(plan_id, algorithm), format),
        media_type=media,
        headers={"Content-Disposition": f'attachment; filename="plan-{plan_id}.{format}"'},
    )


@router.get(
    "/{plan_id}/plots/{kind}.{fmt}",
    responses={
        200: {
            "content": {"image/png": BINARY, "image/svg+xml": BINARY},
            "description": "the plot",
        },
        **responses(404, 409, 422),
    },
    response_class=Response,
)
def plot(
    plan_id: JobId,
    kind: Annotated[Literal["channel-usage", "time-vs-message"], Path(description="which plot")],
    fmt: Annotated[Literal["png", "svg"], Path(description="image format")],
    store: Store,
    who: Who,
    algorithm: Annotated[
        str | None,
        Query(description="channel-usage: which algorithm (default: the first)", max_length=32),
    ] = None,
) -> Response:
    """channel-usage: lightpaths per link / (slots F w) for every stage of one algorithm;
    time-vs-message: true and closed-form time per algorithm against message size."""
    assert kind in KINDS
    result = _done(store, plan_id, who)
    if kind == "time-vs-message":
        fig = time_figure(result)
    else:
        name = algorithm or result.algorithms[0].algorithm
        fig = channel_usage_figure(result, store.solutions(plan_id, name), name)
    media = "image/png" if fmt == "png" else "image/svg+xml"
    return Response(render(fig, fmt), media_type=media)
