"""Reproductions: POST /api/v1/reproductions (queued like plans), read, and the report's files."""

from __future__ import annotations

import mimetypes
from typing import Annotated

from fastapi import APIRouter, Body, Depends, Response, status
from fastapi.concurrency import run_in_threadpool

from app.api.deps import enqueue, get_reproductions
from app.api.errors import responses
from app.errors import NotFoundError, NotReadyError
from app.jobs.queue import submit_reproduction
from app.persistence.store import ReproductionStore
from app.schemas.documents import JobStatus, ReproductionDocument
from app.schemas.requests import ReproductionRequest

router = APIRouter(prefix="/reproductions", tags=["reproductions"])


Store = Annotated[ReproductionStore, Depends(get_reproductions)]
EXAMPLE = {"quick": {"summary": "TRA's K and D (a second)", "value": {"targets": ["tra"]}}}


@router.post(
    "",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=ReproductionDocument,
    responses=responses(400, 422, 503),
)
async def create_reproduction(
    body: Annotated[ReproductionRequest, Body(openapi_examples=EXAMPLE)],
    store: Store,
    response: Response,
) -> ReproductionDocument:
    """Queue a reproduction of the papers' tables and figures; poll GET .../{id} for its
    status and findings, then download report.md, report.html, findings.json, tables and
    figures from .../{id}/files/{path}."""
    row = await run_in_threadpool(store.create, body)
    await enqueue(row.id, submit_reproduction, store.fail)
    response.headers["Location"] = f"/api/v1/reproductions/{row.id}"
    return row


def _row(store: ReproductionStore, reproduction_id: str) -> ReproductionDocument:
    row = store.get(reproduction_id)
    if row is None:
        raise NotFoundError(f"no reproduction {reproduction_id!r}")
    return row


@router.get(
    "/{reproduction_id}", response_model=ReproductionDocument, responses=responses(404, 422)
)
def get_reproduction(reproduction_id: str, store: Store) -> ReproductionDocument:
    return _row(store, reproduction_id)


@router.get(
    "/{reproduction_id}/files/{path:path}",
    response_class=Response,
    responses={
        200: {"description": "a file of the report (markdown, HTML, JSON, CSV, SVG or PNG)"},
        **responses(404, 409, 422),
    },
)
def reproduction_file(reproduction_id: str, path: str, store: Store) -> Response:
    row = _row(store, reproduction_id)
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
