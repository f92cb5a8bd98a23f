"""solve_stage and the back ends against values computed independently."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from models.ring import ANY_DIRECTION, Direction, Ring
from models.stage import Stage
from solver.bounds import load_bound
from solver.exact_cpsat import solve_cpsat
from solver.exact_highs import solve_highs
from solver.formulation import build
from solver.outcome import Method, SolveOptions
from solver.solve import solve_stage
from solver.validator import validate
from tests.solver.helpers import brute_chi, brute_min_max_load, ring_all_to_all_optimum


def all_to_all(n: int) -> Stage:
    s, d = np.divmod(np.arange(n * n), n)
    keep = s != d
    return Stage.from_demands(n, s[keep], d[keep])


def segment_all_to_all(m: int) -> Stage:
    """All-to-all among nodes 0..m-1 of a ring of m + 1 nodes, routed along the segment only
    (never through node m): a line, where the optimum is floor(m^2 / 4)."""
    s, d = np.divmod(np.arange(m * m), m)
    keep = s != d
    s, d = s[keep], d[keep]
    allowed = np.where(s < d, Direction.CW, Direction.CCW)
    return Stage.from_demands(m + 1, s, d, None, allowed)


def exact_value(stage: Stage, backend: str, time_limit_s: float = 60.0) -> int:
    """Optimum by one exact back end: no heuristic hint, a loose colour cap; the proven load
    bound (tested against brute force above) is its only help."""
    bound = load_bound(stage).lower_bound
    form = build(stage, colours=bound + 3, lower_bound=bound)
    outcome = (
        solve_cpsat(form, time_limit_s) if backend == "cpsat" else solve_highs(form, time_limit_s)
    )
    assert outcome.proven and outcome.assignment is not None
    assert validate(stage, outcome.assignment).colours_used <= outcome.colours
    return int(outcome.colours)


@pytest.mark.parametrize("n", range(3, 13))
def test_ring_all_to_all_matches_literature(n: int) -> None:
    expected = ring_all_to_all_optimum(n)
    assert exact_value(all_to_all(n), "cpsat") == expected
    result = solve_stage(Ring(n), all_to_all(n), SolveOptions(Method.AUTO, 10.0))
    assert result.chi == expected and result.status == "optimal"


@pytest.mark.parametrize("n", range(3, 13))
def test_ring_all_to_all_highs(n: int) -> None:
    assert exact_value(all_to_all(n), "highs") == ring_all_to_all_optimum(n)


@pytest.mark.parametrize("m", range(3, 11))
def test_segment_all_to_all_is_floor_m2_over_4(m: int) -> None:
    expected = m * m // 4
    stage = segment_all_to_all(m)
    assert exact_value(stage, "cpsat") == expected
    assert exact_value(stage, "highs") == expected
    assert solve_stage(Ring(m + 1), stage, SolveOptions(Method.AUTO, 10.0)).chi == expected


def test_optree_16_node_example_stages() -> None:
    """OpTree journal Sec. III-C, N = 16, w = 2, two-stage 4-ary tree. Stage 1 (subsets 4
    apart, one item each): the paper needs 4 x ceil(4^2/8) = 8 wavelengths, 4 steps; the load
    bound is also 8 (each subset is a 4-node ring all-to-all, load 2, times 4 subsets).
    Stage 2 (segments of 4, 4 items per pair): the paper counts 4 x ceil(4^2/4) = 16."""
    ring = Ring(16, 1, 2)
    s1 = [(a, b) for i in range(4) for a in range(i, 16, 4) for b in range(i, 16, 4) if a != b]
    stage1 = Stage.from_demands(16, [a for a, _ in s1], [b for _, b in s1])
    r1 = solve_stage(ring, stage1, SolveOptions(Method.AUTO, 10.0))
    assert (r1.chi, r1.steps, r1.status) == (8, 4, "optimal")
    assert exact_value(stage1, "cpsat") == 8
    s2 = [
        (a, b) for g in range(0, 16, 4) for a in range(g, g + 4) for b in range(g, g + 4) if a != b
    ]
    stage2 = Stage.from_demands(16, [a for a, _ in s2], [b for _, b in s2], [4] * len(s2))
    r2 = solve_stage(ring, stage2, SolveOptions(Method.AUTO, 10.0))
    assert r2.status == "optimal"
    # On the ring, a segment's long pairs can go round the other way; the true optimum is
    # the load bound, 16 channels (4 items x floor(4^2/4) / 1 per link) -- as the paper says.
    assert r2.chi == 16 and r2.steps == 8


@st.composite
def small_stages(draw: st.DrawFn) -> Stage:
    n = draw(st.integers(3, 6))
    count = draw(st.integers(1, 4))
    s = draw(st.lists(st.integers(0, n - 1), min_size=count, max_size=count))
    d = [(x + draw(st.integers(1, n - 1))) % n for x in s]
    k = draw(st.lists(st.integers(1, 2), min_size=count, max_size=count))
    allowed = draw(
        st.lists(
            st.sampled_from([ANY_DIRECTION, ANY_DIRECTION, Direction.CW, Direction.CCW]),
            min_size=count,
            max_size=count,
        )
    )
    return Stage.from_demands(n, s, d, k, allowed)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_stages())
def test_tiny_stages_against_brute_force(stage: Stage) -> None:
    assume(stage.unit_lightpaths <= 5)  # brute force stays fast
    chi = brute_chi(stage)
    bound = load_bound(stage)
    assert brute_min_max_load(stage) <= bound.lower_bound <= chi
    for method in ("auto", "exact", "exact-highs"):
        result = solve_stage(Ring(stage.nodes), stage, SolveOptions(Method(method), 10.0))
        validate(stage, result.assignment)
        assert result.chi == chi and result.status == "optimal", method


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(4, 12), st.integers(1, 30), st.integers(0, 2**31 - 1))
def test_random_stages_invariants(n: int, count: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    s = rng.integers(0, n, count)
    d = (s + rng.integers(1, n, count)) % n
    stage = Stage.from_demands(n, s, d, rng.integers(1, 4, count))
    ring = Ring(n, 1, 4)
    heuristic = solve_stage(ring, stage, SolveOptions(method=Method.HEURISTIC, time_limit_s=5.0))
    exact = solve_stage(ring, stage, SolveOptions(method=Method.EXACT, time_limit_s=10.0))
    highs = solve_stage(ring, stage, SolveOptions(method=Method.EXACT_HIGHS, time_limit_s=10.0))
    for r in (heuristic, exact, highs):
        validate(stage, r.assignment)
        assert r.chi >= r.lower_bound
    assert exact.chi <= heuristic.chi
    if exact.status == "optimal" and highs.status == "optimal":
        assert exact.chi == highs.chi


def test_empty_stage() -> None:
    stage = Stage.from_demands(5, [], [], [])
    r = solve_stage(Ring(5), stage)
    assert (r.chi, r.steps, r.status) == (0, 0, "optimal")


def test_steps_use_fibres_and_wavelengths() -> None:
    r = solve_stage(Ring(8, 2, 4), all_to_all(8))  # chi = 8 channels, 2 x 4 per direction
    assert (r.chi, r.steps) == (8, 1)
    r = solve_stage(Ring(8, 1, 3), all_to_all(8))
    assert (r.chi, r.steps) == (8, 3)


def test_exact_refuses_oversized_model() -> None:
    from models.errors import LimitExceededError

    n = 201  # odd: not built by solver.constructions
    with pytest.raises(LimitExceededError, match="use the method heuristic or auto"):
        solve_stage(Ring(n), all_to_all(n), SolveOptions(method=Method.EXACT, time_limit_s=5.0))


def test_a_steps_only_solve_keeps_a_colouring_within_its_slots() -> None:
    """Without proving channels (the shape search's candidates), a colouring that takes no
    more slots than the bound allows is kept as it is: the heuristic's other colourings,
    which would reach the load here, are not tried. Proving channels, they are."""
    demands = [(6, 7, 3), (4, 6, 3), (4, 0, 1), (5, 3, 2), (4, 5, 3), (7, 4, 2), (6, 4, 1)]
    s, d, k = (list(v) for v in zip(*demands, strict=True))
    stage = Stage.from_demands(8, s, d, k, [Direction.CW] * len(demands))
    load = np.zeros(8, dtype=int)  # clockwise arcs: link i joins node i to i + 1
    for a, b, units in demands:
        for j in range((b - a) % 8):
            load[(a + j) % 8] += units
    assert load.max() == 7
    ring = Ring(8, 1, 16)  # one slot holds 16 colours a direction
    proven = solve_stage(ring, stage, SolveOptions(Method.AUTO, 10.0))
    steps_only = solve_stage(ring, stage, SolveOptions(Method.AUTO, 10.0, prove_channels=False))
    for result in (proven, steps_only):
        validate(stage, result.assignment)
        assert result.steps == 1 and result.lower_bound == 7
    assert proven.chi == 7 and proven.status == "optimal"
    assert 7 < steps_only.chi <= 16 and steps_only.status == "feasible"


def test_highs_stopped_before_a_finite_bound_keeps_the_proven_one() -> None:
    """Review (session 34): HiGHS stopped at its time limit before it had a finite dual
    bound reports -inf, and `math.ceil` of it raised OverflowError, which killed the solver
    process (a 503 "out of memory?" to the client). The outcome keeps the formulation's own
    proven bound; solved through `solve_stage` the stage answers its heuristic with the gap."""
    rng = np.random.default_rng(3)
    sources = rng.integers(0, 12, 60)
    stage = Stage.from_demands(
        12, sources, (sources + rng.integers(1, 12, 60)) % 12, np.ones(60, dtype=np.int64)
    )
    form = build(stage, 40, 1)
    outcome = solve_highs(form, 0.01)
    assert not outcome.proven and outcome.timed_out and outcome.bound == form.lower_bound
    result = solve_stage(
        Ring(12, 1, 64), stage, SolveOptions(method=Method.EXACT_HIGHS, time_limit_s=0.01)
    )
    validate(stage, result.assignment)
    assert result.lower_bound <= result.chi


@pytest.mark.parametrize("limit", [16, 2**20])
def test_a_node_limit_that_cannot_bind_is_no_limit(limit: int) -> None:
    """Review (session 34): node 0 sending and receiving 100 lightpaths to and from every
    other node of N = 64, w = 8 is solved (394 steps, optimal) without limits, and was
    refused with max_tx = 2^20 ("beyond the first-fit scheduler's limit"). A node sends at
    most 2 C = 16 lightpaths a slot on its two links, so a limit of 16 or more is none."""
    others = np.arange(1, 64)
    stage = Stage.from_demands(
        64, np.concatenate([np.zeros(63, dtype=np.int64), others]),
        np.concatenate([others, np.zeros(63, dtype=np.int64)]), np.full(126, 100),
    )
    ring = Ring(64, 1, 8)
    free = solve_stage(ring, stage)
    limited = solve_stage(ring, stage, SolveOptions(max_tx=limit, max_rx=limit))
    validate(stage, limited.assignment)
    assert limited.steps == free.steps and limited.status == free.status
