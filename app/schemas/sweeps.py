"""Sweeps: one request for a grid of plans (POST /api/v1/sweeps, `rwaopt sweep GRID`), its
document, and the rows of its results.

Every option of a plan may be given once for all points or as a list to sweep over; the
grid's points are the Cartesian product of the lists, each point a `PlanRequest`. The sweep's
fields are generated from `PlanRequest`'s and `RingSpec`'s own (types, limits, descriptions),
so a new plan option is a sweep axis at once and the two never disagree.
"""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    JsonValue,
    PrivateAttr,
    Tag,
    ValidationError,
    ValidationInfo,
    create_model,
    model_validator,
)
from pydantic.fields import FieldInfo

from app.schemas.documents import JobDocument, JobStatus
from app.schemas.requests import (
    MANY,
    ONE,
    PlanRequest,
    RingSpec,
    error_text,
    one_or_many,
    readable_loc,
    repeated_size,
    shown,
    storable_text,
    stored,
)
from models.algorithms.base import Collective, ShapeMode
from models.closed_forms import Unit

MAX_SWEEP_POINTS = 256  # SweepRequest's docstring (the API's description) says 256
MAX_AXIS_VALUES = 64
RING_AXES = ("nodes", "fibers_per_direction", "wavelengths_per_fiber")
# Lists a plan takes whole: every point gets all of them (they are not axes).
PER_POINT = ("algorithms", "message_sizes_bytes", "workloads")


def _axis(info: FieldInfo, name: str) -> tuple[Any, FieldInfo]:
    """A plan field as a sweep axis: its own type (with its limits), or a list of values."""
    value = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
    values = Annotated[list[value], Field(min_length=1, max_length=MAX_AXIS_VALUES)]  # type: ignore[valid-type]
    described = (info.description or f"the plan's `{name}`, as POST /api/v1/plans takes it")
    described = described.rstrip(".")
    description = f"{described}. One value for every point, or a list of values to sweep over"
    axis = Annotated[
        Annotated[value, Tag(ONE)] | Annotated[values, Tag(MANY)],  # type: ignore[valid-type]
        Discriminator(one_or_many),
    ]
    if info.default_factory is not None:
        return axis, Field(default_factory=info.default_factory, description=description)
    return axis, Field(default=info.default, description=description)


def _fields() -> dict[str, Any]:
    fields: dict[str, Any] = {
        "collective": _axis(PlanRequest.model_fields["collective"], "collective")
    }
    for name in RING_AXES:
        fields[name] = _axis(RingSpec.model_fields[name], name)
    for name, info in PlanRequest.model_fields.items():
        if name in ("ring", "collective"):
            continue
        if name in PER_POINT:
            fields[name] = (info.annotation, info)
        else:
            fields[name] = _axis(info, name)
    return fields


_SweepFields = create_model("_SweepFields", __config__=ConfigDict(extra="forbid"), **_fields())
AXES: tuple[str, ...] = tuple(n for n in _SweepFields.model_fields if n not in PER_POINT)


class SweepRequest(_SweepFields):  # type: ignore[misc,valid-type]
    """A grid of plans: `{"collective": "allreduce", "nodes": [8, 16], "wavelengths_per_fiber":
    [4, 8], "message_sizes_bytes": [1048576], ...}`. Any plan option given as a list is an axis;
    the points are every combination, at most 256 of them (`MAX_SWEEP_POINTS`)."""

    _points: list[PlanRequest] = PrivateAttr(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: object) -> object:
        storable_text(data)
        return data

    @model_validator(mode="after")
    def _grid(self, info: ValidationInfo) -> SweepRequest:
        data = self.model_dump()
        axes = {name: self.axis(name) for name in AXES}
        for name, values in axes.items():
            seen: set[str] = set()
            for value in values:
                if repr(value) in seen:
                    raise ValueError(
                        f"{name}: the values repeat ({shown(value)} is given twice); give each once"
                    )
                seen.add(repr(value))
        why = None if stored(info) else repeated_size(self.message_sizes_bytes, self.workloads)
        if why is not None:
            raise ValueError(f"workloads: {why}")
        total = 1
        for values in axes.values():
            total *= len(values)
        if total > MAX_SWEEP_POINTS:
            sizes = " x ".join(str(len(v)) for v in axes.values() if len(v) > 1)
            raise ValueError(
                f"the grid has {total} points ({sizes}); at most {MAX_SWEEP_POINTS}: "
                "split it into several sweeps"
            )
        whole = {name: data[name] for name in PER_POINT}
        points = []
        for index, combination in enumerate(itertools.product(*axes.values())):
            point = dict(zip(axes, combination, strict=True))
            ring = {name: point.pop(name) for name in RING_AXES}
            try:
                points.append(
                    PlanRequest.model_validate(
                        {"ring": ring, **point, **whole}, context=info.context
                    )
                )
            except ValidationError as error:
                first = error.errors()[0]
                where = ".".join(readable_loc(first["loc"]))
                raise ValueError(
                    f"point {index} ({point['collective']}, {ring}): "
                    f"{where + ': ' if where else ''}{error_text(first)}"
                ) from None
        self._points = points
        return self

    def axis(self, name: str) -> list[Any]:
        """The values of one axis (a single value is an axis of one)."""
        value = getattr(self, name)
        return value if isinstance(value, list) else [value]

    def swept(self) -> list[str]:
        """The axes given as lists of more than one value."""
        return [name for name in AXES if len(self.axis(name)) > 1]

    def points(self) -> list[PlanRequest]:
        return list(self._points)


class SweepPoints(BaseModel):
    """Point counts: finished points are done, failed or cancelled."""

    total: int
    done: int = Field(description="points with a result (cached ones included)")
    failed: int
    cached: int = Field(description="points answered by a plan solved before (reused)")
    running: int
    queued: int
    cancelled: int


class SweepDocument(JobDocument):
    """A stored sweep: its grid, status (read off its points) and progress."""

    request: SweepRequest
    points: SweepPoints
    eta_s: float | None = Field(
        default=None, description="estimated seconds to finish, from the points computed so far"
    )


class SweepSummary(BaseModel):
    id: str
    status: JobStatus
    created_at: datetime
    points: SweepPoints


class SweepPage(BaseModel):
    total: int
    offset: int
    limit: int
    items: list[SweepSummary]


class SweepRow(BaseModel):
    """One row of a sweep's results: a point, one of its algorithms and one message size.
    A point without a result (failed, cancelled, unfinished) has one row saying why."""

    point: int
    plan_id: str | None
    status: JobStatus
    cached: bool
    collective: Collective
    nodes: int
    fibers_per_direction: int
    wavelengths_per_fiber: int
    swept: dict[str, JsonValue] = Field(
        description="the point's value of every other axis the sweep varies"
    )
    algorithm: str | None = None
    shape: ShapeMode | None = None
    parameters: str | None = Field(default=None, description="the shape's parameters")
    message_bytes: float | None = None
    claimed: int | float | None = Field(
        default=None, description="the paper's closed-form claim (a whole number as an integer)"
    )
    claimed_unit: Unit | None = Field(default=None, description="the claim's unit")
    true_steps: int | None = None
    steps_lower_bound: int | None = None
    steps_proven: bool | None = Field(default=None, description="true steps equal their bound")
    time_s: float | None = Field(default=None, description="true steps x slot time")
    claimed_time_s: float | None = None
    achievable_s: float | None = Field(
        default=None, description="the achievable bound this algorithm is measured against"
    )
    fraction_of_achievable: float | None = Field(
        default=None, description="achievable_s / time_s, in (0, 1]"
    )
    reduce_then_broadcast: bool | None = Field(
        default=None,
        description="all-reduce: this shape forms each complete sum at one node and copies it",
    )
    reduce_then_broadcast_s: float | None = Field(
        default=None,
        description="all-reduce: no schedule of that class is faster (the plan's "
        "achievable[].reduce_then_broadcast_s)",
    )
    feasible: bool | None = Field(default=None, description="optically feasible")
    recommended: bool | None = Field(
        default=None, description="the point's recommendation for this message size"
    )
    recommended_parameters: str | None = Field(
        default=None,
        description="on the recommended row: the shape recommended, which may be another "
        "shape of the family than the row's (the fastest feasible one at this size)",
    )
    recommended_time_s: float | None = Field(
        default=None, description="on the recommended row: the recommended shape's time"
    )
    point_recommends: str | None = Field(
        default=None,
        description="on every row of the point and size: what the point recommends there, an "
        "optical algorithm or the electrical fat-tree's e-ring / e-rd (then no row is "
        "`recommended`); null when nothing is feasible",
    )
    error: str | None = None


ResultFormat = Literal["csv", "ndjson", "json"]
