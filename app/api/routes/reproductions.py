"""Reproductions: POST /api/v1/reproductions (queued like plans), read, and the report's files."""

from __future__ import annotations

import mimetypes
from typing import Annotated

from fastapi import APIRouter, Body, Depends, Response, status
from fastapi.concurrency import run_in_threadpool

from app.api.auth import Caller, caller
from app.api.deps import admitted, enqueue, get_reproductions
from app.api.errors import BINARY, responses
from app.api.examples import accepted
from app.api.params import FilePath, JobId, Limit, Offset
from app.errors import NotFoundError, NotReadyError
from app.jobs.queue import stop, submit_reproduction
from app.persistence.store import ReproductionStore
from app.schemas.documents import (
    JobStatus,
    ReproductionDocument,
    ReproductionPage,
    ReproductionSummary,
)
from app.schemas.requests import ReproductionRequest

router = APIRouter(prefix="/reproductions", tags=["reproductions"])


Store = Annotated[ReproductionStore, Depends(get_reproductions)]
Who = Annotated[Caller, Depends(caller)]
EXAMPLE = {
    "quick": {
        "summary": "TRA's K and D, quick grids (about 10 s)",
        "value": {"targets": ["tra"], "quick": True},
    },
    "full": {
        "summary": "TRA's K and D, the papers' grids (about a minute)",
        "value": {"targets": ["tra"]},
    },
}


@router.post(
    "",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=ReproductionDocument,
    responses={**accepted("reproduction.json"), **responses(400, 408, 413, 422, 429, 503)},
)
async def create_reproduction(
    body: Annotated[ReproductionRequest, Body(openapi_examples=EXAMPLE)],
    store: Store,
    who: Who,
    response: Response,
) -> ReproductionDocument:
    """Queue a reproduction of the papers' tables and figures; poll GET .../{id} for its
    status and findings, then download report.md, report.html, findings.json, tables and
    figures from .../{id}/files/{path}."""
    row = await run_in_threadpool(admitted, 1, lambda: store.create(body, who.owner))
    await enqueue(row.id, submit_reproduction, store.delete)
    response.headers["Location"] = f"/api/v1/reproductions/{row.id}"
    return row


@router.get("", response_model=ReproductionPage, responses=responses(422))
def list_reproductions(
    store: Store,
    who: Who,
    offset: Offset = 0,
    limit: Limit = 20,
) -> ReproductionPage:
    """Stored reproductions, newest first: their targets, status and verdicts."""
    total, found = store.page(offset, limit, who.owner)
    items = [ReproductionSummary.of(d) for d in found]
    return ReproductionPage(total=total, offset=offset, limit=limit, items=items)


@router.delete("/{reproduction_id}", status_code=204, responses=responses(404, 422))
def delete_reproduction(reproduction_id: JobId, store: Store, who: Who) -> Response:
    """Cancel a queued or running reproduction, or delete a finished one with its files. A
    queued job is skipped, an RQ work horse is stopped; an inline run's report is discarded
    when it ends (it is no longer stored)."""
    if not store.delete(reproduction_id, who.owner):
        raise NotFoundError(f"no reproduction {reproduction_id!r}")
    stop([reproduction_id])
    return Response(status_code=204)


def _row(store: ReproductionStore, reproduction_id: str, who: Caller) -> ReproductionDocument:
    row = store.get(reproduction_id, who.owner)
    if row is None:
        raise NotFoundError(f"no reproduction {reproduction_id!r}")
    return row


@router.get(
    "/{reproduction_id}", response_model=ReproductionDocument, responses=responses(404, 422)
)
def get_reproduction(reproduction_id: JobId, store: Store, who: Who) -> ReproductionDocument:
    return _row(store, reproduction_id, who)


@router.get(
    "/{reproduction_id}/files/{path:path}",
    response_class=Response,
    responses={
        200: {
            "description": "a file of the report (markdown, HTML, JSON, CSV, SVG or PNG)",
            "content": {"application/octet-stream": BINARY},
        },
        **responses(404, 409, 422),
    },
)
def reproduction_file(reproduction_id: JobId, path: FilePath, store: Store, who: Who) -> Response:
    row = _row(store, reproduction_id, who)
    if row.status != JobStatus.DONE:
        raise NotReadyError(
            f"reproduction {reproduction_id} is {row.status}; its files exist once it is done",
            {"status": row.status.value},
        )
    data = store.file(reproduction_id, path)
    if data is None:
        raise NotFoundError(f"no file {path!r}; the report has: {', '.join(row.files)}")
    media = mimetypes.guess_type(path)[0] or "application/octet-stream"
    if path.endswith(".md"):
        media = "text/markdown"
    return Response(data, media_type=media)
