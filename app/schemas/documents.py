"""Stored plans as the API shows them, and the error body every failure answers with."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field, computed_field, field_validator

from app.errors import ErrorBody
from app.schemas.mirror import Mirror
from app.schemas.requests import PlanRequest, ReproductionRequest, ReproductionTarget
from app.schemas.results import FindingResult, PlanResult
from models.algorithms.base import Collective


class JobStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        return self in (JobStatus.DONE, JobStatus.FAILED, JobStatus.CANCELLED)


class JobDocument(BaseModel):
    """What every stored job shows: read straight off its row (`model_validate(row,
    from_attributes=True)`), so the stored JSON is validated on the way out."""

    id: str
    status: JobStatus
    created_at: datetime
    seconds: float | None = Field(description="wall-clock seconds the job took, once done")
    error: ErrorBody | None

    @field_validator("created_at")
    @classmethod
    def _utc(cls, moment: datetime) -> datetime:
        """SQLite drops the time zone of stored datetimes; every stored time is UTC."""
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class PlanDocument(JobDocument):
    request: PlanRequest
    result: PlanResult | None

    @property
    def collective(self) -> Collective:
        return self.request.collective

    @property
    def nodes(self) -> int:
        return self.request.ring.nodes

    @property
    def algorithms(self) -> list[str] | Literal["all"]:
        return self.request.algorithms


class PlanSummary(Mirror):
    """Read off a `PlanDocument`."""

    id: str
    status: JobStatus
    created_at: datetime
    collective: Collective
    nodes: int
    algorithms: list[str] | Literal["all"]
    seconds: float | None


class PlanPage(BaseModel):
    total: int
    offset: int
    limit: int
    items: list[PlanSummary]


class ReproductionSummary(Mirror):
    """Read off a `ReproductionDocument`: what it reproduces and its verdicts so far."""

    id: str
    status: JobStatus
    created_at: datetime
    seconds: float | None
    targets: list[ReproductionTarget] | Literal["all"] = Field(
        description="the papers it reproduces"
    )
    verdicts: dict[str, int] = Field(description="findings per verdict (empty until done)")


class ReproductionPage(BaseModel):
    total: int
    offset: int
    limit: int
    items: list[ReproductionSummary]


class ReproductionDocument(JobDocument):
    """A stored reproduction: its findings once done, and the files of its report."""

    request: ReproductionRequest
    findings: list[FindingResult] | None
    files: list[str] = Field(
        default_factory=list, description="GET /api/v1/reproductions/{id}/files/{path}"
    )

    @property
    def targets(self) -> list[ReproductionTarget] | Literal["all"]:
        return self.request.targets

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdicts(self) -> dict[str, int]:
        """Findings per verdict."""
        return dict(Counter(f.verdict.value for f in self.findings or []))
