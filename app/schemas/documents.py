"""Stored plans as the API shows them, and the error body every failure answers with."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from app.errors import ErrorBody
from app.schemas.mirror import Mirror
from app.schemas.requests import PlanRequest, ReproductionRequest
from app.schemas.results import FindingResult, PlanResult
from models.algorithms.base import Collective


class JobStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class PlanDocument(BaseModel):
    id: str
    status: JobStatus
    created_at: datetime
    seconds: float | None = Field(description="solve wall-clock seconds, once done")
    request: PlanRequest
    result: PlanResult | None
    error: ErrorBody | None

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


class ReproductionDocument(BaseModel):
    """A stored reproduction: its findings once done, and the files of its report."""

    id: str
    status: JobStatus
    created_at: datetime
    seconds: float | None
    request: ReproductionRequest
    verdicts: dict[str, int] = Field(description="findings per verdict")
    findings: list[FindingResult] | None
    files: list[str] = Field(description="GET /api/v1/reproductions/{id}/files/{path}")
    error: ErrorBody | None
