"""The achievable: a proven lower bound on the time of *every* schedule (SPEC section 12).

A schedule of SPEC 12 is a sequence of slots on the ring of SPEC 1; in slot t every lightpath
carries at most p_t bytes the sender holds at the start of the slot (bundles and, for the
reductions, sums included), and the slot costs p_t / B + a(p_t) (SPEC 3). Lightpaths keep to a
hop limit H and to the per-node limits (lightpaths transmitted / received per node per slot).

Three facts about any such schedule give the bound (docs/achievable.md proves each):

- **bytes moved** X: the bytes all lightpaths carry together. All-gather: every node receives
  every other node's M bytes, X >= N (N - 1) M. Reduce-scatter: each element's N
  contributions meet at its owner, at least N - 1 transmissions each, X >= (N - 1) M.
  All-reduce: one-way gossip needs 2 N - 2 transmissions per element (Harary and Schwenk
  1974), X >= 2 (N - 1) M. All-to-all: a block crossing ring distance k with lightpaths of at
  most H hops is received ceil(k / H) times, X >= M sum_k ceil(min(k, N - k) / H).
  A slot moves at most p_t bytes per lightpath and at most N min(2 F w, Tx, Rx) lightpaths.
- **byte-hops** Y: bytes times the links they cross. All-gather: the lightpaths carrying a byte
  form a connected set of arcs covering the ring but one link, Y >= N (N - 1) M. All-to-all:
  Y >= M floor(N^2 / 4) (each block crosses its ring distance). Reductions: every transmission
  crosses at least one link, Y >= X. A slot offers 2 N F w link-channels.
- **slots** S: an item spreads at most H hops per slot (the farthest node is floor(N / 2)
  away), and what a node knows (or how many nodes hold something of an item) grows at most
  (1 + fan) times per slot, fan = min(2 F w, Tx, Rx).

With P = sum_t p_t >= max(X / (N fan), Y / (2 N F w)) and S >= S_min, every slot costs at least
the reconfiguration delay plus its bytes and at least one O/E/O cycle, so

    T >= S r + 8 P / B + (cycles / clock) max(S, P / flit).

Slots and hops are coupled: in S slots the datum that must reach the node floor(N/2) away
travels on a chain of at most S lightpaths, so its lightpaths have floor(N/2) - S hops more
than one each; Y grows by that much per item byte (all-gather) or element (reductions) when
S < floor(N/2). More: the first receptions of a datum form a tree whose slots increase along
every path, and within S slots and H hops per lightpath such a tree on the N-cycle costs at
least F(N, S) hops (`TreeHops`, Fact 3c), about 4.6 N at N = 1024, H = 80, S = 7 and 1.9 N at
S = 32 against Fact 3b's 1.5 N. In an all-reduce every node needs the contribution of the node
floor(N/2) away, and near the least slot count those chains have little slack, so a lightpath
can carry few of them (`antipodal_chain_hops`, Fact 3d): 10700 hops per element at N = 1024,
S = 7 against one tree's 5729. And in the first two slots a node holds little beyond its own
contribution, so what must be far from home by then travels nearly unsummed (and, mirrored,
in the last two): `end_slot_hops` (Fact 3e), 12459 hops per element at N = 1024, S = 8;
where two slots leave the far contributions room, three may not (`three_end_hops`, Fact 3f):
8192 hops per element at N = 1024, S = 9 against Fact 3c's 4061. Every contribution has its
tree, and a lightpath of slot t brings its receiver at most cap_t contributions it did not
have (its sender knows only those within (t - 1) H, and at most (1 + fan)^(t - 1)), so the
N trees' excess hops, weighted by N / cap_t, come on top of the 2 N - 2 gossip calls
(`GossipTrees`, Fact 3g): 5105 hops per element at N = 1024, S = 10 against Fact 3c's 3859.
Run the schedule backwards and the same lightpaths form, for every destination, the tree of
the last moments each node can still reach it, where a lightpath of slot t leads to at most
cap_{S+1-t} destinations; each lightpath's excess hops split between the two families
(`SplitTrees`, Fact 3h) give 4533 hops per element at S = 13 against Fact 3g's 4154.
The bound is the least of the right-hand side over S >= S_min.

Each term alone is also reported (in seconds, as the least time it allows on its own), with the
hardware bound of SPEC 3 kept as the named term `hardware`.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from models.ring import Hardware, Ring
from models.timing import hardware_lower_bound_s

COLLECTIVES = ("allgather", "reducescatter", "allreduce", "alltoall")

FACTS = {
    "receive": "Fact 2: the bytes every node must receive, over its fan-in per slot",
    "link_capacity": "Fact 3: the byte-hops the collective needs, over the ring's "
    "link-channels per slot",
    "distance": "Fact 3b: in S slots the chain to the farthest node has floor(N/2) - S "
    "hops beyond one per lightpath",
    "tree": "Fact 3c: each datum's broadcast (or in-) tree within S slots costs F(N, S) hops",
    "far_chains": "Fact 3d: every node needs the contribution floor(N/2) away, and one "
    "lightpath lies on few of those chains",
    "two_ends": "Fact 3e: the first and last two slots carry nearly unsummed data far",
    "three_ends": "Fact 3f: the first and last three slots, grouped by the node holding each "
    "contribution at the third, carry it far",
    "gossip_trees": "Fact 3g: every contribution's tree, its lightpaths' excess hops weighted "
    "by how few contributions a lightpath of their slot can bring",
    "split_trees": "Fact 3h: each lightpath's excess hops split between the trees of what it "
    "brings and of where what it carries goes",
    "two_trees": "Class bound: reduce-then-broadcast needs an in-tree before the complete sum "
    "and an out-tree after it",
}
"""What sets the least bytes of a schedule at the bound's slot count (docs/achievable.md)."""


@dataclass(frozen=True)
class AchievableBound:
    """The bound on every schedule for one message size, with each term in seconds."""

    collective: str
    message_bytes: float
    hop_limit: int  # H used: the request's limits, never above N - 1
    fan: int  # lightpaths one node may receive (or send) per slot: min(2 F w, Tx, Rx)
    bytes_moved: float  # X: bytes all lightpaths must carry together
    byte_hops: float  # Y: bytes x links they must cross together
    slot_bytes: float  # P at S_min slots: least sum over slots of the largest piece
    slots: int  # S_min: least number of slots
    slots_at_bound: int  # the S >= S_min at which slots and bytes together cost least
    decided_by: str  # the fact that sets the least bytes there (a key of FACTS)
    slots_by_distance: int
    slots_by_fan: int
    terms: dict[str, float]  # name -> seconds (each alone a lower bound)
    bound_s: float  # the combination of the terms (>= every term)


def distance_sum(nodes: int, hop_limit: int | None = None) -> int:
    """sum over k = 1..N-1 of ceil(min(k, N - k) / H): per source, the lightpaths its N - 1
    blocks need at least (with H = None: the ring distances themselves, floor(N^2 / 4))."""
    half = nodes // 2
    h = hop_limit if hop_limit is not None else 1

    def ceil_sum(upto: int) -> int:
        """sum_{k=1}^{upto} ceil(k / h): the j-th full block of h distances adds h j."""
        q, rest = divmod(upto, h)
        return h * q * (q + 1) // 2 + rest * (q + 1)

    # distances 1..half appear twice (k and N - k), N / 2 once when N is even
    total = 2 * ceil_sum(half)
    if nodes % 2 == 0:
        total -= -(-half // h)
    return total


def reduce_then_broadcast_slots(nodes: int, hop_limit: int | None) -> int:
    """Slots of any all-reduce schedule that forms each element's complete sum at one node
    and then copies it (reduce-scatter + all-gather: `synth` without a sweep, Ring, H-Ring,
    BT, WRHT with one representative left; not recursive doubling; each algorithm says so in
    `reduces_then_broadcasts`): 2 ceil(floor(N/2) / H). That node needs the contribution of
    the node floor(N/2) away, which moves at most H hops per slot, and that node needs the
    sum back (docs/achievable.md, "Reduce-then-broadcast schedules")."""
    h = nodes - 1 if hop_limit is None else max(1, min(int(hop_limit), nodes - 1))
    return 2 * -(-(nodes // 2) // h)


def _levels(nodes: int, fan: int) -> int:
    """Least S with (1 + fan)^S >= N (integer arithmetic)."""
    s, reach = 0, 1
    while reach < nodes:
        reach *= 1 + fan
        s += 1
    return s


class TreeHops:
    """F(N, t): the least total ring distance of a broadcast within t slots on the N-cycle
    with lightpaths of at most H hops (docs/achievable.md, Fact 3c), for t = 0, 1, ...

    A datum's first receptions form a tree whose slots increase along every path; node v,
    first reached in slot t(v), is reached from a node that held it before, at distance at
    least dist(v, U_{t(v)-1}) (U_j: the nodes holding it after slot j). So the tree costs at
    least the least over nested sets {r} = U_0 ... U_t = V of sum_v dist(v, U_{t(v)-1}), each
    at most H, and that least is reached by a real tree (each node taking its nearest earlier
    node): F is exact for trees. The members of U_{j-1} cut the cycle into gaps, which evolve
    independently: F_t(g), a gap of g links with both ends held, adds in one slot some of its
    inner nodes, each paying its distance to the nearer end, and leaves subgaps to t - 1
    slots. The nodes charged from the left end form a chain 0 < x_1 < ... < x_m <= H whose
    cost does not depend on g (L_t below), as do those from the right end, so
    F_t(g) = min_s (min_{p + p' = s} L_t(p) + L_t(p')) + F_{t-1}(g - s): O(H (H + N)) per
    slot. A configuration counted from the wrong end only costs more than it does, so the
    minimum is F itself. The cycle is one gap of N links with both ends at the root.

    Rows are computed on demand and kept (one table per (N, H) in `tree_hops`)."""

    def __init__(self, nodes: int, hop_limit: int) -> None:
        self.nodes = nodes
        self.reach = max(1, min(hop_limit, nodes // 2))
        self._gap = np.full(nodes + 1, np.inf)  # F_t(g) of the last slot computed, g = 0..N
        self._gap[:2] = 0.0  # a gap of 0 or 1 links has no inner node
        self.cycle: list[float] = [0.0 if nodes == 1 else float("inf")]  # F(N, t), t = 0..
        self._lock = threading.Lock()

    def upto(self, rounds: int) -> np.ndarray:
        """F(N, t) for t = 0..rounds (inf where t slots cannot reach every node)."""
        with self._lock:
            while len(self.cycle) <= rounds:
                self._next_slot()
            return np.array(self.cycle[: rounds + 1])

    def _next_slot(self) -> None:
        _, _, gap = _slot_rows(self._gap, self.reach, self.nodes)
        self._gap = gap
        self.cycle.append(float(gap[self.nodes]))


def _slot_rows(
    before: Any, reach: int, nodes: int, weight: float | None = None, scale: float = 1.0,
    cost: Any = None,
) -> tuple[Any, Any, Any]:
    """One slot of the recursion, from F_{t-1} (`before`, gaps of 0..N links): L_t (`chain`:
    a chain from a gap end to its last node p, with the subgaps between its nodes filled in
    t - 1 slots), the least pair of chains from both ends per total p + p' (`ends`) and F_t.
    A node added at distance p costs `scale` p (1 p for Fact 3c; `least_tree`'s weighted
    trees); with `weight` w it costs w (p - 1) instead (the weighted excess of
    `GossipTrees`); with `cost` (an array over p = 0..reach, nondecreasing from p = 1, so a
    node charged from its farther end only costs more) it costs cost[p] (`SplitTrees`)."""
    chain = np.full(reach + 1, np.inf)
    chain[0] = 0.0
    distance = np.arange(reach + 1, dtype=np.float64)
    if cost is None:
        cost = scale * distance if weight is None else weight * (distance - 1)
    for p in range(1, reach + 1):
        # the previous node of the chain at q < p leaves the subgap p - q to t - 1 slots
        chain[p] = cost[p] + np.min(chain[:p] + before[p:0:-1])
    if reach > VECTOR_REACH:  # tables of reach^2 cost more than the loops' calls save
        ends = np.full(2 * reach + 1, np.inf)  # min over p + p' = s of L_t(p) + L_t(p')
        for p in range(reach + 1):
            np.minimum(ends[p : p + reach + 1], chain[p] + chain, out=ends[p : p + reach + 1])
        gap = np.full(nodes + 1, np.inf)
        for width in range(min(2 * reach, nodes) + 1):
            if np.isfinite(ends[width]):
                np.minimum(gap[width:], ends[width] + before[: nodes + 1 - width],
                           out=gap[width:])
        gap[:2] = 0.0
        return chain, ends, gap
    # min over p + p' = s of L_t(p) + L_t(p'): row p of a skewed table holds the pairs from
    # column p on, so each column is one total s
    r = reach + 1
    skewed = np.full((r, 2 * r), np.inf)
    flat = (np.arange(r) * (2 * r + 1))[:, None] + np.arange(r)[None, :]
    skewed.ravel()[flat] = chain[:, None] + chain[None, :]
    ends = skewed[:, : 2 * reach + 1].min(axis=0)
    # F_t(g) = min over the pairs' total width w <= g of ends[w] + F_{t-1}(g - w), in blocks
    # of gaps (a window of the previous row per gap, widths reversed)
    widths = min(2 * reach, nodes) + 1
    padded = np.concatenate([np.full(widths - 1, np.inf), before[: nodes + 1]])
    windows = np.lib.stride_tricks.sliding_window_view(padded, widths)[:, ::-1]
    gap = np.empty(nodes + 1)
    block = max(1, 2_000_000 // widths)
    for start in range(0, nodes + 1, block):
        np.min(ends[:widths] + windows[start : start + block], axis=1,
               out=gap[start : start + block])
    gap[:2] = 0.0
    return chain, ends, gap


VECTOR_REACH = 128
"""Up to this reach `_slot_rows` takes its pair and gap minima as whole tables (2x faster at
N = 1024, H = 80); beyond it, loops (no hop limit at N = 4096: the tables took twice the
time and 170 MB; review, session 36). Both give the same rows, bit for bit."""


@dataclass(frozen=True)
class LeastTree:
    """A broadcast tree on the N-cycle from the root (offset 0) within `slots` slots, lightpaths
    of at most H hops, at the least total ring distance F(N, S) (Fact 3c): per ring offset, the
    slot it is first reached in (the root: 0) and the offset it is reached from (root: -1)."""

    nodes: int
    hop_limit: int
    slots: int
    reached: Any  # int array: slot per offset
    parent: Any  # int array: parent offset per offset

    @property
    def hops(self) -> int:
        """Total ring distance of the tree's edges: F(N, S)."""
        child = np.arange(1, self.nodes)
        cw = (child - self.parent[1:]) % self.nodes
        return int(np.minimum(cw, self.nodes - cw).sum())


def least_tree(
    nodes: int, hop_limit: int, slots: int, scales: tuple[float, ...] | None = None
) -> LeastTree:
    """A tree of Fact 3c's least cost F(N, S), rebuilt from the recursion's rows: each gap's
    best pair of chains (nodes charged to its left and right end) and the subgaps they leave.
    It shows F is reached, and it is the tree the rooted trees (`models.rooted_trees`) and the
    synthesized tree levels translate.

    With `scales` (one positive number per slot 1..S) the tree is the least of
    sum_v scales[t(v) - 1] dist(v, U_{t(v)-1}) instead: the same recursion with a node
    added in slot t costing its distance times the slot's scale, so a slot scaled up carries
    fewer hops and the others more, at some cost in total hops (README "Known limits": such
    trees packed as rooted trees, `bench/rooted_packing.py`). Raises ValueError when S slots
    of lightpaths of at most H hops cannot reach every node, or the scales are not S positive
    numbers."""
    if scales is not None and (len(scales) != slots or min(scales, default=1.0) <= 0):
        raise ValueError(f"scales must be {slots} positive numbers, one per slot; got {scales}")
    reach = max(1, min(hop_limit, nodes // 2))
    distance = np.arange(reach + 1, dtype=np.float64)
    costs = [distance * (1.0 if scales is None else float(scales[t])) for t in range(slots)]
    _, reached, parent = _least_tree_by_costs(nodes, reach, costs)
    if reached is None:
        raise ValueError(
            f"{slots} slots of lightpaths of at most {hop_limit} hops cannot reach the node "
            f"{nodes // 2} away"
        )
    return LeastTree(nodes, hop_limit, slots, reached, parent)


def _least_tree_by_costs(
    nodes: int, reach: int, costs: list[Any]
) -> tuple[float, Any, Any]:
    """The least tree on the N-cycle from offset 0 when a node first reached in slot t at
    distance p from the nodes reached before costs costs[t - 1][p] (each nondecreasing in p
    from 1; lightpaths of at most `reach` hops): its cost and, per offset, the slot it is
    reached in and the offset it is reached from (the root: 0 and -1). (inf, None, None)
    where len(costs) slots cannot reach every node. Fact 3c's recursion (`_slot_rows`),
    rebuilt from its rows: each gap's best pair of chains and the subgaps they leave."""
    slots = len(costs)
    rows = [np.full(nodes + 1, np.inf)]
    rows[0][:2] = 0.0
    chains, pairs = [np.zeros(0)], [np.zeros(0)]
    for left in range(1, slots + 1):  # rows[t]: gaps filled in the last t slots
        chain, ends, gap = _slot_rows(rows[-1], reach, nodes, cost=costs[slots - left])
        chains.append(chain)
        pairs.append(ends)
        rows.append(gap)
    if not np.isfinite(rows[slots][nodes]):
        return float("inf"), None, None
    reached = np.full(nodes, -1, dtype=np.int64)
    parent = np.full(nodes, -1, dtype=np.int64)
    reached[0] = 0

    def chain_nodes(t: int, last: int) -> list[int]:
        """The chain of slot t ending at `last`, nearest the end first."""
        out, before = [], rows[t - 1]
        while last > 0:
            out.append(last)
            last = int(np.argmin(chains[t][:last] + before[last:0:-1]))
        return out[::-1]

    todo = [(0, nodes, slots)]  # (left end offset, gap in links, slots left)
    while todo:
        left, gap, t = todo.pop()
        if gap <= 1:
            continue
        before, ends, chain = rows[t - 1], pairs[t], chains[t]
        widths = np.arange(min(len(ends) - 1, gap - 1) + 1)  # chains that do not meet
        width = int(np.argmin(ends[widths] + before[gap - widths]))
        lows = np.arange(max(0, width - reach), min(width, reach) + 1)
        p = int(lows[np.argmin(chain[lows] + chain[width - lows])])
        slot = slots - t + 1
        from_left, from_right = chain_nodes(t, p), chain_nodes(t, width - p)
        for x in from_left:
            reached[(left + x) % nodes], parent[(left + x) % nodes] = slot, left % nodes
        for x in from_right:
            at = (left + gap - x) % nodes
            reached[at], parent[at] = slot, (left + gap) % nodes
        stops = [0, *from_left, *(gap - x for x in reversed(from_right)), gap]
        todo += [(left + a, b - a, t - 1) for a, b in itertools.pairwise(stops)]
    return float(rows[slots][nodes]), reached, parent


@lru_cache(maxsize=64)
def least_tree_edges(
    nodes: int, hop_limit: int, slots: int, scales: tuple[float, ...] | None = None
) -> tuple[tuple[Any, Any], ...]:
    """Per slot, the edges of `least_tree(nodes, hop_limit, slots, scales)` first reached in
    it: the parents' offsets from the root and the signed shifts to the children (> 0 CW,
    each at most N / 2 either way). What the synthesized tree levels and rooted trees run."""
    base = least_tree(nodes, hop_limit, slots, scales)
    child = np.arange(1, nodes, dtype=np.int64)
    shift = (child - base.parent[1:]) % nodes
    shift = np.where(shift > nodes // 2, shift - nodes, shift)
    parent = base.parent[1:].astype(np.int64)
    return tuple(
        (parent[base.reached[1:] == t], shift[base.reached[1:] == t])
        for t in range(1, slots + 1)
    )


@lru_cache(maxsize=16)
def tree_hops(nodes: int, hop_limit: int) -> TreeHops:
    """The broadcast-tree table of a ring and hop limit, shared by every bound of them."""
    return TreeHops(nodes, hop_limit)


def first_reception_cap(nodes: int, hop_limit: int, fan: int, slot: int) -> int:
    """At most how many contributions one lightpath of slot `slot` can bring its receiver for
    the first time (all-reduce, Fact 3g): its sender knows, at the start of the slot, only
    contributions within (slot - 1) H of it (2 (slot - 1) H + 1 nodes) and at most
    (1 + fan)^(slot - 1) of them (Fact 4's growth), and the receiver's own is not new."""
    grown: int = (1 + fan) ** min(slot - 1, 64)  # 2^64 is beyond every ring
    return max(1, min(nodes - 1, 2 * (slot - 1) * hop_limit + 1, grown))


class GossipTrees:
    """Fact 3g (all-reduce; docs/achievable.md): per element, a schedule of S slots crosses at
    least 2 N - 2 + G(S) hops, where

        G(S) = min over trees of sum_v w_{t(v)} (dist(v, U_{t(v)-1}) - 1),  w_t = N / cap_t,

    the trees being Fact 3c's (each node's first reception of one contribution, slots
    increasing along every path, lightpaths of at most H hops) and cap_t =
    `first_reception_cap`. Why: a lightpath of h hops is 1 + (h - 1) >= 1 + (h - 1) fr / cap_t,
    fr <= cap_t being the contributions it brings its receiver first; summed over the
    lightpaths, the ones count at least the 2 N - 2 calls of one-way gossip, and the rest is,
    summed over the N contributions, each one's tree with its excess hops weighted by
    1 / cap_t, which by the ring's symmetry is at least N times the least such tree. Early
    slots carry few contributions per lightpath, so their long lightpaths weigh more: at
    N = 1024, H = 80, S = 10 this is 5105 hops against Fact 3c's 3859.

    G comes from Fact 3c's recursion (`_slot_rows`) with a node at distance p costing
    w (p - 1) in the slot it is added. The slots from the first whose cap is N - 1 on share
    the weight N / (N - 1), so their rows (`_base`, filled from the last slot backwards) are
    shared by every S; each S adds its own rows for the slots before. The rows per (N, H,
    fan) stay within `GOSSIP_WORK_LIMIT`: slot counts beyond `last` are not computed (None),
    and the bound keeps Fact 3c's F(N, S) + N - 1 there; the count starts at the least slot
    count of Fact 4, below which no schedule exists."""

    def __init__(self, nodes: int, hop_limit: int, fan: int) -> None:
        self.nodes = nodes
        self.hop_limit = hop_limit
        self.fan = fan
        self.reach = max(1, min(hop_limit, nodes // 2))
        self.weights = [0.0]  # w_t for t = 1, 2, ... up to the first slot of cap N - 1
        while len(self.weights) < 2 or self.weights[-1] != self.weights_full:
            slot = len(self.weights)
            self.weights.append(nodes / first_reception_cap(nodes, hop_limit, fan, slot))
        self.early = len(self.weights) - 2  # slots 1..early weigh more than N / (N - 1)
        row = np.full(nodes + 1, np.inf)
        row[:2] = 0.0
        self._base = [row]  # rows of slots of weight N / (N - 1), t = 0, 1, ... of them
        self._least: dict[int, float] = {}
        per_row = 2 * self.reach * (self.reach + nodes) + 4 * self.reach * 4300
        # the slot counts from the least any schedule needs (Fact 4) whose rows, their own
        # and the shared ones up to theirs, fit the work limit; fewer are never asked for
        least = max(1, -(-(nodes // 2) // max(1, hop_limit)), _levels(nodes, fan))
        self.last = least - 1
        rows = max(0, least - 1 - self.early)  # shared rows below the first slot count
        while self.last < 2 * (nodes // 2) + 1:  # the bound looks no further (Fact 3d)
            slots = self.last + 1
            rows += min(slots, self.early) + (1 if slots > self.early else 0)
            if rows * per_row > GOSSIP_WORK_LIMIT:
                break
            self.last = slots
        self._lock = threading.Lock()

    @property
    def weights_full(self) -> float:
        """The weight of a slot whose lightpaths may bring N - 1 contributions."""
        return self.nodes / max(1, self.nodes - 1)

    def excess(self, slots: int) -> float | None:
        """G(S); inf where S slots of lightpaths of at most H hops cannot reach every node;
        None beyond the work limit."""
        if 2 * slots >= self.nodes - 1:  # 1-hop chains both ways reach every node: no excess
            return 0.0
        if slots > self.last:
            return None
        with self._lock:
            if slots not in self._least:
                early = min(slots, self.early)
                while len(self._base) <= slots - early:
                    self._base.append(
                        _slot_rows(self._base[-1], self.reach, self.nodes, self.weights_full)[2]
                    )
                row = self._base[slots - early]
                for slot in range(early, 0, -1):  # the last of them is filled first
                    row = _slot_rows(row, self.reach, self.nodes, self.weights[slot])[2]
                self._least[slots] = float(row[self.nodes])
            return self._least[slots]


@lru_cache(maxsize=16)
def gossip_trees(nodes: int, hop_limit: int, fan: int) -> GossipTrees:
    """Fact 3g's table of a ring, hop limit and receive fan, shared by every bound of them."""
    return GossipTrees(nodes, hop_limit, fan)


GOSSIP_WORK_LIMIT = 2.4e9
"""Element operations `GossipTrees` may spend per (N, H, fan), counted as `TREE_WORK_LIMIT`
counts them (about 1 s); the slot counts beyond keep Fact 3c's weaker all-reduce bound."""


class SplitTrees:
    """Fact 3h (all-reduce; docs/achievable.md): per element, a schedule of S slots crosses at
    least 2 N - 2 + Phi(S) hops, Phi(S) the largest found of

        Phi_f = min over trees of sum_v N / cap_t(v) f_t(v)(dist(v, U_{t(v)-1}))   (fan in)
              + the same with the receive fan replaced by the send fan,

    f_t a split of a slot-t lightpath's excess h - 1 between the trees of what it brings (its
    receiver's first receptions, Fact 3g) and the trees of where what it carries goes (the
    same schedule run backwards: slot t becomes S + 1 - t, each lightpath reversed, and its
    first receptions are the last lightpaths by which a node still reaches each other node).
    A lightpath brings at most cap_t contributions first and is the last way to at most
    cap_{S+1-t} destinations (by the send fan), so h - 1 >= f(h) fr / cap_t + (h - 1 - f(h))
    fr' / cap_{S+1-t} for any split 0 <= f(h) <= h - 1 with f and h - 1 - f nondecreasing in
    h. Splits mirrored in time (slot S + 1 - t keeps what slot t gives away) make the
    backward trees the forward ones, so every split gives a bound by two runs of Fact 3c's
    recursion; f = (h - 1) / 2 gives Fact 3g's. Forward trees want their long lightpaths
    late, backward trees early: no schedule serves both cheaply, and the split says so.

    The split is found by `SPLIT_ITERATIONS` steps of projected supergradient ascent (each
    tree's edges per slot and distance give the supergradient) from f = (h - 1) / 2, the
    same steps for every request: at N = 1024, H = 80, fan 128, S = 13, 4533 hops per element
    against Fact 3g's 4154. Any split gives a bound, so the steps only decide how good it is.
    Slot counts whose steps would cost more than `SPLIT_WORK_LIMIT` are not computed (None)."""

    def __init__(self, nodes: int, hop_limit: int, fan_in: int, fan_out: int) -> None:
        self.nodes = nodes
        self.hop_limit = hop_limit
        self.fans = (fan_in, fan_out) if fan_in != fan_out else (fan_in,)
        self.reach = max(1, min(hop_limit, nodes // 2))
        # a step runs one tree per fan (rows and their rebuild, about twice the rows' work)
        self._per_slot = 2 * len(self.fans) * (
            2 * self.reach * (self.reach + nodes) + 4 * self.reach * 4300
        )
        self._ascents: dict[int, _Ascent] = {}
        self._lock = threading.Lock()

    def computable(self, slots: int) -> bool:
        """Whether S slots' split fits the work limit."""
        return SPLIT_ITERATIONS * slots * self._per_slot <= SPLIT_WORK_LIMIT

    def excess(self, slots: int) -> float | None:
        """Phi(S) (see the class); inf where S slots cannot reach every node; None beyond the
        work limit."""
        if 2 * slots >= self.nodes - 1:  # 1-hop chains both ways reach every node: no excess
            return 0.0
        if not self.computable(slots):
            return None
        return self.advance(slots)

    def most(self, slots: int) -> float:
        """An upper bound on Phi(S), from Fact 3g's tables: each family's tree costs at most
        what it costs charged every excess hop, G(S) with its fan (inf beyond their work
        limit). Where the bound already charges more, no ascent can raise it."""
        total = 0.0
        for fan in self.fans:
            excess = gossip_trees(self.nodes, self.hop_limit, fan).excess(slots)
            if excess is None:
                return float("inf")
            total += excess * (2 if len(self.fans) == 1 else 1)
        return total

    def advance(self, slots: int, enough: Any = None) -> float:
        """Run S slots' ascent on from where it stopped until its steps are done or
        `enough(best so far)` holds; the best Phi so far. The steps are the same however
        often it stops, so a finished ascent's value never depends on the stops."""
        with self._lock:
            state = self._ascents.get(slots)
            if state is None:
                split = np.full(((slots + 1) // 2, self.reach + 1), 0.5)
                split[:, :2] = 0.0
                state = self._ascents[slots] = _Ascent(split)
            while state.step < SPLIT_ITERATIONS and not (enough is not None and enough(state.best)):
                value, grad = self.value(slots, state.split)
                if not np.isfinite(value):
                    state.best, state.step = value, SPLIT_ITERATIONS
                    break
                state.best = max(state.best, value)
                norm = float(np.linalg.norm(grad))
                if norm == 0.0:
                    state.step = SPLIT_ITERATIONS
                    break
                state.split = np.clip(
                    state.split + SPLIT_STEP / (1 + state.step) / norm * grad, 0.0, 1.0
                )
                state.split[:, :2] = 0.0
                if slots % 2:
                    state.split[-1] = 0.5
                state.step += 1
            return state.best

    def finished(self, slots: int) -> bool:
        """Whether S slots' ascent has run all its steps."""
        state = self._ascents.get(slots)
        return state is not None and state.step >= SPLIT_ITERATIONS

    def value(self, slots: int, split: Any) -> tuple[float, Any]:
        """Phi of one mirrored split and a supergradient. `split` holds, for slots 1 ..
        ceil(S/2), the share delta_t(d) in [0, 1] of the d-th hop's excess charged forward
        (f_t(d) = sum_{k=2..d} delta_t(k); columns 0 and 1 are unused); slot S + 1 - t takes
        1 - delta_t, the middle slot of an odd S one half."""
        n, s = self.nodes, slots
        delta = np.zeros((s, self.reach + 1))
        delta[: len(split)] = split
        for t in range(s // 2):
            delta[s - 1 - t] = 1.0 - split[t]
        if s % 2:
            delta[s // 2] = 0.5
        delta[:, :2] = 0.0
        f = np.cumsum(delta, axis=1)
        total, grad = 0.0, np.zeros_like(split)
        for fan in self.fans:
            weights = np.array(
                [n / first_reception_cap(n, self.hop_limit, fan, t) for t in range(1, s + 1)]
            )
            cost, reached, parent = _least_tree_by_costs(
                n, self.reach, [weights[t] * f[t] for t in range(s)]
            )
            if reached is None:
                return float("inf"), grad
            total += cost * (2 if len(self.fans) == 1 else 1)
            child = np.arange(1, n)
            cw = (child - parent[1:]) % n
            distance = np.minimum(cw, n - cw)
            edges = np.zeros((s, self.reach + 1))
            np.add.at(edges, (reached[1:] - 1, distance), 1.0)
            at_least = np.cumsum(edges[:, ::-1], axis=1)[:, ::-1] * weights[:, None]
            share = at_least[: s // 2] - at_least[::-1][: s // 2]
            grad[: s // 2] += share * (2 if len(self.fans) == 1 else 1)
        grad[:, :2] = 0.0
        return total, grad



@dataclass
class _Ascent:
    """Where one slot count's ascent of `SplitTrees` stands: the split of the next step, the
    steps done and the best Phi seen."""

    split: Any
    step: int = 0
    best: float = -np.inf


@lru_cache(maxsize=16)
def split_trees(nodes: int, hop_limit: int, fan_in: int, fan_out: int) -> SplitTrees:
    """Fact 3h's table of a ring, hop limit and fans, shared by every bound of them."""
    return SplitTrees(nodes, hop_limit, fan_in, fan_out)


SPLIT_ITERATIONS = 40
"""Supergradient steps per slot count of `SplitTrees` (at N = 1024, H = 80, S = 12 to 16 the
value after 40 steps is within 0.5 % of the value after 60)."""

SPLIT_STEP = 10.0
"""The length of the first step of `SplitTrees`' ascent (then 1 / (1 + step))."""

SPLIT_WORK_LIMIT = 8e9
"""Element operations one slot count of `SplitTrees` may spend, counted as `TREE_WORK_LIMIT`
counts them (a few seconds); the slot counts beyond keep Fact 3g. Per slot count, so the
slot counts computed never depend on what an earlier call computed."""


TREE_WORK_LIMIT = 2.4e9
"""Element operations the tree bound may spend per (N, H) (about 1 s on 2 cores here, 0.42 ns
each; a numpy call costs ~4300 of them): every slot count at N <= 4096 with H = 80, about 900
at N = 8192; the slots beyond get Fact 3b's coupling alone, which is weaker but still a bound.
The rows it covers depend on (N, H) only, never on what an earlier call left in the table, so
every call gives the same bound."""


def _tighten_by_trees(
    candidates: Any, bytes_at: Any, times: Any, tree_bytes: Any, least_time: Any,
    table: TreeHops,
) -> None:
    """Raise bytes_at / times (in place) at the slot counts whose tree row is within the
    work limit, slot counts in increasing order, until no later slot count can be cheaper
    even by Fact 3b alone (times beyond are lower bounds already). `tree_bytes(slots, f)`:
    the least P at those slot counts given f[t] = F(N, t) for t = 0..max(slots)."""
    reach, n = table.reach, table.nodes
    per_slot = 2 * reach * (reach + n) + 4 * reach * 4300  # elements, and ~4 reach calls
    last = int(TREE_WORK_LIMIT // per_slot)  # rows t = 1..last are within the limit
    best, i = np.inf, 0
    while i < len(candidates) and int(candidates[i]) <= last:
        stop = int(np.searchsorted(candidates, min(int(candidates[i]) + 31, last), "right"))
        slots = candidates[i:stop].astype(np.int64)
        f = table.upto(int(slots[-1]))
        bytes_at[i:stop] = np.maximum(bytes_at[i:stop], tree_bytes(slots, f))
        times[i:stop] = least_time(slots, bytes_at[i:stop])
        best = min(best, float(times[i:stop].min()))
        i = stop
        if i < len(times) and float(times[i:].min()) >= best:
            break


def antipodal_chain_hops(nodes: int, hop_limit: int, slots: Any) -> Any:
    """Fact 3d (all-reduce): per element, the lightpaths that carry it in a schedule of S
    slots cross at least |P| D / c(S) hops (docs/achievable.md), elementwise over `slots`.

    D = floor(N/2); P is the set of ordered pairs (u, v) at ring distance D (N pairs, 2 N
    when N is odd). Every node needs every contribution, so each pair has a chain of
    lightpaths carrying the element from u to v in increasing slots, at least D hops in all.
    A lightpath x -> y of slot t lies on the chain of (u, v) only when u is within (t - 1) H
    of x and v within (S - t) H of y (the chain's lightpaths before and after it, at most H
    hops each), which admits at most c(S) pairs whatever x, y and t (`_pairs_per_lightpath`);
    so |P| D <= sum over lightpaths of hops x pairs <= c(S) x hops. Near the least slot count
    c is small: at N = 1024, H = 80, S = 7 a lightpath serves at most 49 of the 1024 pairs
    (D - 6 H = 32 hops of slack), and the hops are 10700 against the single tree's 5729."""
    far = nodes // 2
    counts = np.asarray(slots, dtype=np.int64)
    if far == 0:
        return np.zeros(len(counts))
    offsets = sorted({far % nodes, (-far) % nodes})
    return nodes * len(offsets) * far / _pairs_per_lightpath(nodes, hop_limit, counts, offsets)


def _pairs_per_lightpath(nodes: int, hop_limit: int, slots: Any, offsets: list[int]) -> Any:
    """c(S): at most how many pairs (u, u + o), o in `offsets`, a lightpath of at most H hops
    in slot t of S can lie on a chain of: per offset, |ball(x, A) n ball(y - o, B)| with A =
    (t - 1) H, B = (S - t) H, at most min(N, 2 A + 1, 2 B + 1) (the best t balances them:
    2 floor((S - 1)/2) H + 1) and at most the overlap of the two balls lifted to the line,
    sum over j of max(0, A + B + 1 - |h - o - j N|) for a CW lightpath of h hops (CCW: the
    mirror image, the same count as the offsets are symmetric). That sum is a sum of tents
    in h, convex between their peaks h = o + j N, so its largest value over 1 <= h <= H is
    at h = 1, H or o; an upper bound on each offset's largest term is summed."""
    span = (slots - 1) * hop_limit  # A + B, the same for every t
    cap = np.minimum(nodes, 2 * ((slots - 1) // 2) * hop_limit + 1)
    total = np.zeros(len(slots))
    for o in offsets:
        best = np.zeros(len(slots))
        for h in {1, hop_limit, o} & set(range(1, hop_limit + 1)):
            overlap = sum(
                np.maximum(0, span + 1 - abs(h - o - j * nodes)) for j in (-1, 0, 1)
            )  # |h - o - j N| > A + B for every other j while A + B < N (h - o in (-N, N))
            best = np.maximum(best, np.where(span >= nodes, cap, overlap))
        total += np.minimum(cap, best)
    return total


@lru_cache(maxsize=256)
def two_slot_progress(delta: int, hop_limit: int, fan: int) -> float:
    """g(delta) of Fact 3e (docs/achievable.md): per contribution, the least hops the first
    two slots of an all-reduce (or, mirrored, its last two) spend to carry every
    contribution at least `delta` hops from its node.

    In slot 1 a node holds only its own contribution, so a slot-1 lightpath carries its
    sender's alone; group the contributions by the last lightpath f (at most 2 slots, at
    most H hops) that carries each on its chain within the two slots: f's sender y, the
    members being y itself and nodes that sent y their own contribution in slot 1 (one
    lightpath each, distinct; at most `fan` received by y). A member at signed offset j
    behind y (away from f's direction) ends h + j hops from home, so it needs
    j >= delta - h, and its slot-1 lightpath has |j| hops at least (y itself: 0). A group
    costs h + sum |j| at least and the groups partition the contributions, so the least
    ratio over h <= H and member sets bounds the average; the cheapest k members of a given
    h are the k offsets of least |j| (0, then 1 and -1, ... while -j >= delta - h). A member
    h + delta or more ahead also ends delta away but costs more than delta, which a group
    of y alone (or one member delta - H behind) already averages: it never lowers the least.
    Offsets are taken on the line (on a small ring some coincide): more choice, a lower
    minimum, still a bound."""
    if delta <= 0:
        return 0.0
    best = np.inf
    # Longer than delta + fan / 2 only adds hops (the fan is full of offsets on both sides by
    # then), and every member of an h < delta group pays delta - h at least: h from the top
    # down, stopping where delta - h alone reaches the best ratio found.
    for h in range(min(hop_limit, delta + -(-fan // 2)), max(1, delta - hop_limit) - 1, -1):
        if delta - h >= best:
            break
        near = min(max(0, h - delta), hop_limit)  # |j| <= near may be on either side
        lowest = max(0, delta - h)  # least offset behind
        costs = np.concatenate(
            [np.repeat(np.arange(1, near + 1), 2), np.arange(max(near + 1, lowest), hop_limit + 1)]
        )[:fan]  # at most `fan` members besides y
        has_y = lowest == 0
        totals = h + np.cumsum(np.concatenate([[0], costs]) if has_y else costs)
        counts = np.arange(1, len(totals) + 1)
        if len(totals):
            best = min(best, float((totals / counts).min()))
    return float(best)


THREE_SLOT_REACH_LIMIT = 36
"""`three_slot_progress` certifies no ratio whose useful hub distance (`_hub_reach`) exceeds
this: its table grows with the square of the reach (certifying less is still a bound)."""


def _hub_reach(ratio: float) -> tuple[int, int]:
    """(c, G) for a trial ratio lambda: a position gains only within c = ceil(lambda) - 1
    hops of a facility, and a hub G = lambda + 2 sum_{d=1..c} (lambda - d) hops away or more
    never lowers the group objective (removing it saves its hops and loses at most that
    gain)."""
    c = max(0, int(np.ceil(ratio)) - 1)
    return c, int(np.ceil(ratio + 2 * sum(ratio - d for d in range(1, c + 1))))


def _side_values(ratio: float, delta: int, reach: int, near: int) -> Any:
    """V[A, B] of `three_slot_progress`: the least of sum_hubs z + sum_users (d - lambda)
    over one side of x (positions 1..Q, Q = reach + near), hubs at 1..reach, where a
    position may hold a user when it is at most A, at least B, or at least delta from x,
    each user taking its nearest facility (x at 0 or a hub) and only those nearer than
    lambda (d - lambda < 0) counted. A dynamic programme over the hubs from x outwards,
    vectorised over every (A, B): a position between two consecutive facilities takes the
    nearer."""
    q = reach + near
    pos = np.arange(q + 1)
    a_values, b_values = np.arange(q + 1), np.arange(1, q + 2)
    allowed = (
        (pos[None, None, :] <= a_values[:, None, None])
        | (pos[None, None, :] >= b_values[None, :, None])
        | (pos[None, None, :] >= delta)
    ) & (pos >= 1)[None, None, :]  # (A, B, position)
    gain = np.minimum(0.0, np.arange(q + 2) - ratio)  # per distance to the nearest facility
    dp = np.full((q + 1, q + 1, reach + 1), np.inf)
    dp[:, :, 0] = 0.0

    def tail(f: int) -> Any:
        return (allowed[:, :, f + 1 :] * gain[1 : q - f + 1]).sum(axis=2)

    tails = [tail(f) for f in range(reach + 1)]
    best = tails[0]
    apart = np.full((q + 1, q + 1), np.inf)  # least dp + tail of a hub 2 near + 2 or more back
    for f in range(1, reach + 1):
        own = np.where(allowed[:, :, f], -ratio, 0.0)
        least = np.full((q + 1, q + 1), np.inf)
        if f - 2 * near - 2 >= 0:
            g = f - 2 * near - 2
            apart = np.minimum(apart, dp[:, :, g] + tails[g])
            before = np.arange(f - near, f)  # no position gains from both: tail + head
            least = apart + (allowed[:, :, f - near : f] * gain[f - before]).sum(axis=2)
        for g in range(max(0, f - 2 * near - 1), f):
            between = np.arange(g + 1, f)
            d = np.minimum(between - g, f - between)
            seg = (allowed[:, :, g + 1 : f] * gain[d]).sum(axis=2)
            least = np.minimum(least, dp[:, :, g] + seg)
        dp[:, :, f] = least + f + own
        best = np.minimum(best, dp[:, :, f] + tails[f])
    return best


def _group_objective(ratio: float, delta: int, hop_limit: int, nodes: int) -> float | None:
    """The least over the groups of `three_slot_progress` of (hops) - lambda (users), or None
    where this ratio's reach is beyond `THREE_SLOT_REACH_LIMIT` or the ring is too short for
    the line's distances (then nothing is certified at this ratio)."""
    near, hub = _hub_reach(ratio)
    reach = min(hub, hop_limit)
    width = reach + near  # every useful user within this many hops of x
    if hub > THREE_SLOT_REACH_LIMIT or nodes < max(2 * (width + hop_limit), 4 * width):
        return None
    values = _side_values(ratio, delta, reach, near)
    q = width
    finals = np.arange(hop_limit + 1)
    right, left = finals[:, None], finals[None, :]  # h_R (CW final), h_L (CCW final)
    some_r, some_l = right >= 1, left >= 1
    a_right = np.where(some_r, np.clip(right - delta, 0, q), 0)
    b_right = np.where(some_l, np.clip(delta - left, 1, q + 1), q + 1)
    a_left = np.where(some_l, np.clip(left - delta, 0, q), 0)
    b_left = np.where(some_r, np.clip(delta - right, 1, q + 1), q + 1)
    x_user = (right >= delta) | (left >= delta)
    total = (
        right + left + np.where(x_user, -ratio, 0.0)
        + values[a_right, b_right - 1] + values[a_left, b_left - 1]
    )
    return float(total.min())


@lru_cache(maxsize=256)
def three_slot_progress(delta: int, hop_limit: int, nodes: int) -> float:
    """g3(delta) of Fact 3f (docs/achievable.md): per contribution, the least hops the first
    three slots of an all-reduce (or, mirrored, its last three) spend to carry every
    contribution at least `delta` hops from its node, on a ring of `nodes`.

    Group the contributions by the node x on their chain at the start of slot 3. Every
    lightpath of slots 1 to 3 serves one group: a slot-1 lightpath carries its sender's
    contribution alone, a slot-2 lightpath into x and a slot-3 lightpath from x only
    contributions of x's group. A group is x's slot-3 lightpaths (the farthest each way, CW
    h_R and CCW h_L hops, serve every member a nearer one serves), its hubs z (slot-2
    lightpaths z -> x, |z| hops) and its members' slot-1 lightpaths (to x or a hub): a
    member at u reaches x at least min(|u|, |u - z|) private hops away, and ends delta from
    home at x (|u| >= delta), at h_R (u <= h_R - delta) or at -h_L (u >= delta - h_L). The
    ratio of a group's hops to its members is at least lambda when (hops) - lambda (members)
    >= 0 for every group: bisection on lambda, each trial the least over h_R, h_L of the
    finals plus both sides' `_side_values`. The fan limits are left out (a lower minimum,
    still a bound). Positions are taken on the line, which the ring matches where every
    useful member, hub and final lies within N / 4 of x and the finals' members within
    N / 2 of them; on shorter rings (or beyond `THREE_SLOT_REACH_LIMIT`) the ratio is not
    certified that far."""
    if delta <= 0:
        return 0.0
    # two slots' schedules are three slots' too: g3 <= g (no fan limit; infinite where two
    # slots cannot reach delta), and a contribution alone crosses at most 3 H
    high = min(two_slot_progress(delta, hop_limit, 2 * hop_limit), float(max(delta, 3 * hop_limit)))
    low = 0.0
    while high - low > 1e-4 * max(high, 1.0):
        trial = (low + high) / 2
        least = _group_objective(trial, delta, hop_limit, nodes)
        if least is not None and least >= -1e-9:
            low = trial
        else:
            high = trial
    return low


def end_slot_hops(
    nodes: int, hop_limit: int, slots: Any, fan_in: int, fan_out: int
) -> Any:
    """Fact 3e (all-reduce): per element, the hops of the first two and the last two slots,
    elementwise over `slots`. u's contribution reaches the node D = floor(N/2) away on a
    chain with at most S - 2 lightpaths after slot 2, so by the end of slot 2 it is held
    delta = D - (S - 2) H hops from u at least; mirrored, every node hears its far
    contribution in the last two slots from a node delta away. Each end costs N g(delta)
    (`two_slot_progress`, with the receive limit at the start, the send limit at the end);
    with S >= 4 the two ends are different slots and add."""
    counts = np.asarray(slots, dtype=np.int64)
    deltas = nodes // 2 - (counts - 2) * hop_limit
    out = np.zeros(len(counts))
    for i in np.flatnonzero((counts >= 2) & (deltas > 0)).tolist():
        s, delta = int(counts[i]), int(deltas[i])
        first = nodes * two_slot_progress(delta, hop_limit, fan_in)
        last = nodes * two_slot_progress(delta, hop_limit, fan_out)
        out[i] = first + last if s >= 4 else max(first, last)
    return out


def three_end_hops(nodes: int, hop_limit: int, slots: Any) -> Any:
    """Fact 3f (all-reduce): per element, the hops of the first three and the last three
    slots, elementwise over `slots`, where two slots no longer bind (Fact 3e's delta <= 0)
    but three do: by the end of slot 3 u's contribution is held delta = D - (S - 3) H hops
    from u at least (0 < delta <= H); mirrored, every node hears its far contribution in
    the last three slots from a node delta away (group by the node on the chain at the end
    of slot S - 2: a slot-S lightpath serves its receiver alone). Each end costs N g3(delta)
    (`three_slot_progress`); with S >= 6 the two ends are different slots and add."""
    counts = np.asarray(slots, dtype=np.int64)
    deltas = nodes // 2 - (counts - 3) * hop_limit
    out = np.zeros(len(counts))
    for i in np.flatnonzero((counts >= 3) & (deltas > 0) & (deltas <= hop_limit)).tolist():
        end = nodes * three_slot_progress(int(deltas[i]), hop_limit, nodes)
        out[i] = 2 * end if counts[i] >= 6 else end
    return out


def _split_trees(slots: Any, f: Any) -> Any:
    """min over 1 <= tau < S of F(N, tau) + F(N, S - tau): an in-tree within the first tau
    slots and an out-tree within the rest (reduce-then-broadcast all-reduce)."""
    out = np.full(len(slots), np.inf)
    for j, total in enumerate(slots.tolist()):
        if total >= 2:
            out[j] = float(np.min(f[1:total] + f[total - 1 : 0 : -1]))
    return out


def _tighten_by_split(
    candidates: Any, bytes_at: Any, times: Any, decided: Any, least_time: Any,
    table: SplitTrees, bytes_per_hop: float,
) -> None:
    """Raise bytes_at / times (in place) by Fact 3h where it can decide the bound: the slot
    count of the least time so far, its ascent run on until it is done or that slot count is
    no longer the least, again and again until the least is a slot count whose ascent is done
    (or beyond the work limit). Fact 3h only raises a time and a stopped ascent only rises
    when resumed, so the least over every slot count comes out as if every ascent had run to
    the end: which ones run, and how far, never changes the bound."""
    floor_hops = 2 * (table.nodes - 1)
    while True:
        best = int(np.argmin(times))
        slots = int(candidates[best])
        if 2 * slots >= table.nodes - 1 or not table.computable(slots):
            return
        if bytes_per_hop * (floor_hops + table.most(slots)) <= bytes_at[best]:
            return  # no split can raise the least: it is the bound
        others = np.delete(times, best)
        second = float(others.min()) if len(others) else np.inf
        base = float(bytes_at[best])

        def enough(excess: float, slots: int = slots, base: float = base,
                   second: float = second) -> bool:
            """S's time with this excess is above the next least: not the least any more."""
            return bool(least_time(slots, max(base, bytes_per_hop * (floor_hops + excess)))
                        > second)

        excess = table.advance(slots, enough)
        if not np.isfinite(excess):
            return
        floor = bytes_per_hop * (floor_hops + excess)
        if floor > bytes_at[best]:
            bytes_at[best] = floor
            times[best] = least_time(slots, floor)
            decided[best] = "split_trees"
        if table.finished(slots) and int(np.argmin(times)) == best:
            return


def achievable_bound(
    collective: str,
    ring: Ring,
    message_bytes: float,
    hardware: Hardware,
    hop_limit: int | None = None,
    max_tx: int | None = None,
    max_rx: int | None = None,
    reduce_then_broadcast: bool = False,
) -> AchievableBound:
    """The least time any schedule of SPEC 12 can take for `collective` on `ring`.

    `message_bytes`: all-gather, each node's contribution; reduce-scatter and all-reduce, each
    node's vector; all-to-all, each node's send buffer (N blocks of message / N).
    `hop_limit`: the longest lightpath allowed (None: no limit); `max_tx` / `max_rx`: the
    per-node lightpath limits per slot (None: none). `reduce_then_broadcast` (all-reduce):
    the bound of the schedules that form each element's complete sum at one node and copy it
    from there, which need `reduce_then_broadcast_slots` and an in-tree and an out-tree per
    element (docs/achievable.md, "Reduce-then-broadcast schedules")."""
    if collective not in COLLECTIVES:
        raise ValueError(f"unknown collective {collective}; one of {', '.join(COLLECTIVES)}")
    if reduce_then_broadcast and collective != "allreduce":
        raise ValueError("reduce_then_broadcast is a class of all-reduce schedules")
    if not message_bytes > 0:
        raise ValueError(f"message size must be > 0 bytes, got {message_bytes}")
    n, m = ring.nodes, float(message_bytes)
    channels = ring.channels_per_direction
    h = n - 1 if hop_limit is None else max(1, min(int(hop_limit), n - 1))
    fan_in = 2 * channels if max_rx is None else min(2 * channels, int(max_rx))
    fan_out = 2 * channels if max_tx is None else min(2 * channels, int(max_tx))
    fan = min(fan_in, fan_out)
    if collective == "allgather":
        moved = n * (n - 1) * m
        hops = moved
    elif collective == "reducescatter":
        moved = (n - 1) * m
        hops = moved
    elif collective == "allreduce":
        moved = 2 * (n - 1) * m
        hops = moved
    else:
        moved = m * distance_sum(n, h)
        hops = m * distance_sum(n)
    by_distance = -(-(n // 2) // h)
    by_fan = _levels(n, fan)
    slots = max(1, by_distance, by_fan)
    if reduce_then_broadcast:
        slots = max(slots, reduce_then_broadcast_slots(n, h))
    # Fact 3b: within S slots, the chain that brings a datum to the node floor(N/2) away has
    # at most S lightpaths covering floor(N/2) links: at least floor(N/2) - S hops beyond one
    # per lightpath. Once per item and byte (all-gather), per element (reductions); an
    # all-to-all block crosses its distance whatever S is.
    far = n // 2
    extra_per = {"allgather": n * m, "reducescatter": m, "allreduce": m, "alltoall": 0.0}
    # Beyond floor(N/2) slots neither coupling changes, but r grows; an all-reduce's chain
    # bound (Fact 3d) and a reduce-then-broadcast schedule's two trees reach their least only
    # at about twice that (the chain bound at 2 floor(N/2) + 1: then every ball is the ring)
    longest = 2 * far + 1 if collective == "allreduce" else far
    candidates = np.arange(slots, max(slots, longest) + 1, dtype=np.float64)
    extra = extra_per[collective] * np.maximum(0.0, far - candidates)
    hops_at = hops + extra
    decided = np.where(extra > 0, "distance", "link_capacity").astype(object)

    def raise_to(current: Any, floor: Any, fact: str) -> Any:
        """The larger of the two, elementwise, naming `fact` where it is strictly larger."""
        decided[floor > current] = fact
        return np.maximum(current, floor)

    if collective == "allreduce":  # Facts 3d and 3e: every node needs the farthest
        hops_at = raise_to(hops_at, m * antipodal_chain_hops(n, h, candidates), "far_chains")
        hops_at = raise_to(
            hops_at, m * end_slot_hops(n, h, candidates, fan_in, fan_out), "two_ends"
        )
        hops_at = raise_to(hops_at, m * three_end_hops(n, h, candidates), "three_ends")
    bytes_at = raise_to(
        hops_at / (2 * n * channels), np.full(len(candidates), moved / (n * fan)), "receive"
    )

    bits_s = 8.0 / (hardware.bandwidth_per_wavelength_gbps * 1e9)  # seconds per byte on the wire
    cycle_s = hardware.oeo_cycles_per_flit / (hardware.clock_ghz * 1e9)
    reconfigure_s = hardware.mrr_reconfiguration_us * 1e-6

    def least_time(s: Any, p: Any) -> Any:
        """sum of slot costs >= s r + 8 P / B + cycle max(s, P / flit) (ceil(x) >= max(1, x));
        elementwise on arrays."""
        return s * reconfigure_s + p * bits_s + cycle_s * np.maximum(s, p / hardware.flit_bytes)

    terms = {
        "hardware": hardware_lower_bound_s(collective, ring, m, hardware),
        "receive": float(least_time(1, moved / (n * fan))),
        "link_capacity": float(least_time(1, hops / (2 * n * channels))),
        "slots": float(least_time(slots, 0.0)),
    }
    # Every schedule has some S >= S_min slots and then P >= bytes_at[S]: the least over S.
    times = least_time(candidates, bytes_at)
    if collective != "alltoall":
        # Fact 3c: a datum's broadcast tree within S slots costs F(N, S) hops at least
        # (all-gather: every item byte; reductions: every element, plus, all-reduce, the
        # N - 1 gossip transmissions beyond one contribution's tree, or, reduce-then-
        # broadcast, an in-tree and an out-tree in the slots before and after the sum)
        weight = n * m if collective == "allgather" else m

        # Fact 3g bounds every all-reduce, so the reduce-then-broadcast class too: its two
        # trees raised to it slot count by slot count (without it the class's bound could
        # fall below the general one: N = 16, F = 2, w = 1, 32 KiB, 63.6 against 65.1 us;
        # review, session 34)
        gossip = gossip_trees(n, h, fan_in) if collective == "allreduce" else None
        by_tree = np.zeros(len(candidates))  # what Fact 3c alone sets, to name the fact
        least_seen = [np.inf]  # the least time so far with Fact 3g (slot counts ascending)

        def tree_bytes(s: Any, f: Any) -> Any:
            if reduce_then_broadcast:
                per_datum = _split_trees(s, f)
            else:
                per_datum = f[s] + (n - 1 if collective == "allreduce" else 0)
            at = np.searchsorted(candidates, s)
            out = weight * per_datum / (2 * n * channels)
            by_tree[at] = out
            if gossip is None:
                return out
            # Fact 3g (where computed; else Fact 3c's stays), only at slot counts that could
            # still be the least: it only raises a time, so one already at or above the least
            # time found cannot become the bound (its row is not worth computing)
            for j, (slots_j, index) in enumerate(zip(s.tolist(), at.tolist(), strict=True)):
                current = max(float(bytes_at[index]), float(out[j]))
                if float(least_time(slots_j, current)) >= least_seen[0]:
                    continue
                excess = gossip.excess(slots_j)
                if excess is not None:  # within the work limit
                    hops_j = 2 * (n - 1) + excess
                    out[j] = max(out[j], weight * hops_j / (2 * n * channels))
                least_seen[0] = min(least_seen[0], float(least_time(slots_j, max(current,
                                                                                   out[j]))))
            return out

        before = bytes_at.copy()
        _tighten_by_trees(candidates, bytes_at, times, tree_bytes, least_time, tree_hops(n, h))
        raised = bytes_at > before
        decided[raised] = "two_trees" if reduce_then_broadcast else "tree"
        decided[raised & (bytes_at > np.maximum(before, by_tree))] = "gossip_trees"
        if collective == "allreduce":
            least_slot_bytes = float(bytes_at[0])  # before Fact 3h, whose ascents may stop
            _tighten_by_split(candidates, bytes_at, times, decided, least_time,
                              split_trees(n, h, fan_in, fan_out), weight / (2 * n * channels))
            bytes_at[0] = least_slot_bytes  # times keep Fact 3h; P at S_min is without it
    best = int(np.argmin(times))
    bound = float(times[best])
    slot_bytes = float(bytes_at[0])
    return AchievableBound(
        collective=collective,
        message_bytes=m,
        hop_limit=h,
        fan=fan,
        bytes_moved=moved,
        byte_hops=hops,
        slot_bytes=slot_bytes,
        slots=slots,
        slots_at_bound=int(candidates[best]),
        decided_by=str(decided[best]),
        slots_by_distance=by_distance,
        slots_by_fan=by_fan,
        terms=terms,
        bound_s=bound,
    )
