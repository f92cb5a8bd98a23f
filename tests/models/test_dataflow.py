"""Every catalog algorithm delivers its collective, for every N it accepts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from models.algorithms.allgather import optree_balanced_cover, optree_max_stages, optree_pairs
from models.algorithms.catalog import CATALOG, get_algorithm
from models.dataflow import simulate
from models.errors import AlgorithmRefusedError, DataFlowError
from models.ring import Ring
from models.stage import Reduction, Schedule, StageFlow

SMALL_N = range(2, 65)
LARGE_N = (512, 1000, 1024, 4096)


def _expected_refusal(name: str, collective: str, n: int) -> bool:
    if (collective, name) == ("allgather", "ne"):
        return n % 2 == 1
    if (collective, name) == ("allreduce", "rd"):
        return n & (n - 1) != 0
    return False


def _sweep_overrides(name: str, n: int) -> dict[str, int]:
    """TRA2's paper Q = 64 makes P^2 = (64 N)^2 blocks: it is simulated at small N in
    tests/models/test_shapes.py; the sweep uses Q = 2 (Q = 1 at the large N)."""
    if name != "tra2":
        return {}
    return {"processes_per_node": 2 if n <= 64 else 1, "radix_intra": 2}


def _run(algorithm, n: int) -> None:
    ring = Ring(n)
    if _expected_refusal(algorithm.name, algorithm.collective, n):
        with pytest.raises(AlgorithmRefusedError, match="use N="):
            algorithm.resolve(ring)
        return
    params = algorithm.resolve(ring, _sweep_overrides(algorithm.name, n))
    schedule = algorithm.schedule(ring, params)
    report = simulate(schedule)
    assert report.stages == schedule.stage_count
    node = schedule.endpoint_node
    moved = sum(int((node[f.senders] != node[f.receivers]).sum()) for f in schedule.flows)
    assert moved >= least_data_moves(schedule), "fewer moves than the collective needs"


def least_data_moves(schedule: Schedule) -> int:
    """Data moves between nodes any schedule of the collective needs: all-gather, every node
    receives every datum it does not start with; all-to-all, every block whose endpoints are on
    different nodes crosses a lightpath; all-reduce, 2(N - 1), the one-way gossip bound (every
    result depends on every input)."""
    n = schedule.nodes
    if schedule.collective == "allgather":
        return schedule.data_count * (n - 1)
    if schedule.collective == "alltoall":
        per_node = np.bincount(schedule.endpoint_node, minlength=n)
        endpoints = len(schedule.endpoint_node)
        return int(endpoints**2 - (per_node**2).sum())
    return 2 * (n - 1)


@pytest.mark.parametrize("n", SMALL_N)
@pytest.mark.parametrize("algorithm", CATALOG, ids=lambda a: f"{a.collective}-{a.name}")
def test_delivers_small(algorithm, n: int) -> None:
    _run(algorithm, n)


@pytest.mark.parametrize("n", LARGE_N)
@pytest.mark.parametrize("algorithm", CATALOG, ids=lambda a: f"{a.collective}-{a.name}")
def test_delivers_large(algorithm, n: int) -> None:
    _run(algorithm, n)


@pytest.mark.parametrize("n", [6, 12, 30, 64])
@pytest.mark.parametrize("radix", [2, 3, 5, None])
def test_tra_every_radix(n: int, radix: int | None) -> None:
    algorithm = get_algorithm("alltoall", "tra")
    ring = Ring(n)
    params = algorithm.resolve(ring, {"radix": radix if radix else n})
    schedule = algorithm.schedule(ring, params)
    simulate(schedule)
    # Each process sends D blocks (TRA Prop. 2/4), i.e. the stages carry N * D lightpaths.
    from models.closed_forms import tra_blocks

    total = sum(s.unit_lightpaths for s in schedule.stages())
    assert total == n * tra_blocks(n, params["radix"])


@pytest.mark.parametrize(
    ("n", "q", "r1", "r2"), [(2, 4, 2, 2), (4, 4, 2, 4), (5, 3, 3, 2), (8, 2, 2, 3), (6, 6, 3, 6)]
)
def test_tra2_delivers_with_processes(n: int, q: int, r1: int, r2: int) -> None:
    algorithm = get_algorithm("alltoall", "tra2")
    ring = Ring(n)
    params = algorithm.resolve(
        ring, {"processes_per_node": q, "radix_intra": r1, "radix_inter": r2}
    )
    schedule = algorithm.schedule(ring, params)
    simulate(schedule)
    # Inter-node rounds carry Q^2 blocks per node pair per TRA block of the node-level TRA.
    from models.closed_forms import tra_blocks

    total = sum(s.unit_lightpaths for s in schedule.stages())
    assert total == n * q * q * tra_blocks(n, r2)


@pytest.mark.parametrize(
    ("n", "branching"), [(16, (4, 4)), (16, (2, 2, 2, 2)), (27, (3, 3, 3)), (24, (2, 3, 4))]
)
def test_optree_exact_tree_matches_paper(n: int, branching: tuple[int, ...]) -> None:
    """With N = prod(m_j), stage j has N (m_j - 1) demands, each of prod(m_1..m_(j-1)) items,
    and the stage-1 subsets are the nodes N/m_1 apart (OpTree Sec. IV-A.1, Fig. 3)."""
    algorithm = get_algorithm("allgather", "optree")
    ring = Ring(n)
    params = algorithm.resolve(ring, {"branching": branching})
    stages = algorithm.schedule(ring, params).stages()
    for j, stage in enumerate(stages):
        assert stage.demand_count == n * (branching[j] - 1)
        assert set(stage.counts.tolist()) == {math.prod(branching[:j])}
    first = stages[0]
    stride = n // branching[0]
    assert set(((first.destinations - first.sources) % stride).tolist()) == {0}


def test_optree_ragged_tree_every_n_and_branching() -> None:
    for n in range(2, 80):
        for branching in {(2,) * 7, (3, 3, 3, 3), (5, 4), (n,), optree_balanced_cover(n, 3)}:
            too_deep = len(branching) > optree_max_stages(n)
            if math.prod(branching) < n or too_deep or max(branching) > n:
                continue
            algorithm = get_algorithm("allgather", "optree")
            ring = Ring(n)
            params = algorithm.resolve(ring, {"branching": branching})
            simulate(algorithm.schedule(ring, params))


def test_optree_refuses_branching_that_does_not_cover() -> None:
    algorithm = get_algorithm("allgather", "optree")
    with pytest.raises(AlgorithmRefusedError, match="product must be >= 100"):
        algorithm.resolve(Ring(100), {"branching": (3, 3, 3)})


def test_optree_balanced_cover_covers() -> None:
    assert optree_balanced_cover(1024, 7) == (3, 3, 3, 3, 3, 3, 2)
    assert optree_balanced_cover(16, 2) == (4, 4)
    for n in range(2, 500):
        for k in range(1, 9):
            assert math.prod(optree_balanced_cover(n, k)) >= n


def test_optree_pairs_16_node_example() -> None:
    """Fig. 2(b): 16 nodes, 4-ary two-stage tree; stage 1 subsets {i, i+4, i+8, i+12}."""
    stage1, stage2 = optree_pairs(16, (4, 4))
    assert (0, 4) in stage1 and (0, 12) in stage1 and (0, 1) not in stage1
    assert (0, 1) in stage2 and (0, 3) in stage2 and (0, 4) not in stage2


def test_wrht_15_node_example() -> None:
    """WRHT Fig. 2(b): 15 nodes, w = 2 (m = 5): gather to the middles 2, 7, 12, then an
    all-to-all among them, then a broadcast: 3 stages."""
    algorithm = get_algorithm("allreduce", "wrht")
    ring = Ring(15, wavelengths_per_fiber=2)
    stages = algorithm.schedule(ring, algorithm.resolve(ring)).stages()
    assert len(stages) == 3
    assert set(stages[0].destinations.tolist()) == {2, 7, 12}
    assert stages[1].demand_count == 6


@pytest.mark.parametrize(
    ("collective", "name", "n", "match"),
    [
        ("allgather", "ne", 7, "N must be even"),
        ("allreduce", "rd", 12, "use N=8 or N=16"),
        ("allreduce", "hring", 12, "must divide N"),
        ("alltoall", "tra", 8, "exceeds P=N=8"),
    ],
)
def test_refusals_say_what_would_work(collective: str, name: str, n: int, match: str) -> None:
    algorithm = get_algorithm(collective, name)
    overrides = {"hring": {"group": 5}, "tra": {"radix": 9}}.get(name, {})
    with pytest.raises(AlgorithmRefusedError, match=match):
        algorithm.resolve(Ring(n), overrides)


def _allgather(flows: list[StageFlow], n: int) -> Schedule:
    return Schedule("allgather", n, np.arange(n), n, tuple(flows))


def test_simulator_catches_missing_item() -> None:
    flows = [StageFlow.of([0], [1], [0])]
    with pytest.raises(DataFlowError, match="lacks item"):
        simulate(_allgather(flows, 2))


def test_simulator_catches_sending_unheld_item() -> None:
    flows = [StageFlow.of([0, 1, 0], [1, 0, 2], [0, 1, 1])]
    with pytest.raises(DataFlowError, match="does not hold"):
        simulate(_allgather(flows, 3))


def test_simulator_catches_double_counted_reduction() -> None:
    from models.stage import Reduction

    n = 3
    flows = [
        StageFlow.of([0, 1], [2, 2], [0, 0], Reduction.ADD),
        StageFlow.of([0], [2], [0], Reduction.ADD),  # node 0 counted twice at node 2
        StageFlow.of([2, 2], [0, 1], [0, 0], Reduction.COPY),
    ]
    with pytest.raises(DataFlowError, match="before it is fully reduced"):
        simulate(Schedule("allreduce", n, np.arange(n), 1, tuple(flows)))


def test_simulator_catches_misrouted_block() -> None:
    n = 3
    # Spread-out with one block sent to the wrong process.
    s = [0, 0, 1, 1, 2, 2]
    r = [1, 2, 2, 0, 0, 2]
    blocks = [0 * n + 1, 0 * n + 2, 1 * n + 2, 1 * n + 0, 2 * n + 0, 2 * n + 1]
    with pytest.raises(DataFlowError):
        simulate(Schedule("alltoall", n, np.arange(n), n * n, (StageFlow.of(s, r, blocks),)))


def test_simulator_catches_a_block_sent_twice_in_one_stage() -> None:
    n = 2
    # Block 0 -> 1 is sent twice (once as a copy it does not have), block 1 -> 0 once.
    flows = (StageFlow.of([0, 0, 1], [1, 1, 0], [1, 1, 2]),)
    with pytest.raises(DataFlowError, match="sent twice"):
        simulate(Schedule("alltoall", n, np.arange(n), n * n, flows))


def _sweep_of_three(last_reads: int = 0b011, last: str = "add") -> Schedule:
    """Three nodes all-reduce one chunk by a sweep: node v sends its own value CW (SET into
    the receiver's register 1), then own + register 1 CW again, added into register 0."""
    from models.stage import Reduction

    nodes = np.arange(3)
    return Schedule(
        "allreduce", 3, nodes, 1,
        (
            StageFlow.of(nodes, (nodes + 1) % 3, [0, 0, 0], Reduction.SET, reads=1, writes=1),
            StageFlow.of(nodes, (nodes + 1) % 3, [0, 0, 0], Reduction(last), reads=last_reads,
                         writes=0),
        ),
    )


def test_simulator_follows_partial_sums_in_registers() -> None:
    simulate(_sweep_of_three())


@pytest.mark.parametrize(
    ("last_reads", "last", "match"),
    [
        (0b001, "add", "holds 2 contributions"),  # the window behind is never added
        (0b010, "add", "holds 2 contributions"),  # the own value is not sent on
        (0b011, "set", "holds 2 contributions"),  # register 0 replaced: own value lost
    ],
)
def test_simulator_catches_a_wrong_sweep(last_reads: int, last: str, match: str) -> None:
    with pytest.raises(DataFlowError, match=match):
        simulate(_sweep_of_three(last_reads, last))


def test_simulator_catches_a_register_set_twice_in_one_stage() -> None:
    from models.stage import Reduction

    flows = (StageFlow.of([0, 1], [2, 2], [0, 0], Reduction.SET, writes=1),)
    with pytest.raises(DataFlowError, match="register 1 both as a replacement"):
        simulate(Schedule("allreduce", 3, np.arange(3), 1, flows))


def test_double_counting_through_a_register_is_caught() -> None:
    """Node 1 keeps node 0's value in register 1 and sends own + register 1 + register 0 to
    node 2 after having added node 0's value into register 0 too: node 0 counted twice."""
    from models.stage import Reduction

    flows = (
        StageFlow.of([0, 0], [1, 1], [0, 0], Reduction.ADD, writes=[0, 1]),
        StageFlow.of([1, 2], [2, 1], [0, 0], Reduction.ADD, reads=[0b011, 0b001]),
        StageFlow.of([2], [0], [0], Reduction.COPY),
    )
    with pytest.raises(DataFlowError, match="4 of 3 contributions"):
        simulate(Schedule("allreduce", 3, np.arange(3), 1, flows))


@pytest.mark.parametrize(("reads", "writes"), [(0, None), (64, None), (None, 6), (None, -1)])
def test_registers_out_of_range_are_refused(reads: int | None, writes: int | None) -> None:
    from models.errors import InvalidInputError
    from models.stage import Reduction

    with pytest.raises(InvalidInputError, match="register"):
        StageFlow.of([0], [1], [0], Reduction.ADD, reads=reads, writes=writes)


def _direct_reduce_scatter(n: int, to: list[int] | None = None) -> Schedule:
    """Every node sends chunk c to node to[c] (default c) in one ADD stage."""
    from models.stage import Reduction

    target = to or list(range(n))
    senders, receivers, chunks = [], [], []
    for v in range(n):
        for c in range(n):
            if target[c] != v:
                senders.append(v)
                receivers.append(target[c])
                chunks.append(c)
    return Schedule(
        "reducescatter", n, np.arange(n), n,
        (StageFlow.of(senders, receivers, chunks, Reduction.ADD),),
    )  # fmt: skip


def test_reduce_scatter_checks_only_each_chunks_owner() -> None:
    """Chunk i must end summed at node i; nothing is asked of the other nodes (an all-reduce
    check of the same schedule fails: they hold only their own contribution)."""
    n = 4
    schedule = _direct_reduce_scatter(n)
    simulate(schedule)
    with pytest.raises(DataFlowError, match="contributions"):
        simulate(Schedule("allreduce", n, np.arange(n), n, schedule.flows))


def test_reduce_scatter_catches_a_chunk_summed_at_the_wrong_node() -> None:
    with pytest.raises(DataFlowError, match="node 1 chunk 1 holds 1 contributions"):
        simulate(_direct_reduce_scatter(4, to=[0, 2, 2, 3]))


def test_reduce_scatter_needs_n_chunks_of_its_pieces() -> None:
    schedule = _direct_reduce_scatter(3)
    with pytest.raises(DataFlowError, match="3 chunks of 2 pieces, not 3 data"):
        simulate(Schedule("reducescatter", 3, np.arange(3), 3, schedule.flows, pieces=2))


def _one_chunk(n: int, *flows: StageFlow) -> Schedule:
    return Schedule("allreduce", n, np.arange(n), 1, tuple(flows))


@pytest.mark.parametrize(
    ("schedule", "formed"),
    [
        # reduce to node 0, then copy out: the sum forms once
        pytest.param(
            _one_chunk(
                3,
                StageFlow.of([1, 2], [0, 0], [0, 0], Reduction.ADD),
                StageFlow.of([0, 0], [1, 2], [0, 0], Reduction.COPY),
            ),
            1,
            id="reduce-then-copy",
        ),
        # both nodes add the other's value: the sum forms at each
        pytest.param(
            _one_chunk(2, StageFlow.of([0, 1], [1, 0], [0, 0], Reduction.ADD)), 2, id="exchange"
        ),
        # the sweep of three: every node adds its window behind into its own value
        pytest.param(_sweep_of_three(), 3, id="sweep"),
        # a complete sum added into an empty scratch register and then set into register 0
        # is a copy, not a second sum
        pytest.param(
            _one_chunk(
                2,
                StageFlow.of([1], [0], [0], Reduction.ADD),
                StageFlow.of([0], [1], [0], Reduction.ADD, writes=1),
                StageFlow.of([1], [1], [0], Reduction.SET, reads=0b010, writes=0),
            ),
            1,
            id="copy-through-a-register",
        ),
    ],
)
def test_sums_formed_counts_where_a_complete_sum_is_added_up(
    schedule: Schedule, formed: int
) -> None:
    assert simulate(schedule).sums_formed == formed


def test_sums_formed_is_only_for_reductions() -> None:
    ring = Ring(8)
    algorithm = get_algorithm("allgather", "ring")
    assert simulate(algorithm.schedule(ring, algorithm.resolve(ring))).sums_formed is None


@pytest.mark.parametrize("n", [*range(2, 25), 32, 48, 64])
def test_each_all_reduce_declares_its_class_as_its_data_flow_shows(n: int) -> None:
    """`reduces_then_broadcasts` (what plans report and the class bound applies to) agrees
    with the simulator at every shape the search may try: a complete sum formed at one node
    only. Recursive doubling forms it at all N, WRHT at every representative left at its
    top, a swept synth at every member of its top window."""
    from models.algorithms.catalog import algorithms
    from models.synthesis import SynthAllReduce

    ring = Ring(n, 1, 4)
    seen = set()
    for algorithm in [*algorithms("allreduce"), SynthAllReduce()]:
        if _expected_refusal(algorithm.name, "allreduce", n):
            continue
        for raw in algorithm.shape_candidates(ring):
            params = algorithm.resolve(ring, raw)
            formed = simulate(algorithm.schedule(ring, params)).sums_formed
            assert formed is not None and 1 <= formed <= n
            declared = algorithm.reduces_then_broadcasts(ring, params)
            assert declared == (formed == 1), (algorithm.name, params, formed)
            seen.add((algorithm.name, declared))
    if n >= 4 and n & (n - 1) == 0:
        assert ("rd", False) in seen and ("ring", True) in seen
    if n >= 6:
        assert {("synth", True), ("synth", False)} <= seen
