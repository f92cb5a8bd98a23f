"""FastAPI dependencies and helpers shared by the job routes: the stores of the configured
database, and queueing a stored job."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

from fastapi.concurrency import run_in_threadpool
from sqlalchemy import text

from app.errors import QueueFullError, UnavailableError
from app.persistence.database import engine_for
from app.persistence.store import PlanStore, ReproductionStore
from app.settings import get_settings

T = TypeVar("T")
_ADMISSION = threading.Lock()  # this process's admissions, one at a time
ADMISSION_LOCK_KEY = 0x7277616F  # PostgreSQL advisory lock of every API process ("rwao")


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


def admitted(new_jobs: int, create: Callable[[], T]) -> T:
    """`admit` and the creation of the jobs it admits as one step: one admission at a time in
    this process, and on PostgreSQL across every API process (an advisory lock held until
    the new rows are committed), so the next admission counts them. Counted and created
    apart, ten plans posted at once were all admitted past a limit of three (review,
    session 34)."""
    with _ADMISSION, _across_processes(get_settings().database_url):
        admit(new_jobs)
        return create()


@contextlib.contextmanager
def _across_processes(url: str) -> Iterator[None]:
    if not url.startswith("postgresql"):
        yield  # SQLite: the embedded default, one API process
        return
    with engine_for(url).connect() as connection:
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": ADMISSION_LOCK_KEY})
        try:
            yield
        finally:
            connection.execute(
                text("SELECT pg_advisory_unlock(:key)"), {"key": ADMISSION_LOCK_KEY}
            )
            connection.commit()


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
