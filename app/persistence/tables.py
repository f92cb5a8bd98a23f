"""The two tables: a plan (request, status, result document) and its stage solutions.

A solution row holds one distinct stage of one algorithm (demands and validated assignment runs)
as a compressed numpy archive, so the lightpath table and plots are rebuilt exactly, without a
row per lightpath (an N=1024 plan has millions of them).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Integer, LargeBinary, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class JobColumns:
    """What every queued job row has: a plan or a reproduction."""

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    status: Mapped[str] = mapped_column(String(16))  # queued, running, done, failed
    # Stored as JSON, read back through app.schemas (requests, results, ErrorBody).
    request: Mapped[dict[str, object]] = mapped_column(JSON)
    error: Mapped[dict[str, object] | None] = mapped_column(JSON, nullable=True)
    seconds: Mapped[float | None] = mapped_column(Float, nullable=True)


class PlanRow(JobColumns, Base):
    __tablename__ = "plans"

    result: Mapped[dict[str, object] | None] = mapped_column(JSON, nullable=True)


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
