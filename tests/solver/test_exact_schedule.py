"""The exact optimum of SPEC 12 on small rings: every schedule it returns delivers the
collective (data-flow simulator), its slots are valid RWA (the independent validator), keep to
the hop and node limits, never beat the achievable bound, never lose to a paper algorithm
that fits the same model, and agree with exhaustive search on the tiniest rings."""

import numpy as np
import pytest

from models.achievable import SplitTrees, achievable_bound, antipodal_chain_hops, end_slot_hops
from models.algorithms.alltoall import TunableRadixAllToAll
from models.algorithms.catalog import get_algorithm
from models.dataflow import simulate
from models.errors import LimitExceededError
from models.ring import Hardware, Ring
from models.stage import Stage
from models.timing import slot_time_s
from solver.assignment import Assignment
from solver.exact_schedule import ExactSchedule, arc_links, solve_exact_schedule
from solver.outcome import SolveOptions
from solver.plan import plan_algorithm
from solver.validator import validate
from tests.models.chains import chain_check, end_check, gossip_check
from tests.solver.brute_schedules import min_slots

COLLECTIVES = ("allgather", "alltoall", "allreduce")
HW = Hardware()


def check_certificates(
    result: ExactSchedule, ring: Ring, max_tx: int | None = None, max_rx: int | None = None
) -> None:
    """Delivery, RWA of every slot by the validator, hop and node limits."""
    simulate(result.schedule())
    n, channels = ring.nodes, ring.channels_per_direction
    for paths in result.slots:
        stage = Stage.from_demands(n, [p.sender for p in paths], [p.receiver for p in paths])
        keys = stage.sources * n + stage.destinations
        demand = np.searchsorted(keys, [p.sender * n + p.receiver for p in paths])
        assignment = Assignment.from_runs(
            demand, [p.direction for p in paths], [p.channel for p in paths], np.ones(len(paths))
        )
        report = validate(stage, assignment)
        assert report.colours_used <= channels
        for p in paths:
            assert len(arc_links(n, p.sender, p.receiver, p.direction)) <= result.hop_limit
        sent = np.bincount([p.sender for p in paths], minlength=n)
        received = np.bincount([p.receiver for p in paths], minlength=n)
        assert max_tx is None or sent.max() <= max_tx
        assert max_rx is None or received.max() <= max_rx


def exact_time_s(result: ExactSchedule, message_bytes: float) -> float:
    units = result.pieces * (result.nodes if result.collective == "alltoall" else 1)
    return result.slot_count * slot_time_s(message_bytes / units, HW)


@pytest.mark.parametrize("collective", COLLECTIVES)
@pytest.mark.parametrize(
    ("nodes", "wavelengths", "pieces"),
    [(3, 1, 1), (4, 1, 1), (4, 1, 2), (5, 1, 1), (6, 2, 1), (6, 2, 2)],
)
def test_small_rings_are_solved_to_optimality_and_certified(
    collective: str, nodes: int, wavelengths: int, pieces: int
) -> None:
    ring = Ring(nodes, 1, wavelengths)
    result = solve_exact_schedule(collective, ring, pieces, time_limit_s=60)
    assert result.optimal and result.slot_count == result.slots_lower_bound
    check_certificates(result, ring)
    for size in (1e3, 4 * 2**20):
        bound = achievable_bound(collective, ring, size, HW)
        assert bound.bound_s <= exact_time_s(result, size)
        assert bound.slots <= result.slot_count
    if collective == "allreduce":  # Facts 3d and 3e on the optimum's own data flow
        check = chain_check(result.schedule())
        chain = antipodal_chain_hops(nodes, check.longest, np.array([check.slots]))[0]
        assert check.least_hops >= chain * (1 - 1e-12)
        ends = end_check(result.schedule())
        at_ends = end_slot_hops(
            nodes, ends.longest, np.array([ends.slots]), ends.fan_in, ends.fan_out
        )[0]
        assert ends.least_ends >= at_ends * (1 - 1e-12)
        gossip = gossip_check(result.schedule())  # Fact 3h on the optimum's own data flow
        split = SplitTrees(nodes, max(1, gossip.longest), max(1, gossip.fan),
                           max(1, gossip.fan_out)).excess(gossip.slots)
        assert gossip.least_hops >= (2 * (nodes - 1) + split) * (1 - 1e-12)


@pytest.mark.parametrize("collective", COLLECTIVES)
@pytest.mark.parametrize(("nodes", "pieces"), [(3, 1), (3, 2), (4, 1), (4, 2)])
def test_brute_force_agrees_on_the_tiniest_rings(collective: str, nodes: int, pieces: int) -> None:
    ring = Ring(nodes, 1, 1)
    result = solve_exact_schedule(collective, ring, pieces, time_limit_s=60)
    assert result.optimal
    assert result.slot_count == min_slots(collective, nodes, 1, pieces)


@pytest.mark.parametrize(
    ("collective", "nodes", "hop_limit", "max_tx", "max_rx"),
    [
        ("allgather", 6, 1, None, None),
        ("allgather", 6, 2, None, 1),
        ("alltoall", 6, 2, None, None),
        ("alltoall", 5, None, 1, 1),
        ("allreduce", 6, 1, None, None),
        ("allreduce", 5, 2, 1, None),
    ],
)
def test_limits_are_kept(
    collective: str, nodes: int, hop_limit: int | None, max_tx: int | None, max_rx: int | None
) -> None:
    ring = Ring(nodes, 1, 2)
    result = solve_exact_schedule(collective, ring, 1, hop_limit, max_tx, max_rx, 60)
    assert result.optimal
    check_certificates(result, ring, max_tx, max_rx)
    assert result.slot_count >= achievable_bound(
        collective, ring, 1.0, HW, hop_limit, max_tx, max_rx
    ).slots
    free = solve_exact_schedule(collective, ring, 1, time_limit_s=60)
    assert free.slot_count <= result.slot_count  # a limit never helps


@pytest.mark.parametrize("collective", COLLECTIVES)
@pytest.mark.parametrize(("nodes", "hop_limit"), [(3, 1), (4, None), (4, 1)])
def test_brute_force_agrees_under_limits(
    collective: str, nodes: int, hop_limit: int | None
) -> None:
    ring = Ring(nodes, 1, 1)
    result = solve_exact_schedule(collective, ring, 1, hop_limit, None, 1, 60)
    assert result.slot_count == min_slots(collective, nodes, 1, 1, hop_limit, None, 1)


# Paper algorithms whose lightpaths carry one whole item (vector) or one block: the exact model
# with 1 piece (all-to-all: a block per lightpath) covers their schedules.
ONE_PIECE = {
    "allgather": ("ring", "ne", "osm", "wrht", "optree"),
    "allreduce": ("bt", "wrht"),
    "alltoall": ("tra",),
}


@pytest.mark.parametrize("collective", COLLECTIVES)
@pytest.mark.parametrize(("nodes", "wavelengths"), [(4, 1), (5, 1), (6, 2)])
def test_no_paper_algorithm_beats_the_exact_optimum(
    collective: str, nodes: int, wavelengths: int
) -> None:
    ring = Ring(nodes, 1, wavelengths)
    exact = solve_exact_schedule(collective, ring, 1, time_limit_s=60)
    size = 2**20
    for name in ONE_PIECE[collective]:
        algorithm = get_algorithm(collective, name)
        if algorithm.refusal(ring, algorithm.fill_defaults(ring, {})):
            continue
        params = algorithm.paper_shape(ring)
        plan = plan_algorithm(algorithm, ring, params, [size], HW, SolveOptions())
        assert plan.pieces_per_message == (nodes if collective == "alltoall" else 1)
        assert exact.slot_count <= plan.true_steps, name
        assert exact_time_s(exact, size) <= plan.timings[0].time_s * (1 + 1e-12), name


def test_ring_allreduce_is_never_faster_than_the_optimum_with_as_many_pieces() -> None:
    # Ring all-reduce cuts the vector into N chunks: the exact model with N pieces covers it.
    ring = Ring(3, 1, 1)
    exact = solve_exact_schedule("allreduce", ring, 3, time_limit_s=60)
    algorithm = get_algorithm("allreduce", "ring")
    plan = plan_algorithm(algorithm, ring, algorithm.paper_shape(ring), [2**20], HW)
    assert plan.pieces_per_message == 3
    assert exact.optimal and exact.slot_count <= plan.true_steps


def test_beyond_the_size_limit_it_refuses_with_what_to_change() -> None:
    with pytest.raises(LimitExceededError, match="fewer nodes, channels or pieces"):
        solve_exact_schedule("alltoall", Ring(64, 1, 64), 1)


@pytest.mark.parametrize(("nodes", "wavelengths", "hop_limit"), [(5, 1, 1), (6, 1, 2), (6, 2, 1)])
def test_relayed_tra_is_never_faster_than_the_optimum_within_the_same_hop_limit(
    nodes: int, wavelengths: int, hop_limit: int
) -> None:
    """Relayed TRA moves one block per lightpath within the hop limit: one of the exact
    model's schedules with 1 piece and that limit."""
    ring = Ring(nodes, 1, wavelengths)
    exact = solve_exact_schedule("alltoall", ring, 1, hop_limit, time_limit_s=60)
    assert exact.optimal
    tra = TunableRadixAllToAll(hop_limit, enforced=True)
    for radix in range(2, nodes + 1):
        params = tra.resolve(ring, {"radix": radix})
        plan = plan_algorithm(tra, ring, params, [2**20], HW, SolveOptions(max_hops=hop_limit))
        assert exact.slot_count <= plan.true_steps, radix


@pytest.mark.parametrize(
    ("nodes", "wavelengths", "pieces", "slots"),
    [(2, 1, 1, 1), (3, 1, 1, 1), (4, 1, 1, 2), (5, 1, 1, 2), (6, 1, 1, 3), (6, 2, 1, 2),
     (4, 1, 2, 3)],
)  # fmt: skip
def test_reduce_scatter_optimum_by_hand(
    nodes: int, wavelengths: int, pieces: int, slots: int
) -> None:
    """Node i needs the other N - 1 contributions to chunk i (each piece) and receives at most
    2 C lightpaths a slot: at least ceil((N - 1) q / 2 C) slots, which the model meets here
    (N = 4: slot 1 the 2-hop opposite nodes' chunks, slot 2 both neighbours add theirs to
    what they got; N = 4, q = 2 needs 6 pieces at 2 a slot). N = 6, C = 1: 5 / 2 -> 3."""
    ring = Ring(nodes, 1, wavelengths)
    result = solve_exact_schedule("reducescatter", ring, pieces, time_limit_s=60)
    assert result.optimal and result.slot_count == slots
    assert slots == max(1, -(-(nodes - 1) * pieces // (2 * wavelengths)))
    check_certificates(result, ring)  # delivery: chunk i summed at node i
    for size in (1e3, 4 * 2**20):
        bound = achievable_bound("reducescatter", ring, size, HW)
        time_s = slots * slot_time_s(size / (nodes * pieces), HW)
        assert bound.bound_s <= time_s * (1 + 1e-12)
