"""Plans as the service stores them: request -> checked spec -> solved document + solutions.

The REST routes and the job runners both come through here; the solving itself is
`app.service.run_plan`, the same function the CLI calls.
"""

from __future__ import annotations

import time
from typing import Any

from app.persistence.codec import encode
from app.persistence.store import Solution
from app.schemas import PlanRequest
from app.service import (
    PlannedAlgorithm,
    PlanSpec,
    plan_payload,
    prepare_plan,
    recommendation,
    run_plan,
)
from app.settings import get_settings
from models.algorithms.base import ParamValue, ShapeMode
from models.optics import OpticalParameters
from models.ring import Hardware, Ring


def spec_from_request(request: PlanRequest) -> PlanSpec:
    """Check a request completely (raises RwaoptError subclasses), without solving."""
    ring = Ring(
        request.ring.nodes,
        request.ring.fibers_per_direction,
        request.ring.wavelengths_per_fiber,
    )
    hardware = Hardware(**request.hardware.model_dump())
    params: dict[str, dict[str, ParamValue]] = {
        name: {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
        for name, values in request.parameters.items()
    }
    names = ["all"] if request.algorithms == "all" else list(request.algorithms)
    shapes = (
        ShapeMode(request.shape)
        if isinstance(request.shape, str)
        else {name: ShapeMode(mode) for name, mode in request.shape.items()}
    )
    return prepare_plan(
        request.collective,
        names,
        ring,
        params,
        request.message_sizes_bytes,
        hardware,
        request.method,
        request.time_limit_s,
        request.max_tx_per_node,
        request.max_rx_per_node,
        OpticalParameters(**request.optics.model_dump()),
        request.max_lightpath_hops,
        shapes,
        request.search_budget_s or get_settings().shape_search_budget_s,
    )


def document(spec: PlanSpec, plans: list[PlannedAlgorithm]) -> dict[str, Any]:
    """The result document stored with a plan and returned by GET /api/v1/plans/{id}."""
    return {
        "collective": spec.collective,
        "ring": {
            "nodes": spec.ring.nodes,
            "fibers_per_direction": spec.ring.fibers_per_direction,
            "wavelengths_per_fiber": spec.ring.wavelengths_per_fiber,
        },
        "algorithms": [plan_payload(p) for p in plans],
        "skipped": [{"algorithm": name, "reason": why} for name, why in spec.skipped],
        "recommendation": recommendation(plans),
    }


def ring_of(result: dict[str, Any]) -> Ring:
    """The ring of a stored result document (the inverse of its "ring" field)."""
    r = result["ring"]
    return Ring(r["nodes"], r["fibers_per_direction"], r["wavelengths_per_fiber"])


def solutions(plans: list[PlannedAlgorithm]) -> list[Solution]:
    """One stored solution per distinct stage of every algorithm."""
    return [
        Solution(p.algorithm, s.index, encode(s.stage, s.result.assignment))
        for p in (planned.plan for planned in plans)
        for s in p.stages
        if s.solution_stage == s.index
    ]


def execute(spec: PlanSpec) -> tuple[dict[str, Any], list[Solution], float]:
    started = time.monotonic()
    plans = run_plan(spec)
    return document(spec, plans), solutions(plans), time.monotonic() - started
