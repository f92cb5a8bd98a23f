"""The exhaustive schedule reference (tests/solver/brute_schedules.py) against hand-derived values.

Conventions (see brute_schedules): CW link i is i -> i+1, CCW link i is i+1 -> i; with C channels
a node receives at most C lightpaths per direction (all CW lightpaths into v share CW link v-1),
so at most 2C per slot, and likewise sends at most 2C.
"""

from __future__ import annotations

import pytest

from tests.solver.brute_schedules import min_slots, naive_min_slots

# ---------------------------------------------------------------------------------------------
# allgather
# ---------------------------------------------------------------------------------------------


def test_allgather_two_nodes_one_slot() -> None:
    # 0 -> 1 on CW link 0 and 1 -> 0 on CW link 1: disjoint, one slot; zero slots is not done.
    assert min_slots("allgather", 2, 1) == 1


def test_allgather_three_nodes() -> None:
    # q = 1: every node sends its item CW and CCW to both neighbours (1-hop arcs, each link used
    # once per direction), so 1 slot.
    assert min_slots("allgather", 3, 1) == 1
    # max_rx = 1: a node lacks 2 pieces and gets 1 per slot, so >= 2; slot 1 CW neighbours,
    # slot 2 CCW neighbours gives 2.
    assert min_slots("allgather", 3, 1, max_rx=1) == 2
    # max_tx = 1: after slot 1 item 0 is at most at 2 nodes, so >= 2; slot 1 u -> u+1 with
    # (u), slot 2 u -> u+1 with (u-1) (received in slot 1) gives 2.
    assert min_slots("allgather", 3, 1, max_tx=1) == 2


def test_allgather_three_nodes_two_pieces() -> None:
    # A node lacks 4 pieces and receives at most 2 per slot (C = 1), so >= 2; slot 1 sends
    # (u, 0) to both neighbours, slot 2 sends (u, 1): 2 slots.
    assert min_slots("allgather", 3, 1, 2) == 2
    # max_rx = 1: 4 missing pieces, 1 per slot, so >= 4; a CW pipeline (slots 1, 2: own pieces
    # to u+1; slots 3, 4: forward the pieces of u-1) reaches it.
    assert min_slots("allgather", 3, 1, 2, max_rx=1) == 4


def test_allgather_four_nodes() -> None:
    # q = 1: 3 missing pieces, 2 per slot, so >= 2; slot 1: (u) to both neighbours; slot 2:
    # u -> u+1 CW with (u-1), which node u got in slot 1; u+1 then has u-1 = (u+1)+2. So 2.
    assert min_slots("allgather", 4, 1) == 2
    # max_rx = 1: 3 missing pieces, 1 per slot, so >= 3; the CW pipeline reaches 3.
    assert min_slots("allgather", 4, 1, max_rx=1) == 3
    # q = 2: 6 missing pieces, 2 per slot, so >= 3. Slot 1: (u, 0) to both neighbours; slot 2:
    # (u, 1) to both neighbours; slot 3: u-1 sends (u+2, 0) CW, u+1 sends (u+2, 1) CCW (both
    # hold them from slots 1 and 2). So 3.
    assert min_slots("allgather", 4, 1, 2) == 3
    # q = 2, max_tx = 1: 4 nodes * 6 missing pieces = 24 deliveries, at most 4 lightpaths per
    # slot (one per sender), so >= 6; the CW pipeline (slots 1-2 own pieces, 3-4 those of u-1,
    # 5-6 those of u-2, all to u+1) reaches it.
    assert min_slots("allgather", 4, 1, 2, max_tx=1) == 6


def test_allgather_hop_limit_changes_the_answer() -> None:
    # N = 4, C = 2: in one slot each node sends 1-hop CW and CCW (channel 0) and a 2-hop
    # lightpath on channel 1: nodes 0, 2 CW (0->2 on links 0,1; 2->0 on links 2,3), nodes 1, 3
    # CCW (1->3 on CCW links 3,0; 3->1 on CCW links 1,2). So 1 slot.
    assert min_slots("allgather", 4, 2) == 1
    # hop_limit = 1: item v+2 cannot reach v within one slot (2 hops either way, no relay in a
    # slot), so >= 2; the C = 1 schedule above (1-hop only) gives 2.
    assert min_slots("allgather", 4, 2, hop_limit=1) == 2


# ---------------------------------------------------------------------------------------------
# alltoall
# ---------------------------------------------------------------------------------------------


def test_alltoall_two_nodes() -> None:
    # Each node sends its one block to the other on CW links 0 and 1: 1 slot.
    assert min_slots("alltoall", 2, 1) == 1
    # q = 2: node 1 can receive on CW link 0 and on CCW link 1 (both 0 -> 1), so both pieces
    # arrive in the same slot, and symmetrically for node 0: 1 slot.
    assert min_slots("alltoall", 2, 1, 2) == 1
    # with max_rx = 1, 2 pieces at 1 per slot: 2 slots (one per slot is clearly enough).
    assert min_slots("alltoall", 2, 1, 2, max_rx=1) == 2


def test_alltoall_three_nodes() -> None:
    # u -> u+1 CW carries (u, u+1), u -> u-1 CCW carries (u, u-1): 1 slot.
    assert min_slots("alltoall", 3, 1) == 1
    # max_tx = 1: node u must send 2 blocks that only it holds, so >= 2; the CW half, then the
    # CCW half: 2.
    assert min_slots("alltoall", 3, 1, max_tx=1) == 2


def test_alltoall_four_nodes() -> None:
    # q = 1: ring distances of u's blocks are 1, 1, 2, so 4 * 4 = 16 link-hops; a slot has
    # 8 directed links (C = 1): >= 2. Slot 1: 2-hop lightpaths 0->2 and 2->0 CW (links 0,1 and
    # 2,3), 1->3 and 3->1 CCW (links 3,0 and 1,2) deliver the opposite blocks; slot 2: 1-hop to
    # both neighbours. So 2.
    assert min_slots("alltoall", 4, 1) == 2
    # q = 2: 32 link-hops at 8 per slot, so >= 4; the q = 1 schedule twice gives 4.
    assert min_slots("alltoall", 4, 1, 2) == 4


def test_alltoall_four_nodes_all_limits() -> None:
    # hop_limit = max_tx = max_rx = 1: at most 4 lightpaths (one per sender) of 1 hop per slot,
    # so at most 4 link-hops per slot against 16 (q = 1): >= 4. Slot 1: u -> u+1 CW with
    # (u, u+2); slot 2: u -> u+1 CW forwards (u-1, u+1); slot 3: u -> u+1 with (u, u+1);
    # slot 4: u -> u-1 CCW with (u, u-1). So 4; and for q = 2, 32 link-hops: >= 8, and the
    # q = 1 schedule twice gives 8.
    assert min_slots("alltoall", 4, 1, 1, hop_limit=1, max_tx=1, max_rx=1) == 4
    assert min_slots("alltoall", 4, 1, 2, hop_limit=1, max_tx=1, max_rx=1) == 8


# ---------------------------------------------------------------------------------------------
# allreduce
# ---------------------------------------------------------------------------------------------


def test_allreduce_two_nodes() -> None:
    # Both ADD to each other ({0} and {1} are disjoint): 1 slot.
    assert min_slots("allreduce", 2, 1) == 1
    # q = 2: each node receives two lightpaths (CW and CCW from the other), one ADD per piece.
    assert min_slots("allreduce", 2, 1, 2) == 1
    # max_rx = 1: two accumulators to fill, one lightpath each per slot: 2.
    assert min_slots("allreduce", 2, 1, 2, max_rx=1) == 2


def test_allreduce_three_nodes() -> None:
    # Each node gets ADDs of {u-1} and {u+1} (pairwise disjoint, disjoint from {u}): 1 slot.
    assert min_slots("allreduce", 3, 1) == 1
    # max_rx = 1: one ADD of a singleton per slot cannot complete, so >= 2. Slot 1: 0 <-> 1
    # ADD (both {0,1}); slot 2: 2 ADDs {2} into 0 and 1 and 0 ADDs {0,1} into 2. So 2.
    assert min_slots("allreduce", 3, 1, max_rx=1) == 2
    # max_tx = max_rx = 1: after slot 1 no accumulator is complete (size <= 2), so a 2-slot
    # schedule needs in slot 2 a derangement f (each node one sender, each sender one receiver)
    # with |A[v]| + |A[f(v)]| = 3 along a 3-cycle, impossible (every size would be 3/2). 3 slots:
    # slot 1 0 <-> 1 ADD; slot 2 2 -> 0 ADD {2}, 0 -> 2 ADD {0,1}; slot 3 0 COPY -> 1.
    assert min_slots("allreduce", 3, 1, max_tx=1, max_rx=1) == 3


def test_allreduce_three_nodes_two_pieces() -> None:
    # In slot 1 only singletons move; completing both pieces at v in one slot needs 4 ADDs but
    # v receives at most 2, so >= 2. Slot 1: node 0 gets piece 0 from 1 and 2, node 1 gets
    # piece 1 from 0 and 2; slot 2: node 0 COPYs piece 0 to 1 (CW) and 2 (CCW), node 1 COPYs
    # piece 1 to 0 (CCW) and 2 (CW). Links per slot are distinct, so 2.
    assert min_slots("allreduce", 3, 1, 2) == 2


def test_allreduce_four_nodes() -> None:
    # q = 1: a node gets at most 2 singletons in slot 1 (3 < 4 contributions), so >= 2.
    # Slot 1: 0 <-> 1 and 2 <-> 3 ADD ({0,1}, {2,3}); slot 2: 1 <-> 2 on links 1 and 3 <-> 0
    # on links 3 ADD the complementary pairs. So 2 (every node receives 1 lightpath per slot, so
    # also with max_rx = 1).
    assert min_slots("allreduce", 4, 1) == 2
    assert min_slots("allreduce", 4, 1, max_rx=1) == 2
    # q = 2, also 2 (>= 2 as for q = 1), all 1-hop. Slot 1: 3->0, 2->1, 1->2, 0->3 ADD piece 0
    # and 1->0, 0->1, 3->2, 2->3 ADD piece 1 (one CW and one CCW lightpath into each node),
    # giving (piece 0 / piece 1) node 0 {0,3}/{0,1}, node 1 {1,2}/{0,1}, node 2 {1,2}/{2,3},
    # node 3 {0,3}/{2,3}. Slot 2: 1->0 piece 0 and 3->0 piece 1; 0->1 piece 0 and 2->1 piece 1;
    # 3->2 piece 0 and 1->2 piece 1; 2->3 piece 0 and 0->3 piece 1: each ADD brings exactly the
    # missing complement, so every accumulator is complete.
    assert min_slots("allreduce", 4, 1, 2) == 2


# ---------------------------------------------------------------------------------------------
# limits of the search and arguments
# ---------------------------------------------------------------------------------------------


def test_max_slots_and_impossible_cases() -> None:
    assert min_slots("allgather", 4, 1, max_slots=1) is None  # needs 2
    assert min_slots("allgather", 4, 1, max_slots=2) == 2
    assert min_slots("alltoall", 4, 1, max_slots=1) is None
    assert min_slots("allreduce", 3, 1, max_tx=1, max_rx=1, max_slots=2) is None
    assert min_slots("allgather", 3, 1, max_tx=0) is None  # nobody may send
    assert min_slots("alltoall", 3, 1, hop_limit=0) is None  # no lightpath at all
    assert min_slots("allreduce", 1, 1) == 0  # a single node is done at once


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        min_slots("broadcast", 3, 1)
    with pytest.raises(ValueError):
        min_slots("allgather", 3, 0)


# ---------------------------------------------------------------------------------------------
# the pruned search against the unpruned one (every lightpath set, every piece, no symmetry)
# ---------------------------------------------------------------------------------------------

_CROSS_CASES = [
    (collective, nodes, pieces, hop_limit, max_tx, max_rx)
    for collective in ("allgather", "alltoall", "allreduce")
    for nodes, pieces in ((2, 1), (2, 2), (3, 1))
    for hop_limit, max_tx, max_rx in (
        (None, None, None),
        (1, None, None),
        (None, 1, None),
        (None, None, 1),
        (None, 1, 1),
    )
]


_CROSS_CASES += [
    (collective, 4, 1, hop_limit, max_tx, max_rx)
    for collective in ("allgather", "allreduce")
    for hop_limit, max_tx, max_rx in ((None, None, None), (1, None, None), (None, 1, 1))
]


@pytest.mark.parametrize(
    ("collective", "nodes", "pieces", "hop_limit", "max_tx", "max_rx"), _CROSS_CASES
)
def test_pruned_search_matches_unpruned(
    collective: str,
    nodes: int,
    pieces: int,
    hop_limit: int | None,
    max_tx: int | None,
    max_rx: int | None,
) -> None:
    args = (collective, nodes, 1, pieces, hop_limit, max_tx, max_rx)
    assert min_slots(*args) == naive_min_slots(*args)
