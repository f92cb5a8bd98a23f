"""FastAPI dependencies and helpers shared by the job routes: the stores of the configured
database, and queueing a stored job."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.concurrency import run_in_threadpool

from app.errors import QueueFullError, UnavailableError
from app.persistence.store import PlanStore, ReproductionStore
from app.settings import get_settings


def get_store() -> PlanStore:
    return PlanStore(get_settings().database_url)


def get_reproductions() -> ReproductionStore:
    return ReproductionStore(get_settings().database_url)


async def enqueue(
    job_id: str, submit: Callable[[str], None], remove: Callable[[str], object]
) -> None:
    """Queue a stored job; when the queue is unreachable (e.g. Redis down), remove the job
    again, so nothing is left half-made, and answer 503."""
    try:
        await run_in_threadpool(submit, job_id)
    except Exception as error:
        await run_in_threadpool(remove, job_id)
        raise UnavailableError(
            f"the job queue is unreachable ({error}); nothing was stored, retry later",
            {"retry_after_s": 10},
        ) from None


def admit(new_jobs: int) -> None:
    """Admission control for queued work: refuse (429, Retry-After) when the jobs queued or
    running plus `new_jobs` would pass RWAOPT_MAX_QUEUED_JOBS."""
    settings = get_settings()
    url = settings.database_url
    waiting = PlanStore(url).unfinished() + ReproductionStore(url).unfinished()
    if waiting + new_jobs > settings.max_queued_jobs:
        raise QueueFullError(
            f"{waiting} jobs are queued or running and this adds {new_jobs}; at most "
            f"{settings.max_queued_jobs} (RWAOPT_MAX_QUEUED_JOBS): retry later",
            {"retry_after_s": 30, "queued": waiting},
        )
