"""The stores of queued jobs (plans, reproductions): every write is one transaction, so a job
is stored whole or not at all."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar, cast

from sqlalchemy import CursorResult, Result, delete, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.errors import ErrorBody
from app.persistence.database import migrate, session_factory
from app.persistence.tables import (
    JobColumns,
    PlanRow,
    ReproductionFileRow,
    ReproductionRow,
    SolutionRow,
)
from app.schemas.documents import JobStatus, PlanDocument, ReproductionDocument
from app.schemas.requests import PlanRequest, ReproductionRequest
from app.schemas.results import FindingResult, PlanResult

Row = TypeVar("Row", bound=JobColumns)


@dataclass(frozen=True)
class Solution:
    """One distinct stage's demands and assignment (see app.solution_codec)."""

    algorithm: str
    stage_index: int
    data: bytes


@dataclass(frozen=True)
class Reproduction:
    """A written report: its findings and the files under the output directory."""

    findings: list[FindingResult]
    files: dict[str, bytes]
    seconds: float

    @property
    def verdicts(self) -> dict[str, int]:
        return dict(Counter(f.verdict.value for f in self.findings))


class JobStore(Generic[Row]):
    """Status changes shared by every kind of queued job (plans, reproductions); each write
    is one transaction."""

    row: type[Row]

    def __init__(self, url: str) -> None:
        self.url = url
        self._sessions: sessionmaker[Session] = session_factory(url)

    def migrate(self) -> None:
        migrate(self.url)

    def mark_running(self, job_id: str) -> bool:
        """queued -> running; False if the job is gone or not queued (e.g. deleted)."""
        row = self.row
        with self._sessions.begin() as session:
            changed = _rowcount(
                session.execute(
                    update(row)
                    .where(row.id == job_id, row.status == JobStatus.QUEUED)
                    .values(status=JobStatus.RUNNING)
                )
            )
        return bool(changed)

    def requeue_unfinished(self) -> list[str]:
        """Jobs left queued or running by a process that stopped: back to queued, oldest
        first (the embedded deployment resubmits them at start-up)."""
        row = self.row
        with self._sessions.begin() as session:
            ids = list(
                session.scalars(
                    select(row.id)
                    .where(row.status.in_((JobStatus.QUEUED, JobStatus.RUNNING)))
                    .order_by(row.created_at)
                )
            )
            if ids:
                session.execute(update(row).where(row.id.in_(ids)).values(status=JobStatus.QUEUED))
        return ids

    def fail(self, job_id: str, error: ErrorBody) -> None:
        body = error.model_dump(mode="json")
        with self._sessions.begin() as session:
            session.execute(
                update(self.row)
                .where(self.row.id == job_id)
                .values(status=JobStatus.FAILED, error=body)
            )


class PlanStore(JobStore[PlanRow]):
    row = PlanRow

    def create(
        self,
        request: PlanRequest,
        status: JobStatus = JobStatus.QUEUED,
        result: PlanResult | None = None,
        solutions: Sequence[Solution] = (),
        seconds: float | None = None,
    ) -> PlanDocument:
        row = PlanRow(
            id=str(uuid.uuid4()),
            created_at=datetime.now(UTC),
            status=status,
            request=request.model_dump(mode="json"),
            result=None if result is None else result.model_dump(mode="json"),
            error=None,
            seconds=seconds,
        )
        with self._sessions.begin() as session:
            session.add(row)
            session.flush()
            _add_solutions(session, row.id, solutions)
            return _document(row)

    def finish(
        self, plan_id: str, result: PlanResult, solutions: Sequence[Solution], seconds: float
    ) -> bool:
        body = result.model_dump(mode="json")
        with self._sessions.begin() as session:
            row = session.get(PlanRow, plan_id, with_for_update=True)
            if row is None:
                return False
            row.status, row.result, row.seconds, row.error = JobStatus.DONE, body, seconds, None
            _add_solutions(session, plan_id, solutions)
        return True

    def get(self, plan_id: str) -> PlanDocument | None:
        with self._sessions() as session:
            row = session.get(PlanRow, plan_id)
            return None if row is None else _document(row)

    def page(self, offset: int, limit: int) -> tuple[int, list[PlanDocument]]:
        with self._sessions() as session:
            total = session.scalar(select(func.count()).select_from(PlanRow)) or 0
            rows = session.scalars(
                select(PlanRow)
                .order_by(PlanRow.created_at.desc(), PlanRow.id)
                .offset(offset)
                .limit(limit)
            ).all()
            return total, [_document(row) for row in rows]

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


def _document(row: PlanRow) -> PlanDocument:
    """A stored plan, read back through its schema (stored JSON crossed a boundary)."""
    return PlanDocument.model_validate(row, from_attributes=True)


def _rowcount(result: Result[Any]) -> int:
    return int(cast(CursorResult[Any], result).rowcount)


def _add_solutions(session: Session, plan_id: str, solutions: Sequence[Solution]) -> None:
    session.add_all(
        SolutionRow(plan_id=plan_id, algorithm=s.algorithm, stage_index=s.stage_index, data=s.data)
        for s in solutions
    )


class ReproductionStore(JobStore[ReproductionRow]):
    """Reproductions and the files of their reports."""

    row = ReproductionRow

    def create(self, request: ReproductionRequest) -> ReproductionDocument:
        row = ReproductionRow(
            id=str(uuid.uuid4()),
            created_at=datetime.now(UTC),
            status=JobStatus.QUEUED,
            request=request.model_dump(mode="json"),
        )
        with self._sessions.begin() as session:
            session.add(row)
            session.flush()
            return self._document(session, row)

    def finish(self, job_id: str, done: Reproduction) -> bool:
        body = [f.model_dump(mode="json") for f in done.findings]
        files, seconds = done.files, done.seconds
        with self._sessions.begin() as session:
            row = session.get(ReproductionRow, job_id, with_for_update=True)
            if row is None:
                return False
            row.status, row.findings, row.seconds, row.error = JobStatus.DONE, body, seconds, None
            session.add_all(
                ReproductionFileRow(reproduction_id=job_id, path=path, data=data)
                for path, data in files.items()
            )
        return True

    def get(self, job_id: str) -> ReproductionDocument | None:
        with self._sessions() as session:
            row = session.get(ReproductionRow, job_id)
            return None if row is None else self._document(session, row)

    def file(self, job_id: str, path: str) -> bytes | None:
        with self._sessions() as session:
            return session.scalar(
                select(ReproductionFileRow.data).where(
                    ReproductionFileRow.reproduction_id == job_id,
                    ReproductionFileRow.path == path,
                )
            )

    @staticmethod
    def _document(session: Session, row: ReproductionRow) -> ReproductionDocument:
        document = ReproductionDocument.model_validate(row, from_attributes=True)
        document.files = list(
            session.scalars(
                select(ReproductionFileRow.path)
                .where(ReproductionFileRow.reproduction_id == row.id)
                .order_by(ReproductionFileRow.path)
            )
        )
        return document
