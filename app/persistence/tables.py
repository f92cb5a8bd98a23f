"""The tables: plans (request, status, result document) and their stage solutions,
reproductions and their report files, sweeps and their points (each point a plan).

A solution row holds one distinct stage of one algorithm (demands and validated assignment runs)
as a compressed numpy archive, so the lightpath table and plots are rebuilt exactly, without a
row per lightpath (an N=1024 plan has millions of them).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class JobColumns:
    """What every queued job row has: a plan or a reproduction."""

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    status: Mapped[str] = mapped_column(String(16))  # app.schemas.documents.JobStatus
    # Stored as JSON, read back through app.schemas (requests, results, ErrorBody).
    request: Mapped[dict[str, object]] = mapped_column(JSON)
    error: Mapped[dict[str, object] | None] = mapped_column(JSON, nullable=True)
    seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    # Digest of the API key that made it (app.api.auth.key_id); null when keys are off.
    owner: Mapped[str | None] = mapped_column(String(16), index=True, nullable=True)


class PlanRow(JobColumns, Base):
    __tablename__ = "plans"

    result: Mapped[dict[str, object] | None] = mapped_column(JSON, nullable=True)
    # app.sweeps.request_hash of the request: how a sweep finds a plan it can reuse.
    request_hash: Mapped[str | None] = mapped_column(String(64), index=True, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    origin: Mapped[str | None] = mapped_column(String(36), nullable=True)  # the sweep that made it


class BlobColumns:
    """A blob a job keeps beside its row (a stage solution, a report file)."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class SolutionRow(BlobColumns, Base):
    __tablename__ = "plan_solutions"

    plan_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("plans.id", ondelete="CASCADE"), index=True
    )
    algorithm: Mapped[str] = mapped_column(String(32))
    stage_index: Mapped[int] = mapped_column(Integer)


class ReproductionRow(JobColumns, Base):
    __tablename__ = "reproductions"

    findings: Mapped[list[dict[str, object]] | None] = mapped_column(JSON, nullable=True)


class ReproductionFileRow(BlobColumns, Base):
    __tablename__ = "reproduction_files"

    reproduction_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("reproductions.id", ondelete="CASCADE"), index=True
    )
    path: Mapped[str] = mapped_column(String(200))


class SweepTableRow(JobColumns, Base):
    """A sweep's grid; its status is stored only once final by a user or the queue
    (cancelled, failed), otherwise read off its points."""

    __tablename__ = "sweeps"


class SweepPointRow(Base):
    """One point of a sweep: the plan that answers it (made for it, or reused)."""

    __tablename__ = "sweep_points"
    __table_args__ = (UniqueConstraint("sweep_id", "point", name="uq_sweep_points_point"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    sweep_id: Mapped[str] = mapped_column(String(36), ForeignKey("sweeps.id", ondelete="CASCADE"))
    point: Mapped[int] = mapped_column(Integer)
    plan_id: Mapped[str | None] = mapped_column(
        String(36), ForeignKey("plans.id", ondelete="SET NULL"), index=True, nullable=True
    )
    cached: Mapped[bool] = mapped_column(Boolean)


class PlanSummaryRow(Base):
    """What a reproduction keeps of a plan it solved (app.reproduce.Summary: true steps, the
    longest lightpath, time): shared by every reproduction of the deployment, so a second run
    answers from here (the key holds rwaopt's version, so a new solver solves afresh)."""

    __tablename__ = "plan_summaries"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)  # SHA-256 of the request
    summary: Mapped[dict[str, object]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
