"""Shapes (SPEC section 7): the paper's shape, the families the search walks, their limits,
and the fast stage constructions the search relies on (equal to the schedules' stages)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import models.algorithms.alltoall as a2a
from models import closed_forms as cf
from models.algorithms.allgather import (
    optree_candidates,
    optree_paper_branching,
    ordered_factorisations,
    wrht_levels_by_rule,
    wrht_tree,
)
from models.algorithms.alltoall import digit_count
from models.algorithms.catalog import CATALOG, get_algorithm
from models.dataflow import count_messages, simulate
from models.errors import AlgorithmRefusedError
from models.ring import Ring

SHAPED = [a for a in CATALOG if a.params]


def _same_demands(a: list, b: list) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        for field in ("sources", "destinations", "counts"):
            assert np.array_equal(getattr(x, field), getattr(y, field)), (x.label, field)
        assert x.pieces == y.pieces


@pytest.mark.parametrize("algorithm", SHAPED, ids=lambda a: f"{a.collective}-{a.name}")
@pytest.mark.parametrize("n,w", [(2, 1), (6, 2), (8, 1), (12, 2), (16, 4), (18, 2), (24, 3)])
def test_every_candidate_delivers_and_its_fast_stages_equal_the_schedule(algorithm, n, w) -> None:
    """Every shape the search can try is run by the data-flow simulator, and the stages the
    search builds without the schedule are the schedule's own."""
    ring = Ring(n, 1, w)
    tried = 0
    for raw in algorithm.shape_candidates(ring):
        if algorithm.name == "tra2":
            raw = {**raw, "processes_per_node": 3, "radix_intra": 2}  # small P^2; Q = 64 below
        try:
            params = algorithm.resolve(ring, raw)
        except AlgorithmRefusedError:
            continue
        schedule = algorithm.schedule(ring, params)
        simulate(schedule)
        _same_demands(schedule.stages(), algorithm.stages(ring, params))
        tried += 1
    assert tried >= 1


@pytest.mark.parametrize(
    "algorithm", [a for a in CATALOG if not a.params], ids=lambda a: f"{a.collective}-{a.name}"
)
@pytest.mark.parametrize("n", [2, 5, 8, 13])
def test_unshaped_stages_equal_the_schedule(algorithm, n: int) -> None:
    """Algorithms without a shape may build their stages directly (OSM does); they are the
    schedule's own, and the schedule still delivers the collective."""
    ring = Ring(n, 1, 2)
    if algorithm.refusal(ring, algorithm.fill_defaults(ring, {})):
        pytest.skip("the algorithm does not run on this N")
    params = algorithm.resolve(ring)
    schedule = algorithm.schedule(ring, params)
    simulate(schedule)
    _same_demands(schedule.stages(), algorithm.stages(ring, params))


def test_tra2_paper_q_delivers_at_small_n() -> None:
    algorithm = get_algorithm("alltoall", "tra2")
    ring = Ring(4)
    params = algorithm.paper_shape(ring)
    assert params["processes_per_node"] == 64  # TRA Sec. V: 64 ranks per Theta node
    assert params["radix_intra"] == 8 and params["radix_inter"] == 4
    schedule = algorithm.schedule(ring, params)
    simulate(schedule)
    _same_demands(schedule.stages(), algorithm.stages(ring, params))


def test_tra2_refuses_plans_beyond_the_lightpath_limit_and_says_what_fits() -> None:
    algorithm = get_algorithm("alltoall", "tra2")
    with pytest.raises(AlgorithmRefusedError, match="use processes_per_node <= "):
        algorithm.paper_shape(Ring(1024))


@pytest.mark.parametrize("n", [4, 6, 12, 36, 64, 1000, 1024])
def test_optree_candidates_hold_every_ordered_exact_factorisation(n: int) -> None:
    candidates = set(optree_candidates(n))
    exact = {v for v in candidates if math.prod(v) == n}
    # brute force: every ordered vector of factors >= 2 with product n
    expected: set[tuple[int, ...]] = set()
    frontier = [((), n)]
    while frontier:
        vector, rest = frontier.pop()
        if rest == 1:
            expected.add(vector)
            continue
        frontier += [((*vector, f), rest // f) for f in range(2, rest + 1) if rest % f == 0]
    assert exact == expected
    assert all(len(v) <= n.bit_length() - 1 for v in candidates)
    assert all(math.prod(v) >= n for v in candidates)


def test_ordered_factorisations_count_of_a_power_of_two() -> None:
    # compositions of 10: 2^9 ordered factorisations of 2^10
    assert len(list(ordered_factorisations(1024, 10))) == 512


@pytest.mark.parametrize(
    "n,expected",
    [
        (1024, (4, 4, 4, 2, 2, 2, 2)),  # k* = 7, exact factorisation exists
        (64, (4, 4, 2, 2)),  # k* = 4
        (1000, (3, 3, 3, 3, 3, 3, 2)),  # k* = 7 but 1000 has only 6 prime factors: padded
        (7, (7,)),  # k* undefined for N <= 7: one stage (OSM)
    ],
)
def test_optree_paper_shape(n: int, expected: tuple[int, ...]) -> None:
    assert optree_paper_branching(n) == expected
    assert get_algorithm("allgather", "optree").paper_shape(Ring(n))["branching"] == expected


def test_optree_refuses_more_levels_than_log2_n() -> None:
    algorithm = get_algorithm("allgather", "optree")
    with pytest.raises(AlgorithmRefusedError, match=r"floor\(log2 N\) = 4"):
        algorithm.resolve(Ring(16), {"branching": (2, 2, 2, 2, 2)})


def test_wrht_stopping_rule_groups_until_the_representatives_fit() -> None:
    # N = 64, w = 64: 64 nodes would need ceil(64^2 / 8) = 512 wavelengths for an
    # all-to-all, so the paper groups first (one group, one representative).
    assert wrht_levels_by_rule(64, 129, 64) == 1
    # N = 1024, w = 64: one level leaves 8 representatives: ceil(64 / 8) = 8 <= 64.
    assert wrht_levels_by_rule(1024, 129, 64) == 1
    assert len(wrht_tree(1024, 129, 1)[1]) == 8
    # N = 16, w = 64: 32 wavelengths suffice at once.
    assert wrht_levels_by_rule(16, 129, 64) == 0
    for n in range(2, 300):
        for w in (1, 2, 4, 16):
            levels = wrht_levels_by_rule(n, 2 * w + 1, w)
            _, top = wrht_tree(n, 2 * w + 1, levels)
            assert cf.ceil_div(len(top) ** 2, 8) <= w or len(top) == 1


@pytest.mark.parametrize("name", ["wrht"])
@pytest.mark.parametrize("collective", ["allgather", "allreduce"])
def test_wrht_refuses_group_beyond_2w_plus_1_and_too_many_levels(
    name: str, collective: str
) -> None:
    algorithm = get_algorithm(collective, name)
    with pytest.raises(AlgorithmRefusedError, match="exceeds 2w"):
        algorithm.resolve(Ring(64, 1, 4), {"group": 10})
    with pytest.raises(AlgorithmRefusedError, match="levels=4 exceeds"):
        algorithm.resolve(Ring(64, 1, 4), {"group": 9, "levels": 4})


@pytest.mark.parametrize("p", [2, 5, 16, 27, 30, 64, 100])
def test_tra_k_and_d_counted_on_the_schedule_match_propositions_1_to_4(p: int) -> None:
    algorithm = get_algorithm("alltoall", "tra")
    ring = Ring(p)
    for r in range(2, p + 1):
        params = algorithm.resolve(ring, {"radix": r})
        counts = count_messages(algorithm.schedule(ring, params))
        assert counts.rounds == cf.tra_rounds(p, r)
        assert counts.data_sent_per_process == cf.tra_blocks(p, r)


@pytest.mark.parametrize("n,q", [(3, 2), (4, 4), (5, 3), (8, 2), (6, 8)])
def test_tra2_counts_on_rounds_equal_counts_on_the_schedule(n: int, q: int) -> None:
    """Where P^2 blocks are too many, K and D are counted on the rounds; both ways agree."""
    algorithm = get_algorithm("alltoall", "tra2")
    ring = Ring(n)
    for r2 in range(2, n + 1):
        params = algorithm.resolve(ring, {"processes_per_node": q, "radix_inter": r2})
        counted = algorithm.message_counts(ring, params)
        assert counted is not None and counted[1] == "schedule"
        limit, a2a.COUNTED_BLOCKS_LIMIT = a2a.COUNTED_BLOCKS_LIMIT, 0
        try:
            by_rounds = algorithm.message_counts(ring, params)
        finally:
            a2a.COUNTED_BLOCKS_LIMIT = limit
        assert by_rounds is not None and by_rounds[1] == "rounds"
        assert by_rounds[0] == counted[0]


@pytest.mark.parametrize("n", [2, 7, 16, 27, 30])
def test_tra_counts_on_rounds_equal_counts_on_the_schedule(
    n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond COUNTED_BLOCKS_LIMIT, TRA counts K and D on its rounds; both ways agree for
    every radix."""
    algorithm = get_algorithm("alltoall", "tra")
    ring = Ring(n)
    for r in range(2, n + 1):
        params = algorithm.resolve(ring, {"radix": r})
        counted = algorithm.message_counts(ring, params)
        assert counted[1] == "schedule"
        with monkeypatch.context() as patch:
            patch.setattr(a2a, "COUNTED_BLOCKS_LIMIT", 0)
            by_rounds = algorithm.message_counts(ring, params)
        assert by_rounds == (counted[0], "rounds")


def test_digit_count_by_enumeration() -> None:
    for p in range(1, 70):
        for r in range(2, 9):
            for x in range(4):
                for z in range(1, r):
                    expected = sum(1 for i in range(p) if (i // r**x) % r == z)
                    assert digit_count(p, r, x, z) == expected


def test_hring_paper_group_is_the_printed_g_or_the_nearest_divisor() -> None:
    algorithm = get_algorithm("allreduce", "hring")
    assert algorithm.paper_shape(Ring(1000))["group"] == 5  # WRHT Table I
    assert algorithm.paper_shape(Ring(1024))["group"] == 4
    assert algorithm.paper_shape(Ring(7))["group"] == 7


def test_hring_intra_steps_carry_a_whole_part_on_one_lightpath() -> None:
    """Intra-group steps move d/g (N/g chunks) as one transfer: one lightpath per node."""
    algorithm = get_algorithm("allreduce", "hring")
    ring = Ring(1000)
    stages = algorithm.stages(ring, algorithm.resolve(ring, {"group": 5}))
    intra = [s for s in stages if s.label.startswith("intra")]
    inter = [s for s in stages if s.label.startswith("inter")]
    assert len(intra) == 2 * (5 - 1) and len(inter) == 2 * (200 - 1)
    assert all(s.unit_lightpaths == 1000 and s.pieces == 200 for s in intra)
    assert all(s.unit_lightpaths == 1000 and s.pieces == 1 for s in inter)


@pytest.mark.parametrize("name", ["tra", "tra2"])
@pytest.mark.parametrize("n", [2, 9, 16, 30, 64])
def test_shift_round_arrays_equal_shift_rounds(name: str, n: int) -> None:
    """The search's arrays hold the same stages as `shift_rounds`: per (length up to sign,
    count), as many stages, for every radix and relay."""
    algorithm = get_algorithm("alltoall", name)
    ring = Ring(n, 1, 4)
    for raw in algorithm.shape_candidates(ring):
        try:
            params = algorithm.resolve(ring, raw)
        except AlgorithmRefusedError:
            continue
        rounds = algorithm.shift_rounds(ring, params)
        arrays = algorithm.shift_round_arrays(ring, params)
        assert rounds is not None and arrays is not None
        expected: dict[tuple[int, int], int] = {}
        for shift, count in rounds:
            key = (min(shift % n, -shift % n), count)
            expected[key] = expected.get(key, 0) + 1
        got: dict[tuple[int, int], int] = {}
        for shift, count, times in zip(*(a.tolist() for a in arrays), strict=True):
            key = (min(shift % n, -shift % n), count)
            got[key] = got.get(key, 0) + times
        assert got == expected
