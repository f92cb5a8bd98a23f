"""Stages: aggregation of demands, and the sharing that keeps thousands of equal stages cheap."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.algorithms.catalog import CATALOG
from models.ring import Ring
from models.stage import Stage


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(2, 9),
    pairs=st.lists(st.tuples(st.integers(0, 8), st.integers(1, 8), st.integers(1, 3)), max_size=20),
)
def test_from_demands_aggregates_like_a_dictionary(n: int, pairs: list) -> None:
    """Sorted unique input (the fast path) and any other input give the summed demands."""
    s = [a % n for a, _, _ in pairs]
    d = [(a + b) % n for a, b, _ in pairs]
    keep = [i for i in range(len(pairs)) if s[i] != d[i]]
    expected: dict[tuple[int, int], int] = {}
    for i in keep:
        expected[(s[i], d[i])] = expected.get((s[i], d[i]), 0) + pairs[i][2]
    stage = Stage.from_demands(n, [s[i] for i in keep], [d[i] for i in keep],
                               [pairs[i][2] for i in keep])  # fmt: skip
    got = dict(zip(zip(stage.sources.tolist(), stage.destinations.tolist(), strict=True),
                   stage.counts.tolist(), strict=True))  # fmt: skip
    assert got == expected
    assert list(got) == sorted(expected)
    # Fed back in (sorted, unique): the same stage, read-only.
    again = Stage.from_demands(n, stage.sources, stage.destinations, stage.counts)
    for name in ("sources", "destinations", "counts", "allowed"):
        assert np.array_equal(getattr(again, name), getattr(stage, name))
        assert not getattr(again, name).flags.writeable


def test_sorted_input_is_not_frozen_under_the_caller() -> None:
    s, d = np.array([0, 1, 2]), np.array([1, 2, 0])
    stage = Stage.from_demands(3, s, d)
    s[0] = 2  # the caller's arrays stay writable, and the stage does not change with them
    assert stage.sources.tolist() == [0, 1, 2]


@pytest.mark.parametrize("name", ["ring", "hring", "ne"])
def test_equal_stages_share_arrays_and_keep_labels(name: str) -> None:
    """Schedule.stages returns equal stages as views of one set of arrays (Ring's 8190
    all-reduce stages at N = 4096), each with its own label and pieces, equal to the stage
    built on its own."""
    ring = Ring(24, 1, 4)
    for algorithm in (a for a in CATALOG if a.name == name):
        params = algorithm.resolve(ring)
        schedule = algorithm.schedule(ring, params)
        stages = schedule.stages()
        distinct = {id(s.sources) for s in stages}
        assert len(distinct) < len(stages)
        for index, stage in enumerate(stages):
            alone = schedule.stage(index)
            assert stage.label == alone.label and stage.pieces == alone.pieces
            for field in ("sources", "destinations", "counts", "allowed"):
                assert np.array_equal(getattr(stage, field), getattr(alone, field))
