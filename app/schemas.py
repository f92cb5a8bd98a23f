"""Pydantic types at the boundary: CLI input files, REST bodies and REST responses."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator

from models.optics import ASSUMPTIONS, MIN_TARGET_BER

MAX_NODES = 4096
MAX_DEMANDS = 2_000_000
MAX_TIME_LIMIT_S = 600.0
MAX_COUNT = 2**31 - 1  # unit lightpaths of one demand
MAX_RWA_LIGHTPATHS = 1_000_000  # one POST /api/v1/rwa answer lists every unit lightpath


Demand = Annotated[
    list[int | str],
    WithJsonSchema(
        {
            "type": "array",
            "prefixItems": [
                {"type": "integer", "title": "source", "minimum": 0, "maximum": MAX_NODES - 1},
                {"type": "integer", "title": "destination", "minimum": 0, "maximum": MAX_NODES - 1},
                {"type": "integer", "title": "count", "minimum": 1, "maximum": MAX_COUNT},
                {"type": "string", "enum": ["cw", "ccw", "any"], "title": "direction"},
            ],
            "items": False,
            "minItems": 3,
            "maxItems": 4,
        }
    ),
]


class RwaInput(BaseModel):
    """One stage: `{"nodes", "fibers", "wavelengths", "demands": [[s, d, k(, dir)], ...]}`."""

    model_config = ConfigDict(extra="forbid")

    nodes: Annotated[int, Field(ge=2, le=MAX_NODES, description="ring size N")]
    fibers: Annotated[int, Field(ge=1, le=64, description="fibres per direction F")] = 1
    wavelengths: Annotated[int, Field(ge=1, le=4096, description="wavelengths per fibre w")] = 64
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


Method = Literal["auto", "exact", "exact-highs", "heuristic"]
ShapeName = Literal["paper", "best"]


DEFAULT_SEARCH_BUDGET_S = 30.0  # per algorithm; RWAOPT_SHAPE_SEARCH_BUDGET_S overrides
MAX_SEARCH_BUDGET_S = 3600.0
MAX_MESSAGE_BYTES = 1e15  # 1 PB: beyond this a message size is a typo, not a plan
MAX_MESSAGE_SIZES = 64
MAX_ALGORITHMS = 32


class RingSpec(BaseModel):
    """The WDM ring (SPEC section 1)."""

    model_config = ConfigDict(extra="forbid")

    nodes: Annotated[int, Field(ge=2, le=MAX_NODES, description="ring size N (nodes/GPUs)")]
    fibers_per_direction: Annotated[
        int, Field(ge=1, le=64, description="fibres per direction F")
    ] = 1
    wavelengths_per_fiber: Annotated[
        int, Field(ge=1, le=4096, description="wavelengths per fibre w")
    ] = 64


class HardwareSpec(BaseModel):
    """Per-slot time constants (OpTree journal Sec. V-A, WRHT Table II)."""

    model_config = ConfigDict(extra="forbid")

    bandwidth_per_wavelength_gbps: Annotated[
        float, Field(ge=1e-3, le=1e4, description="line rate of one wavelength, Gb/s")
    ] = 40.0
    mrr_reconfiguration_us: Annotated[
        float, Field(ge=0, le=1e6, description="micro-ring retuning delay per slot, us")
    ] = 25.0
    oeo_cycles_per_flit: Annotated[
        float, Field(ge=0, le=1e6, description="O/E/O conversion clock cycles per flit")
    ] = 1.0
    flit_bytes: Annotated[int, Field(ge=1, le=1 << 20, description="flit size, bytes")] = 32
    clock_ghz: Annotated[
        float,
        Field(
            ge=1e-3,
            le=100,
            description="clock of the O/E/O conversion, GHz (an assumption: "
            "the papers give none; 4.0 is the WRHT paper's i7-6700K)",
        ),
    ] = 4.0


AlgorithmParams = dict[str, int | list[int]]


class OpticsSpec(BaseModel):
    """Physical constants of the OpTree journal's eqs. (5)-(9). The paper prints no values:
    every default is an assumption (each field says so), except the BER target."""

    model_config = ConfigDict(extra="forbid")

    laser_power_dbm: Annotated[
        float, Field(ge=-60, le=60, description=ASSUMPTIONS["laser_power_dbm"])
    ] = 10.0
    modulator_loss_db: Annotated[
        float, Field(ge=0, le=100, description=ASSUMPTIONS["modulator_loss_db"])
    ] = 1.0
    pass_loss_db_per_node: Annotated[
        float, Field(ge=0, le=100, description=ASSUMPTIONS["pass_loss_db_per_node"])
    ] = 0.1
    extinction_penalty_db: Annotated[
        float, Field(ge=0, le=100, description=ASSUMPTIONS["extinction_penalty_db"])
    ] = 1.0
    receiver_sensitivity_dbm: Annotated[
        float, Field(ge=-100, le=60, description=ASSUMPTIONS["receiver_sensitivity_dbm"])
    ] = 0.0
    tx_crosstalk_dbm: Annotated[
        float, Field(ge=-200, le=60, description=ASSUMPTIONS["tx_crosstalk_dbm"])
    ] = -40.0
    rx_crosstalk_dbm_per_node: Annotated[
        float, Field(ge=-200, le=60, description=ASSUMPTIONS["rx_crosstalk_dbm_per_node"])
    ] = -40.0
    other_noise_dbm: Annotated[
        float, Field(ge=-200, le=60, description=ASSUMPTIONS["other_noise_dbm"])
    ] = -40.0
    snr_scale: Annotated[Literal["db", "linear"], Field(description=ASSUMPTIONS["snr_scale"])] = (
        "linear"
    )
    target_ber: Annotated[
        float, Field(ge=MIN_TARGET_BER, lt=0.5, description=ASSUMPTIONS["target_ber"])
    ] = 1e-9


class PlanRequest(BaseModel):
    """What `POST /api/v1/plans` and `rwaopt plan` take."""

    model_config = ConfigDict(extra="forbid")

    ring: RingSpec
    hardware: HardwareSpec = Field(default_factory=HardwareSpec)
    collective: Literal["allgather", "allreduce", "alltoall"]
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
        list[Annotated[float, Field(gt=0, le=MAX_MESSAGE_BYTES)]],
        Field(
            min_length=1,
            max_length=MAX_MESSAGE_SIZES,
            description="per-node message sizes to time, bytes",
        ),
    ]
    method: Method = "auto"
    time_limit_s: Annotated[
        float, Field(gt=0, le=MAX_TIME_LIMIT_S, description="solver time limit per stage, s")
    ] = 10.0
    max_tx_per_node: Annotated[
        int | None, Field(ge=1, description="most lightpaths a node sends per slot")
    ] = None
    max_rx_per_node: Annotated[
        int | None, Field(ge=1, description="most lightpaths a node receives per slot")
    ] = None
    optics: OpticsSpec = Field(default_factory=OpticsSpec)
    shape: Annotated[
        ShapeName | dict[str, ShapeName],
        Field(
            description="which shape of each algorithm to report: 'paper' (what the paper's "
            "formulas choose) or 'best' (least true time, searched on true RWA); one for all, "
            "or per algorithm name. An algorithm given `parameters` is planned at that "
            "explicit shape",
        ),
    ] = "best"
    search_budget_s: Annotated[
        float | None,
        Field(
            gt=0,
            le=MAX_SEARCH_BUDGET_S,
            description="time budget of each algorithm's best-shape search, s (default: "
            "RWAOPT_SHAPE_SEARCH_BUDGET_S); the result says whether the search was exhaustive",
        ),
    ] = None
    max_lightpath_hops: Annotated[
        Annotated[int, Field(ge=1, le=MAX_NODES)] | Literal["loss_budget"] | None,
        Field(
            description="routing constraint: no lightpath longer than this many hops; "
            "'loss_budget' = the longest the optics allow. The result says what it costs "
            "in steps",
        ),
    ] = None

    @field_validator("algorithms")
    @classmethod
    def _names(cls, names: list[str] | str) -> list[str] | str:
        if isinstance(names, list):
            if not 1 <= len(names) <= MAX_ALGORITHMS:
                raise ValueError(f"give 1 to {MAX_ALGORITHMS} algorithm names, or 'all'")
            if len(set(names)) != len(names):
                raise ValueError("algorithm names repeat")
        return names


class ErrorBody(BaseModel):
    """Every error: a stable code, a message saying what to change, and details."""

    code: str
    message: str
    detail: dict[str, Any] = Field(default_factory=dict)


class StageResult(BaseModel):
    index: int
    label: str
    demands: int = Field(description="distinct (source, destination) demands")
    unit_lightpaths: int = Field(description="unit lightpaths of the stage")
    pieces_per_lightpath: int = Field(
        description="pieces of the message one lightpath carries (item_bytes each); more than "
        "1 where a step moves a whole part on one lightpath (H-Ring's intra-group steps)"
    )
    chi: int = Field(description="channels used: (slot, fibre, wavelength) colours")
    steps: int = Field(description="time slots: ceil(chi / (F w))")
    lower_bound: int = Field(description="proven lower bound on chi")
    steps_lower_bound: int = Field(description="proven lower bound on the stage's slots")
    gap: float = Field(description="(chi - lower_bound) / chi; 0 when optimal")
    steps_optimal: bool = Field(description="steps equal their proven bound")
    channels_optimal: bool = Field(description="chi equals its proven bound")
    status: str = Field(description="optimal, feasible, time_limit or infeasible")
    method: str
    solution_stage: int = Field(description="index of the first stage with the same demands")


UnitName = Literal["steps", "rounds", "blocks", "wavelengths", "hops", "stages", "nodes"]


class ClosedFormResult(BaseModel):
    quantity: str
    text: str = Field(description="the formula as printed")
    source: str = Field(description="paper and equation or table")
    value: float | None
    alternative: float | None
    note: str
    unit: UnitName = Field(
        description="what it counts: optical steps, MPI rounds, blocks, wavelengths, ..."
    )


class Claim(BaseModel):
    """The paper's headline closed form for this algorithm, in its own unit."""

    quantity: str
    value: float | None
    alternative: float | None = Field(description="the formula's other case, where it has one")
    unit: UnitName
    text: str
    source: str
    note: str


class MessageCountsResult(BaseModel):
    """An MPI algorithm's K and D (TRA Propositions 1-4) counted on its schedule."""

    rounds: int = Field(description="K: rounds in which processes exchange messages")
    blocks_sent_per_process: int = Field(description="D: blocks the busiest process sends")
    counted_on: Literal["schedule", "rounds"] = Field(
        description="'schedule': block by block; 'rounds': the schedule's rounds, where P^2 "
        "blocks are too many to track one by one"
    )


class ShapeSummary(BaseModel):
    parameters: dict[str, int | list[int]]
    true_steps: int
    steps_lower_bound: int
    steps_optimal: bool
    channels_optimal: bool
    times_s: list[float] = Field(description="true time per message size")


class BestByMessage(BaseModel):
    message_bytes: float
    parameters: dict[str, int | list[int]]
    true_steps: int
    time_s: float


class ShapeSearch(BaseModel):
    candidates: int = Field(description="shapes of the family the search knows")
    evaluated: int = Field(description="candidates solved on true RWA")
    pruned: int = Field(description="candidates ruled out by a proven bound")
    exhaustive: bool = Field(description="every candidate was solved or pruned")
    seconds: float
    note: str = Field(description="why the search stopped early, if it did")
    best_by_message: list[BestByMessage] = Field(
        description="the winner at each message size ('best' is the first one's)"
    )


class Shapes(BaseModel):
    asked: Literal["paper", "best", "explicit"]
    paper: ShapeSummary
    best: ShapeSummary | None
    search: ShapeSearch | None


class TimingResult(BaseModel):
    message_bytes: float
    item_bytes: float = Field(description="bytes one lightpath carries per slot")
    time_s: float = Field(description="true steps x slot time")
    claimed_time_s: float | None = Field(description="closed-form steps x slot time")
    hardware_bound_s: float = Field(description="least time any algorithm could take")
    efficiency: float = Field(description="hardware_bound_s / time_s")


class LightpathOpticsResult(BaseModel):
    stage: int
    source: int
    destination: int
    direction: Literal["cw", "ccw"]
    slot: int
    fiber: int
    wavelength: int
    hops: int
    rx_neighbours: int = Field(description="nodes on the path adding/dropping on its fibre")
    tx_neighbours: int = Field(description="1 if another transmitter at its source shares it")
    loss_db: float
    margin_db: float = Field(description="eq. (6) slack: laser - loss - penalty - sensitivity")
    snr_db: float
    ber: float = Field(description="eq. (9) under the configured snr_scale")
    ber_other_scale: float = Field(description="eq. (9) under the other snr_scale")
    min_laser_power_dbm: float
    blocking: str | None = Field(description="what fails, or null when reliable")


class Blocking(BaseModel):
    stage: int
    lightpath: LightpathOpticsResult
    reason: str


class ClosedFormOptics(BaseModel):
    l_max_hops: float = Field(description="eq. (4) for OpTree; N - 1 otherwise")
    source: str
    loss_db: float
    margin_db: float
    snr_db: float
    ber: float


class OpticsBudget(BaseModel):
    max_lightpath_hops: int = Field(description="longest worst-case lightpath that is reliable")
    limited_by: str
    max_ring_nodes_shortest_routes: int = Field(description="2 max_lightpath_hops + 1")


class StageOpticsResult(BaseModel):
    index: int
    lightpaths: int
    failing: int
    failing_power: int = Field(description="lightpaths with a negative power margin (eq. 6)")
    failing_ber: int = Field(description="lightpaths with BER >= target (eqs. 7-9)")
    max_hops: int
    worst_ber: float | None
    worst_margin_db: float | None


class OtherScaleVerdict(BaseModel):
    """The verdict had eq. (9) read eq. (7)'s SNR the other way ('db' is the paper as
    printed: SNR >= 80.1 dB for BER 1e-9)."""

    snr_scale: Literal["db", "linear"]
    feasible: bool
    failing_lightpaths: int
    required_snr_db: float


class Feasibility(BaseModel):
    """Optical feasibility of every lightpath (OpTree journal Sec. IV-B, eqs. 4-9)."""

    feasible: bool
    failing_lightpaths: int
    other_snr_scale: OtherScaleVerdict
    blocking: Blocking | None = Field(description="the first failing stage's worst lightpath")
    worst_lightpath: LightpathOpticsResult | None = Field(description="highest BER of the plan")
    max_hops: int
    margin_db: float | None = Field(description="smallest power margin of any lightpath")
    ber: float | None = Field(description="BER of the worst lightpath")
    min_laser_power_dbm: float | None = Field(description="least laser power for a reliable plan")
    closed_form: ClosedFormOptics
    budget: OpticsBudget
    required_snr_db: float
    parameters: OpticsSpec
    assumptions: dict[str, str]
    stages: list[StageOpticsResult]


class RoutingConstraint(BaseModel):
    max_lightpath_hops: int
    true_steps_unconstrained: int
    steps_cost: int = Field(description="true steps with the limit - without it")


class AlgorithmResult(BaseModel):
    collective: str
    algorithm: str
    shape: Literal["paper", "best", "explicit"] = Field(
        description="which shape the top-level steps, stages and times are of"
    )
    parameters: dict[str, int | list[int]]
    claimed: Claim | None
    claimed_steps: float | None = Field(
        description="the claim when it counts optical steps, else null"
    )
    claimed_steps_source: str | None
    true_steps: int
    steps_lower_bound: int
    steps_difference: float | None = Field(
        description="true_steps - claimed_steps (only when the claim counts optical steps)"
    )
    steps_optimal: bool = Field(description="true steps equal the proven step bound")
    channels_optimal: bool = Field(description="every stage's chi equals its proven bound")
    message_counts: MessageCountsResult | None
    shapes: Shapes
    closed_forms: list[ClosedFormResult]
    timings: list[TimingResult]
    time_s: float | None = Field(description="time for the first message size")
    seconds: float = Field(description="wall-clock seconds the solve took")
    feasibility: Feasibility
    routing_constraint: RoutingConstraint | None
    stages: list[StageResult]


class ClosestToFeasible(BaseModel):
    algorithm: str
    laser_power_shortfall_db: float = Field(
        description="laser power it lacks to be reliable (min_laser_power_dbm - laser_power_dbm)"
    )
    min_laser_power_dbm: float | None


class Recommendation(BaseModel):
    """The fastest optically feasible algorithm by true time (SPEC section 10)."""

    message_bytes: float
    algorithm: str | None = Field(description="null when no algorithm is optically feasible")
    time_s: float | None
    feasible: bool = Field(description="some algorithm is optically feasible")
    tied_with: list[str] = Field(description="other feasible algorithms exactly as fast")
    fastest_regardless_of_optics: str
    skipped_infeasible: list[str] = Field(
        description="faster algorithms passed over because they are optically infeasible"
    )
    closest_to_feasible: ClosestToFeasible | None = Field(
        description="when none is feasible: the one needing the least extra laser power"
    )
    fastest_by_closed_form: str | None = Field(
        description="what the papers' closed forms would pick (their claimed steps)"
    )
    why: str


class SkippedAlgorithm(BaseModel):
    algorithm: str
    reason: str


class PlanResult(BaseModel):
    collective: str
    ring: RingSpec
    algorithms: list[AlgorithmResult]
    skipped: list[SkippedAlgorithm] = Field(
        description="algorithms of the collective left out of 'all' because they refuse the ring"
    )
    recommendation: list[Recommendation]


class PlanDocument(BaseModel):
    id: str
    status: Literal["queued", "running", "done", "failed"]
    created_at: datetime
    seconds: float | None = Field(description="solve wall-clock seconds, once done")
    request: PlanRequest
    result: PlanResult | None
    error: ErrorBody | None


class PlanSummary(BaseModel):
    id: str
    status: Literal["queued", "running", "done", "failed"]
    created_at: datetime
    collective: str
    nodes: int
    algorithms: list[str] | Literal["all"]
    seconds: float | None


class PlanPage(BaseModel):
    total: int
    offset: int
    limit: int
    items: list[PlanSummary]
