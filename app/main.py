"""The FastAPI application: health, readiness, the /api/v1 resources, and the docs pages
(Swagger UI at /docs, ReDoc at /redoc) served from the installed fastapi-offline package, so
they work with no internet."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import lru_cache
from importlib import resources
from typing import Any

from fastapi import APIRouter, Depends, FastAPI, Response
from fastapi.openapi.docs import get_redoc_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel

from app import version
from app.api import errors
from app.api.auth import caller
from app.api.examples import attach
from app.api.glossary import describe
from app.api.limits import BodyLimits, Cors, HeadAsGet
from app.api.routes import algorithms, plans, reproductions, rwa, sweeps
from app.jobs import pool, queue
from app.jobs.queue import redis_reachable
from app.persistence.database import dispose_all, migrate, reachable
from app.persistence.store import PlanStore, ReproductionStore
from app.settings import get_settings
from app.web import pages

DESCRIPTION = """True step counts, times and optical feasibility of collective algorithms
(OpTree, WRHT, Ring, RD, NE, BT, H-Ring, tunable-radix all-to-all) on bidirectional WDM rings.

Start with **POST /api/v1/plans** ("Try it out" runs the small example in about a second), then
open `/api/v1/plans/{id}/plots/time-vs-message.png` and `.../assignment?format=csv`."""


@asynccontextmanager
async def lifespan(_: FastAPI) -> AsyncIterator[None]:
    settings = get_settings()
    migrate(settings.database_url)
    if settings.jobs == "inline":  # plans this process queued before it stopped
        for plan_id in PlanStore(settings.database_url).requeue_unfinished():
            queue.submit(plan_id, settings)
        for job_id in ReproductionStore(settings.database_url).requeue_unfinished():
            queue.submit_reproduction(job_id, settings)
    yield
    # End running solves now (their plans stay running and are requeued at the next start),
    # then the job threads, which return at once, then the connections.
    pool.shutdown()
    queue.shutdown()
    dispose_all()


def _operation_id(route: APIRoute) -> str:
    """Short operation ids (the endpoint's function name): generated clients get
    `create_plan`, not `create_plan_api_v1_plans_post`."""
    return route.name


app = FastAPIOffline(
    title="rwaopt",
    version=version(),
    description=DESCRIPTION,
    lifespan=lifespan,
    generate_unique_id_function=_operation_id,
    redoc_url=None,  # served below, with a ReDoc that makes no request beyond this server
)
errors.install(app)


def _openapi() -> dict[str, Any]:
    """FastAPI's document, with every property described (app.api.glossary) and shown with
    a value from a real answer (app.api.examples)."""
    if app.openapi_schema is None:
        app.openapi_schema = attach(
            describe(
                get_openapi(
                    title=app.title,
                    version=app.version,
                    description=app.description,
                    routes=app.routes,
                )
            )
        )
    return app.openapi_schema


app.openapi = _openapi  # type: ignore[method-assign]

REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"  # in the "API docs by Redocly" footer


@lru_cache(maxsize=1)
def _redoc_js() -> bytes:
    """fastapi-offline's ReDoc bundle without its one outside request (the footer logo,
    which hides itself when it does not load)."""
    bundle = resources.files("fastapi_offline") / "static" / "redoc.standalone.js"
    return bundle.read_bytes().replace(REDOC_LOGO.encode(), b"data:,")


@app.get("/redoc", include_in_schema=False)
def redoc() -> HTMLResponse:
    return get_redoc_html(
        openapi_url="/openapi.json",
        title="rwaopt - ReDoc",
        redoc_js_url="/redoc.standalone.js",
        redoc_favicon_url="/static-offline-docs/favicon.png",
        with_google_fonts=False,
    )


@app.get("/redoc.standalone.js", include_in_schema=False)
def redoc_js() -> Response:
    return Response(_redoc_js(), media_type="application/javascript")


app.add_middleware(HeadAsGet)
app.add_middleware(Cors)
app.add_middleware(BodyLimits)  # outermost: before anything reads a body


api = APIRouter(prefix="/api/v1", dependencies=[Depends(caller)])
api.include_router(algorithms.router)
api.include_router(rwa.router)
api.include_router(plans.router)
api.include_router(reproductions.router)
api.include_router(sweeps.router)
app.include_router(api)
app.include_router(pages.router)  # the planner page: /, /plans/{id}, /sweeps/{id}, ...


class Health(BaseModel):
    """Liveness or readiness, and why not ready."""

    status: str
    reason: str | None = None


@app.get("/health", tags=["service"], response_model=Health, response_model_exclude_none=True)
def health() -> Health:
    """Liveness: the process answers."""
    return Health(status="ok")


@app.get(
    "/ready",
    tags=["service"],
    response_model=Health,
    response_model_exclude_none=True,
    responses={
        503: {
            "model": Health,
            "description": "database or (rq) Redis unreachable, or a solver does not import",
        }
    },
)
def ready(response: Response) -> Health:
    """Readiness: the database answers, Redis too with RWAOPT_JOBS=rq, and both solver
    libraries import (HiGHS via highspy, CP-SAT via ortools)."""
    try:
        import highspy  # noqa: F401
        from ortools.sat.python import cp_model  # noqa: F401
    except ImportError as error:  # pragma: no cover - only on a broken install
        response.status_code = 503
        return Health(status="not ready", reason=str(error))
    settings = get_settings()
    if not reachable(settings.database_url):
        response.status_code = 503
        return Health(status="not ready", reason="database unreachable")
    if settings.jobs == "rq" and not redis_reachable(settings.redis_url):
        response.status_code = 503
        return Health(status="not ready", reason="Redis (the job queue) unreachable")
    return Health(status="ready")
