"""The plan store: every write is one transaction, so a plan is stored whole or not at all."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import CursorResult, Result, delete, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.persistence.database import migrate, session_factory
from app.persistence.tables import PlanRow, SolutionRow
from app.schemas import ErrorBody


@dataclass(frozen=True)
class Solution:
    """One distinct stage's demands and assignment (see app.solution_codec)."""

    algorithm: str
    stage_index: int
    data: bytes


class PlanStore:
    def __init__(self, url: str) -> None:
        self.url = url
        self._sessions: sessionmaker[Session] = session_factory(url)

    def migrate(self) -> None:
        migrate(self.url)

    def create(
        self,
        request: dict[str, Any],
        status: str = "queued",
        result: dict[str, Any] | None = None,
        solutions: Sequence[Solution] = (),
        seconds: float | None = None,
    ) -> PlanRow:
        row = PlanRow(
            id=str(uuid.uuid4()),
            created_at=datetime.now(UTC),
            status=status,
            request=request,
            result=result,
            error=None,
            seconds=seconds,
        )
        with self._sessions.begin() as session:
            session.add(row)
            session.flush()
            _add_solutions(session, row.id, solutions)
        return row

    def mark_running(self, plan_id: str) -> bool:
        """queued -> running; False if the plan is gone or not queued (e.g. deleted)."""
        with self._sessions.begin() as session:
            changed = _rowcount(
                session.execute(
                    update(PlanRow)
                    .where(PlanRow.id == plan_id, PlanRow.status == "queued")
                    .values(status="running")
                )
            )
        return bool(changed)

    def finish(
        self, plan_id: str, result: dict[str, Any], solutions: Sequence[Solution], seconds: float
    ) -> bool:
        with self._sessions.begin() as session:
            row = session.get(PlanRow, plan_id, with_for_update=True)
            if row is None:
                return False
            row.status, row.result, row.seconds, row.error = "done", result, seconds, None
            _add_solutions(session, plan_id, solutions)
        return True

    def requeue_unfinished(self) -> list[str]:
        """Plans left queued or running by a process that stopped: back to queued, oldest
        first (the embedded deployment resubmits them at start-up)."""
        with self._sessions.begin() as session:
            ids = list(
                session.scalars(
                    select(PlanRow.id)
                    .where(PlanRow.status.in_(("queued", "running")))
                    .order_by(PlanRow.created_at)
                )
            )
            if ids:
                session.execute(update(PlanRow).where(PlanRow.id.in_(ids)).values(status="queued"))
        return ids

    def fail(self, plan_id: str, error: ErrorBody) -> None:
        body = error.model_dump(mode="json")
        with self._sessions.begin() as session:
            session.execute(
                update(PlanRow).where(PlanRow.id == plan_id).values(status="failed", error=body)
            )

    def get(self, plan_id: str) -> PlanRow | None:
        with self._sessions() as session:
            return session.get(PlanRow, plan_id)

    def page(self, offset: int, limit: int) -> tuple[int, list[PlanRow]]:
        with self._sessions() as session:
            total = session.scalar(select(func.count()).select_from(PlanRow)) or 0
            rows = session.scalars(
                select(PlanRow)
                .order_by(PlanRow.created_at.desc(), PlanRow.id)
                .offset(offset)
                .limit(limit)
            ).all()
        return total, list(rows)

    def delete(self, plan_id: str) -> bool:
        with self._sessions.begin() as session:
            session.execute(delete(SolutionRow).where(SolutionRow.plan_id == plan_id))
            removed = _rowcount(session.execute(delete(PlanRow).where(PlanRow.id == plan_id)))
        return bool(removed)

    def solutions(self, plan_id: str, algorithm: str | None = None) -> Iterator[Solution]:
        """The plan's stage solutions, one row at a time, in (algorithm, stage) order."""
        query = select(SolutionRow.algorithm, SolutionRow.stage_index, SolutionRow.data).where(
            SolutionRow.plan_id == plan_id
        )
        if algorithm is not None:
            query = query.where(SolutionRow.algorithm == algorithm)
        query = query.order_by(SolutionRow.id)
        with self._sessions() as session:
            for name, index, data in session.execute(query.execution_options(yield_per=16)):
                yield Solution(name, index, data)


def _rowcount(result: Result[Any]) -> int:
    return int(cast(CursorResult[Any], result).rowcount)


def _add_solutions(session: Session, plan_id: str, solutions: Sequence[Solution]) -> None:
    session.add_all(
        SolutionRow(plan_id=plan_id, algorithm=s.algorithm, stage_index=s.stage_index, data=s.data)
        for s in solutions
    )
