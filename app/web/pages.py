"""The planner's pages: `/` (a plan form and the recent jobs), `/plans/{id}`, `/sweeps/{id}`
and `/reproductions/{id}`, none of them in the OpenAPI document.

A page is a shell and a *part*: the part is the job as HTML (rendered here, from the stores the
API reads, owner-checked like the API), served at `/web/parts/...` behind the same API-key
check as `/api/v1`. With keys off the shell has the part in it (a page that reads without
JavaScript). With keys on, the shell holds nothing of any tenant: planner.js asks for the key,
keeps it in sessionStorage and fetches the part, the plots and the downloads with `X-API-Key`.
Queued and running jobs are followed by refetching the part.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Callable
from datetime import UTC, datetime
from functools import lru_cache, partial
from importlib import resources
from itertools import islice
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from app import version
from app.api.auth import Caller, caller
from app.api.errors import ErrorResponse
from app.api.params import JobId
from app.errors import ErrorBody, NotFoundError, error_body, http_status
from app.persistence.store import PlanStore, ReproductionStore, SweepStore
from app.presentation.text import (
    REDUCE_THEN_BROADCAST_FAMILIES,
    exact_text,
    faster_shape_text,
    feasible_shape_text,
    no_reach_text,
    settings_text,
)
from app.schemas.requests import MAX_NODES, HardwareSpec, OpticsSpec
from app.schemas.results import CatalogEntry
from app.schemas.sweeps import RING_AXES
from app.service import catalog
from app.settings import get_settings
from app.sweeps import result_rows
from app.web.views import FILTERS, form_fields, row_verdict, seconds_text
from models.algorithms.base import Collective
from models.errors import RwaoptError
from solver.outcome import Method

router = APIRouter(include_in_schema=False)

# Nothing but this server: the browser refuses any other origin (plots come as blob: URLs
# when keys are on), so the pages work offline and leak nothing.
CSP = (
    "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {"Content-Security-Policy": CSP, "Cache-Control": "no-store"}
PAGE_ROWS = 50  # rows of a sweep's results or a reproduction's findings per page
RECENT = 10
_JOB_ID = re.compile(r"[A-Za-z0-9-]{1,64}")  # app.api.params.JobId


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("app.web", "templates"),
        autoescape=select_autoescape(("html",)),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(FILTERS)
    env.filters["row_verdict"] = row_verdict
    env.globals["reduce_then_broadcast_families"] = REDUCE_THEN_BROADCAST_FAMILIES
    env.globals["exact_text"] = partial(exact_text, seconds=seconds_text)
    env.globals["faster_shape_text"] = partial(faster_shape_text, seconds=seconds_text)
    env.globals["no_reach_text"] = no_reach_text
    env.globals["feasible_shape_text"] = feasible_shape_text
    env.globals["max_nodes"] = MAX_NODES
    env.globals["settings_text"] = settings_text
    return env


TEMPLATES = Jinja2Templates(env=_environment())


def _render(template: str, **context: Any) -> Markup:
    keys = bool(get_settings().keys())
    return Markup(TEMPLATES.get_template(template).render(keys=keys, **context))


def _error_part(error: RwaoptError) -> Markup:
    return _render("error_part.html", error=error_body(error))


def _page(
    request: Request,
    template: str,
    part_url: str,
    build: Callable[[], Markup] | None,
    public: bool = False,
    **context: Any,
) -> HTMLResponse:
    """A page: the shell, with its part inside when keys are off or the part tells no
    tenant's data (`public`); else planner.js fetches it with the caller's key."""
    keys = bool(get_settings().keys())
    part, status = None, 200
    if (public or not keys) and build is not None:
        try:
            part = build()
        except RwaoptError as error:
            part, status = _error_part(error), http_status(error)
    return TEMPLATES.TemplateResponse(
        request,
        template,
        {"keys": keys, "version": version(), "part_url": part_url, "part": part, **context},
        status_code=status,
        headers=HEADERS,
    )


def _part(html: Markup) -> HTMLResponse:
    return HTMLResponse(str(html), headers=HEADERS)


def _elapsed_s(moment: datetime) -> float:
    return max(0.0, (datetime.now(UTC) - moment).total_seconds())


def _url() -> str:
    return get_settings().database_url


# --- the parts ---------------------------------------------------------------------------


def plan_part(plan_id: str, owner: str | None) -> Markup:
    doc = PlanStore(_url()).get(plan_id, owner)
    if doc is None:
        raise NotFoundError(f"no plan {plan_id!r}; the planner page lists the recent ones")
    return _render("plan_part.html", doc=doc, result=doc.result, age_s=_elapsed_s(doc.created_at))


def sweep_part(sweep_id: str, owner: str | None, offset: int) -> Markup:
    store = SweepStore(_url())
    doc = store.get(sweep_id, owner)
    if doc is None:
        raise NotFoundError(f"no sweep {sweep_id!r}; the planner page lists the recent ones")
    total, rows = 0, []
    for index, row in enumerate(result_rows(doc.request, store.points(sweep_id))):
        total = index + 1
        if offset <= index < offset + PAGE_ROWS:
            rows.append(row)
    swept = doc.request.swept()
    return _render(
        "sweep_part.html",
        doc=doc,
        rows=rows,
        swept=swept,
        columns=[n for n in swept if n not in (*RING_AXES, "collective")],  # SweepRow.swept
        page=_paging(f"/sweeps/{sweep_id}", offset, total),
        age_s=_elapsed_s(doc.created_at),
    )


def reproduction_part(job_id: str, owner: str | None, offset: int) -> Markup:
    doc = ReproductionStore(_url()).get(job_id, owner)
    if doc is None:
        raise NotFoundError(f"no reproduction {job_id!r}; the planner page lists the recent ones")
    findings = doc.findings or []
    figures = [f for f in doc.files if f.startswith("figures/") and f.endswith(".svg")]
    return _render(
        "reproduction_part.html",
        doc=doc,
        findings=list(islice(findings, offset, offset + PAGE_ROWS)),
        figures=figures,
        page=_paging(f"/reproductions/{job_id}", offset, len(findings)),
        age_s=_elapsed_s(doc.created_at),
    )


def recent_part(owner: str | None) -> Markup:
    url = _url()
    return _render(
        "recent_part.html",
        plans=PlanStore(url).page(0, RECENT, owner, posted_only=True),
        sweeps=SweepStore(url).page(0, RECENT, owner),
        reproductions=ReproductionStore(url).page(0, RECENT, owner),
    )


def _paging(page: str, offset: int, total: int) -> dict[str, Any]:
    """Where the previous and next pages of rows are (None: there is none). An offset past
    the last row shows none ('rows 1001-56 of 56' read as if it did) and leads back."""
    if offset >= total > 0:
        return {
            "page": page,
            "first": 0,
            "last": 0,
            "total": total,
            "before": max(0, total - PAGE_ROWS),
            "after": None,
            "past": True,
        }
    before = max(0, offset - PAGE_ROWS) if offset > 0 else None
    after = offset + PAGE_ROWS if offset + PAGE_ROWS < total else None
    return {
        "page": page,
        "first": offset + 1 if total else 0,
        "last": min(total, offset + PAGE_ROWS),
        "total": total,
        "before": before,
        "after": after,
    }


# --- the pages ---------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _catalog() -> list[CatalogEntry]:
    return catalog()


Offset = Annotated[int, Query(ge=0, le=10**9)]
Who = Annotated[Caller, Depends(caller)]


@router.get("/", response_class=HTMLResponse)
def planner(request: Request) -> HTMLResponse:
    return _page(
        request,
        "index.html",
        "/web/parts/recent",
        lambda: recent_part(None),
        title="Planner",
        catalog=_catalog(),
        collectives=[c.value for c in Collective],
        methods=[m.value for m in Method],
        optics=form_fields("optics", OpticsSpec),
        hardware=form_fields("hardware", HardwareSpec),
    )


def _job_page(
    request: Request, kind: str, job_id: str, part_url: str, build: Callable[[], Markup]
) -> HTMLResponse:
    malformed = _JOB_ID.fullmatch(job_id) is None  # not an id the stores make: no such job
    if malformed:
        part_url, build = "", _missing(kind, job_id)
        job_id = _printable(job_id)  # shown, not stored: no NUL or control characters
    title = f"{kind.capitalize()} {job_id[:8]}"
    return _page(
        request, "job.html", part_url, build, malformed, title=title, kind=kind, job_id=job_id
    )


def _printable(text: str) -> str:
    """`text` with control characters (a NUL from /plans/%00) written as escapes, for a page
    that shows what was asked for."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _missing(kind: str, job_id: str) -> Callable[[], Markup]:
    def build() -> Markup:
        raise NotFoundError(f"no {kind} {job_id[:64]!r}")

    return build


@router.get("/plans/{plan_id}", response_class=HTMLResponse)
def plan_page(request: Request, plan_id: str) -> HTMLResponse:
    return _job_page(
        request, "plan", plan_id, f"/web/parts/plans/{plan_id}", lambda: plan_part(plan_id, None)
    )


@router.get("/sweeps/{sweep_id}", response_class=HTMLResponse)
def sweep_page(request: Request, sweep_id: str, offset: Offset = 0) -> HTMLResponse:
    return _job_page(
        request,
        "sweep",
        sweep_id,
        f"/web/parts/sweeps/{sweep_id}?offset={offset}",
        lambda: sweep_part(sweep_id, None, offset),
    )


@router.get("/reproductions/{job_id}", response_class=HTMLResponse)
def reproduction_page(request: Request, job_id: str, offset: Offset = 0) -> HTMLResponse:
    return _job_page(
        request,
        "reproduction",
        job_id,
        f"/web/parts/reproductions/{job_id}?offset={offset}",
        lambda: reproduction_part(job_id, None, offset),
    )


# --- the parts, behind the API-key check ---------------------------------------------------


@router.get("/web/parts/recent", response_class=HTMLResponse)
def recent(who: Who) -> HTMLResponse:
    return _part(recent_part(who.owner))


@router.get("/web/parts/plans/{plan_id}", response_class=HTMLResponse)
def plan(plan_id: JobId, who: Who) -> HTMLResponse:
    return _part(plan_part(plan_id, who.owner))


@router.get("/web/parts/sweeps/{sweep_id}", response_class=HTMLResponse)
def sweep(sweep_id: JobId, who: Who, offset: Offset = 0) -> HTMLResponse:
    return _part(sweep_part(sweep_id, who.owner, offset))


@router.get("/web/parts/reproductions/{job_id}", response_class=HTMLResponse)
def reproduction(job_id: JobId, who: Who, offset: Offset = 0) -> HTMLResponse:
    return _part(reproduction_part(job_id, who.owner, offset))


STATIC_FILES = ("planner.js", "planner.css")


@router.get("/web/{name}")
def static(name: str) -> Response:
    """The page's script and style sheet; any other name is 404, like a path that is not
    there (it was a 422 naming the two files)."""
    if name not in STATIC_FILES:
        body = ErrorBody(code="http_404", message=f"no file /web/{name}")
        return ErrorResponse(body.model_dump(), status_code=404)
    data = (resources.files("app.web") / "static" / name).read_bytes()
    media = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return Response(data, media_type=media, headers={"Cache-Control": "no-cache"})


def _method_not_allowed() -> Response:
    """405 in the error format, with Allow (the app's handler reads Allow off the OpenAPI
    document, which leaves these pages out)."""
    body = ErrorBody(code="http_405", message="Method Not Allowed; this page answers GET")
    return ErrorResponse(body.model_dump(), status_code=405, headers={"Allow": "GET"})


for _path in [route.path for route in router.routes if isinstance(route, APIRoute)]:
    router.add_api_route(_path, _method_not_allowed, methods=["POST", "PUT", "PATCH", "DELETE"])
