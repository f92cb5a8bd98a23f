"""What rwaopt answers, as one family of pydantic models built straight from the solver's
results (`Model.of(...)`): REST responses, `--json`, the CLI's table and CSV, the plots, the
lightpath table and storage all use these, so a field is defined once."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Literal

from pydantic import BaseModel, Field, JsonValue

from app.errors import NotFoundError
from app.planning import PlannedAlgorithm
from app.schemas.mirror import Mirror
from app.schemas.requests import OpticsSpec, RingSpec
from models.achievable import FACTS, AchievableBound
from models.algorithms.base import Algorithm, Collective, Params, ShapeMode
from models.closed_forms import Unit
from models.dataflow import MessageCounts
from models.findings import Verdict
from models.optics import ASSUMPTIONS, SnrScale, lightpaths
from models.ring import DIRECTION_LABELS, Ring
from models.stage import Stage
from solver.electrical import ElectricalAlgorithmResult, ElectricalComparison
from solver.feasibility import LightpathReport, PlanOptics
from solver.outcome import RwaResult, SolvedBy, Status
from solver.plan import AlgorithmPlan, MessageTiming, StagePlan
from solver.shape_search import BestShape, FeasibleShape


class StageRwa(BaseModel):
    """One stage's certified RWA in numbers (SPEC section 2): channels used, slots, and the
    proven bounds on both."""

    chi: int = Field(description="channels used: (slot, fibre, wavelength) colours")
    steps: int = Field(description="time slots: ceil(chi / (F w))")
    lower_bound: int = Field(description="proven lower bound on chi")
    steps_lower_bound: int = Field(description="proven lower bound on the stage's slots")
    gap: float = Field(
        description="(chi - lower_bound) / chi; with max_tx/max_rx_per_node, where status is "
        "about the node-limited schedule's steps, (steps - steps_lower_bound) / steps; 0 when "
        "optimal"
    )
    status: Status
    method: SolvedBy = Field(description="what produced the assignment")
    bound_source: Literal["load", "exact", "configuration"] = Field(
        default="load",
        description="what proves lower_bound: 'load' the routing bound L* (max link load "
        "and the independence bound), 'exact' the exact model's dual bound, 'configuration' "
        "the configuration LP (column generation: a colour gap the load bound cannot see)",
    )

    @staticmethod
    def measured(r: RwaResult) -> StageRwa:
        return StageRwa.model_validate(r, from_attributes=True)


class StageResult(StageRwa):
    index: int
    label: str
    demands: int = Field(description="distinct (source, destination) demands")
    unit_lightpaths: int = Field(description="unit lightpaths of the stage")
    pieces_per_lightpath: int = Field(
        description="pieces of the message one lightpath carries (item_bytes each); more than "
        "1 where a step moves a whole part on one lightpath (H-Ring's intra-group steps)"
    )
    steps_optimal: bool = Field(description="steps equal their proven bound")
    channels_optimal: bool = Field(description="chi equals its proven bound")
    solution_stage: int = Field(description="index of the first stage with the same demands")

    @classmethod
    def of(cls, s: StagePlan) -> StageResult:
        return cls(
            index=s.index,
            label=s.label,
            demands=s.demands,
            unit_lightpaths=s.unit_lightpaths,
            pieces_per_lightpath=s.stage.pieces,
            steps_optimal=s.steps_optimal,
            channels_optimal=s.channels_optimal,
            solution_stage=s.solution_stage,
            **dict(StageRwa.measured(s.result)),
        )


class ClosedFormResult(Mirror):
    quantity: str
    text: str = Field(description="the formula as printed")
    source: str = Field(description="paper and equation or table")
    value: Number | None
    alternative: Number | None = Field(description="the formula's other case, where it has one")
    note: str
    unit: Unit = Field(
        description="what it counts: optical steps, MPI rounds, blocks, wavelengths, ..."
    )


class Claim(ClosedFormResult):
    """The paper's headline closed form for this algorithm, in its own unit."""


class MessageCountsResult(BaseModel):
    """An MPI algorithm's K and D (TRA Propositions 1-4) counted on its schedule."""

    rounds: int = Field(description="K: rounds in which processes exchange messages")
    blocks_sent_per_process: int = Field(description="D: blocks the busiest process sends")
    counted_on: Literal["schedule", "rounds"] = Field(
        description="'schedule': block by block; 'rounds': the schedule's rounds, where P^2 "
        "blocks are too many to track one by one"
    )

    @classmethod
    def of(cls, counted: tuple[MessageCounts, str] | None) -> MessageCountsResult | None:
        if counted is None:
            return None
        counts, where = counted
        return cls(
            rounds=counts.rounds,
            blocks_sent_per_process=counts.data_sent_per_process,
            counted_on=where,  # type: ignore[arg-type]
        )


ParameterValues = dict[str, int | list[int]]
Number = int | float  # an integer stays one in JSON (a closed form's 6 is not 6.0)


def parameter_values(params: Params) -> ParameterValues:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}


class ShapeSummary(BaseModel):
    parameters: ParameterValues
    claimed_steps: Number | None = Field(
        default=None,
        description="the paper's closed form for this shape, when it has one counting optical "
        "steps (WRHT's all-gather form counts only the paper's shape)",
    )
    true_steps: int
    steps_lower_bound: int
    steps_optimal: bool
    channels_optimal: bool
    times_s: list[float] = Field(description="true time per message size")

    @classmethod
    def of(cls, plan: AlgorithmPlan) -> ShapeSummary:
        return cls(
            parameters=parameter_values(plan.params),
            claimed_steps=plan.claimed_steps,
            true_steps=plan.true_steps,
            steps_lower_bound=plan.steps_lower_bound,
            steps_optimal=plan.steps_optimal,
            channels_optimal=plan.channels_optimal,
            times_s=[t.time_s for t in plan.timings],
        )


class FeasibleShapeSummary(ShapeSummary):
    """The fastest optically feasible shape of the family (SPEC sections 7 and 10)."""

    hop_limit: int | None = Field(
        description="longest lightpath it was routed within: the request's "
        "max_lightpath_hops, or a tighter limit that made the shape feasible (null: routed "
        "freely)"
    )

    @classmethod
    def of_feasible(cls, found: FeasibleShape) -> FeasibleShapeSummary:
        return cls(**ShapeSummary.of(found.plan).model_dump(), hop_limit=found.hop_limit)


class BestByMessage(BaseModel):
    """The best shape at one message size."""

    message_bytes: float
    parameters: ParameterValues
    true_steps: int
    time_s: float


class ShapeSearch(BaseModel):
    """How the best-shape search went (SPEC section 7)."""

    seconds: float
    candidates: int = Field(description="shapes of the family the search knows")
    evaluated: int = Field(description="candidates solved on true RWA")
    pruned: int = Field(description="candidates ruled out by a proven bound")
    exhaustive: bool = Field(
        description="every candidate was solved, pruned, or left out as beyond "
        "max_lightpath_hops"
    )
    note: str = Field(description="why the search stopped early, if it did")
    infeasible: int = Field(
        default=0,
        description="candidates solved and proven optically infeasible under any routing (a "
        "lightpath longer than the optics' reach)",
    )
    beyond_hop_limit: int = Field(
        default=0,
        description="candidates left out because a lightpath of theirs is longer than the "
        "request's max_lightpath_hops (not shapes this plan may use)",
    )
    refused: int = Field(
        default=0,
        description="candidates the family refuses on this ring (a limit of its own, e.g. "
        "TRA2's lightpaths per stage), left out",
    )
    best_by_message: list[BestByMessage] = Field(
        description="the winner at each message size ('best' is the first one's)"
    )
    best_feasible_by_message: list[BestByMessage | None] = Field(
        default_factory=list,
        description="the fastest optically feasible shape at each message size "
        "('best_feasible' is the first one's; null: no shape of the family is feasible)",
    )

    @classmethod
    def of(cls, best: BestShape) -> ShapeSearch:
        r = best.report
        return cls(
            candidates=r.candidates,
            evaluated=r.evaluated,
            pruned=r.pruned,
            exhaustive=r.exhaustive,
            seconds=round(r.seconds, 3),
            note=r.note,
            infeasible=r.infeasible,
            beyond_hop_limit=r.beyond_hops,
            refused=r.refused,
            best_feasible_by_message=[
                None
                if found is None or not found.plan.timings
                else BestByMessage(
                    message_bytes=found.plan.timings[i].message_bytes,
                    parameters=parameter_values(found.plan.params),
                    true_steps=found.plan.true_steps,
                    time_s=found.plan.timings[i].time_s,
                )
                for i, found in enumerate(best.feasible_by_message)
            ],
            best_by_message=[
                BestByMessage(
                    message_bytes=plan.timings[i].message_bytes,
                    parameters=parameter_values(plan.params),
                    true_steps=plan.true_steps,
                    time_s=plan.timings[i].time_s,
                )
                for i, plan in enumerate(best.by_message)
                if plan.timings
            ],
        )


class Shapes(BaseModel):
    """The paper's shape and the best one found, with how the search went (SPEC section 7)."""

    asked: ShapeMode
    paper: ShapeSummary
    best: ShapeSummary | None = Field(description="the fastest shape, regardless of optics")
    best_feasible: FeasibleShapeSummary | None = Field(
        default=None,
        description="the fastest shape that is optically feasible under the request's "
        "optics (what the recommendation uses); null when no shape of the family is, or "
        "no search ran",
    )
    search: ShapeSearch | None
    paper_beyond_hop_limit: str | None = Field(
        default=None,
        description="why the paper's shape cannot keep to max_lightpath_hops (the lightpath "
        "that does not fit); `paper` is then that shape routed without the limit, and the "
        "search or the explicit shape keeps to it. Null when the paper's shape fits, or no "
        "limit is set",
    )
    paper_beyond_node_limits: str | None = Field(
        default=None,
        description="why the paper's shape cannot be scheduled within max_tx/max_rx_per_node "
        "(beyond the node-limited scheduler's size); `paper` is then that shape without "
        "the per-node limits, and the explicit shape keeps to them. Null when it can, or "
        "no per-node limit is set",
    )

    @classmethod
    def of(cls, planned: PlannedAlgorithm) -> Shapes:
        best = planned.best
        return cls(
            asked=planned.shape,
            paper=ShapeSummary.of(planned.paper),
            best=None if best is None else ShapeSummary.of(best.plan),
            best_feasible=None
            if best is None or best.feasible is None
            else FeasibleShapeSummary.of_feasible(best.feasible),
            search=None if best is None else ShapeSearch.of(best),
            paper_beyond_hop_limit=planned.paper_beyond_hops,
            paper_beyond_node_limits=planned.paper_beyond_node_limits,
        )


class TimingResult(Mirror):
    message_bytes: float
    item_bytes: float = Field(description="bytes one lightpath carries per slot")
    time_s: float = Field(description="true steps x slot time")
    claimed_time_s: float | None = Field(
        description="the closed form's steps, each at the mean slot time of the algorithm's "
        "stages (steps x slot time where every lightpath carries the same item)"
    )
    hardware_bound_s: float = Field(
        description="SPEC 3's hardware bound: what a node must receive over its 2 F w "
        "channels, plus one reconfiguration (a term of the achievable bound)"
    )
    efficiency: float = Field(description="hardware_bound_s / time_s")
    achievable_s: float = Field(
        default=0.0,
        description="the achievable bound this algorithm is measured against (the plan's "
        "`achievable`, or, when the algorithm is optically infeasible, the same bound "
        "without the optics' hop limit: it does not keep to it)",
    )
    fraction_of_achievable: float = Field(
        default=0.0, description="achievable_s / time_s, in (0, 1]: 1 = no schedule is faster"
    )

    @classmethod
    def measured(cls, timing: MessageTiming, bound: AchievableBound) -> TimingResult:
        out = cls.of(timing)
        out.achievable_s = bound.bound_s
        out.fraction_of_achievable = bound.bound_s / timing.time_s if timing.time_s > 0 else 1.0
        return out


class AchievableResult(BaseModel):
    """The bound on every schedule for one message size (SPEC 12; docs/achievable.md)."""

    message_bytes: float
    bound_s: float = Field(description="no schedule of the model is faster (proven)")
    terms: dict[str, float] = Field(
        description="each term alone, in seconds: 'hardware' (SPEC 3), 'receive' (bytes "
        "every node must receive or send over min(2 F w, Tx, Rx) lightpaths per slot), "
        "'link_capacity' (byte-hops the collective needs over 2 N F w link-channels per "
        "slot), 'slots' (least slots from the hop limit and the fan-in, times the "
        "reconfiguration); bound_s combines them (least slots x reconfiguration + least bytes)"
    )
    hop_limit: int = Field(
        description="longest lightpath the bound allows: the tighter of max_lightpath_hops "
        "and the longest lightpath the optics can make reliable (no crosstalk neighbour)"
    )
    slots: int = Field(description="least number of slots of any schedule")
    slots_at_bound: int | None = Field(
        default=None,
        description="the slot count at which the bound is least: fewer slots would cost "
        "more byte-hops, more would cost more reconfigurations (null in plans stored by "
        "versions before it was reported)",
    )
    decided_by: str | None = Field(
        default=None,
        description="what sets the least bytes at that slot count (docs/achievable.md): "
        + "; ".join(f"'{key}' ({text})" for key, text in FACTS.items())
        + " (null in plans stored by versions before it was reported)",
    )
    exact_s: float | None = Field(
        default=None,
        description="the exact model's optimum (catalog algorithm `optimal`: equal pieces, "
        "one per lightpath, the best of the 1 to 4 pieces per item it tried) when it was "
        "computed and proven; null otherwise. Schedules outside that model (pieces bundled "
        "on a lightpath, finer pieces: `synth`) can be faster",
    )
    exact_pieces: int | None = Field(default=None, description="its pieces per item")
    bound_without_optics_s: float = Field(
        description="the bound without the optics' hop limit (max_lightpath_hops only): "
        "what optically infeasible algorithms are measured against"
    )
    reduce_then_broadcast_s: float | None = Field(
        default=None,
        description="all-reduce: no schedule that forms each complete sum at one node and "
        "copies it from there (reduce-scatter then all-gather, however hierarchical; the "
        "algorithms with `reduce_then_broadcast` true) is faster than this (proven: twice "
        "the distance's slots, an in-tree and an out-tree per element; docs/achievable.md). "
        "The gap between it and `bound_s` is what only schedules outside that class could "
        "gain; null for the other collectives",
    )


class AssignedLightpath(BaseModel):
    source: int
    destination: int
    direction: Literal["cw", "ccw"]
    slot: int
    fiber: int
    wavelength: int
    hops: int


class LightpathOpticsResult(AssignedLightpath):
    rx_neighbours: int = Field(description="nodes on the path adding/dropping on its fibre")
    tx_neighbours: int = Field(description="1 if another transmitter at its source shares it")
    stage: int
    loss_db: float
    margin_db: float = Field(description="eq. (6) slack: laser - loss - penalty - sensitivity")
    snr_db: float
    ber: float = Field(description="eq. (9) under the configured snr_scale")
    ber_other_scale: float = Field(description="eq. (9) under the other snr_scale")
    min_laser_power_dbm: float
    blocking: str | None = Field(description="what fails, or null when reliable")

    @classmethod
    def of(cls, report: LightpathReport) -> LightpathOpticsResult:
        values = {f.name: getattr(report, f.name) for f in fields(report)}
        return cls.model_validate(values | {"blocking": report.blocking or None})


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


class StageOpticsResult(Mirror):
    index: int
    lightpaths: int
    failing: int
    failing_power: int = Field(description="lightpaths with a negative power margin (eq. 6)")
    failing_ber: int = Field(description="lightpaths with BER >= target (eqs. 7-9)")
    max_hops: int
    worst_ber: float | None = Field(description="the highest BER of the stage's lightpaths")
    worst_margin_db: float | None = Field(
        description="the smallest power margin of the stage's lightpaths (eq. 6)"
    )


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
    worst_lightpath: LightpathOpticsResult | None = Field(
        description="the lightpath furthest from reliable: the most laser power needed (a "
        "failing one before any passing one), then the highest BER, then the lowest margin"
    )
    max_hops: int
    margin_db: float | None = Field(description="smallest power margin of any lightpath")
    ber: float | None = Field(description="highest BER of any lightpath")
    min_laser_power_dbm: float | None = Field(
        description="least laser power for a reliable plan (on a 1e-9 dBm grid, rounded up: "
        "given back, it makes the plan feasible)"
    )
    closed_form: ClosedFormOptics
    budget: OpticsBudget
    required_snr_db: float
    parameters: OpticsSpec
    assumptions: dict[str, str]
    stages: list[StageOpticsResult]

    @classmethod
    def of(cls, result: PlanOptics) -> Feasibility:
        params = result.params
        worst = result.worst
        max_hops = max((s.max_hops for s in result.stages), default=0)
        cf = result.closed_form
        failing = result.failing_stages
        first = failing[0] if failing else None
        other: SnrScale = "db" if params.snr_scale == "linear" else "linear"
        blocking = None
        if first is not None and first.worst is not None:
            blocking = Blocking(
                stage=first.index,
                lightpath=LightpathOpticsResult.of(first.worst),
                reason=f"{first.failing} of {first.lightpaths} lightpaths of stage "
                f"{first.index} fail ({first.failing_power} on power, eq. 6; "
                f"{first.failing_ber} on BER, eqs. 7-9); its worst: "
                f"{first.worst.blocking or 'none'}",
            )
        return cls(
            feasible=result.feasible,
            failing_lightpaths=sum(s.failing for s in result.stages),
            other_snr_scale=OtherScaleVerdict(
                snr_scale=other,
                feasible=result.feasible_other_scale,
                failing_lightpaths=sum(s.failing_other_scale for s in result.stages),
                required_snr_db=replace(params, snr_scale=other).required_snr_db,
            ),
            blocking=blocking,
            worst_lightpath=None if worst is None else LightpathOpticsResult.of(worst),
            max_hops=max_hops,
            margin_db=float(lightpaths(params, max_hops, 0, 0).margin_db) if max_hops else None,
            ber=max((s.worst_ber for s in result.stages if s.worst_ber is not None), default=None),
            min_laser_power_dbm=result.min_laser_power_dbm,
            closed_form=ClosedFormOptics(
                l_max_hops=result.closed_form_hops,
                source=result.closed_form_source,
                loss_db=float(cf.loss_db),
                margin_db=float(cf.margin_db),
                snr_db=float(cf.snr_db),
                ber=float(cf.ber),
            ),
            budget=OpticsBudget(
                max_lightpath_hops=result.budget_max_hops,
                limited_by=result.budget_limited_by,
                max_ring_nodes_shortest_routes=2 * result.budget_max_hops + 1,
            ),
            required_snr_db=params.required_snr_db,
            parameters=OpticsSpec.model_validate(params, from_attributes=True),
            assumptions=ASSUMPTIONS,
            stages=[StageOpticsResult.of(s) for s in result.stages],
        )


class RoutingConstraint(BaseModel):
    max_lightpath_hops: int
    true_steps_unconstrained: int
    steps_cost: int = Field(description="true steps with the limit - without it")


class AlgorithmResult(BaseModel):
    """One algorithm's plan. Identical stages share one solution: a stage's `solution_stage`
    is the index of the first stage with the same demands."""

    collective: Collective
    algorithm: str
    shape: ShapeMode = Field(description="which shape the top-level steps, stages and times are of")
    parameters: ParameterValues
    claimed: Claim | None
    claimed_steps: Number | None = Field(
        description="the claim when it counts optical steps, else null"
    )
    claimed_steps_source: str | None
    true_steps: int
    steps_lower_bound: int
    steps_difference: Number | None = Field(
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
    reduce_then_broadcast: bool | None = Field(
        default=None,
        description="all-reduce: every complete sum of this shape is formed at one node and "
        "copied from there (the data flow checks it), so the achievable's "
        "`reduce_then_broadcast_s` bounds it too; false for schedules that form sums at "
        "several nodes (recursive doubling, a swept synth, WRHT with several "
        "representatives); null for the other collectives and `optimal`",
    )

    @classmethod
    def of(cls, planned: PlannedAlgorithm) -> AlgorithmResult:
        p = planned.plan
        claim = p.claim
        claimed = p.claimed_steps
        free = planned.unconstrained_steps
        return cls(
            collective=planned.algorithm.collective,
            algorithm=p.algorithm,
            shape=planned.shape,
            parameters=parameter_values(p.params),
            claimed=None if claim is None else Claim.of(claim),
            claimed_steps=claimed,
            claimed_steps_source=None if claimed is None or claim is None else claim.source,
            true_steps=p.true_steps,
            steps_lower_bound=p.steps_lower_bound,
            steps_difference=None if claimed is None else p.true_steps - claimed,
            steps_optimal=p.steps_optimal,
            channels_optimal=p.channels_optimal,
            message_counts=MessageCountsResult.of(
                planned.algorithm.message_counts(p.ring, p.params)
            ),
            shapes=Shapes.of(planned),
            closed_forms=[ClosedFormResult.of(f) for f in p.closed_forms],
            timings=[
                TimingResult.measured(t, b)
                for t, b in zip(p.timings, planned.achievable, strict=True)
            ],
            time_s=p.timings[0].time_s if p.timings else None,
            seconds=round(p.seconds, 3),
            feasibility=Feasibility.of(planned.optics),
            routing_constraint=None
            if free is None or planned.max_hops is None
            else RoutingConstraint(
                max_lightpath_hops=planned.max_hops,
                true_steps_unconstrained=free,
                steps_cost=p.true_steps - free,
            ),
            stages=[StageResult.of(s) for s in p.stages],
            reduce_then_broadcast=planned.algorithm.reduces_then_broadcasts(p.ring, p.params),
        )


class ClosestToFeasible(BaseModel):
    algorithm: str
    laser_power_shortfall_db: float = Field(
        description="laser power it lacks to be reliable (min_laser_power_dbm - laser_power_dbm)"
    )
    min_laser_power_dbm: float | None


class Recommendation(BaseModel):
    """The fastest optically feasible algorithm by true time (SPEC section 10)."""

    message_bytes: float
    algorithm: str | None = Field(
        description="the algorithm to use: an optical one, or E-Ring / E-RD where the "
        "electrical baseline is faster (`network`); null when no optical algorithm is "
        "optically feasible and no electrical baseline was asked for"
    )
    time_s: float | None
    feasible: bool = Field(
        description="some optical algorithm is optically feasible at this size (an electrical "
        "`algorithm` beside false: no optical one is, the electrical baseline is named)"
    )
    tied_with: list[str] = Field(description="other feasible algorithms exactly as fast")
    fastest_regardless_of_optics: str
    skipped_infeasible: list[str] = Field(
        description="faster algorithms passed over because they are optically infeasible"
    )
    closest_to_feasible: ClosestToFeasible | None = Field(
        description="when none is feasible: the one needing the least extra laser power"
    )
    fastest_by_closed_form: str | None = Field(
        description="what the papers' closed forms would pick: the least claimed time, each "
        "paper's claim for its own shape"
    )
    network: Literal["optical", "electrical"] = Field(
        default="optical",
        description="'electrical' when E-Ring or E-RD on the fat-tree beats every feasible "
        "optical algorithm, or no optical algorithm is feasible (plans with `electrical`)",
    )
    parameters: ParameterValues | None = Field(
        default=None,
        description="the shape recommended (its parameters; null for the electrical baseline "
        "or none): the algorithm's reported shape, or, when that one is infeasible or slower "
        "at this size, its fastest feasible shape here (`shapes.search."
        "best_feasible_by_message`), whose time `time_s` is",
    )
    hop_limit: int | None = Field(
        default=None,
        description="the longest lightpath that shape was routed within (null: routed freely)",
    )
    why: str


class SkippedAlgorithm(BaseModel):
    algorithm: str
    reason: str


class SimulatedTime(Mirror):
    time_s: float
    mode: Literal["full", "per_step"] = Field(
        description="'full': every message of the algorithm, carrying the data; 'per_step': "
        "each distinct step pattern once (all hosts sending together), times its repeats"
    )
    delivered: bool | None = Field(
        description="every host ended with the sum (full simulations; null per step)"
    )


class ElectricalTimingResult(BaseModel):
    message_bytes: float
    hockney_s: float = Field(description="eq. (8)/(9) as printed: alpha = one link's latency")
    hockney_route_s: float = Field(
        description="the same with alpha = the latency of the longest route (4 links across "
        "leaves): what a contention-free simulation without correction factors gives"
    )
    simulated_s: float | None = Field(description="SimGrid, null when it is not installed")
    simulation: SimulatedTime | None


class ElectricalAlgorithmReport(BaseModel):
    algorithm: str = Field(description="e-ring or e-rd")
    steps: ClosedFormResult
    time_formula: str
    time_source: str
    refusal: str | None
    timings: list[ElectricalTimingResult]

    @classmethod
    def of(cls, a: ElectricalAlgorithmResult) -> ElectricalAlgorithmReport:
        return cls(
            algorithm=a.name,
            steps=ClosedFormResult.of(a.steps),
            time_formula=a.time_formula.text,
            time_source=a.time_formula.source,
            refusal=a.refusal,
            timings=[
                ElectricalTimingResult(
                    message_bytes=t.message_bytes,
                    hockney_s=t.hockney_s,
                    hockney_route_s=t.hockney_route_s,
                    simulated_s=None if t.simulated is None else t.simulated.time_s,
                    simulation=None if t.simulated is None else SimulatedTime.of(t.simulated),
                )
                for t in a.timings
            ],
        )


class FatTreeReport(Mirror):
    hosts_per_leaf: int
    spines: int
    link_gbps: float
    link_latency_us: float
    note: str


class ElectricalResult(BaseModel):
    """The optical ring against the electrical fat-tree (optical-vs-electrical paper)."""

    network: FatTreeReport
    simulator: str | None = Field(description="null: SimGrid is not installed (Hockney only)")
    algorithms: list[ElectricalAlgorithmReport]
    crossover_bytes: float | None = Field(
        description="smallest message size from which the fastest optical algorithm stays "
        "faster than the fastest electrical one (Hockney as printed); null if no crossing"
    )
    crossover_note: str

    @classmethod
    def of(cls, c: ElectricalComparison) -> ElectricalResult:
        return cls(
            network=FatTreeReport.of(c.network),
            simulator=c.simulator,
            algorithms=[ElectricalAlgorithmReport.of(a) for a in c.algorithms],
            crossover_bytes=c.crossover_bytes,
            crossover_note=c.crossover_note,
        )


class PlanResult(BaseModel):
    """The result document stored with a plan, returned by GET /api/v1/plans/{id}, printed by
    `rwaopt plan --json`, and read back by the lightpath table and the plots."""

    collective: Collective
    ring: RingSpec
    algorithms: list[AlgorithmResult]
    skipped: list[SkippedAlgorithm] = Field(
        description="algorithms of the collective left out of 'all' because they refuse the ring"
    )
    recommendation: list[Recommendation]
    achievable: list[AchievableResult] = Field(
        default_factory=list,
        description="per message size: the proven bound on every schedule's time, its "
        "terms, and the exact optimum where it was computed",
    )
    electrical: ElectricalResult | None = Field(
        default=None, description="with `electrical`: E-Ring and E-RD on the fat-tree"
    )

    def algorithm(self, name: str) -> AlgorithmResult:
        for entry in self.algorithms:
            if entry.algorithm == name:
                return entry
        names = ", ".join(e.algorithm for e in self.algorithms)
        raise NotFoundError(f"this plan has no algorithm {name!r}; it has: {names}")


class RwaResponse(StageRwa):
    """One stage's certified RWA with every unit lightpath of its assignment."""

    seconds: float
    assignment: list[AssignedLightpath]

    @classmethod
    def of(cls, ring: Ring, stage: Stage, result: RwaResult) -> RwaResponse:
        table = result.assignment.lightpaths(ring, stage)
        columns = [table[k].tolist() for k in LIGHTPATH_COLUMNS]
        columns[2] = [DIRECTION_LABELS[o] for o in columns[2]]
        return cls(
            **dict(StageRwa.measured(result)),
            seconds=round(result.seconds, 3),
            # Up to a million rows, each built from the validated assignment: no re-validation.
            assignment=[
                AssignedLightpath.model_construct(**dict(zip(LIGHTPATH_COLUMNS, row, strict=True)))
                for row in zip(*columns, strict=True)
            ],
        )


LIGHTPATH_COLUMNS = ("source", "destination", "direction", "slot", "fiber", "wavelength", "hops")


class ParameterInfo(BaseModel):
    name: str
    description: str
    minimum: int
    default: int | None
    default_rule: str
    maximum_rule: str
    is_list: bool


class StepsFormula(BaseModel):
    steps: str = Field(description="the step count as the paper prints it")
    source: str


class ClaimValue(BaseModel):
    value: Number | None
    unit: Unit


class CatalogEntry(BaseModel):
    """An algorithm of the catalog; with a ring, its paper shape and closed-form values."""

    collective: Collective
    name: str
    title: str
    source: str
    parameters: list[ParameterInfo]
    closed_form: StepsFormula
    resolved_parameters: ParameterValues | None = Field(
        default=None, description="the paper's shape on this ring"
    )
    accepts_ring: bool | None = None
    refusal: str | None = None
    closed_forms: list[ClosedFormResult] | None = None
    claimed: ClaimValue | None = None
    claimed_steps: Number | None = None

    @classmethod
    def of(cls, algorithm: Algorithm, ring: Ring | None = None) -> CatalogEntry:
        entry = cls(
            collective=algorithm.collective,
            name=algorithm.name,
            title=algorithm.title,
            source=algorithm.source,
            parameters=[
                ParameterInfo.model_validate(p, from_attributes=True) for p in algorithm.params
            ],
            closed_form=StepsFormula(steps=algorithm.formula.text, source=algorithm.formula.source),
        )
        if ring is None:
            return entry
        params = algorithm.fill_defaults(ring, {})  # the paper's shape, even when refused
        forms = [ClosedFormResult.of(f) for f in algorithm.closed_forms(ring, params)]
        refusal = algorithm.refusal(ring, params)
        entry.resolved_parameters = parameter_values(params)
        entry.accepts_ring = refusal is None
        entry.refusal = refusal
        entry.closed_forms = forms
        if forms:  # `synth` and `optimal` make no paper claim
            first = forms[0]
            entry.claimed = ClaimValue(value=first.value, unit=first.unit)
            entry.claimed_steps = first.value if first.unit == Unit.STEPS else None
        return entry


class FindingResult(Mirror):
    """One printed number beside its formula and rwaopt's value (SPEC section 9)."""

    paper: str
    item: str
    quantity: str
    parameters: dict[str, JsonValue]
    unit: Unit
    printed: Number | None
    formula: Number | None
    true: Number | None
    verdict: Verdict
    note: str
    tolerance: float
    where: str
    model: Number | None = Field(
        None,
        description="rwaopt's model-dependent value (never certified; `true` is then null), "
        "in the finding's unit",
    )
    model_kind: Literal["simulated", "cost_model"] | None = Field(
        None,
        description="what `model` depends on: a SimGrid simulation, or the paper's own cost "
        "model at a parameter stated in the note",
    )
    alternative: Number | None = Field(
        None,
        description="a two-case formula's other case (the one the paper's rule does not "
        "select here), in the finding's unit",
    )
    tied: list[Number] = Field(
        default_factory=list, description="every tied optimum, when a best value is tied"
    )
    lower_bound: bool = Field(
        False,
        description="the formula is a lower bound: any value at or above it agrees with it",
    )
