"""A running plan checks, between stages, whether it was cancelled meanwhile (a sweep's
DELETE): the same check in an inline job's solver process and in an RQ work horse."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

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
        status = PlanStore(self.database_url).status(self.plan_id)
        if status in (None, JobStatus.CANCELLED):
            raise JobCancelledError(f"plan {self.plan_id} was cancelled")
