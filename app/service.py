"""The typed functions the CLI and the REST API both call."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from app.feasibility_view import feasibility_payload
from app.schemas import MAX_MESSAGE_BYTES, MAX_TIME_LIMIT_S, RwaInput
from models.algorithms.base import Algorithm, Params, ParamValue
from models.algorithms.catalog import algorithms, get_algorithm, parse_collective
from models.errors import AlgorithmRefusedError, InvalidInputError, UnknownAlgorithmError
from models.optics import OpticalParameters
from models.optics import max_hops as max_hops_for
from models.ring import Hardware, Ring
from models.stage import ALLOWED_NAMES, Stage
from solver.feasibility import PlanOptics, evaluate_plan
from solver.outcome import RwaResult
from solver.plan import AlgorithmPlan, ProgressCallback, plan_algorithm
from solver.solve import solve_stage

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
    allowed = [ALLOWED_NAMES[str(r[3])] if len(r) == 4 else 0 for r in rows]
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
class PlanSpec:
    """A checked plan request: every algorithm resolved against the ring, nothing solved yet.
    Built by `prepare_plan` (so bad input fails before any job is queued)."""

    collective: str
    ring: Ring
    hardware: Hardware
    choices: tuple[tuple[Algorithm, Params], ...]
    message_bytes: tuple[float, ...]
    method: str = "auto"
    time_limit_s: float = 10.0
    max_tx: int | None = None
    max_rx: int | None = None
    optics: OpticalParameters = field(default_factory=OpticalParameters)
    max_hops: int | None = None


@dataclass(frozen=True)
class PlannedAlgorithm:
    """A solved plan with its optical feasibility; with a hop limit, also the true steps the
    same algorithm takes without it (what the routing constraint costs)."""

    plan: AlgorithmPlan
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
) -> PlanSpec:
    """Check everything a plan needs; names == ["all"] picks every algorithm of the collective
    that accepts the ring with its parameters. max_hops="loss_budget" forbids lightpaths
    longer than the optics allow (models.optics.max_hops)."""
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
        chosen = [
            a
            for a in algorithms(collective)
            if a.refusal(ring, a.fill_defaults(ring, dict(params.get(a.name, {})))) is None
        ]
    else:
        chosen = [get_algorithm(collective, name) for name in names]
        stray = sorted(set(params) - set(names))
        if stray:
            raise InvalidInputError(
                f"parameters given for {', '.join(stray)}, which is not among the algorithms"
            )
    if not chosen:
        raise AlgorithmRefusedError(
            f"no {collective} algorithm accepts N={ring.nodes} with these parameters"
        )
    return PlanSpec(
        collective=collective,
        ring=ring,
        hardware=hardware or Hardware(),
        choices=tuple((a, a.resolve(ring, params.get(a.name))) for a in chosen),
        message_bytes=tuple(float(m) for m in message_bytes),
        method=method,
        time_limit_s=time_limit_s,
        max_tx=max_tx,
        max_rx=max_rx,
        optics=optics,
        max_hops=max_hops,
    )


def run_plan(spec: PlanSpec, progress: PlanProgress | None = None) -> list[PlannedAlgorithm]:
    """Solve every stage of every chosen algorithm and evaluate its optics;
    `progress(algorithm, done, total)`."""
    out = []
    for algorithm, params in spec.choices:
        step = None if progress is None else _bind(progress, algorithm.name)
        plan = _solve(spec, algorithm, params, step, spec.max_hops)
        baseline = None
        if spec.max_hops is not None:
            baseline = _solve(spec, algorithm, params, None, None).true_steps
        out.append(
            PlannedAlgorithm(plan, evaluate_plan(plan, spec.optics), spec.max_hops, baseline)
        )
    return out


def _solve(
    spec: PlanSpec,
    algorithm: Algorithm,
    params: Params,
    progress: ProgressCallback | None,
    max_hops: int | None,
) -> AlgorithmPlan:
    return plan_algorithm(
        algorithm,
        spec.ring,
        params,
        spec.message_bytes,
        spec.hardware,
        spec.method,
        spec.time_limit_s,
        progress,
        spec.max_tx,
        spec.max_rx,
        max_hops,
    )


def _bind(progress: PlanProgress, name: str) -> ProgressCallback:
    return lambda done, total: progress(name, done, total)


def recommendation(plans: Sequence[AlgorithmPlan]) -> list[dict[str, Any]]:
    """The fastest algorithm (true time) per message size, with why, and what the papers'
    closed forms would have picked instead."""
    advice: list[dict[str, Any]] = []
    if not plans:
        return advice
    for i, size in enumerate(plans[0].timings):
        ranked = sorted(plans, key=lambda p: (p.timings[i].time_s, p.algorithm))
        best = ranked[0]
        claimed = [p for p in plans if p.timings[i].claimed_time_s is not None]
        by_claim = min(
            claimed, key=lambda p: (p.timings[i].claimed_time_s or 0.0, p.algorithm), default=None
        )
        t = best.timings[i]
        why = (
            f"{best.algorithm}: {best.true_steps} true steps, {t.time_s:.6g} s "
            f"({t.efficiency:.1%} of the hardware bound's speed)"
        )
        tied = [p.algorithm for p in ranked[1:] if p.timings[i].time_s <= t.time_s * (1 + 1e-9)]
        slower = [p for p in ranked[1:] if p.algorithm not in tied]
        if tied:
            why += f"; tied with {', '.join(tied)}"
        if slower:
            runner = slower[0]
            why += (
                f"; next {runner.algorithm}: {runner.true_steps} steps, "
                f"{runner.timings[i].time_s:.6g} s"
            )
        if by_claim is not None and by_claim.algorithm != best.algorithm:
            why += (
                f"; the papers' closed forms would pick {by_claim.algorithm} "
                f"(claimed {by_claim.claimed_steps:g} steps, true {by_claim.true_steps})"
            )
        advice.append(
            {
                "message_bytes": size.message_bytes,
                "algorithm": best.algorithm,
                "time_s": t.time_s,
                "tied_with": tied,
                "fastest_by_closed_form": None if by_claim is None else by_claim.algorithm,
                "why": why,
            }
        )
    return advice


def plan_payload(planned: PlannedAlgorithm) -> dict[str, Any]:
    """One algorithm's plan as JSON-ready data. Identical stages share one solution: a stage's
    `solution_stage` is the index of the first stage with the same demands."""
    p = planned.plan
    claimed = p.claimed_steps
    return {
        "collective": p.collective,
        "algorithm": p.algorithm,
        "parameters": {k: list(v) if isinstance(v, tuple) else v for k, v in p.params.items()},
        "claimed_steps": claimed,
        "claimed_steps_source": p.closed_forms[0].source if p.closed_forms else None,
        "true_steps": p.true_steps,
        "steps_lower_bound": p.steps_lower_bound,
        "steps_difference": None if claimed is None else p.true_steps - claimed,
        "all_stages_optimal": p.all_optimal,
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
                "chi": s.result.chi,
                "steps": s.result.steps,
                "lower_bound": s.result.lower_bound,
                "gap": s.result.gap,
                "status": s.result.status.value,
                "method": s.result.method.value,
                "solution_stage": s.solution_stage,
            }
            for s in p.stages
        ],
    }
