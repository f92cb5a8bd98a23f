"""The configuration LP bound (solver.configuration): its pricing against enumeration, the bound
never above the true chi (brute force), and a colour gap it proves where L* cannot."""

from __future__ import annotations

import itertools
import time

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from models.ring import ANY_DIRECTION, Direction, Ring
from models.stage import Stage
from solver.bounds import load_bound
from solver.configuration import configuration_bound, heaviest_disjoint_arcs
from solver.outcome import Method, SolveOptions, Status
from solver.solve import solve_stage
from tests.solver.helpers import brute_chi


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(2, 9),
    arcs=st.lists(
        st.tuples(st.integers(0, 8), st.integers(1, 8), st.integers(0, 9)), min_size=1, max_size=8
    ),
)
def test_heaviest_disjoint_arcs_against_enumeration(n: int, arcs: list) -> None:
    lo = np.array([a % n for a, _, _ in arcs], dtype=np.int64)
    length = np.array([1 + (b - 1) % n for _, b, _ in arcs], dtype=np.int64)
    weight = np.array([float(c) for _, _, c in arcs])
    links = [{(int(lo[i]) + j) % n for j in range(int(length[i]))} for i in range(len(arcs))]
    best = 0.0
    for size in range(1, len(arcs) + 1):
        for subset in itertools.combinations(range(len(arcs)), size):
            if all(links[a].isdisjoint(links[b]) for a, b in itertools.combinations(subset, 2)):
                best = max(best, float(weight[list(subset)].sum()))
    value, chosen = heaviest_disjoint_arcs(n, lo, length, weight)
    assert value == best
    assert float(weight[chosen].sum()) == value
    assert all(links[a].isdisjoint(links[b]) for a, b in itertools.combinations(chosen, 2))


@st.composite
def small_stages(draw: st.DrawFn) -> Stage:
    n = draw(st.integers(3, 7))
    direction = st.sampled_from([ANY_DIRECTION, ANY_DIRECTION, Direction.CW, Direction.CCW])
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, n - 1),
                                    st.integers(1, 2), direction),
                          min_size=1, max_size=5))  # fmt: skip
    stage = Stage.from_demands(
        n,
        [p[0] for p in pairs],
        [(p[0] + p[1]) % n for p in pairs],
        [p[2] for p in pairs],
        [p[3] for p in pairs],
    )
    if stage.unit_lightpaths > 5:  # brute force enumerates every unit's direction and colour
        stage = Stage.from_demands(n, stage.sources[:3], stage.destinations[:3], None,
                                   stage.allowed[:3])  # fmt: skip
    return stage


@settings(max_examples=60, deadline=None)
@given(small_stages())
def test_the_bound_never_exceeds_the_true_chi(stage: Stage) -> None:
    result = solve_stage(Ring(stage.nodes, 1, 4), stage, SolveOptions(method=Method.HEURISTIC))
    found = configuration_bound(stage, 0, result.assignment, time.monotonic() + 5)
    assert found is not None
    assert found.lower_bound <= brute_chi(stage)
    assert found.dual_bound <= found.master_value + 1e-6


# On a 7-node ring: three demands either way, two units 6 -> 0 counter-clockwise only (the
# long way). L* = 2 (brute force), but chi = 3 (brute force); the configuration LP is 7/3.
GAP = Stage.from_demands(
    7, [2, 3, 5, 6], [5, 0, 3, 0], [1, 1, 1, 2], [ANY_DIRECTION] * 3 + [Direction.CCW]
)


def test_a_colour_gap_the_load_bound_cannot_see() -> None:
    from tests.solver.helpers import brute_min_max_load

    assert brute_min_max_load(GAP) == 2 and brute_chi(GAP) == 3
    assert load_bound(GAP, time_limit_s=2).lower_bound == 2
    result = solve_stage(Ring(7, 1, 4), GAP, SolveOptions(method=Method.HEURISTIC))
    assert (result.chi, result.lower_bound, result.status) == (3, 3, Status.OPTIMAL)
    assert result.bound_source == "configuration"
    found = configuration_bound(GAP, 2, result.assignment, time.monotonic() + 5)
    assert found is not None and found.converged
    assert abs(found.dual_bound - 7 / 3) < 1e-6


def test_the_bound_never_exceeds_cpsat_optimum_on_larger_stages() -> None:
    """Up to 9 demands of 3 units on 9 nodes: CP-SAT proves chi (a second solver), the
    configuration bound stays at or below it."""
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(60):
        n, m = int(rng.integers(3, 10)), int(rng.integers(1, 10))
        s = rng.integers(0, n, m)
        d = (s + rng.integers(1, n, m)) % n
        allowed = rng.choice([ANY_DIRECTION, ANY_DIRECTION, Direction.CW, Direction.CCW], m)
        stage = Stage.from_demands(n, s, d, rng.integers(1, 4, m), allowed)
        exact = solve_stage(Ring(n, 1, 4), stage, SolveOptions(method=Method.EXACT))
        if exact.chi != exact.lower_bound:
            continue
        found = configuration_bound(stage, 0, exact.assignment, time.monotonic() + 5)
        assert found is not None and found.lower_bound <= exact.chi
        checked += 1
    assert checked >= 50
