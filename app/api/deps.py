"""FastAPI dependencies: the plan store of the configured database."""

from __future__ import annotations

from app.persistence.store import PlanStore
from app.settings import get_settings


def get_store() -> PlanStore:
    return PlanStore(get_settings().database_url)
