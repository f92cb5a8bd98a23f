"""Plans: every catalog algorithm's stages at small N are proven optimal by auto."""

from __future__ import annotations

import pytest

from models.algorithms.catalog import CATALOG
from models.errors import AlgorithmRefusedError, InvalidInputError
from models.ring import Hardware, Ring
from models.timing import slot_time_s
from solver.plan import plan_algorithm
from solver.validator import validate


@pytest.mark.parametrize("n", [5, 8, 12, 16])
@pytest.mark.parametrize("algorithm", CATALOG, ids=lambda a: f"{a.collective}-{a.name}")
def test_small_plans_are_proven_optimal(algorithm, n: int) -> None:
    ring = Ring(n, 1, 4)
    try:
        algorithm.resolve(ring)
    except AlgorithmRefusedError:
        return
    plan = plan_algorithm(algorithm, ring, message_bytes=[2**20], time_limit_s=10.0)
    for stage in plan.stages:
        validate(stage.stage, stage.result.assignment)
        assert stage.result.status == "optimal", (stage.label, stage.result)
        assert stage.result.seconds < 10.0
    assert plan.true_steps == plan.steps_lower_bound


def test_plan_time_is_steps_times_slot() -> None:
    ring = Ring(8, 1, 64)
    algorithm = next(a for a in CATALOG if a.collective == "allreduce" and a.name == "ring")
    plan = plan_algorithm(algorithm, ring, message_bytes=[8 * 2**20])
    # Ring all-reduce: 14 stages of one neighbour transfer, each one slot; item = d / N.
    assert plan.true_steps == 14
    assert plan.timings[0].time_s == pytest.approx(14 * slot_time_s(2**20, Hardware()))
    assert plan.timings[0].claimed_time_s == pytest.approx(plan.timings[0].time_s)


def test_plan_rejects_bad_message_size() -> None:
    algorithm = CATALOG[0]
    with pytest.raises(InvalidInputError, match="message size"):
        plan_algorithm(algorithm, Ring(4), message_bytes=[0])
