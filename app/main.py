"""The FastAPI application: health, readiness and the /api/v1 resources built so far
(algorithms, rwa). Plans, persistence and plots come with the service issue."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from fastapi.responses import JSONResponse

from app.api import errors
from app.api.routes import algorithms, rwa

app = FastAPI(title="rwaopt", version="0.1.0")
errors.install(app)

api = APIRouter(prefix="/api/v1")
api.include_router(algorithms.router)
api.include_router(rwa.router)
app.include_router(api)


@app.get("/health")
def health() -> dict[str, str]:
    """Liveness: the process answers."""
    return {"status": "ok"}


@app.get("/ready", response_model=None)
def ready() -> dict[str, str] | JSONResponse:
    """Readiness: both solver libraries import (HiGHS via highspy, CP-SAT via ortools)."""
    try:
        import highspy  # noqa: F401
        from ortools.sat.python import cp_model  # noqa: F401
    except ImportError as error:  # pragma: no cover - only on a broken install
        return JSONResponse({"status": "not ready", "reason": str(error)}, status_code=503)
    return {"status": "ready"}
