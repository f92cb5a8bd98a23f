"""The recommendation's numbers against the plan's own (app/recommendation.py)."""

from __future__ import annotations

from dataclasses import replace

from app.planning import prepare, run_plan
from app.recommendation import recommendation
from app.schemas.requests import PlanRequest


def test_a_feasible_shape_is_measured_against_the_bound_with_the_optics_limit() -> None:
    """Review (session 34): the recommendation measured the shape it names against the
    bound of its algorithm's reported row, which is the bound without the optics' hop limit
    where the reported shape is infeasible; the shape recommended is feasible, so the
    plan's own bound (with the limit) is the one to read. OpTree at N = 64, w = 8 with a
    5 dBm laser: its fastest shape fails the optics, a slower one passes. The row's bound is
    replaced by a different value here, so that reading it would show."""
    request = PlanRequest.model_validate({
        "ring": {"nodes": 64, "wavelengths_per_fiber": 8}, "collective": "allgather",
        "algorithms": ["optree"], "message_sizes_bytes": [4 * 2**20],
        "optics": {"laser_power_dbm": 5},
    })  # fmt: skip
    run = run_plan(prepare(request))
    (planned,) = run.planned
    assert not planned.optics.feasible  # the premise: the reported shape is infeasible
    (bound,) = run.achievable
    (advice,) = recommendation([
        replace(planned, achievable=(replace(bound, bound_s=bound.bound_s / 2),))
    ], None, run.achievable, run.class_bound)  # fmt: skip
    assert advice.algorithm == "optree" and advice.parameters != planned.plan.params
    assert f"of the achievable ({bound.bound_s:.6g} s)" in advice.why
