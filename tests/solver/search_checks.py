"""Shared check of the shape search against brute force (every candidate planned)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from models.algorithms.base import Algorithm
from models.ring import Hardware, Ring
from solver.outcome import SolveOptions
from solver.plan import AlgorithmPlan, StageCache, plan_algorithm
from solver.shape_search import search_best_shape


def assert_search_finds_the_best(
    algorithm: Algorithm, ring: Ring, sizes: Sequence[float], every: list[AlgorithmPlan]
) -> None:
    """The pruned search (paper shape first, 120 s budget) is exhaustive, accounts for every
    candidate and finds brute force's least (time, true steps) at every message size."""
    cache = StageCache()
    hardware = Hardware()
    paper = plan_algorithm(
        algorithm, ring, algorithm.paper_shape(ring), sizes, hardware, None, None, cache
    )
    found = search_best_shape(
        algorithm, ring, sizes, hardware, SolveOptions(), 120.0, paper, cache
    )
    assert found.report.exhaustive
    assert found.report.evaluated + found.report.pruned == len(every)
    for i, _ in enumerate(sizes):
        best = min((p.timings[i].time_s, p.true_steps) for p in every)
        got = found.by_message[i]
        assert (got.timings[i].time_s, got.true_steps) == pytest.approx(best, rel=1e-12)
