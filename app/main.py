"""The FastAPI application (filled in by the service issue; health endpoints for now)."""

from __future__ import annotations

from fastapi import FastAPI

app = FastAPI(title="rwaopt", version="0.1.0")


@app.get("/health")
def health() -> dict[str, str]:
    """Liveness: the process answers."""
    return {"status": "ok"}
