"""The typed functions the CLI and the REST API both call."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from app.feasibility_view import feasibility_payload
from app.schemas import (
    DEFAULT_SEARCH_BUDGET_S,
    MAX_MESSAGE_BYTES,
    MAX_SEARCH_BUDGET_S,
    MAX_TIME_LIMIT_S,
    RwaInput,
)
from models.algorithms.base import Algorithm, Params, ParamValue, ShapeMode
from models.algorithms.catalog import algorithms, get_algorithm, parse_collective
from models.errors import AlgorithmRefusedError, InvalidInputError, UnknownAlgorithmError
from models.optics import OpticalParameters
from models.optics import max_hops as max_hops_for
from models.ring import ALLOWED_NAMES, Hardware, Ring
from models.stage import Stage
from solver.feasibility import PlanOptics, evaluate_plan
from solver.outcome import Method, RwaResult
from solver.plan import AlgorithmPlan, ProgressCallback, SolveOptions, StageCache, plan_algorithm
from solver.shape_search import BestShape, search_best_shape
from solver.solve import check_exact_size, solve_stage

METHODS = ("auto", "exact", "exact-highs", "heuristic")
PlanProgress = Callable[[str, int, int], None]


def check_time_limit(time_limit_s: float) -> None:
    if not 0 < time_limit_s <= MAX_TIME_LIMIT_S:
        raise InvalidInputError(
            f"time limit must be in (0, {MAX_TIME_LIMIT_S:g}] seconds, got {time_limit_s}"
        )


def check_method(method: str) -> None:
    if method not in METHODS:
        raise InvalidInputError(f"unknown method {method!r}; use one of: {', '.join(METHODS)}")


def stage_from_input(data: RwaInput) -> tuple[Ring, Stage]:
    ring = Ring(data.nodes, data.fibers, data.wavelengths)
    rows = data.demands
    s = [int(r[0]) for r in rows]
    d = [int(r[1]) for r in rows]
    k = [int(r[2]) for r in rows]
    allowed = [ALLOWED_NAMES[str(r[3] if len(r) == 4 else "any")] for r in rows]
    return ring, Stage.from_demands(ring.nodes, s, d, k, allowed)


def check_node_limits(max_tx: int | None, max_rx: int | None) -> None:
    for name, value in (("max-tx", max_tx), ("max-rx", max_rx)):
        if value is not None and value < 1:
            raise InvalidInputError(f"--{name} must be >= 1 lightpath per node per slot")


def rwa(
    data: RwaInput,
    method: str = "auto",
    time_limit_s: float = 10.0,
    max_tx: int | None = None,
    max_rx: int | None = None,
) -> tuple[Stage, RwaResult]:
    check_method(method)
    check_time_limit(time_limit_s)
    check_node_limits(max_tx, max_rx)
    ring, stage = stage_from_input(data)
    return stage, solve_stage(ring, stage, method, time_limit_s, max_tx, max_rx)


def rwa_payload(stage: Stage, result: RwaResult, ring: Ring) -> dict[str, Any]:
    table = result.assignment.lightpaths(ring, stage)
    assignment = [
        {
            "source": int(s),
            "destination": int(d),
            "direction": "cw" if o == 0 else "ccw",
            "slot": int(t),
            "fiber": int(f),
            "wavelength": int(w),
            "hops": int(h),
        }
        for s, d, o, t, f, w, h in zip(
            *(
                table[k]
                for k in (
                    "source",
                    "destination",
                    "direction",
                    "slot",
                    "fiber",
                    "wavelength",
                    "hops",
                )
            ),
            strict=True,
        )
    ]
    return {
        "chi": result.chi,
        "lower_bound": result.lower_bound,
        "gap": result.gap,
        "status": result.status.value,
        "steps": result.steps,
        "steps_lower_bound": result.steps_lower_bound,
        "method": result.method.value,
        "seconds": round(result.seconds, 3),
        "assignment": assignment,
    }


@dataclass(frozen=True)
class AlgorithmChoice:
    """One algorithm of a plan and which of its shapes to report: the paper's, the best
    found by search, or the explicit parameters given (already resolved)."""

    algorithm: Algorithm
    shape: ShapeMode
    params: Params  # the explicit shape, or the paper's


@dataclass(frozen=True)
class PlanSpec:
    """A checked plan request: every algorithm resolved against the ring, nothing solved yet.
    Built by `prepare_plan` (so bad input fails before any job is queued)."""

    collective: str
    ring: Ring
    hardware: Hardware
    choices: tuple[AlgorithmChoice, ...]
    message_bytes: tuple[float, ...]
    options: SolveOptions = field(default_factory=SolveOptions)
    optics: OpticalParameters = field(default_factory=OpticalParameters)
    search_budget_s: float = DEFAULT_SEARCH_BUDGET_S
    skipped: tuple[tuple[str, str], ...] = ()  # (algorithm, why) left out of "all"


@dataclass(frozen=True)
class PlannedAlgorithm:
    """A solved plan (the shape asked for) with the paper's shape and the search beside it,
    its optical feasibility, and with a hop limit the true steps of the same shape without
    it (what the routing constraint costs)."""

    algorithm: Algorithm
    plan: AlgorithmPlan
    shape: ShapeMode
    paper: AlgorithmPlan
    best: BestShape | None
    optics: PlanOptics
    max_hops: int | None = None
    unconstrained_steps: int | None = None


def prepare_plan(
    collective: str,
    names: Sequence[str],
    ring: Ring,
    params: Mapping[str, Mapping[str, ParamValue]],
    message_bytes: Sequence[float],
    hardware: Hardware | None = None,
    method: str = "auto",
    time_limit_s: float = 10.0,
    max_tx: int | None = None,
    max_rx: int | None = None,
    optics: OpticalParameters | None = None,
    max_hops: int | Literal["loss_budget"] | None = None,
    shapes: ShapeMode | Mapping[str, ShapeMode] = ShapeMode.BEST,
    search_budget_s: float = DEFAULT_SEARCH_BUDGET_S,
) -> PlanSpec:
    """Check everything a plan needs; names == ["all"] picks every algorithm of the collective
    that accepts the ring with its parameters. max_hops="loss_budget" forbids lightpaths
    longer than the optics allow (models.optics.max_hops). An algorithm with parameters is
    planned at that explicit shape; the others at `shapes` (one mode, or per algorithm)."""
    optics = optics or OpticalParameters()
    if max_hops == "loss_budget":
        max_hops, limited_by = max_hops_for(optics)
        if max_hops < 1:
            raise InvalidInputError(
                f"with these optics not even a one-hop lightpath is reliable ({limited_by}); "
                "raise laser_power_dbm, or plan without max_lightpath_hops"
            )
    elif max_hops is not None and max_hops < 1:
        raise InvalidInputError(f"max_lightpath_hops must be >= 1, got {max_hops}")
    check_time_limit(time_limit_s)
    check_node_limits(max_tx, max_rx)
    check_method(method)
    if not 0 < search_budget_s <= MAX_SEARCH_BUDGET_S:
        raise InvalidInputError(
            f"search budget must be in (0, {MAX_SEARCH_BUDGET_S:g}] seconds, got {search_budget_s}"
        )
    if not message_bytes:
        raise InvalidInputError("give at least one message size in bytes")
    for size in message_bytes:
        if not 0 < size <= MAX_MESSAGE_BYTES:
            raise InvalidInputError(
                f"message size must be in (0, {MAX_MESSAGE_BYTES:g}] bytes, got {size}"
            )
    parse_collective(collective)
    if list(names) == ["all"]:
        unknown = sorted(set(params) - {a.name for a in algorithms(collective)})
        if unknown:
            raise UnknownAlgorithmError(
                f"parameters given for {', '.join(unknown)}, not an algorithm of {collective}"
            )
        chosen, skipped = [], []
        for a in algorithms(collective):
            why = a.refusal(ring, a.fill_defaults(ring, dict(params.get(a.name, {}))))
            if why is None:
                chosen.append(a)
            else:
                skipped.append((a.name, why))
    else:
        chosen, skipped = [get_algorithm(collective, name) for name in names], []
        stray = sorted(set(params) - set(names))
        if stray:
            raise InvalidInputError(
                f"parameters given for {', '.join(stray)}, which is not among the algorithms"
            )
    if not chosen:
        raise AlgorithmRefusedError(
            f"no {collective} algorithm accepts N={ring.nodes} with these parameters"
        )
    per_algorithm = shapes if isinstance(shapes, Mapping) else {}
    stray_shapes = sorted(set(per_algorithm) - {a.name for a in chosen})
    if stray_shapes:
        raise InvalidInputError(
            f"shape given for {', '.join(stray_shapes)}, which is not among the algorithms"
        )
    default_shape = ShapeMode.BEST if isinstance(shapes, Mapping) else ShapeMode(shapes)
    choices = []
    for a in chosen:
        if a.name in params:
            if per_algorithm.get(a.name, ShapeMode.EXPLICIT) != ShapeMode.EXPLICIT:
                raise InvalidInputError(
                    f"{a.name}: parameters give an explicit shape; drop them to plan its "
                    f"{per_algorithm[a.name]} shape"
                )
            choices.append(AlgorithmChoice(a, ShapeMode.EXPLICIT, a.resolve(ring, params[a.name])))
        else:
            mode = ShapeMode(per_algorithm.get(a.name, default_shape))
            if mode == ShapeMode.EXPLICIT:
                raise InvalidInputError(f"{a.name}: an explicit shape needs its parameters")
            choices.append(AlgorithmChoice(a, mode, a.paper_shape(ring)))
    for choice in choices:  # an exact method too large for a stage: refuse before solving
        for stage in choice.algorithm.stages(ring, choice.params):
            check_exact_size(stage, method)
    return PlanSpec(
        collective=collective,
        ring=ring,
        hardware=hardware or Hardware(),
        choices=tuple(choices),
        message_bytes=tuple(float(m) for m in message_bytes),
        options=SolveOptions(Method(method), time_limit_s, max_tx, max_rx, max_hops),
        optics=optics,
        search_budget_s=search_budget_s,
        skipped=tuple(skipped),
    )


def run_plan(spec: PlanSpec, progress: PlanProgress | None = None) -> list[PlannedAlgorithm]:
    """Solve every chosen algorithm at its paper shape and at the shape asked for (searching
    the best one when asked), and evaluate the optics of the latter;
    `progress(algorithm, done, total)` reports the stages of the paper shape."""
    out = []
    for choice in spec.choices:
        algorithm = choice.algorithm
        step = None if progress is None else _bind(progress, algorithm.name)
        cache = StageCache()
        paper_params = algorithm.paper_shape(spec.ring)
        paper = _solve(spec, algorithm, paper_params, step, spec.options, cache)
        best = None
        if choice.shape == ShapeMode.PAPER:
            plan = paper
        elif choice.shape == ShapeMode.EXPLICIT:
            plan = _solve(spec, algorithm, choice.params, None, spec.options, cache)
        else:
            best = search_best_shape(
                algorithm,
                spec.ring,
                spec.message_bytes,
                spec.hardware,
                spec.options,
                spec.search_budget_s,
                paper,
                cache,
            )
            plan = best.plan
        baseline = None
        if spec.options.max_hops is not None:
            free = replace(spec.options, max_hops=None)
            baseline = _solve(spec, algorithm, plan.params, None, free, None).true_steps
        out.append(
            PlannedAlgorithm(
                algorithm,
                plan,
                choice.shape,
                paper,
                best,
                evaluate_plan(plan, spec.optics),
                spec.options.max_hops,
                baseline,
            )
        )
    return out


def _solve(
    spec: PlanSpec,
    algorithm: Algorithm,
    params: Params,
    progress: ProgressCallback | None,
    options: SolveOptions,
    cache: StageCache | None,
) -> AlgorithmPlan:
    return plan_algorithm(
        algorithm, spec.ring, params, spec.message_bytes, spec.hardware, options, progress, cache
    )


def _bind(progress: PlanProgress, name: str) -> ProgressCallback:
    return lambda done, total: progress(name, done, total)


def recommendation(planned: Sequence[PlannedAlgorithm]) -> list[dict[str, Any]]:
    """Per message size (SPEC section 10): the fastest algorithm by true time among those
    whose feasibility block says feasible, with why; the faster infeasible ones it passed
    over; what the papers' closed forms would have picked. When none is feasible, no
    algorithm is named: the one closest to feasibility is, with the laser power it lacks."""
    advice: list[dict[str, Any]] = []
    if not planned:
        return advice
    plans = [p.plan for p in planned]
    feasible = {p.plan.algorithm for p in planned if p.optics.feasible}
    for i, size in enumerate(plans[0].timings):
        ranked = sorted(plans, key=lambda p: (p.timings[i].time_s, p.true_steps, p.algorithm))
        usable = [p for p in ranked if p.algorithm in feasible]
        claimed = [p for p in plans if p.timings[i].claimed_time_s is not None]
        by_claim = min(
            claimed, key=lambda p: (p.timings[i].claimed_time_s or 0.0, p.algorithm), default=None
        )
        fastest = ranked[0]
        entry: dict[str, Any] = {
            "message_bytes": size.message_bytes,
            "algorithm": None,
            "time_s": None,
            "feasible": bool(usable),
            "tied_with": [],
            "fastest_regardless_of_optics": fastest.algorithm,
            "skipped_infeasible": [],
            "closest_to_feasible": None,
            "fastest_by_closed_form": None if by_claim is None else by_claim.algorithm,
            "why": "",
        }
        if not usable:
            closest = min(planned, key=_laser_shortfall_db)
            short = _laser_shortfall_db(closest)
            entry["closest_to_feasible"] = {
                "algorithm": closest.plan.algorithm,
                "laser_power_shortfall_db": short,
                "min_laser_power_dbm": closest.optics.min_laser_power_dbm,
            }
            entry["why"] = (
                "no algorithm is optically feasible with these optics; closest: "
                f"{closest.plan.algorithm}, which needs {short:.3g} dB more laser power "
                f"(fastest regardless of optics: {fastest.algorithm})"
            )
            advice.append(entry)
            continue
        best = usable[0]
        t = best.timings[i]
        skipped = [p.algorithm for p in ranked[: ranked.index(best)]]
        tied = [p.algorithm for p in usable[1:] if p.timings[i].time_s <= t.time_s * (1 + 1e-9)]
        why = (
            f"{best.algorithm}: {best.true_steps} true steps, {t.time_s:.6g} s "
            f"({t.efficiency:.1%} of the hardware bound's speed), optically feasible"
        )
        if skipped:
            why += f"; faster but optically infeasible: {', '.join(skipped)}"
        if tied:
            why += f"; tied with {', '.join(tied)}"
        slower = [p for p in usable[1:] if p.algorithm not in tied]
        if slower:
            runner = slower[0]
            why += (
                f"; next feasible {runner.algorithm}: {runner.true_steps} steps, "
                f"{runner.timings[i].time_s:.6g} s"
            )
        if by_claim is not None and by_claim.algorithm != best.algorithm:
            why += (
                f"; the papers' closed forms would pick {by_claim.algorithm} "
                f"(claimed {by_claim.claimed_steps:g} steps, true {by_claim.true_steps})"
            )
        entry.update(
            algorithm=best.algorithm,
            time_s=t.time_s,
            tied_with=tied,
            skipped_infeasible=skipped,
            why=why,
        )
        advice.append(entry)
    return advice


def _laser_shortfall_db(planned: PlannedAlgorithm) -> float:
    """How much more laser power the plan needs to be reliable (inf when no power would do)."""
    need = planned.optics.min_laser_power_dbm
    if need is None or not math.isfinite(need):
        return math.inf
    return need - planned.optics.params.laser_power_dbm


def _parameters(params: Params) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}


def _shape_summary(plan: AlgorithmPlan) -> dict[str, Any]:
    return {
        "parameters": _parameters(plan.params),
        "true_steps": plan.true_steps,
        "steps_lower_bound": plan.steps_lower_bound,
        "steps_optimal": plan.steps_optimal,
        "channels_optimal": plan.channels_optimal,
        "times_s": [t.time_s for t in plan.timings],
    }


def shapes_payload(planned: PlannedAlgorithm) -> dict[str, Any]:
    """The paper's shape and the best one found, with how the search went (SPEC section 7)."""
    best = planned.best
    search = None
    if best is not None:
        r = best.report
        search = {
            "candidates": r.candidates,
            "evaluated": r.evaluated,
            "pruned": r.pruned,
            "exhaustive": r.exhaustive,
            "seconds": round(r.seconds, 3),
            "note": r.note,
            "best_by_message": [
                {
                    "message_bytes": plan.timings[i].message_bytes,
                    "parameters": _parameters(plan.params),
                    "true_steps": plan.true_steps,
                    "time_s": plan.timings[i].time_s,
                }
                for i, plan in enumerate(best.by_message)
                if plan.timings
            ],
        }
    return {
        "asked": planned.shape.value,
        "paper": _shape_summary(planned.paper),
        "best": None if best is None else _shape_summary(best.plan),
        "search": search,
    }


def message_counts_payload(planned: PlannedAlgorithm) -> dict[str, Any] | None:
    """TRA's K and D counted on the schedule, beside Propositions 1-4 (SPEC section 8)."""
    counted = planned.algorithm.message_counts(planned.plan.ring, planned.plan.params)
    if counted is None:
        return None
    counts, where = counted
    return {
        "rounds": counts.rounds,
        "blocks_sent_per_process": counts.data_sent_per_process,
        "counted_on": where,
    }


def plan_payload(planned: PlannedAlgorithm) -> dict[str, Any]:
    """One algorithm's plan as JSON-ready data. Identical stages share one solution: a stage's
    `solution_stage` is the index of the first stage with the same demands."""
    p = planned.plan
    claim = p.claim
    claimed = p.claimed_steps
    return {
        "collective": p.collective,
        "algorithm": p.algorithm,
        "shape": planned.shape.value,
        "parameters": _parameters(p.params),
        "claimed": None
        if claim is None
        else {
            "quantity": claim.quantity,
            "value": claim.value,
            "alternative": claim.alternative,
            "unit": claim.unit.value,
            "text": claim.text,
            "source": claim.source,
            "note": claim.note,
        },
        "claimed_steps": claimed,
        "claimed_steps_source": claim.source if claimed is not None and claim is not None else None,
        "true_steps": p.true_steps,
        "steps_lower_bound": p.steps_lower_bound,
        "steps_difference": None if claimed is None else p.true_steps - claimed,
        "steps_optimal": p.steps_optimal,
        "channels_optimal": p.channels_optimal,
        "message_counts": message_counts_payload(planned),
        "shapes": shapes_payload(planned),
        "closed_forms": [asdict(f) for f in p.closed_forms],
        "timings": [
            {
                "message_bytes": t.message_bytes,
                "item_bytes": t.item_bytes,
                "time_s": t.time_s,
                "claimed_time_s": t.claimed_time_s,
                "hardware_bound_s": t.hardware_bound_s,
                "efficiency": t.efficiency,
            }
            for t in p.timings
        ],
        "time_s": p.timings[0].time_s if p.timings else None,
        "seconds": round(p.seconds, 3),
        "feasibility": feasibility_payload(planned.optics),
        "routing_constraint": None
        if planned.unconstrained_steps is None
        else {
            "max_lightpath_hops": planned.max_hops,
            "true_steps_unconstrained": planned.unconstrained_steps,
            "steps_cost": p.true_steps - planned.unconstrained_steps,
        },
        "stages": [
            {
                "index": s.index,
                "label": s.label,
                "demands": s.demands,
                "unit_lightpaths": s.unit_lightpaths,
                "pieces_per_lightpath": s.stage.pieces,
                "chi": s.result.chi,
                "steps": s.result.steps,
                "lower_bound": s.result.lower_bound,
                "steps_lower_bound": s.result.steps_lower_bound,
                "gap": s.result.gap,
                "steps_optimal": s.steps_optimal,
                "channels_optimal": s.channels_optimal,
                "status": s.result.status.value,
                "method": s.result.method.value,
                "solution_stage": s.solution_stage,
            }
            for s in p.stages
        ],
    }
