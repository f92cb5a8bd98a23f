"""The feasibility block of a plan as JSON-ready data (CLI --json and REST alike)."""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from models.optics import ASSUMPTIONS, SnrScale, lightpaths
from solver.feasibility import PlanOptics


def feasibility_payload(result: PlanOptics) -> dict[str, Any]:
    params = result.params
    worst = result.worst
    max_hops = max((s.max_hops for s in result.stages), default=0)
    cf = result.closed_form
    failing = result.failing_stages
    first = failing[0] if failing else None
    other: SnrScale = "db" if params.snr_scale == "linear" else "linear"
    return {
        "feasible": result.feasible,
        "failing_lightpaths": sum(s.failing for s in result.stages),
        "other_snr_scale": {
            "snr_scale": other,
            "feasible": result.feasible_other_scale,
            "failing_lightpaths": sum(s.failing_other_scale for s in result.stages),
            "required_snr_db": replace(params, snr_scale=other).required_snr_db,
        },
        "blocking": None
        if first is None or first.worst is None
        else {
            "stage": first.index,
            "lightpath": _lightpath(first.worst),
            "reason": f"{first.failing} of {first.lightpaths} lightpaths of stage "
            f"{first.index} fail ({first.failing_power} on power, eq. 6; {first.failing_ber} "
            f"on BER, eqs. 7-9); its worst: {first.worst.blocking or 'none'}",
        },
        "worst_lightpath": None if worst is None else _lightpath(worst),
        "max_hops": max_hops,
        "margin_db": float(lightpaths(params, max_hops, 0, 0).margin_db) if max_hops else None,
        "ber": None if worst is None else worst.ber,
        "min_laser_power_dbm": result.min_laser_power_dbm,
        "closed_form": {
            "l_max_hops": result.closed_form_hops,
            "source": result.closed_form_source,
            "loss_db": float(cf.loss_db),
            "margin_db": float(cf.margin_db),
            "snr_db": float(cf.snr_db),
            "ber": float(cf.ber),
        },
        "budget": {
            "max_lightpath_hops": result.budget_max_hops,
            "limited_by": result.budget_limited_by,
            "max_ring_nodes_shortest_routes": 2 * result.budget_max_hops + 1,
        },
        "required_snr_db": params.required_snr_db,
        "parameters": asdict(params),
        "assumptions": ASSUMPTIONS,
        "stages": [
            {
                "index": s.index,
                "lightpaths": s.lightpaths,
                "failing": s.failing,
                "failing_power": s.failing_power,
                "failing_ber": s.failing_ber,
                "max_hops": s.max_hops,
                "worst_ber": None if s.worst is None else s.worst.ber,
                "worst_margin_db": None if s.worst is None else s.worst.margin_db,
            }
            for s in result.stages
        ],
    }


def _lightpath(report: Any) -> dict[str, Any]:
    return {k: v for k, v in asdict(report).items() if k != "blocking"} | {
        "blocking": report.blocking or None
    }
