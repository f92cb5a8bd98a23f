"""The stores of queued jobs (plans, reproductions): every write is one transaction, so a job
is stored whole or not at all."""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar, cast

from sqlalchemy import CursorResult, Result, delete, func, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.errors import ErrorBody
from app.persistence.database import migrate, session_factory
from app.persistence.tables import (
    JobColumns,
    PlanRow,
    PlanSummaryRow,
    ReproductionFileRow,
    ReproductionRow,
    SolutionRow,
    SweepPointRow,
    SweepTableRow,
)
from app.schemas.documents import JobStatus, PlanDocument, ReproductionDocument
from app.schemas.requests import STORED, PlanRequest, ReproductionRequest
from app.schemas.results import FindingResult, PlanResult
from app.schemas.sweeps import SweepDocument, SweepPoints, SweepRequest

Row = TypeVar("Row", bound=JobColumns)
UNFINISHED = (JobStatus.QUEUED, JobStatus.RUNNING)
REUSABLE = (JobStatus.DONE, *UNFINISHED)  # a plan a sweep point may take as its answer


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
        return self._move(job_id, JobStatus.QUEUED, JobStatus.RUNNING, **self._started())

    def _move(self, job_id: str, before: JobStatus, after: JobStatus, **values: Any) -> bool:
        """One status change, only from `before`, in one transaction; False if the job is
        gone or in another state."""
        row = self.row
        with self._sessions.begin() as session:
            changed = _rowcount(
                session.execute(
                    update(row)
                    .where(row.id == job_id, row.status == before)
                    .values(status=after, **values)
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
                    select(row.id).where(row.status.in_(UNFINISHED)).order_by(row.created_at)
                )
            )
            if ids:
                session.execute(update(row).where(row.id.in_(ids)).values(status=JobStatus.QUEUED))
        return ids

    def _visible(self, session: Session, job_id: str, owner: str | None) -> Row | None:
        """The row, if it exists and (with `owner`: API keys on) that key made it."""
        row = session.get(self.row, job_id)
        if row is None or (owner is not None and row.owner != owner):
            return None
        return row

    def _page(
        self, session: Session, offset: int, limit: int, owner: str | None, *only: Any
    ) -> tuple[int, list[Row]]:
        """Newest first; with `owner`, only that key's; `only`: further conditions."""
        row = self.row
        where = [*([] if owner is None else [row.owner == owner]), *only]
        total = session.scalar(select(func.count()).select_from(row).where(*where)) or 0
        rows = session.scalars(
            select(row)
            .where(*where)
            .order_by(row.created_at.desc(), row.id)
            .offset(offset)
            .limit(limit)
        ).all()
        return total, list(rows)

    def _started(self) -> dict[str, Any]:
        """Columns a job kind updates when it starts (plans count their attempts)."""
        return {}

    def fail(self, job_id: str, error: ErrorBody) -> bool:
        """queued/running -> failed; a finished or cancelled job keeps its state."""
        body = error.model_dump(mode="json")
        with self._sessions.begin() as session:
            changed = _rowcount(
                session.execute(
                    update(self.row)
                    .where(self.row.id == job_id, self.row.status.in_(UNFINISHED))
                    .values(status=JobStatus.FAILED, error=body, **self._finished())
                )
            )
        return bool(changed)

    def _finished(self) -> dict[str, Any]:
        return {}

    def queued_before(self, moment: datetime) -> list[str]:
        """Jobs queued since before `moment`, oldest first (`app.jobs.queue.requeue_lost`)."""
        row = self.row
        with self._sessions() as session:
            return list(
                session.scalars(
                    select(row.id)
                    .where(row.status == JobStatus.QUEUED, row.created_at < moment)
                    .order_by(row.created_at)
                )
            )

    def requeue(self, job_id: str) -> bool:
        """running -> queued (its worker died and the queue retries it)."""
        return self._move(job_id, JobStatus.RUNNING, JobStatus.QUEUED)

    def unfinished(self) -> int:
        """Jobs queued or running (admission control)."""
        with self._sessions() as session:
            count = session.scalar(
                select(func.count()).select_from(self.row).where(self.row.status.in_(UNFINISHED))
            )
        return int(count or 0)

    def status(self, job_id: str) -> JobStatus | None:
        with self._sessions() as session:
            found = session.scalar(select(self.row.status).where(self.row.id == job_id))
        return None if found is None else JobStatus(found)


class PlanStore(JobStore[PlanRow]):
    row = PlanRow
    MAX_STARTS = 2  # a plan running when the server died this often is failed, not re-run

    def requeue_unfinished(self) -> list[str]:
        """As for every job, except that a plan that was running when the server stopped
        MAX_STARTS times (e.g. it kills the server) is failed instead of re-run for ever."""
        failure = ErrorBody(
            code="worker_failed",
            message=f"the server stopped {self.MAX_STARTS} times while solving this plan "
            "(out of memory?); post it again with less: a smaller ring, a shorter time limit "
            "or the heuristic method",
        ).model_dump(mode="json")
        with self._sessions.begin() as session:
            session.execute(
                update(PlanRow)
                .where(PlanRow.status == JobStatus.RUNNING, PlanRow.attempts >= self.MAX_STARTS)
                .values(status=JobStatus.FAILED, error=failure, finished_at=datetime.now(UTC))
            )
        return super().requeue_unfinished()

    def _started(self) -> dict[str, Any]:
        return {"attempts": PlanRow.attempts + 1}

    def _finished(self) -> dict[str, Any]:
        return {"finished_at": datetime.now(UTC)}

    def create(
        self,
        request: PlanRequest,
        status: JobStatus = JobStatus.QUEUED,
        result: PlanResult | None = None,
        solutions: Sequence[Solution] = (),
        seconds: float | None = None,
        request_hash: str | None = None,
        owner: str | None = None,
        received_at: datetime | None = None,
    ) -> PlanDocument:
        """A plan row; `received_at`: when its request came in, for a plan solved before it
        is stored (wait=true), whose row is written only once it is done."""
        now = datetime.now(UTC)
        row = PlanRow(
            owner=owner,
            id=str(uuid.uuid4()),
            created_at=received_at or now,
            status=status,
            request=request.model_dump(mode="json"),
            result=None if result is None else result.model_dump(mode="json"),
            error=None,
            seconds=seconds,
            request_hash=request_hash,
            attempts=0,
            finished_at=now if status == JobStatus.DONE else None,
        )
        with self._sessions.begin() as session:
            session.add(row)
            session.flush()
            _add_solutions(session, row.id, solutions)
            return _document(row)

    def finish(
        self, plan_id: str, result: PlanResult, solutions: Sequence[Solution], seconds: float
    ) -> bool:
        """running -> done with its result and solutions, written once: a plan deleted,
        cancelled, requeued or finished by another run meanwhile is left as it is (False)."""
        body = result.model_dump(mode="json")
        with self._sessions.begin() as session:
            row = session.get(PlanRow, plan_id, with_for_update=True)
            if row is None or row.status != JobStatus.RUNNING:
                return False
            row.status, row.result, row.seconds, row.error = JobStatus.DONE, body, seconds, None
            row.finished_at = datetime.now(UTC)
            _add_solutions(session, plan_id, solutions)
        return True

    def get(self, plan_id: str, owner: str | None = None) -> PlanDocument | None:
        """The plan; with `owner`, only if that key made it."""
        with self._sessions() as session:
            row = self._visible(session, plan_id, owner)
            return None if row is None else _document(row)

    def page(
        self, offset: int, limit: int, owner: str | None = None, posted_only: bool = False
    ) -> tuple[int, list[PlanDocument]]:
        """Newest first; `posted_only`: without the plans sweeps made for their points (the
        planner's recent list, which they filled)."""
        only = [PlanRow.origin.is_(None)] if posted_only else []
        with self._sessions() as session:
            total, rows = self._page(session, offset, limit, owner, *only)
            return total, [_document(row) for row in rows]

    def delete(self, plan_id: str, owner: str | None = None) -> bool:
        with self._sessions.begin() as session:
            _owner_lock(session, owner)
            if self._visible(session, plan_id, owner) is None:
                return False
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


def _owner_lock(session: Session, owner: str | None) -> None:
    """Serialize, per owner, the transactions that reuse or delete the owner's plans (a sweep's
    creation against DELETE of a plan or of a finished sweep): otherwise a sweep could reuse
    a plan that a concurrent DELETE removes, its point then counted failed ('deleted') though
    the POST answered it `cached`. PostgreSQL: a transaction-scoped advisory lock taken
    before any row lock; SQLite writes are serialized by the database already."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(
            text("SELECT pg_advisory_xact_lock(hashtext(:key))"),
            {"key": f"rwaopt-owner:{owner or ''}"},
        )


def _document(row: PlanRow) -> PlanDocument:
    """A stored plan, read back through its schema (stored JSON crossed a boundary)."""
    return PlanDocument.model_validate(row, from_attributes=True, context=STORED)


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

    def create(
        self, request: ReproductionRequest, owner: str | None = None
    ) -> ReproductionDocument:
        row = ReproductionRow(
            owner=owner,
            id=str(uuid.uuid4()),
            created_at=datetime.now(UTC),
            status=JobStatus.QUEUED,
            request=request.model_dump(mode="json"),
        )
        with self._sessions.begin() as session:
            session.add(row)
            session.flush()
            return self._document(session, row)

    def page(
        self, offset: int, limit: int, owner: str | None = None
    ) -> tuple[int, list[ReproductionDocument]]:
        """Newest first, as the plan and sweep stores page theirs."""
        with self._sessions() as session:
            total, rows = self._page(session, offset, limit, owner)
            return total, [self._document(session, row) for row in rows]

    def finish(self, job_id: str, done: Reproduction) -> bool:
        body = [f.model_dump(mode="json") for f in done.findings]
        files, seconds = done.files, done.seconds
        with self._sessions.begin() as session:
            row = session.get(ReproductionRow, job_id, with_for_update=True)
            if row is None or row.status != JobStatus.RUNNING:
                return False
            row.status, row.findings, row.seconds, row.error = JobStatus.DONE, body, seconds, None
            session.add_all(
                ReproductionFileRow(reproduction_id=job_id, path=path, data=data)
                for path, data in files.items()
            )
        return True

    def get(self, job_id: str, owner: str | None = None) -> ReproductionDocument | None:
        with self._sessions() as session:
            row = self._visible(session, job_id, owner)
            return None if row is None else self._document(session, row)

    def delete(self, job_id: str, owner: str | None = None) -> bool:
        """Remove a reproduction and its files (cancelled, or one whose job could not be
        queued); with `owner`, only if that key made it."""
        with self._sessions.begin() as session:
            if owner is not None and self._visible(session, job_id, owner) is None:
                return False
            session.execute(
                delete(ReproductionFileRow).where(ReproductionFileRow.reproduction_id == job_id)
            )
            removed = _rowcount(
                session.execute(delete(ReproductionRow).where(ReproductionRow.id == job_id))
            )
        return bool(removed)

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
        document = ReproductionDocument.model_validate(row, from_attributes=True, context=STORED)
        document.files = list(
            session.scalars(
                select(ReproductionFileRow.path)
                .where(ReproductionFileRow.reproduction_id == row.id)
                .order_by(ReproductionFileRow.path)
            )
        )
        return document


@dataclass(frozen=True)
class SweepPoint:
    """One point of a sweep and the plan answering it (None: the plan was deleted)."""

    point: int
    cached: bool
    plan: PlanDocument | None


class SweepStore(JobStore[SweepTableRow]):
    """Sweeps and their points. Every point is a plan: made for the sweep, or a plan of the
    same canonical request (`request_hash`) reused from any plan or sweep before."""

    row = SweepTableRow

    def create(
        self, request: SweepRequest, hashes: Sequence[str], owner: str | None = None
    ) -> tuple[SweepDocument, list[str]]:
        """Store the sweep and its points in one transaction; returns the document and the
        plans made for it (to enqueue). A point whose request the same owner solved before
        reuses that plan (`cached`); one of the owner's queued or running elsewhere is shared;
        the rest are new plans (another owner's plans are never reused)."""
        points = request.points()
        now = datetime.now(UTC)
        sweep = SweepTableRow(
            owner=owner,
            id=str(uuid.uuid4()),
            created_at=now,
            status=JobStatus.QUEUED,
            request=request.model_dump(mode="json"),
        )
        new: list[str] = []
        with self._sessions.begin() as session:
            _owner_lock(session, owner)
            session.add(sweep)
            session.flush()
            for index, (point, key) in enumerate(zip(points, hashes, strict=True)):
                # only the owner's own plans: another key's would tell it what was run, and
                # couple its sweep to plans it can neither read nor keep (issue: shared use)
                found = session.execute(
                    select(PlanRow.id, PlanRow.status)
                    .where(
                        PlanRow.request_hash == key,
                        PlanRow.status.in_(REUSABLE),
                        PlanRow.owner.is_not_distinct_from(owner),
                    )
                    .order_by((PlanRow.status == JobStatus.DONE).desc(), PlanRow.created_at)
                    .limit(1)
                ).first()
                if found is None:
                    plan = PlanRow(
                        owner=owner,
                        id=str(uuid.uuid4()),
                        created_at=now,
                        status=JobStatus.QUEUED,
                        request=point.model_dump(mode="json"),
                        request_hash=key,
                        attempts=0,
                        origin=sweep.id,
                    )
                    session.add(plan)
                    session.flush()
                    plan_id, cached = plan.id, False
                    new.append(plan.id)
                else:
                    plan_id, cached = found.id, found.status == JobStatus.DONE
                session.add(
                    SweepPointRow(sweep_id=sweep.id, point=index, plan_id=plan_id, cached=cached)
                )
            document = self._document(session, sweep)
        return document, new

    def get(self, sweep_id: str, owner: str | None = None) -> SweepDocument | None:
        with self._sessions() as session:
            sweep = self._visible(session, sweep_id, owner)
            return None if sweep is None else self._document(session, sweep)

    def page(
        self, offset: int, limit: int, owner: str | None = None
    ) -> tuple[int, list[SweepDocument]]:
        with self._sessions() as session:
            total, rows = self._page(session, offset, limit, owner)
            return total, [self._document(session, row) for row in rows]

    def points(self, sweep_id: str) -> Iterator[SweepPoint]:
        """The sweep's points in order, each with its plan read back (one at a time: a
        plan's result can be megabytes)."""
        with self._sessions() as session:
            query = (
                select(SweepPointRow.point, SweepPointRow.cached, PlanRow)
                .outerjoin(PlanRow, PlanRow.id == SweepPointRow.plan_id)
                .where(SweepPointRow.sweep_id == sweep_id)
                .order_by(SweepPointRow.point)
            )
            for point, cached, plan in session.execute(query.execution_options(yield_per=8)):
                yield SweepPoint(point, cached, None if plan is None else _document(plan))

    def remove(self, sweep_id: str, plans: Sequence[str]) -> None:
        """Remove a sweep that could not be queued, with the plans made for it: nothing is
        left half-made."""
        with self._sessions.begin() as session:
            session.execute(delete(SweepPointRow).where(SweepPointRow.sweep_id == sweep_id))
            session.execute(delete(SweepTableRow).where(SweepTableRow.id == sweep_id))
            session.execute(delete(SolutionRow).where(SolutionRow.plan_id.in_(plans)))
            session.execute(delete(PlanRow).where(PlanRow.id.in_(plans)))

    def cancel(self, sweep_id: str, owner: str | None = None) -> list[str] | None:
        """Cancel an unfinished sweep: its queued or running points become cancelled (finished
        points stay), except plans no sweep made (posted on their own) and plans another live
        sweep shares. Returns the cancelled plans (whose solves are to be stopped), or None
        when there is no such sweep. A finished sweep is left as it is."""
        with self._sessions.begin() as session:
            sweep = self._locked(session, sweep_id, owner)
            if sweep is None:
                return None
            if self._progress(session, sweep)[1].finished:
                return []
            return self._cancel(session, sweep)

    def discard(self, sweep_id: str, owner: str | None = None) -> list[str] | None:
        """DELETE of a sweep, in one transaction: an unfinished sweep is cancelled (as
        `cancel`: it stays, `cancelled`, with its finished points); a finished one (done,
        failed or cancelled) is deleted with its points and the plans sweeps made for it that
        no other sweep uses (plans posted on their own and plans another sweep shares stay),
        each with its solutions, as DELETE of a plan does. Returns the plans whose solves are
        to be stopped (cancelled ones, or deleted ones still unfinished), or None when there
        is no such sweep."""
        with self._sessions.begin() as session:
            _owner_lock(session, owner)
            sweep = self._locked(session, sweep_id, owner)
            if sweep is None:
                return None
            if not self._progress(session, sweep)[1].finished:
                return self._cancel(session, sweep)
            mine = select(SweepPointRow.plan_id).where(SweepPointRow.sweep_id == sweep_id)
            others = select(SweepPointRow.plan_id).where(
                SweepPointRow.sweep_id != sweep_id, SweepPointRow.plan_id.is_not(None)
            )
            plans = session.execute(
                select(PlanRow.id, PlanRow.status).where(
                    PlanRow.id.in_(mine),
                    PlanRow.origin.is_not(None),
                    PlanRow.owner.is_not_distinct_from(sweep.owner),
                    PlanRow.id.not_in(others),
                )
            ).all()
            ids = [plan_id for plan_id, _ in plans]
            session.execute(delete(SweepPointRow).where(SweepPointRow.sweep_id == sweep_id))
            if ids:
                session.execute(delete(SolutionRow).where(SolutionRow.plan_id.in_(ids)))
                session.execute(delete(PlanRow).where(PlanRow.id.in_(ids)))
            session.execute(delete(SweepTableRow).where(SweepTableRow.id == sweep_id))
        return [plan_id for plan_id, status in plans if status in UNFINISHED]

    @staticmethod
    def _locked(session: Session, sweep_id: str, owner: str | None) -> SweepTableRow | None:
        """The sweep, locked for this transaction; with `owner`, only if that key made it."""
        sweep = session.get(SweepTableRow, sweep_id, with_for_update=True)
        if sweep is None or (owner is not None and sweep.owner != owner):
            return None
        return sweep

    @staticmethod
    def _cancel(session: Session, sweep: SweepTableRow) -> list[str]:
        """Mark an unfinished sweep cancelled and cancel its points' plans (see `cancel`)."""
        sweep_id = sweep.id
        sweep.status = JobStatus.CANCELLED
        mine = select(SweepPointRow.plan_id).where(SweepPointRow.sweep_id == sweep_id)
        shared = (
            select(SweepPointRow.plan_id)
            .join(SweepTableRow, SweepTableRow.id == SweepPointRow.sweep_id)
            .where(
                SweepPointRow.sweep_id != sweep_id,
                SweepTableRow.status != JobStatus.CANCELLED,
                SweepPointRow.plan_id.is_not(None),
            )
        )
        ids = list(
            session.scalars(
                select(PlanRow.id).where(
                    PlanRow.id.in_(mine),
                    PlanRow.origin.is_not(None),
                    PlanRow.status.in_(UNFINISHED),
                    PlanRow.id.not_in(shared),
                )
            )
        )
        if ids:
            session.execute(
                update(PlanRow)
                .where(PlanRow.id.in_(ids))
                .values(status=JobStatus.CANCELLED, finished_at=datetime.now(UTC))
            )
        return ids

    def _document(self, session: Session, sweep: SweepTableRow) -> SweepDocument:
        points, status, seconds, eta = self._progress(session, sweep)
        return SweepDocument.model_validate(
            {
                "id": sweep.id,
                "status": status,
                "created_at": sweep.created_at,
                "seconds": seconds,
                "error": sweep.error,
                "request": sweep.request,
                "points": points,
                "eta_s": eta,
            },
            context=STORED,
        )

    @staticmethod
    def _progress(
        session: Session, sweep: SweepTableRow
    ) -> tuple[SweepPoints, JobStatus, float | None, float | None]:
        """Counts, status, seconds (once finished) and ETA, read off the points' plans."""
        counts: Counter[str] = Counter()
        cached = computed = 0
        last: datetime | None = None
        started = _utc(sweep.created_at)
        rows = session.execute(
            select(
                PlanRow.status, SweepPointRow.cached, func.count(), func.max(PlanRow.finished_at)
            )
            .select_from(SweepPointRow)
            .outerjoin(PlanRow, PlanRow.id == SweepPointRow.plan_id)
            .where(SweepPointRow.sweep_id == sweep.id)
            .group_by(PlanRow.status, SweepPointRow.cached)
        )
        for status, is_cached, count, finished_at in rows:
            state = JobStatus(status) if status is not None else JobStatus.FAILED  # deleted
            counts[state] += count
            if is_cached:
                cached += count
            elif state.finished:
                computed += count
            if finished_at is not None:
                last = max(last or started, _utc(finished_at))
        total = sum(counts.values())
        points = SweepPoints(
            total=total,
            done=counts[JobStatus.DONE],
            failed=counts[JobStatus.FAILED],
            cached=cached,
            running=counts[JobStatus.RUNNING],
            queued=counts[JobStatus.QUEUED],
            cancelled=counts[JobStatus.CANCELLED],
        )
        finished = points.done + points.failed + points.cancelled
        status = JobStatus(sweep.status)
        if status not in (JobStatus.CANCELLED, JobStatus.FAILED):
            if finished == total:
                # every point failed: the sweep did (README lists `failed`; it read `done`
                # with no point done; review, session 35); some done: done, with the count
                failed_all = total > 0 and points.failed == total
                status = JobStatus.FAILED if failed_all else JobStatus.DONE
            elif points.running or finished:
                status = JobStatus.RUNNING
        seconds = eta = None
        if status.finished:
            seconds = max(0.0, ((last or started) - started).total_seconds())
        elif computed:
            elapsed = (datetime.now(UTC) - started).total_seconds()
            eta = elapsed / computed * (total - finished)
        return points, status, seconds, eta


def _utc(moment: datetime) -> datetime:
    """SQLite drops the time zone of stored datetimes; every stored time is UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class SummaryStore:
    """Plan summaries that reproductions reuse (`PlanSummaryRow`), by request key."""

    def __init__(self, url: str) -> None:
        self._sessions: sessionmaker[Session] = session_factory(url)

    @staticmethod
    def _digest(key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._sessions() as session:
            row = session.get(PlanSummaryRow, self._digest(key))
            return None if row is None else dict(row.summary)

    def put(self, key: str, summary: Mapping[str, Any]) -> None:
        """Store a summary; one stored meanwhile by another job (same request, same result)
        is kept."""
        row = PlanSummaryRow(
            key=self._digest(key), summary=dict(summary), created_at=datetime.now(UTC)
        )
        try:
            with self._sessions.begin() as session:
                session.add(row)
        except IntegrityError:
            pass
