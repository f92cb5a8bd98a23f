"""A running plan notices that it was cancelled meanwhile (a sweep's DELETE): between stages
in the process that solves it (`CancelWatch`: an RQ work horse, a solver process), and, for
inline jobs, at once from the job's thread, which ends the solver process
(`stop_when_cancelled`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from sqlalchemy.exc import SQLAlchemyError

from app.errors import JobCancelledError
from app.persistence.store import PlanStore
from app.schemas.documents import JobStatus

CHECK_EVERY_S = 1.0


@dataclass
class CancelWatch:
    """A `PlanProgress` callback: raises JobCancelledError once the stored plan is cancelled or
    gone; reads the database at most every CHECK_EVERY_S. Picklable (crosses to the solver
    process as the database URL and the plan id)."""

    database_url: str
    plan_id: str
    _checked: float = field(default=0.0, repr=False)

    def __call__(self, _algorithm: str = "", _done: int = 0, _total: int = 0) -> None:
        now = time.monotonic()
        if now - self._checked < CHECK_EVERY_S:
            return
        self._checked = now
        try:
            status = PlanStore(self.database_url).status(self.plan_id)
        except SQLAlchemyError:  # the database away for a moment: the solve goes on
            return
        if status in (None, JobStatus.CANCELLED):
            raise JobCancelledError(f"plan {self.plan_id} was cancelled")


@contextmanager
def stop_when_cancelled(database_url: str, plan_id: str) -> Iterator[threading.Event]:
    """An event set once the stored plan is cancelled or deleted (checked every
    CHECK_EVERY_S by a thread), for a solve that a solver process runs: setting it ends that
    process at once, so a cancelled point stops within about a second, mid-stage too."""
    stop, done = threading.Event(), threading.Event()

    def watch() -> None:
        store = PlanStore(database_url)
        while not done.wait(CHECK_EVERY_S):
            try:
                status = store.status(plan_id)
            except Exception:  # the database away for a moment: look again next time
                continue
            if status in (None, JobStatus.CANCELLED):
                stop.set()
                return

    thread = threading.Thread(target=watch, name=f"rwaopt-watch-{plan_id[:8]}", daemon=True)
    thread.start()
    try:
        yield stop
    finally:
        done.set()
        thread.join()
