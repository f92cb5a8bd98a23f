"""The typed functions the CLI and the REST API both call."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from app.schemas import MAX_TIME_LIMIT_S, RwaInput
from models.algorithms.base import ParamValue
from models.algorithms.catalog import algorithms, get_algorithm
from models.errors import InvalidInputError
from models.ring import Hardware, Ring
from models.stage import ALLOWED_NAMES, Stage
from solver.outcome import RwaResult
from solver.plan import AlgorithmPlan, ProgressCallback, plan_algorithm
from solver.solve import solve_stage


def check_time_limit(time_limit_s: float) -> None:
    if not 0 < time_limit_s <= MAX_TIME_LIMIT_S:
        raise InvalidInputError(
            f"time limit must be in (0, {MAX_TIME_LIMIT_S:g}] seconds, got {time_limit_s}"
        )


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


def plan(
    collective: str,
    names: Sequence[str],
    ring: Ring,
    params: Mapping[str, Mapping[str, ParamValue]],
    message_bytes: Sequence[float],
    hardware: Hardware | None = None,
    method: str = "auto",
    time_limit_s: float = 10.0,
    progress: ProgressCallback | None = None,
    max_tx: int | None = None,
    max_rx: int | None = None,
) -> list[AlgorithmPlan]:
    """Plan the named algorithms ("all" = every one of the collective that accepts the ring)."""
    check_time_limit(time_limit_s)
    check_node_limits(max_tx, max_rx)
    if not message_bytes:
        raise InvalidInputError("give at least one message size in bytes")
    if list(names) == ["all"]:
        chosen = [
            a
            for a in algorithms(collective)
            if a.refusal(ring, a.fill_defaults(ring, dict(params.get(a.name, {})))) is None
        ]
    else:
        chosen = [get_algorithm(collective, name) for name in names]
    return [
        plan_algorithm(
            a, ring, params.get(a.name), message_bytes, hardware, method, time_limit_s, progress
        )
        for a in chosen
    ]


def plan_payload(p: AlgorithmPlan) -> dict[str, Any]:
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
            }
            for s in p.stages
        ],
    }
