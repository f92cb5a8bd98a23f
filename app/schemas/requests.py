"""What rwaopt takes: REST bodies, CLI input files and options, validated once here."""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from app.schemas.mirror import Mirror
from models.algorithms.base import Collective, ShapeMode
from models.electrical import DNN_WORKLOADS, FatTree
from models.optics import ASSUMPTIONS, MIN_TARGET_BER, OpticalParameters
from models.ring import ALLOWED_NAMES, Hardware, Ring
from models.stage import Stage
from solver.outcome import Method, SolveOptions

MAX_NODES = 8192  # beyond what fits, the memory admission refuses a plan up front (app.planning)
MAX_DEMANDS = 250_000  # distinct demands of one /rwa stage (each parsed in the API process)
MAX_TIME_LIMIT_S = 600.0
MAX_COUNT = 2**31 - 1  # unit lightpaths of one demand
MAX_RWA_LIGHTPATHS = 1_000_000  # one POST /api/v1/rwa answer lists every unit lightpath
MAX_PARAMETER_VALUES = 64  # e.g. an OpTree branching list: one factor per stage
MAX_PER_NODE = 1 << 20  # lightpaths a node may send or receive per slot


def _no_bool(value: object) -> object:
    """JSON `true` is not the integer 1, nor "4096" the number 4096: refuse both where a
    number is meant (pydantic's lax mode would accept them). NaN and infinity (JSON `NaN`,
    `Infinity`, `1e999`) are no number to plan with either: said so before any range check
    ("should be less than or equal to 600" would not say what is wrong)."""
    if isinstance(value, bool):
        raise ValueError("a number is needed here, not true/false")
    if isinstance(value, str):
        raise ValueError(f"a number is needed here, not the string {value[:40]!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"a finite number is needed here, not {value}")
    return value


_N = TypeVar("_N")
_V = TypeVar("_V")
# A JSON number: not true, not "4.5", not NaN. Limits go inside, applied before the check:
# `Number[Annotated[int, Field(ge=1)]]`, or `x: Int = Field(ge=1)` (a field's own Field goes
# first). `Annotated[Int, Field(ge=1)]` applies them after a function, and pydantic then
# writes them into the JSON schema as `ge` / `le`, not JSON Schema's minimum / maximum.
Number = Annotated[_N, BeforeValidator(_no_bool)]
Int = Number[int]
Float = Number[float]
Bool = Annotated[bool, Field(strict=True)]  # JSON true/false: not 0, 0.0 or "yes"


def storable_text(value: object, where: str = "") -> None:
    """Refuse text no store can keep, anywhere in a request (keys too): a lone surrogate
    (not UTF-8: '\\ud800' in JSON) or a NUL character (PostgreSQL's text refuses it). The
    message escapes it, so the error itself can be encoded."""
    if isinstance(value, str):
        bad = "\x00" in value
        if not bad:
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                bad = True
        if bad:
            raise ValueError(
                f"{where or 'text'}: {ascii(value)[:60]} is not storable text: use valid "
                "Unicode without NUL characters"
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            storable_text(key, f"{where}.key" if where else "key")
            storable_text(item, f"{where}.{ascii(key)[1:-1][:40]}" if where else str(key)[:40])
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            storable_text(item, f"{where}.{index}" if where else str(index))


def readable_loc(loc: Sequence[int | str]) -> list[str]:
    """A validation error's location without pydantic's names for the members of a union
    (`function-after[<function less_than_or_equal_validator at 0x..>, ...]`,
    `literal['loss_budget']`, `int`): they name internals, not the field to fix."""
    internal = re.compile(r"^(int|str|float|bool|none|list|dict)$|[\[<(]")
    return [str(x) for x in loc if isinstance(x, int) or not internal.search(str(x))]


# How pydantic writes an enum member it expected (a Literal of members, e.g. AskedShape):
# `<ShapeMode.PAPER: 'paper'>`, where a client sends and reads 'paper'.
_ENUM_REPR = re.compile(r"<[A-Za-z_]\w*\.[A-Za-z_]\w*: ('[^']*'|\"[^\"]*\"|-?[0-9.]+)>")


def error_text(error: Mapping[str, Any]) -> str:
    """A pydantic error's message for people: a validator's own ValueError text without
    pydantic's "Value error, " in front (the text already says what to change), and enum
    members as the values a client writes ('paper', not <ShapeMode.PAPER: 'paper'>)."""
    message = str(error["msg"])
    prefix = "Value error, "
    if error.get("type") == "value_error" and message.startswith(prefix):
        message = message[len(prefix) :]
    return plain(message)


def plain(text: str) -> str:
    """Enum members in a pydantic message as the values a client writes ('paper', not
    <ShapeMode.PAPER: 'paper'>)."""
    return _ENUM_REPR.sub(r"\1", text)


def did_you_mean(model: type[BaseModel], loc: Sequence[str | int]) -> str:
    """For a field no model takes (pydantic's `extra_forbidden` at `loc`, "body" first or
    not): "; did you mean 'algorithms'?" when a field of the model at that place is near
    its name, else "" (a sweep grid's "algorithm" said only "Extra inputs are not
    permitted"; review, session 35)."""
    current: Any = model
    path = [x for x in loc if x != "body"]
    for step in path[:-1]:
        if isinstance(step, int):
            continue
        field = getattr(current, "model_fields", {}).get(step)
        if field is None:
            return ""
        current = model_in(field.annotation)
        if current is None:
            return ""
    if not path or not isinstance(path[-1], str) or not hasattr(current, "model_fields"):
        return ""
    names = list(current.model_fields)
    near = difflib.get_close_matches(path[-1], names, n=1, cutoff=0.6)
    return f"; did you mean {near[0]!r}?" if near else ""


def model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model inside an annotation (itself, Optional, a list or dict of it, an
    Annotated one, a union with one model), or None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = model_in(arg)
        if found is not None:
            return found
    return None


def shown(value: object) -> str:
    """A value as a message shows it, as a client writes it: 65536, not 65536.0; 'resnet50'
    and 'paper' quoted (not ShapeMode.PAPER); an object as its JSON."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, Enum):
        return repr(value.value)
    if isinstance(value, BaseModel):
        return json.dumps(value.model_dump(mode="json"))
    return repr(value)


STORED = {"stored": True}
"""The validation context of a document read back from the database: a request stored before
a rule was added (sizes given twice were accepted up to version 0.6.0) still reads back."""


def stored(info: ValidationInfo) -> bool:
    return bool(info.context and info.context.get("stored"))


def once_each(values: list[_V], what: str, info: ValidationInfo | None = None) -> list[_V]:
    """Refuse a list naming a value twice (65536 and 65536.0 are one size): each would be
    planned and reported twice (two `recommendation` entries for one size). Not for a
    stored request (`STORED`)."""
    if info is not None and stored(info):
        return values
    seen: list[_V] = []
    for value in values:
        if value in seen:
            raise ValueError(f"{what} repeat: {shown(value)} is given twice; give each once")
        seen.append(value)
    return values


def repeated_size(sizes: Sequence[float], workloads: Sequence[str]) -> str | None:
    """Why a workload's gradient is a size `message_sizes_bytes` gives already (each size is
    timed once), or None."""
    for name in workloads:
        size = DNN_WORKLOADS[name].gradient_bytes
        if size in sizes:
            return (
                f"workload {name!r} is {shown(size)} bytes, one of the message sizes given "
                "too; give each size once"
            )
    return None


Demand = Annotated[
    list[Int | str],
    WithJsonSchema(
        {
            "type": "array",
            "description": "[source, destination, count] or [source, destination, count, "
            "direction]: source and destination are nodes 0..N-1, count >= 1 unit lightpaths, "
            "direction 'cw', 'ccw' or 'any'",
            "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "minItems": 3,
            "maxItems": 4,
            "example": [0, 3, 2, "cw"],
        }
    ),
]


RWA_EXAMPLE: dict[str, Any] = {
    "nodes": 6,
    "wavelengths": 2,
    "demands": [[0, 3, 2], [1, 4, 1, "cw"]],
}


class RwaInput(BaseModel):
    """One stage: `{"nodes", "fibers", "wavelengths", "demands": [[s, d, k(, dir)], ...]}`."""

    model_config = ConfigDict(
        extra="forbid",
        # The document's example. app.api.examples would show the recorded one with every
        # list cut to its first item: a demand [0], which this model refuses.
        json_schema_extra={"example": RWA_EXAMPLE},
    )

    nodes: Int = Field(ge=2, le=MAX_NODES, description="ring size N")
    fibers: Int = Field(default=1, ge=1, le=64, description="fibres per direction F")
    wavelengths: Int = Field(default=64, ge=1, le=4096, description="wavelengths per fibre w")
    demands: Annotated[
        list[Demand],
        Field(
            max_length=MAX_DEMANDS,
            description="[source, destination, count] or with a 4th element 'cw', 'ccw' or "
            "'any' restricting the direction",
        ),
    ]

    @field_validator("demands")
    @classmethod
    def _shape(cls, demands: list[list[int | str]]) -> list[list[int | str]]:
        for i, row in enumerate(demands):
            if len(row) not in (3, 4):
                raise ValueError(f"demand {i} must be [s, d, k] or [s, d, k, direction]")
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in row[:3]):
                raise ValueError(f"demand {i}: s, d and k must be integers")
            if not all(-MAX_COUNT <= int(v) <= MAX_COUNT for v in row[:3]):
                raise ValueError(f"demand {i}: s, d and k must be at most {MAX_COUNT}")
            if len(row) == 4 and row[3] not in ("cw", "ccw", "any"):
                raise ValueError(f"demand {i}: direction must be 'cw', 'ccw' or 'any'")
        total = sum(int(row[2]) for row in demands)
        if total > MAX_RWA_LIGHTPATHS:
            raise ValueError(
                f"the demands ask for {total} unit lightpaths; one stage's answer lists each, "
                f"so at most {MAX_RWA_LIGHTPATHS} (split the stage, or plan an algorithm: "
                "plans stream their lightpaths)"
            )
        return demands

    def ring(self) -> Ring:
        return Ring(self.nodes, self.fibers, self.wavelengths)

    def stage(self) -> Stage:
        rows = self.demands
        return Stage.from_demands(
            self.nodes,
            [int(r[0]) for r in rows],
            [int(r[1]) for r in rows],
            [int(r[2]) for r in rows],
            [ALLOWED_NAMES[str(r[3]) if len(r) == 4 else "any"] for r in rows],
        )


AskedShape = Literal[ShapeMode.PAPER, ShapeMode.BEST]  # "explicit" comes from `parameters`


DEFAULT_SEARCH_BUDGET_S = 30.0  # per algorithm; RWAOPT_SHAPE_SEARCH_BUDGET_S overrides
MAX_SEARCH_BUDGET_S = 3600.0
MAX_MESSAGE_BYTES = 1e15  # 1 PB: beyond this a message size is a typo, not a plan
MAX_MESSAGE_SIZES = 64


def _whole_bytes(size: float, info: ValidationInfo) -> float:
    """A message is a whole number of bytes: 1.5 is a typo for 1.5 KiB or 1.5 MB, not a size
    to time (65536.0 is 65536 bytes). A document stored before this rule (version 0.6.x)
    still reads back (`STORED`)."""
    if not size.is_integer() and not stored(info):
        low = math.floor(size)
        raise ValueError(
            f"a message is a whole number of bytes, not {size:g}: give "
            + (f"{low} or {low + 1}" if low else "1")
        )
    return size


# After the range check; `multipleOf` in the JSON schema says so to clients and fuzzers.
WholeBytes = AfterValidator(_whole_bytes)
MAX_ALGORITHMS = 32


class RingSpec(Mirror):
    """The WDM ring (SPEC section 1)."""

    model_config = ConfigDict(extra="forbid")

    nodes: Int = Field(ge=2, le=MAX_NODES, description="ring size N (nodes/GPUs)")
    fibers_per_direction: Int = Field(default=1, ge=1, le=64, description="fibres per direction F")
    wavelengths_per_fiber: Int = Field(
        default=64, ge=1, le=4096, description="wavelengths per fibre w"
    )

    def ring(self) -> Ring:
        return Ring(self.nodes, self.fibers_per_direction, self.wavelengths_per_fiber)


class HardwareSpec(BaseModel):
    """Per-slot time constants (OpTree journal Sec. V-A, WRHT Table II)."""

    model_config = ConfigDict(extra="forbid")

    bandwidth_per_wavelength_gbps: Float = Field(
        default=40.0, ge=1e-3, le=1e4, description="line rate of one wavelength, Gb/s"
    )
    mrr_reconfiguration_us: Float = Field(
        default=25.0, ge=0, le=1e6, description="micro-ring retuning delay per slot, us"
    )
    oeo_cycles_per_flit: Float = Field(
        default=1.0, ge=0, le=1e6, description="O/E/O conversion clock cycles per flit"
    )
    flit_bytes: Int = Field(default=32, ge=1, le=1 << 20, description="flit size, bytes")
    clock_ghz: Float = Field(
        default=4.0,
        ge=1e-3,
        le=100,
        description="clock of the O/E/O conversion, GHz (an assumption: "
        "the papers give none; 4.0 is the WRHT paper's i7-6700K)",
    )

    def hardware(self) -> Hardware:
        return Hardware(**self.model_dump())


def one_or_many(value: object) -> str:
    """The tag of a `value | list[value]` union, chosen by shape, so a validation error names
    the branch the value was meant for (a list's item, not "should be a valid integer").
    The tags are named as `readable_loc` drops them, so an error's place is the parameter
    (`parameters.optree.branching`, not `...branching.value`)."""
    return MANY if isinstance(value, list) else ONE


ONE, MANY = "<one>", "<many>"  # one_or_many's tags


ParameterInt = Number[Annotated[int, Field(ge=-MAX_NODES, le=MAX_NODES)]]
ParameterValue = Annotated[
    Annotated[ParameterInt, Tag(ONE)]
    | Annotated[list[ParameterInt], Field(max_length=MAX_PARAMETER_VALUES), Tag(MANY)],
    Discriminator(one_or_many),
]
AlgorithmParams = Annotated[dict[str, ParameterValue], Field(max_length=16)]


class OpticsSpec(BaseModel):
    """Physical constants of the OpTree journal's eqs. (5)-(9). The paper prints no values:
    every default is an assumption (each field says so), except the BER target."""

    model_config = ConfigDict(extra="forbid")

    laser_power_dbm: Float = Field(
        default=10.0, ge=-60, le=60, description=ASSUMPTIONS["laser_power_dbm"]
    )
    modulator_loss_db: Float = Field(
        default=1.0, ge=0, le=100, description=ASSUMPTIONS["modulator_loss_db"]
    )
    pass_loss_db_per_node: Float = Field(
        default=0.1, ge=0, le=100, description=ASSUMPTIONS["pass_loss_db_per_node"]
    )
    extinction_penalty_db: Float = Field(
        default=1.0, ge=0, le=100, description=ASSUMPTIONS["extinction_penalty_db"]
    )
    receiver_sensitivity_dbm: Float = Field(
        default=0.0, ge=-100, le=60, description=ASSUMPTIONS["receiver_sensitivity_dbm"]
    )
    tx_crosstalk_dbm: Float = Field(
        default=-40.0, ge=-200, le=60, description=ASSUMPTIONS["tx_crosstalk_dbm"]
    )
    rx_crosstalk_dbm_per_node: Float = Field(
        default=-40.0, ge=-200, le=60, description=ASSUMPTIONS["rx_crosstalk_dbm_per_node"]
    )
    other_noise_dbm: Float = Field(
        default=-40.0, ge=-200, le=60, description=ASSUMPTIONS["other_noise_dbm"]
    )
    snr_scale: Annotated[Literal["db", "linear"], Field(description=ASSUMPTIONS["snr_scale"])] = (
        "linear"
    )
    target_ber: Float = Field(
        default=1e-9, ge=MIN_TARGET_BER, lt=0.5, description=ASSUMPTIONS["target_ber"]
    )

    def parameters(self) -> OpticalParameters:
        return OpticalParameters(**self.model_dump())


class FatTreeSpec(BaseModel):
    """The electrical baseline: the optical-vs-electrical paper's two-level fat-tree
    (Sec. 3, Table 2); see models.electrical for what is printed and what is assumed."""

    model_config = ConfigDict(extra="forbid")

    hosts_per_leaf: Int = Field(default=18, ge=1, le=1024, description="half a 36-port switch")
    spines: Int = Field(default=18, ge=1, le=1024, description="level-2 switches")
    link_gbps: Float = Field(default=25.0, gt=0, le=1e4, description="Table 2: 25 Gb/s")
    link_latency_us: Float = Field(default=25.0, ge=0, le=1e6, description="Table 2: 25 us")
    simulate: Bool = Field(
        default=True,
        description="also simulate with SimGrid (when installed): contention on shared links",
    )
    network_model: Literal["default", "cm02"] = Field(
        default="default",
        description="SimGrid's default model (what the papers ran), or CM02 without "
        "correction factors or cross traffic",
    )

    def fat_tree(self) -> FatTree:
        return FatTree(self.hosts_per_leaf, self.spines, self.link_gbps, self.link_latency_us)


WorkloadName = Literal["alexnet", "vgg16", "resnet50", "googlenet"]
assert set(get_args(WorkloadName)) == set(DNN_WORKLOADS)


class SolveSettings(BaseModel):
    """How each stage is solved (`rwaopt rwa`, POST /api/v1/rwa, and every plan)."""

    model_config = ConfigDict(extra="forbid")

    method: Annotated[
        Method,
        Field(
            description="auto (heuristic, then CP-SAT on a remaining gap), exact (CP-SAT), "
            "exact-highs (Pyomo + HiGHS) or heuristic"
        ),
    ] = Method.AUTO
    time_limit_s: Float = Field(
        default=10.0, gt=0, le=MAX_TIME_LIMIT_S, description="solver time limit per stage, s"
    )
    max_tx_per_node: Annotated[
        Number[Annotated[int, Field(ge=1, le=MAX_PER_NODE)]] | None,
        Field(description="most lightpaths a node sends per slot"),
    ] = None
    max_rx_per_node: Annotated[
        Number[Annotated[int, Field(ge=1, le=MAX_PER_NODE)]] | None,
        Field(description="most lightpaths a node receives per slot"),
    ] = None

    def options(self, max_hops: int | None = None) -> SolveOptions:
        return SolveOptions(
            self.method, self.time_limit_s, self.max_tx_per_node, self.max_rx_per_node, max_hops
        )


class PlanRequest(SolveSettings):
    """What `POST /api/v1/plans` and `rwaopt plan` take."""

    ring: RingSpec
    hardware: HardwareSpec = Field(default_factory=HardwareSpec)
    collective: Collective
    algorithms: Annotated[
        list[str] | Literal["all"],
        Field(
            description="algorithm names of the collective, or 'all' (every one that "
            "accepts this ring)"
        ),
    ] = "all"
    parameters: Annotated[
        dict[str, AlgorithmParams],
        Field(description="per algorithm name: its parameters, e.g. {'hring': {'group': 32}}"),
    ] = Field(default_factory=dict)
    message_sizes_bytes: Annotated[
        # An exclusive maximum: a fuzzer that prints 1e15 + 1 with 15 digits sends 1e15.
        list[Number[
                Annotated[
                    float,
                    Field(gt=0, lt=MAX_MESSAGE_BYTES, json_schema_extra={"multipleOf": 1}),
                    WholeBytes,
                ]
            ]],
        Field(
            max_length=MAX_MESSAGE_SIZES,
            description="per-node message sizes to time, bytes, each once (and/or give "
            "`workloads`)",
        ),
        AfterValidator(lambda sizes, info: once_each(sizes, "message sizes", info)),
    ] = Field(default_factory=list)
    workloads: Annotated[
        list[WorkloadName],
        Field(
            max_length=len(DNN_WORKLOADS),
            description="DNN gradients as message sizes: parameters x 4 bytes (float32), "
            "parameter counts as the WRHT paper prints them; each once, and none the size "
            "of a given message",
        ),
        AfterValidator(lambda names, info: once_each(names, "workloads", info)),
    ] = Field(default_factory=list)
    electrical: Annotated[
        Bool,
        Field(
            description="all-reduce only: compare with E-Ring and E-RD on the electrical "
            "fat-tree (Hockney eqs. 8-9 and a SimGrid simulation)"
        ),
    ] = False
    electrical_network: FatTreeSpec = Field(default_factory=FatTreeSpec)
    optics: OpticsSpec = Field(default_factory=OpticsSpec)
    shape: Annotated[
        AskedShape | dict[str, AskedShape],
        Field(
            description="which shape of each algorithm to report: 'paper' (what the paper's "
            "formulas choose) or 'best' (least true time, searched on true RWA); one for all, "
            "or per algorithm name. An algorithm given `parameters` is planned at that "
            "explicit shape; one of no paper (synth, optimal) at its best under 'paper' for "
            "all, and asking 'paper' for it by name is refused",
        ),
    ] = ShapeMode.BEST
    search_budget_s: Annotated[
        Number[Annotated[float, Field(gt=0, le=MAX_SEARCH_BUDGET_S)]] | None,
        Field(
            description="time budget of each algorithm's best-shape search, s (default: "
            "RWAOPT_SHAPE_SEARCH_BUDGET_S); the result says whether the search was exhaustive",
        ),
    ] = None
    max_lightpath_hops: Annotated[
        Number[Annotated[int, Field(ge=1, le=MAX_NODES)]] | Literal["loss_budget"] | None,
        Field(
            description="routing constraint: no lightpath longer than this many hops; "
            "'loss_budget' = the longest the optics allow. The result says what it costs "
            "in steps",
        ),
    ] = None

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: object) -> object:
        storable_text(data)
        return data

    @model_validator(mode="after")
    def _some_size(self) -> PlanRequest:
        if not self.message_sizes_bytes and not self.workloads:
            raise ValueError("give at least 1 message size: message_sizes_bytes or workloads")
        if len(self.sizes()) > MAX_MESSAGE_SIZES:
            raise ValueError(f"at most {MAX_MESSAGE_SIZES} message sizes with the workloads")
        return self

    @field_validator("workloads")
    @classmethod
    def _not_a_given_size(cls, names: list[str], info: ValidationInfo) -> list[str]:
        if stored(info):
            return names
        why = repeated_size(info.data.get("message_sizes_bytes", []), names)
        if why is not None:
            raise ValueError(why)
        return names

    def sizes(self) -> list[float]:
        """The message sizes to time: the given ones, then each workload's gradient."""
        extra = [DNN_WORKLOADS[name].gradient_bytes for name in self.workloads]
        return list(self.message_sizes_bytes) + extra

    @field_validator("algorithms")
    @classmethod
    def _names(cls, names: list[str] | str) -> list[str] | str:
        if isinstance(names, list):
            if not 1 <= len(names) <= MAX_ALGORITHMS:
                raise ValueError(f"give 1 to {MAX_ALGORITHMS} algorithm names, or 'all'")
            if len(set(names)) != len(names):
                once_each(names, "algorithm names")
        return names


ReproductionTarget = Literal[
    "optree-journal", "optree-conference", "wrht", "optical-electrical", "tra"
]


MAX_TARGETS = 32  # names in one request; each paper is reproduced once


class ReproductionRequest(BaseModel):
    """What `POST /api/v1/reproductions` and `rwaopt reproduce` take."""

    model_config = ConfigDict(extra="forbid")

    targets: (
        Annotated[list[ReproductionTarget], Field(min_length=1, max_length=MAX_TARGETS)]
        | Literal["all"]
    ) = Field(
        default="all",
        description="papers to reproduce (each once: repeats are dropped), or 'all'",
    )
    quick: Bool = Field(default=False, description="smaller grids (about a minute)")

    @field_validator("targets", mode="before")
    @classmethod
    def _all_in_a_list(cls, targets: object) -> object:
        """["all"] (or "all" among names) means every paper, as `rwaopt reproduce all` does."""
        if isinstance(targets, list) and "all" in targets:
            return "all"
        return targets

    @field_validator("targets")
    @classmethod
    def _once_each(
        cls, targets: list[ReproductionTarget] | Literal["all"]
    ) -> list[ReproductionTarget] | Literal["all"]:
        """A paper is reproduced once however often it is named (["tra"] * 200 ran 10
        minutes): repeats are dropped, in order."""
        return targets if targets == "all" else list(dict.fromkeys(targets))

    def chosen(self) -> list[ReproductionTarget]:
        return list(get_args(ReproductionTarget)) if self.targets == "all" else self.targets
