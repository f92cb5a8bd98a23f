"""The constructed ring all-to-all against the literature's optimum, CP-SAT and the validator."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.ring import Direction, Ring
from models.stage import Stage, within_hops
from solver import stage_cache as stage_cache_module
from solver.bounds import load_bound
from solver.constructions import (
    Shift,
    all_to_all_among,
    construct,
    padded_all_to_all,
    shift_of,
)
from solver.outcome import Method, SolvedBy, SolveOptions, Status
from solver.solve import solve_stage
from solver.stage_cache import StageCache
from solver.validator import validate
from tests.solver.helpers import among, ring_all_to_all_optimum
from tests.solver.test_solve import exact_value


def spaced_all_to_all(n: int, r: int, offset: int = 0, count: int = 1) -> Stage:
    nodes = offset + (n // r) * np.arange(r)
    s, d = np.repeat(nodes, r), np.tile(nodes, r)
    keep = s != d
    return Stage.from_demands(n, s[keep], d[keep], np.full(int(keep.sum()), count))


@pytest.mark.parametrize("n", [2, *range(4, 61, 2), 126, 128, 130])
def test_even_all_to_all_meets_the_literature_optimum(n: int) -> None:
    stage = spaced_all_to_all(n, n)
    assignment = construct(stage, 1)
    assert assignment is not None
    colours = validate(stage, assignment).colours_used
    assert colours == ring_all_to_all_optimum(n)
    assert colours == load_bound(stage).lower_bound


@pytest.mark.parametrize("n", [4, 6, 8, 10])
def test_construction_equals_cpsat_optimum(n: int) -> None:
    stage = spaced_all_to_all(n, n)
    assignment = construct(stage, 1)
    assert assignment is not None
    assert validate(stage, assignment).colours_used == exact_value(stage, "cpsat")


@settings(max_examples=40, deadline=None)
@given(
    half=st.integers(1, 20),
    stride=st.integers(1, 6),
    offset_seed=st.integers(0, 100),
    count=st.integers(1, 4),
)
def test_spaced_all_to_all_with_counts_meets_the_average_load(
    half: int, stride: int, offset_seed: int, count: int
) -> None:
    """k units per pair: the lightpaths' total length over the 2 r links (scaled by the
    stride) rounded up bounds chi from below for any routing; the construction meets it."""
    r = 2 * half
    n = r * stride
    stage = spaced_all_to_all(n, r, offset_seed % stride, count)
    assert all_to_all_among(stage).tolist() == list(range(offset_seed % stride, n, stride))
    assignment = construct(stage, 1)
    assert assignment is not None
    shortest = sum(min(d, r - d) for d in range(1, r)) * r * count
    assert validate(stage, assignment).colours_used == -(-shortest // (2 * r))


@pytest.mark.parametrize("n", [3, 5, 9, 15])
def test_odd_rings_are_left_to_the_solvers(n: int) -> None:
    assert construct(spaced_all_to_all(n, n), 1) is None


def test_other_stages_are_not_mistaken_for_an_all_to_all() -> None:
    full = spaced_all_to_all(8, 8)
    missing = Stage.from_demands(8, full.sources[1:], full.destinations[1:])
    fixed = Stage.from_demands(
        8, full.sources, full.destinations, None, np.full(full.demand_count, Direction.CW)
    )
    uneven = Stage.from_demands(
        8, full.sources, full.destinations, 1 + (np.arange(full.demand_count) == 3)
    )
    for stage in (missing, fixed, uneven):
        assert construct(stage, 1) is None
    one_way = Stage.from_demands(8, [0, 0, 3], [3, 5, 5])  # 3 demands: no r with r(r-1) = 3
    assert all_to_all_among(one_way) is None


def test_uneven_nodes_against_cpsat() -> None:
    """Nodes 0..5 of a ring of 8 and nodes {0, 1, 3, 7} of 9: the stretched construction
    equals CP-SAT's optimum on the larger ring."""
    for stage in (among(8, [0, 1, 2, 3, 4, 5]), among(9, [0, 1, 3, 7], 2)):
        assignment = construct(stage, 1)
        assert assignment is not None
        assert validate(stage, assignment).colours_used == exact_value(stage, "cpsat")


@settings(max_examples=40, deadline=None, derandomize=True)
@given(n=st.integers(4, 80), data=st.data(), count=st.integers(1, 3))
def test_all_to_all_among_any_even_nodes_meets_the_load_bound(
    n: int, data: st.DataObject, count: int
) -> None:
    nodes = data.draw(st.sets(st.integers(0, n - 1), min_size=2, max_size=n))
    if len(nodes) % 2:
        nodes.discard(max(nodes))
    stage = among(n, sorted(nodes), count)
    assignment = construct(stage, 1)
    assert assignment is not None
    assert validate(stage, assignment).colours_used == load_bound(stage).lower_bound


@settings(max_examples=40, deadline=None, derandomize=True)
@given(n=st.integers(3, 80), data=st.data(), count=st.integers(1, 3))
def test_padded_all_to_all_among_odd_nodes_is_within_one_even_ring(
    n: int, data: st.DataObject, count: int
) -> None:
    """Any odd set of nodes of a ring (the whole ring included): the padded construction
    validates, at least the load bound, at most the optimum of the even ring of r + 1
    (Wilfong's value, count times, rounded up per direction: the even construction's)."""
    nodes = data.draw(st.sets(st.integers(0, n - 1), min_size=3, max_size=n))
    if len(nodes) % 2 == 0:
        nodes.discard(max(nodes))
    r = len(nodes)
    stage = among(n, sorted(nodes), count)
    assert all_to_all_among(stage).tolist() == sorted(nodes)
    colours = validate(stage, padded_all_to_all(r, count)).colours_used
    m = (r + 1) // 2
    assert load_bound(stage).lower_bound <= colours <= -(-count * m * m // 2)


@pytest.mark.parametrize("r", [3, 5, 7, 9, 11, 13, 101])
def test_padded_all_to_all_of_a_whole_odd_ring(r: int) -> None:
    """The whole odd ring: within the even ring's optimum of r + 1 and never below the
    literature's optimum of r (r = 3: 2 against 1)."""
    stage = spaced_all_to_all(r, r)
    colours = validate(stage, padded_all_to_all(r, 1)).colours_used
    assert ring_all_to_all_optimum(r) <= colours <= ring_all_to_all_optimum(r + 1)


def test_odd_all_to_all_falls_back_to_the_padded_construction_at_its_time_limit() -> None:
    """The heuristic's sweep stops at the stage's time limit on an odd all-to-all (it looks
    at the clock after every 4096 intervals: r = 151 has 11,325 a direction) and the padded
    construction answers, reported as stopped by the limit with its gap to the load bound;
    with the time it needs the heuristic reaches the optimum, as before. A stage of fewer
    intervals always gets the heuristic (r = 61: 1830 a direction)."""
    r = 151
    stage = spaced_all_to_all(r, r)
    ring = Ring(r, 1, 64)
    cut = solve_stage(ring, stage, SolveOptions(method=Method.HEURISTIC, time_limit_s=1e-9))
    assert cut.method == SolvedBy.CONSTRUCTION
    assert cut.status == Status.TIME_LIMIT
    assert cut.lower_bound == ring_all_to_all_optimum(r) < cut.chi
    assert cut.chi == validate(stage, padded_all_to_all(r, 1)).colours_used
    validate(stage, cut.assignment)
    whole = solve_stage(ring, stage, SolveOptions(method=Method.HEURISTIC, time_limit_s=60))
    assert whole.status == Status.OPTIMAL
    assert whole.chi == ring_all_to_all_optimum(r)
    instant = SolveOptions(method=Method.HEURISTIC, time_limit_s=1e-9)
    small = solve_stage(Ring(61, 1, 64), spaced_all_to_all(61, 61), instant)
    assert small.status == Status.OPTIMAL
    assert small.chi == ring_all_to_all_optimum(61)


def test_the_heuristic_keeps_a_share_of_the_time_limit_after_a_slow_load_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The load bound may use the whole time limit (HiGHS checks its limit only now and then,
    and the repair and shortening steps take their own shares); the odd all-to-all's
    heuristic then still gets half of the limit (1 s here, 20 times what it needs idle) and
    reaches the optimum instead of falling back at once."""
    import solver.solve as solve_module

    original = solve_module.load_bound

    def slow(stage: Stage, time_limit_s: float = 10.0) -> object:
        found = original(stage, time_limit_s)
        time.sleep(2.2)  # past the stage's 2 s
        return found

    monkeypatch.setattr(solve_module, "load_bound", slow)
    r = 151
    options = SolveOptions(method=Method.HEURISTIC, time_limit_s=2.0)
    result = solve_stage(Ring(r, 1, 64), spaced_all_to_all(r, r), options)
    assert result.status == Status.OPTIMAL
    assert result.chi == ring_all_to_all_optimum(r)


def test_odd_all_to_all_of_a_relabelled_stage_is_solved_once_at_its_time_limit() -> None:
    """An odd all-to-all among nodes that are not the whole ring is solved in canonical
    labels; when the padded construction answers, the cache does not solve it again under
    the caller's labels (it would run out of time again)."""
    nodes = list(range(0, 302, 2))  # 151 nodes of a ring of 303
    stage = among(303, nodes)
    calls = []
    cache = StageCache()
    original = stage_cache_module.solve_stage

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return original(*args, **kwargs)

    stage_cache_module.solve_stage = counted  # type: ignore[assignment]
    try:
        found = cache.solve(
            Ring(303, 1, 64), stage, SolveOptions(method=Method.HEURISTIC, time_limit_s=1e-9)
        )
    finally:
        stage_cache_module.solve_stage = original
    assert found.method == SolvedBy.CONSTRUCTION and found.status == Status.TIME_LIMIT
    validate(stage, found.assignment)
    assert len(calls) == 1


def test_solve_stage_reports_the_construction_as_optimal() -> None:
    n = 256
    stage = spaced_all_to_all(n, n)
    result = solve_stage(Ring(n, 1, 64), stage)
    assert result.method == SolvedBy.CONSTRUCTION
    assert result.status == Status.OPTIMAL
    assert result.chi == result.lower_bound == n * n // 8
    assert result.steps == n * n // 8 // 64


def shift_stage(n: int, delta: int, count: int) -> Stage:
    nodes = np.arange(n)
    return Stage.from_demands(n, nodes, (nodes + delta) % n, np.full(n, count))


@pytest.mark.parametrize("n", [3, 5, 8, 9, 10])
def test_shift_equals_cpsat_optimum(n: int) -> None:
    for delta in range(1, n):
        for count in (1, 3):
            stage = shift_stage(n, delta, count)
            assignment = construct(stage, load_bound(stage).lower_bound)
            assert assignment is not None
            colours = validate(stage, assignment).colours_used
            assert colours == exact_value(stage, "cpsat"), (n, delta, count)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(n=st.integers(2, 400), delta_seed=st.integers(1, 10_000), count=st.integers(1, 64))
def test_shift_meets_the_load_bound(n: int, delta_seed: int, count: int) -> None:
    delta = 1 + delta_seed % (n - 1)
    stage = shift_stage(n, delta, count)
    assert shift_of(stage) == Shift(delta, count)
    bound = load_bound(stage).lower_bound
    assignment = construct(stage, bound)
    assert assignment is not None
    assert validate(stage, assignment).colours_used == bound


@pytest.mark.parametrize("n", [3, 5, 8, 9, 10])
def test_one_way_shift_equals_cpsat_optimum(n: int) -> None:
    """A shift held to its short way by a hop limit (TRA's relayed rounds under the loss
    budget): built, never above CP-SAT's optimum of the same restricted stage."""
    for delta in range(1, n):
        short = min(delta, n - delta)
        if short == n - short:
            continue  # both ways equally long: the hop limit keeps both
        for count in (1, 3):
            stage = within_hops(shift_stage(n, delta, count), short)
            found = shift_of(stage)
            assert found is not None and found.direction is not None
            assignment = construct(stage, load_bound(stage).lower_bound)
            assert assignment is not None
            lightpaths = assignment.lightpaths(Ring(n), stage)
            assert lightpaths["hops"].max() == short
            colours = validate(stage, assignment).colours_used
            assert colours == exact_value(stage, "cpsat"), (n, delta, count)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(n=st.integers(3, 400), delta_seed=st.integers(1, 10_000), count=st.integers(1, 64))
def test_one_way_shift_meets_the_load_bound(n: int, delta_seed: int, count: int) -> None:
    delta = 1 + delta_seed % (n - 1)
    short = min(delta, n - delta)
    if short == n - short:
        return
    stage = within_hops(shift_stage(n, delta, count), short)
    bound = load_bound(stage).lower_bound
    assignment = construct(stage, bound)
    assert assignment is not None
    assert validate(stage, assignment).colours_used == bound


def test_shift_needs_every_node_once_with_one_count() -> None:
    full = shift_stage(12, 5, 2)
    assert shift_of(Stage.from_demands(12, full.sources[1:], full.destinations[1:])) is None
    uneven = Stage.from_demands(12, full.sources, full.destinations, 1 + (full.sources == 0))
    assert shift_of(uneven) is None
    mixed = Stage.from_demands(12, full.sources, (full.sources + 1 + full.sources % 2) % 12)
    assert shift_of(mixed) is None


def test_tra_round_is_built_at_its_bound() -> None:
    """A TRA round at N = 1024 (radix 32, x = 0, z = 7): the heuristic was one channel
    above the bound of 223 (ceil(32 * 1024 / (146 + 1)): 146 arcs of 7 hops clockwise and one
    of 1017 counter-clockwise per channel)."""
    stage = shift_stage(1024, 7, 32)
    result = solve_stage(Ring(1024, 1, 64), stage)
    assert result.method == SolvedBy.CONSTRUCTION
    assert result.chi == result.lower_bound == -(-32 * 1024 // (1024 // 7 + 1))


@pytest.mark.parametrize("delta", [1, 2, 4, 6, 7])
def test_shift_takes_the_short_way_when_the_channels_allow(delta: int) -> None:
    """i -> i + delta and i -> i - delta on 8 nodes, one unit each: when the short arcs tile
    the ring (min(delta, 8 - delta) divides 8) they alone meet the bound, and every
    lightpath keeps to its short arc. (For delta = 3, two units must take 5 hops: six short
    arcs fill 3 channels, the other two would need a fourth.)"""
    for step in (delta, 8 - delta):
        stage = shift_stage(8, step, 1)
        assignment = construct(stage, load_bound(stage).lower_bound)
        assert assignment is not None
        hops = assignment.lightpaths(Ring(8), stage)["hops"]
        assert hops.max() == min(step, 8 - step)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=1, max_size=40), st.integers(1, 40))
def test_sliding_max_against_brute_force(values: list[int], width: int) -> None:
    from solver.heuristic import sliding_max

    width = min(width, len(values))
    expected = [max(values[i : i + width]) for i in range(len(values) - width + 1)]
    assert sliding_max(np.array(values, dtype=np.int64), width).tolist() == expected
