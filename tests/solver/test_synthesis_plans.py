"""Synthesized schedules solved like every algorithm: certified RWA, optically feasible under
the hop limit they were built for, never faster than the achievable bound, and on small
rings never faster than the exact optimum of the same model."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.achievable import achievable_bound
from models.optics import OpticalParameters, longest_reliable_hops
from models.ring import Hardware, Ring
from models.synthesis import (
    SynthAllGather,
    SynthAllReduce,
    SynthAllToAll,
    levels,
    multiplicative_partitions,
)
from solver.exact_schedule import solve_exact_schedule
from solver.feasibility import evaluate_plan
from solver.outcome import SolveOptions
from solver.plan import plan_algorithm

HW = Hardware()
FAMILIES = {"allgather": SynthAllGather, "allreduce": SynthAllReduce, "alltoall": SynthAllToAll}


@settings(max_examples=40, deadline=None)
@given(
    collective=st.sampled_from(sorted(FAMILIES)),
    nodes=st.integers(2, 48),
    wavelengths=st.integers(1, 16),
    fibers=st.integers(1, 2),
    size=st.floats(1e3, 1e9),
    data=st.data(),
)
def test_never_faster_than_the_bound_and_proven(
    collective: str, nodes: int, wavelengths: int, fibers: int, size: float, data: st.DataObject
) -> None:
    ring = Ring(nodes, fibers, wavelengths)
    hops = data.draw(st.one_of(st.none(), st.integers(1, nodes)))
    algorithm = FAMILIES[collective](hop_limit=hops)
    shapes = list(algorithm.shape_candidates(ring))
    if not shapes:  # every top stride is beyond the hop limit: refused, nothing to plan
        return
    params = algorithm.resolve(ring, data.draw(st.sampled_from(shapes)))
    plan = plan_algorithm(algorithm, ring, params, [size], HW, SolveOptions(max_hops=hops))
    bound = achievable_bound(collective, ring, size, HW, hops)
    assert plan.timings[0].time_s >= bound.bound_s * (1 - 1e-12)
    for stage in plan.stages:  # the design's routing meets the load bound in every step
        assert stage.result.chi == stage.result.lower_bound
    assert plan.steps_optimal


@pytest.mark.parametrize("collective", sorted(FAMILIES))
def test_feasible_under_the_optics_it_was_built_for(collective: str) -> None:
    optics = OpticalParameters(laser_power_dbm=3.0)  # 10 hops at most
    hops = longest_reliable_hops(optics)
    assert hops == 10
    ring = Ring(120, 1, 8)
    algorithm = FAMILIES[collective](hop_limit=hops)
    for raw in algorithm.shape_candidates(ring):
        params = algorithm.resolve(ring, raw)
        plan = plan_algorithm(algorithm, ring, params, [2**20], HW, SolveOptions(max_hops=hops))
        report = evaluate_plan(plan, optics)
        assert report.feasible, params
        assert max(s.max_hops for s in report.stages) <= hops


@pytest.mark.parametrize(
    ("collective", "nodes", "wavelengths"),
    [
        ("allgather", 3, 1), ("allgather", 4, 1), ("allgather", 4, 2), ("allgather", 6, 1),
        ("allgather", 6, 2), ("allreduce", 3, 1), ("allreduce", 4, 1), ("allreduce", 4, 2),
        ("alltoall", 3, 1), ("alltoall", 4, 1), ("alltoall", 4, 2), ("alltoall", 6, 2),
    ],
)  # fmt: skip
def test_never_faster_than_the_exact_optimum(collective: str, nodes: int, wavelengths: int) -> None:
    """Where every synthesized lightpath carries one piece, the schedule is one of the exact
    model's with as many pieces (all-reduce: N chunks x pieces of the vector): the optimum
    has at most as many slots."""
    ring = Ring(nodes, 1, wavelengths)
    algorithm = FAMILIES[collective]()
    for radices in multiplicative_partitions(nodes):
        params = algorithm.resolve(ring, {"radices": radices})
        pieces = int(params["pieces"])  # type: ignore[arg-type]
        plan = plan_algorithm(algorithm, ring, params, [2**20], HW)
        if collective == "alltoall":
            if any(s.stage.pieces > 1 for s in plan.stages):
                continue
        elif any(level.per_lightpath > 1 for level in levels(ring, radices, pieces)):
            continue
        units = pieces * (nodes if collective == "allreduce" else 1)
        exact = solve_exact_schedule(collective, ring, units, time_limit_s=60)
        assert exact.optimal
        assert exact.slot_count <= plan.true_steps, radices
