"""The shape search's cheap bounds are proven lower bounds on chi (checked against brute
force and against L*), and the closed shift bound equals the bound of the built stage."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.algorithms.allgather import (
    optree_candidates,
    optree_padded_link_classes,
    optree_padded_stage,
)
from models.relay import shift_stage
from models.stage import Stage
from solver.bounds import class_lp_bound, load_bound, lp_load_bound, rotation_period
from solver.quick_bounds import (
    CUT_DIVISORS,
    cut_bound,
    degree_bound,
    hop_bound,
    quick_bound,
    shift_bound,
    shift_bounds,
)
from tests.solver.helpers import brute_chi, brute_min_max_load


@st.composite
def small_stages(draw: st.DrawFn, max_nodes: int = 7, max_units: int = 5) -> Stage:
    n = draw(st.integers(2, max_nodes))
    pairs = [(s, d) for s in range(n) for d in range(n) if s != d]
    chosen = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=4, unique=True))
    counts = draw(st.lists(st.integers(1, 2), min_size=len(chosen), max_size=len(chosen)))
    while sum(counts) > max_units:
        counts[counts.index(max(counts))] -= 1
        if min(counts) == 0:
            keep = [i for i, k in enumerate(counts) if k]
            chosen, counts = [chosen[i] for i in keep], [counts[i] for i in keep]
    s, d = zip(*chosen, strict=True)
    return Stage.from_demands(n, s, d, counts)


@settings(max_examples=60, deadline=None)
@given(small_stages())
def test_quick_bound_never_exceeds_brute_force_chi(stage: Stage) -> None:
    assert quick_bound(stage) <= brute_chi(stage)


@settings(max_examples=150, deadline=None)
@given(small_stages(max_nodes=9, max_units=8))
def test_quick_bound_never_exceeds_l_star(stage: Stage) -> None:
    """Every part is implied by the LP of L* (cuts, degrees, its dual weights)."""
    brute = brute_min_max_load(stage)
    assert max(hop_bound(stage), cut_bound(stage), degree_bound(stage)) <= brute
    assert quick_bound(stage) <= load_bound(stage, time_limit_s=5).lower_bound


def test_cut_bound_by_enumerating_every_arc() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(2, 14))
        s, d = rng.integers(0, n, 12), rng.integers(0, n, 12)
        keep = s != d
        if not keep.any():
            continue
        stage = Stage.from_demands(n, s[keep], d[keep], rng.integers(1, 5, keep.sum()))
        best = 0
        arcs = [(a, length) for a in range(n) for length in {n // k for k in CUT_DIVISORS}]
        for a, length in arcs:
            inside = {(a + i) % n for i in range(length)}
            out_ = sum(
                int(k)
                for u, v, k in zip(stage.sources, stage.destinations, stage.counts, strict=True)
                if u in inside and v not in inside
            )
            in_ = sum(
                int(k)
                for u, v, k in zip(stage.sources, stage.destinations, stage.counts, strict=True)
                if u not in inside and v in inside
            )
            best = max(best, out_, in_)
        assert cut_bound(stage) == -(-best // 2)


def test_hop_bound_is_the_best_direction_weighting() -> None:
    """max over a in [0, 1] of sum k min(a cw, (1 - a) ccw) / N, on a fine grid of a."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(2, 16))
        s, d = rng.integers(0, n, 10), rng.integers(0, n, 10)
        keep = s != d
        if not keep.any():
            continue
        stage = Stage.from_demands(n, s[keep], d[keep], rng.integers(1, 6, keep.sum()))
        cw = (stage.destinations - stage.sources) % n
        best = max(
            int((stage.counts * np.minimum((n - j) * cw, j * (n - cw))).sum()) for j in range(n + 1)
        )
        assert hop_bound(stage) == -(-best // (n * n))


def test_shift_bound_equals_the_bound_of_the_built_stage() -> None:
    for n in range(2, 40):
        for shift in range(n):
            for count in (1, 2, 7):
                assert shift_bound(n, shift, count) == quick_bound(shift_stage(n, shift, count, ""))


def test_uniform_shift_bound_is_the_lp_value_of_l_star() -> None:
    """For equal arcs the closed bound reaches the LP of L* (with its independence cap):
    N = 64, shift 5, 3 per node: weighted hops 3 x 5 x 59 / 64 = 13.8, packing
    192 / (12 + 1) = 14.8, so 15."""
    for n, shift, count in ((64, 5, 3), (30, 7, 2), (1024, 192, 32), (50, 25, 4)):
        stage = shift_stage(n, shift, count, "")
        assert shift_bound(n, shift, count) == lp_load_bound(stage)
    assert shift_bound(64, 5, 3) == 15


def test_equal_arcs_bound_is_below_brute_force_and_l_star() -> None:
    """TRA rounds are equal-arc stages: the packing bound must stay below the optimum."""
    for n in range(3, 6):
        for shift in range(1, n):
            stage = shift_stage(n, shift, 1, "")
            assert quick_bound(stage) <= brute_chi(stage)
    for n in range(3, 14):
        for shift in range(1, n):
            for count in (1, 3):
                stage = shift_stage(n, shift, count, "")
                assert quick_bound(stage) <= load_bound(stage, time_limit_s=5).lower_bound


def test_equal_arcs_bound_at_a_tra_round() -> None:
    """N = 1024, shift 192, 32 blocks per node: 5 clockwise arcs or 1 counter-clockwise arc
    per colour, so chi >= 32768 / 6 = 5461.3, above the weighted hops' 4992."""
    assert shift_bound(1024, 192, 32) == 5462


@settings(max_examples=80, deadline=None)
@given(small_stages(), st.data())
def test_class_lp_bound_never_exceeds_brute_force_chi(stage: Stage, data: st.DataObject) -> None:
    """Any partition of the links gives a bound: checked on random partitions against chi
    found by trying every routing and colouring."""
    n = stage.nodes
    classes = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    _, classes = np.unique(classes, return_inverse=True)
    assert class_lp_bound(stage, classes) <= brute_chi(stage)
    assert class_lp_bound(stage, classes) <= lp_load_bound(stage)


def test_class_lp_bound_with_a_class_per_link_or_residue_is_the_lp_of_l_star() -> None:
    """One class per link is the LP of L* itself; one per residue mod the stage's rotation
    period is too (an optimal dual can be taken periodic)."""
    rng = np.random.default_rng(11)
    for _ in range(40):
        n = int(rng.integers(3, 25))
        s, d = rng.integers(0, n, 15), rng.integers(0, n, 15)
        keep = s != d
        if not keep.any():
            continue
        stage = Stage.from_demands(n, s[keep], d[keep], rng.integers(1, 6, keep.sum()))
        assert class_lp_bound(stage, np.arange(n)) == lp_load_bound(stage)
    for n, prefix in ((24, (5, 5)), (30, (4, 4, 2)), (64, (3, 3, 3, 3)), (60, (7, 3, 3))):
        for j in range(1, len(prefix) + 1):
            stage = optree_padded_stage(n, prefix[:j])
            period = rotation_period(stage)
            assert class_lp_bound(stage, np.arange(n) % period) == lp_load_bound(stage)


def test_padded_optree_classes_bound_below_chi_at_small_n() -> None:
    """The classes the search uses on padded OpTree stages (by group pattern and offset):
    a partition of the links, and the class LP stays at or below the stage's LP of L* (so
    below chi) on every padded stage of every candidate at N = 24 and 30."""
    for n in (24, 30):
        for vector in optree_candidates(n):
            if int(np.prod(vector)) == n:
                continue
            for j in range(1, len(vector) + 1):
                classes = optree_padded_link_classes(n, vector[:j], 64)
                if classes is None:
                    continue
                assert classes.shape == (n,) and classes.min() == 0
                assert len(np.unique(classes)) == classes.max() + 1 <= 64
                stage = optree_padded_stage(n, vector[:j])
                assert class_lp_bound(stage, classes) <= lp_load_bound(stage)


def test_shift_bounds_equal_shift_bound_one_by_one() -> None:
    for n in (2, 3, 7, 30, 64, 1000):
        shifts = np.arange(-n, 2 * n)
        for count in (0, 1, 5):
            counts = np.full(len(shifts), count)
            expected = [shift_bound(n, int(sh), count) for sh in shifts]
            assert shift_bounds(n, shifts, counts).tolist() == expected


@pytest.mark.parametrize("n", [5, 7, 8])
def test_shift_bounds_within_a_hop_limit_against_cpsat(n: int) -> None:
    """Held to a hop limit, the shift bound never exceeds CP-SAT's optimum of the stage
    routed within it, and is at least the free bound; both ways within the limit: free."""
    from models.stage import within_hops
    from tests.solver.test_solve import exact_value

    nodes = np.arange(n)
    for delta in range(1, n):
        short = min(delta, n - delta)
        for count in (1, 2):
            stage = Stage.from_demands(n, nodes, (nodes + delta) % n, np.full(n, count))
            free = shift_bound(n, delta, count)
            for hops in range(short, n):
                held = int(shift_bounds(n, np.array([delta]), np.array([count]), hops)[0])
                assert held >= free
                if n - short <= hops:
                    assert held == free
                assert held <= exact_value(within_hops(stage, hops), "cpsat"), (delta, count)
