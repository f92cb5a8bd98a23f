"""The FastAPI application. The service issue adds the /api/v1 resources; for now it answers
liveness and readiness so deployments can be wired up."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import JSONResponse

app = FastAPI(title="rwaopt", version="0.1.0")


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
