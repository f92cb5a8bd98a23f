"""The pruned best-shape search finds what brute force over every candidate finds."""

from __future__ import annotations

import pytest

from models.algorithms.base import Algorithm
from models.algorithms.catalog import get_algorithm
from models.errors import AlgorithmRefusedError
from models.ring import Hardware, Ring
from solver.outcome import SolveOptions
from solver.plan import AlgorithmPlan, StageCache, plan_algorithm
from solver.shape_search import search_best_shape

SIZES = (256.0, 1048576.0)  # a latency-bound and a bandwidth-bound message
CASES = [
    ("allgather", "optree", 24, 2),
    ("allgather", "optree", 32, 4),
    ("allgather", "optree", 30, 1),
    ("allgather", "wrht", 20, 2),
    ("allgather", "wrht", 32, 4),
    ("allreduce", "wrht", 32, 2),
    ("allreduce", "hring", 24, 2),
    ("allreduce", "hring", 32, 1),
    ("alltoall", "tra", 16, 2),
    ("alltoall", "tra", 18, 4),
    ("alltoall", "tra2", 8, 4),
]


def _brute_force(algorithm: Algorithm, ring: Ring) -> list[AlgorithmPlan]:
    plans = []
    for raw in algorithm.shape_candidates(ring):
        try:
            params = algorithm.resolve(ring, raw)
        except AlgorithmRefusedError:
            continue
        plans.append(plan_algorithm(algorithm, ring, params, SIZES, Hardware()))
    return plans


@pytest.mark.parametrize("collective,name,n,w", CASES)
def test_pruned_search_agrees_with_brute_force(collective: str, name: str, n: int, w: int) -> None:
    algorithm = get_algorithm(collective, name)
    ring = Ring(n, 1, w)
    every = _brute_force(algorithm, ring)
    assert every
    cache = StageCache()
    paper = plan_algorithm(
        algorithm, ring, algorithm.paper_shape(ring), SIZES, Hardware(), None, None, cache
    )
    found = search_best_shape(
        algorithm, ring, SIZES, Hardware(), SolveOptions(), 120.0, paper, cache
    )
    assert found.report.exhaustive
    assert found.report.evaluated + found.report.pruned == len(every)
    for i, _ in enumerate(SIZES):
        best = min((p.timings[i].time_s, p.true_steps) for p in every)
        got = found.by_message[i]
        assert (got.timings[i].time_s, got.true_steps) == pytest.approx(best, rel=1e-12)


def test_search_prunes_most_optree_candidates_at_n_64() -> None:
    algorithm = get_algorithm("allgather", "optree")
    ring = Ring(64, 1, 8)
    paper = plan_algorithm(algorithm, ring, algorithm.paper_shape(ring), SIZES, Hardware())
    found = search_best_shape(algorithm, ring, SIZES, Hardware(), SolveOptions(), 120.0, paper)
    assert found.report.exhaustive
    assert found.report.pruned > found.report.evaluated
    assert found.plan.true_steps <= paper.true_steps


def test_a_tiny_budget_cuts_the_search_and_says_so() -> None:
    algorithm = get_algorithm("alltoall", "tra")
    ring = Ring(64, 1, 4)
    paper = plan_algorithm(algorithm, ring, algorithm.paper_shape(ring), SIZES, Hardware())
    found = search_best_shape(algorithm, ring, SIZES, Hardware(), SolveOptions(), 1e-6, paper)
    assert not found.report.exhaustive
    assert "budget" in found.report.note
    assert found.plan is paper  # nothing beat the incumbent in no time
