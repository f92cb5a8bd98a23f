"""Exhaustive reference: least number of slots of a collective on a tiny bidirectional WDM ring.

Independent of the ``solver`` package (standard library only). Meant for N <= 4, one or two
channels per direction and one or two pieces; it searches the state space exhaustively, so it
grows very fast beyond that.

Semantics (see ``min_slots``):

* Nodes 0..N-1. CW link i goes i -> i+1 (mod N); CCW link i goes i+1 -> i, so a CCW lightpath
  from s to d uses CCW links d, d+1, ..., s-1 (mod N).
* A lightpath u -> v (v != u) goes CW or CCW (either, not only the shorter way) on one channel
  c in 0..C-1, the same on every link of its arc; its hop count is (v - u) mod N (CW) or
  (u - v) mod N (CCW), at most ``hop_limit`` when given.
* Lightpaths of one slot going the same direction on the same channel must not share a link.
  Per slot a node sends at most ``max_tx`` and receives at most ``max_rx`` lightpaths.
* Each lightpath carries one piece the sender holds at the start of the slot; what arrives is
  usable from the next slot on.

Method of ``min_slots``: for D = a lower bound, D + 1, ..., decide exhaustively whether some
schedule is done within D slots (a depth-first search over slot-by-slot states, with a memo of
proven failures); the first such D is the answer. That is the first depth at which a
breadth-first search would reach a done state; a plain breadth-first search was tried first
but its layers explode on deep instances (e.g. allgather N = 4, q = 2, max_tx = 1 needs 6
slots and had 23k states after 2 slots), while the deadline makes the bounds below cut hard.
Every cut is provably safe; each is justified where it is made:
symmetry (rotations/reflections of the ring, renaming of piece indices), maximal slots only,
admissible lower bounds on the slots still needed, dominance (allgather: holding more; allreduce:
complete accumulators), no useless transfers, and for alltoall a reduction to one position per
piece.

``naive_min_slots`` is the same question answered with no cut at all (plain breadth-first
search over every lightpath set and every carried piece/operation); it is only usable for
N <= 3 (and N = 4 with one piece for allgather and allreduce) and the tests compare the two.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence

COLLECTIVES = ("allgather", "alltoall", "allreduce")

# A slot seen per node: for every node, the sorted tuple of the other ends of its lightpaths
# (senders into it, or receivers out of it; a node appears twice for two lightpaths, e.g. one
# CW and one CCW). What a slot can do depends only on this: the direction, channel and route of
# a lightpath play no role once the slot is conflict-free.
Assignment = tuple[tuple[int, ...], ...]


# --------------------------------------------------------------------------------------------
# Lightpaths and conflict-free slots
# --------------------------------------------------------------------------------------------


def _arcs(nodes: int, hop_limit: int | None) -> list[tuple[int, int, int, int]]:
    """All (direction, sender, receiver, link mask) of one channel; direction 0 = CW, 1 = CCW."""
    arcs = []
    for direction in (0, 1):
        for u in range(nodes):
            for hops in range(1, nodes):
                if hop_limit is not None and hops > hop_limit:
                    continue
                if direction == 0:
                    v = (u + hops) % nodes
                    links = [(u + k) % nodes for k in range(hops)]  # CW links u..v-1
                else:
                    v = (u - hops) % nodes
                    links = [(v + k) % nodes for k in range(hops)]  # CCW links v..u-1
                mask = 0
                for link in links:
                    mask |= 1 << link
                arcs.append((direction, u, v, mask))
    return arcs


def _disjoint_arc_sets(arcs: Sequence[tuple[int, int, int, int]]) -> list[list[tuple[int, int]]]:
    """Every set of pairwise link-disjoint arcs (one direction, one channel), as (u, v) pairs."""
    out: list[list[tuple[int, int]]] = []

    def rec(i: int, used: int, chosen: list[tuple[int, int]]) -> None:
        if i == len(arcs):
            out.append(list(chosen))
            return
        rec(i + 1, used, chosen)
        _, u, v, mask = arcs[i]
        if not used & mask:
            chosen.append((u, v))
            rec(i + 1, used | mask, chosen)
            chosen.pop()

    rec(0, 0, [])
    return out


def _all_assignments(
    nodes: int, channels: int, hop_limit: int | None, max_tx: int | None, max_rx: int | None
) -> list[tuple[int, ...]]:
    """Sender->receiver count vectors c (c[v * nodes + u] = lightpaths u -> v) of every
    conflict-free slot within the node limits."""
    if 2 * channels >= 128:
        raise ValueError("too many channels for this brute force")
    # A vector is packed into an int of 8-bit fields: the N*N pair counts, then the N receive
    # counts, then the N send counts (all < 128, so sums never carry into the next field).
    pairs = nodes * nodes
    width = 8

    def field(k: int, value: int) -> int:
        return value << (width * k)

    def limit_test(first: int, limit: int | None) -> tuple[int, int] | None:
        """(add, guard): a field x of the N fields from `first` on is <= limit iff bit 7 of
        x + 127 - limit is clear."""
        if limit is None or limit >= 2 * channels:
            return None
        add = sum(field(first + k, 127 - limit) for k in range(nodes))
        guard = sum(field(first + k, 128) for k in range(nodes))
        return add, guard

    tests = [t for t in (limit_test(pairs, max_rx), limit_test(pairs + nodes, max_tx)) if t]
    arcs = _arcs(nodes, hop_limit)
    group_vectors: list[set[int]] = []
    for direction in (0, 1):
        vectors: set[int] = set()
        for arc_set in _disjoint_arc_sets([a for a in arcs if a[0] == direction]):
            packed = 0
            for u, v in arc_set:
                packed += (
                    field(v * nodes + u, 1) + field(pairs + v, 1) + field(pairs + nodes + u, 1)
                )
            vectors.add(packed)
        group_vectors.append(vectors)
    # Every (direction, channel) pair is an independent group of link-disjoint arcs; a slot is
    # one choice per group. Combining groups one by one and dropping duplicates is exact (the
    # limits are checked on partial sums, which only grow).
    combined: set[int] = {0}
    for _channel in range(channels):
        for vectors in group_vectors:
            combined = {
                c
                for a in combined
                for b in vectors
                for c in (a + b,)
                if all(c + add & guard == 0 for add, guard in tests)
            }
    mask = (1 << width) - 1
    return sorted(tuple(c >> (width * k) & mask for k in range(pairs)) for c in combined)


def _maximal_vectors(vectors: Iterable[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """The vectors of a down-closed set that are not <= (elementwise) another one.

    The set of feasible count vectors is down-closed (removing a lightpath keeps a slot
    feasible), so c is below some other member w iff c + e_k is a member for some k with
    w_k > c_k: one look-up per entry instead of a comparison with every member.
    """
    members = set(vectors)
    kept = []
    for c in members:
        bumped = list(c)
        maximal = True
        for k in range(len(c)):
            bumped[k] += 1
            if tuple(bumped) in members:
                maximal = False
                break
            bumped[k] -= 1
        if maximal:
            kept.append(c)
    return sorted(kept)


class _Slots:
    """The maximal slots of an instance, and per-slot capacities derived from all slots.

    Only inclusion-maximal slots are enumerated. Safe because the set of feasible slots is
    closed under removing lightpaths (removal cannot create a conflict or break a node limit),
    so every feasible slot is a subset of a maximal one, and the transitions below let every
    lightpath of a maximal slot carry "nothing useful" (allgather: a piece the receiver already
    has; allreduce and alltoall: nothing), which is the same as leaving it out.
    """

    def __init__(
        self,
        nodes: int,
        channels: int,
        hop_limit: int | None,
        max_tx: int | None,
        max_rx: int | None,
    ) -> None:
        n = nodes
        vectors = _maximal_vectors(_all_assignments(n, channels, hop_limit, max_tx, max_rx))
        # per receiver v, the sorted senders of its lightpaths (a sender appears twice when it
        # reaches v on two lightpaths, e.g. one CW and one CCW). What a slot can do depends only
        # on this: direction, channel and route play no role once the slot is conflict-free.
        self.by_receiver: list[Assignment] = [
            tuple(tuple(u for u in range(n) for _ in range(c[v * n + u])) for v in range(n))
            for c in vectors
        ]
        # per sender u, the sorted receivers of its lightpaths
        self.by_sender: list[Assignment] = sorted(
            {
                tuple(tuple(v for v in range(n) for _ in range(c[v * n + u])) for u in range(n))
                for c in vectors
            }
        )
        # Most lightpaths in one slot, into one node and out of one node. Maxima over the
        # maximal slots are maxima over all slots.
        self.most = max((sum(c) for c in vectors), default=0)
        self.rx_cap = max(
            (sum(c[v * n : (v + 1) * n]) for c in vectors for v in range(n)), default=0
        )
        self.tx_cap = max(
            (sum(c[v * n + u] for v in range(n)) for c in vectors for u in range(n)), default=0
        )


# --------------------------------------------------------------------------------------------
# Symmetry: the dihedral group of the ring times permutations of the piece index
# --------------------------------------------------------------------------------------------
# Rotating the ring maps CW lightpaths to CW lightpaths of the same hop count and links to
# links; reflecting it (v -> -v) swaps CW and CCW, again preserving hop counts and conflicts.
# Node limits are per node, hence invariant. The collectives are invariant too when node labels
# inside the data (item owner, block source/destination, accumulator contents) are relabelled
# the same way, and the piece index j plays the same role for every j. So the least number of
# slots from a state equals that from any image of it, and the search keeps one image only.
# (All lower bounds below are invariant under these maps as well.)


def _node_maps(nodes: int) -> list[tuple[int, ...]]:
    maps = set()
    for k in range(nodes):
        maps.add(tuple((v + k) % nodes for v in range(nodes)))
        maps.add(tuple((k - v) % nodes for v in range(nodes)))
    return sorted(maps)


def _bit_mapper(bit_map: Sequence[int]) -> Callable[[int], int]:
    """A function that moves bit b of a mask to bit bit_map[b] (byte-wise lookup tables)."""
    tables = []
    for start in range(0, len(bit_map), 8):
        table = []
        for byte in range(256):
            out = 0
            for k in range(8):
                if byte >> k & 1 and start + k < len(bit_map):
                    out |= 1 << bit_map[start + k]
            table.append(out)
        tables.append(table)

    def apply(mask: int) -> int:
        out = 0
        for table in tables:
            out |= table[mask & 255]
            mask >>= 8
        return out

    return apply


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _growth_slots(have: int, need: int, factor: int) -> float:
    """Least t with have * factor**t >= need (math.inf if it never gets there)."""
    t = 0
    while have < need:
        if factor <= 1 or have == 0:
            return math.inf
        have *= factor
        t += 1
    return t


def _ring_distance(nodes: int, a: int, b: int) -> int:
    return min((a - b) % nodes, (b - a) % nodes)


# --------------------------------------------------------------------------------------------
# allgather and allreduce: per-receiver transitions, search with a deadline
# --------------------------------------------------------------------------------------------
# A state is a tuple with one component per node. The transition of a slot is computed receiver
# by receiver from the state at the START of the slot: what v ends up with depends only on its
# own component and on the components of the senders that reach it, so for a fixed slot the
# successor states are exactly the products of the per-receiver options.
#
# Each model also has a "potential" (allgather: pieces still missing over all nodes; allreduce:
# accumulators still incomplete) that one lightpath lowers by at most 1, so one slot lowers it
# by at most `_Slots.most`; the "gain" of a receiver option is how much it lowers it. And each
# model has an admissible lower bound on the slots still needed (documented per model).


class _Model:
    dominance = False  # True when "holding more is never worse" (see _Allgather)

    def __init__(self, nodes: int, pieces: int, slots: _Slots, hop_limit: int | None) -> None:
        self.nodes = nodes
        self.pieces = pieces
        self.slots = slots
        self.hop_limit = hop_limit

    def initial(self) -> tuple[object, ...]:
        raise NotImplementedError

    def options(self, state: tuple[object, ...], v: int, senders: tuple[int, ...]) -> list[object]:
        """What v's component can become when it receives from `senders` (never empty)."""
        raise NotImplementedError

    def gain(self, before: object, after: object) -> int:
        raise NotImplementedError

    def potential(self, state: tuple[object, ...]) -> int:
        raise NotImplementedError

    def bound(self, state: tuple[object, ...]) -> float:
        """A lower bound on the slots still needed; 0 exactly when the state is done."""
        raise NotImplementedError

    def component_done(self, component: object) -> bool:
        raise NotImplementedError

    def canonical(self, state: tuple[object, ...]) -> tuple[object, ...]:
        raise NotImplementedError


def _maximal_masks(masks: Iterable[int]) -> list[int]:
    ordered = sorted(set(masks), key=lambda m: -m.bit_count())
    kept: list[int] = []
    for m in ordered:
        if not any(m & ~k == 0 for k in kept):
            kept.append(m)
    return kept


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


class _Allgather(_Model):
    """A component is the mask of pieces a node holds; piece (i, j) is bit i * q + j.

    Holding more is never worse: from a superset state, the same schedule is feasible (every
    carried piece is still held by its sender, by induction over slots) and ends in a superset,
    and "done" only asks for pieces to be held. So sending a piece the receiver already holds is
    useless (same as not sending), only inclusion-maximal receiver options are needed, and a
    successor contained in a sibling successor (same slots left) can be dropped.

    Lower bound (each part is a valid lower bound): missing pieces over all nodes / most
    lightpaths per slot (one piece per lightpath); missing pieces of one node / most lightpaths
    into a node; a piece held by h nodes is held by at most h * (1 + tx) nodes one slot later
    (tx = most lightpaths out of a node), and must reach all N; with hop limit H a piece whose
    nearest holder is k hops from v needs ceil(k / H) slots to reach v.
    """

    dominance = True

    def __init__(self, nodes: int, pieces: int, slots: _Slots, hop_limit: int | None) -> None:
        super().__init__(nodes, pieces, slots, hop_limit)
        q = pieces
        self.n_bits = nodes * q
        self.full = (1 << self.n_bits) - 1
        self.symmetries: list[tuple[tuple[int, ...], Callable[[int], int]]] = []
        for node_map in _node_maps(nodes):
            for perm in itertools.permutations(range(q)):
                bit_map = [node_map[i] * q + perm[j] for i in range(nodes) for j in range(q)]
                self.symmetries.append((node_map, _bit_mapper(bit_map)))
        self.spread = [_growth_slots(h, nodes, 1 + slots.tx_cap) for h in range(nodes + 1)]

    def initial(self) -> tuple[object, ...]:
        q = self.pieces
        return tuple(((1 << q) - 1) << (v * q) for v in range(self.nodes))

    def options(self, state: tuple[object, ...], v: int, senders: tuple[int, ...]) -> list[object]:
        base = state[v]
        assert isinstance(base, int)
        results = {base}
        for s in senders:
            sender = state[s]
            assert isinstance(sender, int)
            offer = _bits(sender & ~base)  # only pieces v lacks (see the class docstring)
            if offer:
                results = {r | b for r in results for b in offer}
        return list(_maximal_masks(results))

    def gain(self, before: object, after: object) -> int:
        assert isinstance(before, int) and isinstance(after, int)
        return after.bit_count() - before.bit_count()

    def potential(self, state: tuple[object, ...]) -> int:
        return sum(self.n_bits - m.bit_count() for m in state if isinstance(m, int))

    def component_done(self, component: object) -> bool:
        return component == self.full

    def bound(self, state: tuple[object, ...]) -> float:
        masks: list[int] = [m for m in state if isinstance(m, int)]
        missing = [self.n_bits - m.bit_count() for m in masks]
        total = sum(missing)
        if total == 0:
            return 0
        slots = self.slots
        if slots.most == 0:
            return math.inf
        best: float = max(_ceil_div(total, slots.most), _ceil_div(max(missing), slots.rx_cap))
        n = self.nodes
        for p in range(self.n_bits):
            holders = [v for v in range(n) if masks[v] >> p & 1]
            best = max(best, self.spread[len(holders)])
            if self.hop_limit is not None:
                for v in range(n):
                    k = min(_ring_distance(n, v, h) for h in holders)
                    best = max(best, _ceil_div(k, self.hop_limit))
        return best

    def canonical(self, state: tuple[object, ...]) -> tuple[object, ...]:
        best: tuple[int, ...] | None = None
        for node_map, mapper in self.symmetries:
            image = [0] * self.nodes
            for v in range(self.nodes):
                mask = state[v]
                assert isinstance(mask, int)
                image[node_map[v]] = mapper(mask)
            t = tuple(image)
            if best is None or t < best:
                best = t
        assert best is not None
        return best


class _Allreduce(_Model):
    """A component is the tuple (A[v][0], ..., A[v][q-1]) of node-set masks.

    No superset dominance here (a larger accumulator can block a later ADD). The only dominance
    used is the following one, proved here: let S' agree with S except that some accumulators
    of S' are complete. Then S' needs at most as many slots as S. Replay S's schedule from S',
    keeping the invariant "each S'[v][j] equals S[v][j] or is complete": for each lightpath
    u -> v carrying j in S, if S'[v][j] is complete drop it; else if S'[u][j] is complete send a
    COPY (legal: u complete, v not), and drop every ADD to (v, j) in that slot (and all COPYs
    but one), so (v, j) becomes complete; otherwise keep the operation unchanged (the ADDs kept
    into (v, j) come from senders equal to theirs in S and go into an accumulator equal to S's,
    so the disjointness conditions hold and the result equals S's). The replay uses a subset of
    S's lightpaths, so it is conflict-free and within the node limits, and when S is done every
    accumulator of S' is complete.
    It is used between the options of one receiver (the other receivers fixed).

    Other safe restrictions: a COPY into a complete accumulator changes nothing (same as not
    sending), so it is not generated.

    Lower bound (each part valid): incomplete accumulators / most lightpaths per slot (a
    lightpath completes at most the one accumulator it goes into); incomplete accumulators of
    one node / most lightpaths into a node; the largest accumulator of piece j, of size M, grows
    to at most M * (1 + rx) in a slot (itself plus at most rx senders, each at most M; a COPY
    needs M = N already), and must reach N; the accumulators of piece j containing node u's
    contribution, c of them, become at most c * (1 + tx) in a slot (each lightpath adds u to at
    most one more, only senders containing u can), and must become N.
    """

    def __init__(self, nodes: int, pieces: int, slots: _Slots, hop_limit: int | None) -> None:
        super().__init__(nodes, pieces, slots, hop_limit)
        self.full = (1 << nodes) - 1
        self.symmetries: list[tuple[tuple[int, ...], tuple[int, ...], list[int]]] = []
        for node_map in _node_maps(nodes):
            table = [_bit_mapper(node_map)(m) for m in range(1 << nodes)]
            for perm in itertools.permutations(range(pieces)):
                self.symmetries.append((node_map, perm, table))
        self.grow = [_growth_slots(m, nodes, 1 + slots.rx_cap) for m in range(nodes + 1)]
        self.spread = [_growth_slots(c, nodes, 1 + slots.tx_cap) for c in range(nodes + 1)]

    def initial(self) -> tuple[object, ...]:
        return tuple(tuple(1 << v for _ in range(self.pieces)) for v in range(self.nodes))

    def component_done(self, component: object) -> bool:
        assert isinstance(component, tuple)
        return all(a == self.full for a in component)

    def gain(self, before: object, after: object) -> int:
        assert isinstance(before, tuple) and isinstance(after, tuple)
        return sum(a == self.full and b != self.full for a, b in zip(after, before, strict=True))

    def potential(self, state: tuple[object, ...]) -> int:
        return sum(a != self.full for c in state if isinstance(c, tuple) for a in c)

    def bound(self, state: tuple[object, ...]) -> float:
        comps: list[tuple[int, ...]] = [c for c in state if isinstance(c, tuple)]
        incomplete = [sum(a != self.full for a in comp) for comp in comps]
        total = sum(incomplete)
        if total == 0:
            return 0
        slots = self.slots
        if slots.most == 0:
            return math.inf
        best: float = max(_ceil_div(total, slots.most), _ceil_div(max(incomplete), slots.rx_cap))
        n = self.nodes
        for j in range(self.pieces):
            sets = [comp[j] for comp in comps]
            if all(a == self.full for a in sets):
                continue
            best = max(best, self.grow[max(a.bit_count() for a in sets)])
            for u in range(n):
                best = max(best, self.spread[sum(a >> u & 1 for a in sets)])
        return best

    def options(self, state: tuple[object, ...], v: int, senders: tuple[int, ...]) -> list[object]:
        base = state[v]
        assert isinstance(base, tuple)
        full = self.full
        per_lightpath: list[list[tuple[int, int, bool] | None]] = []
        for s in senders:
            sender = state[s]
            assert isinstance(sender, tuple)
            ops: list[tuple[int, int, bool] | None] = [None]  # None: lightpath not used
            for j in range(self.pieces):
                if base[j] == full:
                    continue  # nothing can change a complete accumulator
                if sender[j] == full:
                    ops.append((j, full, True))  # COPY (an ADD would double count)
                elif sender[j] & base[j] == 0:
                    ops.append((j, sender[j], False))  # ADD
            per_lightpath.append(ops)
        results: set[tuple[int, ...]] = set()
        for combo in itertools.product(*per_lightpath):
            added = [0] * self.pieces
            copied = [0] * self.pieces
            ok = True
            for op in combo:
                if op is None:
                    continue
                j, mask, is_copy = op
                if is_copy:
                    copied[j] += 1
                elif added[j] & mask:
                    ok = False  # two ADDs into (v, j) with overlapping sender sets
                    break
                else:
                    added[j] |= mask
            if not ok:
                continue
            if any(c > 1 or (c and a) for c, a in zip(copied, added, strict=True)):
                continue  # a COPY excludes ADDs into the same (v, j) in that slot; one COPY
            results.add(
                tuple(full if copied[j] else base[j] | added[j] for j in range(self.pieces))
            )
        # complete-dominance (class docstring): drop options another option beats
        kept = [
            r
            for r in results
            if not any(
                o != r and all(x in (y, full) for x, y in zip(o, r, strict=True)) for o in results
            )
        ]
        return list(kept)

    def canonical(self, state: tuple[object, ...]) -> tuple[object, ...]:
        best: tuple[tuple[int, ...], ...] | None = None
        for node_map, perm, table in self.symmetries:
            image: list[tuple[int, ...]] = [()] * self.nodes
            for v in range(self.nodes):
                comp = state[v]
                assert isinstance(comp, tuple)
                new = [0] * self.pieces
                for j in range(self.pieces):
                    new[perm[j]] = table[comp[j]]
                image[node_map[v]] = tuple(new)
            t = tuple(image)
            if best is None or t < best:
                best = t
        assert best is not None
        return best


def _pack(state: tuple[object, ...], width: int) -> int:
    out = 0
    for k, mask in enumerate(state):
        assert isinstance(mask, int)
        out |= mask << (k * width)
    return out


def _drop_dominated(states: set[tuple[object, ...]], width: int) -> list[tuple[object, ...]]:
    """Keep states not contained in another kept one (componentwise mask inclusion).

    Processing by decreasing size, a state is dropped only when a kept state contains it, so
    every dropped state is dominated by a state that stays (see _Allgather).
    """
    packed = sorted(((_pack(s, width), s) for s in states), key=lambda p: -p[0].bit_count())
    kept: list[int] = []
    out: list[tuple[object, ...]] = []
    for p, s in packed:
        if not any(p & ~k == 0 for k in kept):
            kept.append(p)
            out.append(s)
    return out


_Options = list[tuple[int, object]]  # (gain, component), by decreasing gain


def _receiver_options(
    model: _Model,
    state: tuple[object, ...],
    cache: dict[tuple[int, tuple[int, ...]], _Options],
    v: int,
    senders: tuple[int, ...],
) -> _Options:
    key = (v, senders)
    if key not in cache:
        if senders:
            opts = [(model.gain(state[v], o), o) for o in model.options(state, v, senders)]
            opts.sort(key=lambda go: -go[0])
        else:
            opts = [(0, state[v])]
        cache[key] = opts
    return cache[key]


def _finishes_in_one_slot(model: _Model, state: tuple[object, ...]) -> bool:
    """Whether some slot makes the state done; receivers are independent for a fixed slot."""
    cache: dict[tuple[int, tuple[int, ...]], _Options] = {}
    return any(
        all(
            any(
                model.component_done(o)
                for _, o in _receiver_options(model, state, cache, v, senders)
            )
            for v, senders in enumerate(assignment)
        )
        for assignment in model.slots.by_receiver
    )


def _successors(
    model: _Model, state: tuple[object, ...], need: int
) -> Iterator[tuple[object, ...]]:
    """The states after one slot whose potential fell by at least `need`."""
    cache: dict[tuple[int, tuple[int, ...]], _Options] = {}
    for assignment in model.slots.by_receiver:
        lists = [
            _receiver_options(model, state, cache, v, senders)
            for v, senders in enumerate(assignment)
        ]
        best = [0] * (len(lists) + 1)  # best[i]: most gain receivers i.. can still add
        for i in range(len(lists) - 1, -1, -1):
            best[i] = best[i + 1] + lists[i][0][0]
        if best[0] >= need:
            yield from _combine(lists, best, need, 0, 0, [])


def _combine(
    lists: list[_Options], best: list[int], need: int, i: int, gain: int, chosen: list[object]
) -> Iterator[tuple[object, ...]]:
    """Depth-first over the receivers' options, skipping any with too little total gain."""
    if i == len(lists):
        yield tuple(chosen)
        return
    for g, option in lists[i]:  # by decreasing gain
        if gain + g + best[i + 1] < need:
            break
        chosen.append(option)
        yield from _combine(lists, best, need, i + 1, gain + g, chosen)
        chosen.pop()


def _done_by(model: _Model, start: tuple[object, ...], deadline: int) -> bool:
    """Whether some schedule makes `start` done within `deadline` (>= 1) slots.

    Exhaustive depth-first search over the slots, with these safe cuts: a successor after
    which t slots are left is dropped when its admissible bound exceeds t (or, the same idea,
    when its potential cannot be brought to 0 in t slots); a successor equal to its parent is
    skipped (a slot that changes nothing can be removed from any schedule); for allgather a
    successor contained in a sibling is dropped (see _Allgather); and a state already shown to
    fail with at least as many slots left is not searched again (memo of proven failures).
    """
    most = model.slots.most
    width = getattr(model, "n_bits", 0)
    failed: dict[tuple[object, ...], int] = {}  # state -> most slots left known not to suffice

    def search(state: tuple[object, ...], left: int) -> bool:
        if _finishes_in_one_slot(model, state):  # also true when the state is done
            return True
        if left == 1 or failed.get(state, 0) >= left:
            return False
        need = model.potential(state) - most * (left - 1)
        found: set[tuple[object, ...]] = set()
        seen_raw: set[tuple[object, ...]] = set()
        for succ in _successors(model, state, need):
            if succ in seen_raw:
                continue
            seen_raw.add(succ)
            c = model.canonical(succ)
            if c != state and model.bound(c) <= left - 1:
                found.add(c)
        children = _drop_dominated(found, width) if model.dominance else list(found)
        children.sort(key=model.potential)  # most progress first (only speeds up success)
        for c in children:
            if search(c, left - 1):
                return True
        failed[state] = left
        return False

    return search(start, deadline)


def _deadline_search(model: _Model, max_slots: int) -> int | None:
    """The least deadline D <= max_slots with _done_by(D), trying D = bound, bound + 1, ..."""
    start = model.canonical(model.initial())
    first = model.bound(start)
    if first == 0:
        return 0
    if first > max_slots:
        return None
    for deadline in range(int(first), max_slots + 1):
        if _done_by(model, start, deadline):
            return deadline
    return None


# --------------------------------------------------------------------------------------------
# alltoall: positions of pieces, search with a deadline and admissible bounds
# --------------------------------------------------------------------------------------------
# Reduction to "one position per piece" (provably safe). Take any schedule finishing in T slots.
# For a piece p of block (s, d), follow back the lightpath that first brought p to d, the one
# that first brought p to that lightpath's sender, and so on, down to s: a chain of lightpaths
# in strictly increasing slots. Keep only the chain lightpaths of every piece: they are a subset
# of each slot's lightpaths (one piece per lightpath), hence conflict-free and within the node
# limits; every chain sender still holds p when it sends it (induction along the chain), and d
# still gets p by slot T. In this reduced schedule only the last node of p's chain ever sends p
# again, and nobody sends p once it reached d. So it is exact to model each piece by a single
# position that a lightpath from that position can move (or leave where it is), frozen once it
# is at its destination. Conversely every such schedule is a valid schedule of the real rules
# (the node at p's position holds p). Pieces of one block at the same node are interchangeable,
# so a state is, per block, the sorted tuple of its pieces' positions.
#
# Admissible lower bounds on the remaining slots of a state (each is a true lower bound):
# * link capacity: sum over pieces of the ring distance to their destination ("demand"); a
#   lightpath of h hops lowers its piece's distance by at most h, and one slot has at most
#   2 * C * N link-channels, and at most `_Slots.most` lightpaths of at most min(H, N - 1) hops,
#   so demand falls by at most min(2CN, most * min(H, N - 1)) per slot;
# * lightpaths: every piece not yet at its destination needs its own lightpath, at most
#   `_Slots.most` per slot; pieces for d not at d each need their own lightpath into d, at
#   most `_Slots.rx_cap` per slot; pieces at u that are not for u each need their own
#   lightpath out of u, at most `_Slots.tx_cap` per slot;
# * hop limit H: a piece at distance k needs at least ceil(k / H) slots.
# The search is the same deadline search as above (see _done_by), with the demand in the role
# of the potential (a successor must lower it enough to stay within capacity * slots left).


class _AlltoallSearch:
    def __init__(
        self,
        nodes: int,
        channels: int,
        pieces: int,
        slots: _Slots,
        hop_limit: int | None,
    ) -> None:
        self.nodes = nodes
        self.pieces = pieces
        self.hop_limit = hop_limit
        self.slots = slots
        self.blocks = [(s, d) for s in range(nodes) for d in range(nodes) if s != d]
        index = {b: k for k, b in enumerate(self.blocks)}
        # most link-hops one slot can use: 2CN link-channels, and `most` lightpaths of at most
        # min(H, N - 1) hops each
        longest = nodes - 1 if hop_limit is None else min(hop_limit, nodes - 1)
        self.capacity = min(2 * channels * nodes, slots.most * longest)
        self.dist = [[_ring_distance(nodes, x, d) for d in range(nodes)] for x in range(nodes)]
        # per symmetry: where block k goes, and the image of every sorted position tuple
        position_tuples = list(itertools.combinations_with_replacement(range(nodes), pieces))
        self.symmetries = [
            (
                [index[(node_map[s], node_map[d])] for (s, d) in self.blocks],
                {t: tuple(sorted(node_map[x] for x in t)) for t in position_tuples},
            )
            for node_map in _node_maps(nodes)
        ]

    def initial(self) -> tuple[tuple[int, ...], ...]:
        return tuple((s,) * self.pieces for (s, _) in self.blocks)

    def canonical(self, state: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
        best = None
        for block_map, position_map in self.symmetries:
            image: list[tuple[int, ...]] = [()] * len(self.blocks)
            for k, positions in enumerate(state):
                image[block_map[k]] = position_map[positions]
            t = tuple(image)
            if best is None or t < best:
                best = t
        assert best is not None
        return best

    def demand(self, state: tuple[tuple[int, ...], ...]) -> int:
        return sum(
            self.dist[x][d]
            for (_, d), positions in zip(self.blocks, state, strict=True)
            for x in positions
        )

    def bound(self, state: tuple[tuple[int, ...], ...]) -> float:
        """Lower bound on the remaining slots (math.inf when the state can never finish)."""
        demand = self.demand(state)
        if demand == 0:
            return 0
        slots = self.slots
        if slots.most == 0:
            return math.inf
        best = _ceil_div(demand, self.capacity)
        pending_in = [0] * self.nodes
        pending_out = [0] * self.nodes
        for (_, d), positions in zip(self.blocks, state, strict=True):
            for x in positions:
                if x != d:
                    pending_in[d] += 1
                    pending_out[x] += 1
                    if self.hop_limit is not None:
                        best = max(best, _ceil_div(self.dist[x][d], self.hop_limit))
        best = max(best, _ceil_div(sum(pending_in), slots.most))
        best = max(best, _ceil_div(max(pending_in), slots.rx_cap))
        return max(best, _ceil_div(max(pending_out), slots.tx_cap))

    def _sender_options(
        self, state: tuple[tuple[int, ...], ...], u: int, receivers: tuple[int, ...]
    ) -> list[tuple[int, tuple[tuple[int, int], ...]]]:
        """(distance gained, moves) for every way u can use its lightpaths, by decreasing gain;
        moves are (block, receiver), at most as many of a block as u has pieces of it."""
        available = {
            k: positions.count(u)
            for k, ((_, d), positions) in enumerate(zip(self.blocks, state, strict=True))
            if d != u and u in positions
        }
        found: dict[tuple[tuple[int, int], ...], int] = {}

        def rec(i: int, moves: list[tuple[int, int]], gain: int) -> None:
            if i == len(receivers):
                found[tuple(sorted(moves))] = gain
                return
            v = receivers[i]
            rec(i + 1, moves, gain)  # this lightpath carries nothing
            for k, count in available.items():
                if count:
                    d = self.blocks[k][1]
                    available[k] = count - 1
                    moves.append((k, v))
                    rec(i + 1, moves, gain + self.dist[u][d] - self.dist[v][d])
                    moves.pop()
                    available[k] = count

        rec(0, [], 0)
        return sorted(((g, m) for m, g in found.items()), reverse=True)

    def successors(
        self, state: tuple[tuple[int, ...], ...], need: int
    ) -> Iterator[tuple[tuple[int, ...], ...]]:
        """States after one slot whose demand fell by at least `need` (branch and bound)."""
        cache: dict[tuple[int, tuple[int, ...]], list[tuple[int, tuple[tuple[int, int], ...]]]] = {}
        for assignment in self.slots.by_sender:
            per_sender = []
            for u, receivers in enumerate(assignment):
                if receivers:
                    key = (u, receivers)
                    if key not in cache:
                        cache[key] = self._sender_options(state, u, receivers)
                    per_sender.append((u, cache[key]))
            # best[i] = most gain the senders i.. can still add
            best = [0] * (len(per_sender) + 1)
            for i in range(len(per_sender) - 1, -1, -1):
                best[i] = best[i + 1] + per_sender[i][1][0][0]
            if best[0] >= need:
                yield from self._combine(state, per_sender, best, need, 0, 0, [])

    def _combine(
        self,
        state: tuple[tuple[int, ...], ...],
        per_sender: list[tuple[int, list[tuple[int, tuple[tuple[int, int], ...]]]]],
        best: list[int],
        need: int,
        i: int,
        gain: int,
        chosen: list[tuple[int, tuple[tuple[int, int], ...]]],
    ) -> Iterator[tuple[tuple[int, ...], ...]]:
        """Depth-first over the senders' options, skipping any with too little total gain."""
        if i == len(per_sender):
            new = [list(p) for p in state]
            for u, moves in chosen:
                for k, v in moves:
                    new[k].remove(u)
                    new[k].append(v)
            yield tuple(tuple(sorted(p)) for p in new)
            return
        u, options = per_sender[i]
        for g, moves in options:  # sorted by decreasing gain
            if gain + g + best[i + 1] < need:
                break
            chosen.append((u, moves))
            yield from self._combine(state, per_sender, best, need, i + 1, gain + g, chosen)
            chosen.pop()

    def min_slots(self, max_slots: int) -> int | None:
        start = self.canonical(self.initial())
        first = self.bound(start)
        if first == 0:
            return 0
        if first > max_slots:
            return None
        for deadline in range(int(first), max_slots + 1):
            if self._done_by(start, deadline):
                return deadline
        return None

    def _done_by(self, start: tuple[tuple[int, ...], ...], deadline: int) -> bool:
        """Like the module-level _done_by (same cuts, no dominance), for piece positions."""
        failed: dict[tuple[tuple[int, ...], ...], int] = {}

        def search(state: tuple[tuple[int, ...], ...], left: int) -> bool:
            if self.demand(state) == 0:
                return True
            if failed.get(state, 0) >= left:
                return False
            need = self.demand(state) - self.capacity * (left - 1)
            found: set[tuple[tuple[int, ...], ...]] = set()
            seen_raw: set[tuple[tuple[int, ...], ...]] = set()
            for succ in self.successors(state, need):
                if succ in seen_raw:
                    continue
                seen_raw.add(succ)
                if self.bound(succ) > left - 1:
                    continue
                if left == 1:
                    return True  # bound 0: succ is done
                c = self.canonical(succ)
                if c != state:
                    found.add(c)
            for c in sorted(found, key=self.demand):
                if search(c, left - 1):
                    return True
            failed[state] = left
            return False

        return search(start, deadline)


def _check_args(
    collective: str,
    nodes: int,
    channels: int,
    pieces: int,
    hop_limit: int | None,
    max_tx: int | None,
    max_rx: int | None,
    max_slots: int,
) -> None:
    if collective not in COLLECTIVES:
        raise ValueError(f"unknown collective {collective!r}")
    if nodes < 1 or channels < 1 or pieces < 1 or max_slots < 0:
        raise ValueError("nodes, channels and pieces must be >= 1, max_slots >= 0")
    for name, value in (("hop_limit", hop_limit), ("max_tx", max_tx), ("max_rx", max_rx)):
        if value is not None and value < 0:
            raise ValueError(f"{name} must be >= 0")


def min_slots(
    collective: str,
    nodes: int,
    channels: int,
    pieces: int = 1,
    hop_limit: int | None = None,
    max_tx: int | None = None,
    max_rx: int | None = None,
    max_slots: int = 12,
) -> int | None:
    """Least number of slots, or None if not possible within max_slots.

    collective: "allgather" (node v starts with pieces (v, j), everybody must hold all),
    "alltoall" (node s starts with the pieces of blocks (s, d); d must get every piece of every
    (s, d); any holder may forward a copy) or "allreduce" (one accumulator per node and piece,
    starting as {v}; ADD needs disjoint sets, also pairwise among the ADDs a (v, j) receives in
    one slot; COPY needs a complete sender and excludes ADDs into that (v, j) in that slot).

    Exact exhaustive search with the safe cuts documented in this module (see the module
    docstring). Intended for N <= 4, channels <= 2, pieces <= 2 (all-reduce included; each of
    those with C = 1 takes at most about a second); larger instances may take very long.
    """
    _check_args(collective, nodes, channels, pieces, hop_limit, max_tx, max_rx, max_slots)
    slots = _Slots(nodes, channels, hop_limit, max_tx, max_rx)
    if collective == "alltoall":
        return _AlltoallSearch(nodes, channels, pieces, slots, hop_limit).min_slots(max_slots)
    model: _Model
    if collective == "allgather":
        model = _Allgather(nodes, pieces, slots, hop_limit)
    else:
        model = _Allreduce(nodes, pieces, slots, hop_limit)
    return _deadline_search(model, max_slots)


# --------------------------------------------------------------------------------------------
# Unpruned reference (tiny instances only)
# --------------------------------------------------------------------------------------------


def _all_lightpath_sets(
    nodes: int, channels: int, hop_limit: int | None, max_tx: int | None, max_rx: int | None
) -> list[list[tuple[int, int]]]:
    """Every conflict-free slot within the node limits, as a list of (sender, receiver)."""
    arcs = [
        (direction, c, u, v, mask)
        for c in range(channels)
        for (direction, u, v, mask) in _arcs(nodes, hop_limit)
    ]
    out: list[list[tuple[int, int]]] = []

    def rec(i: int, used: dict[tuple[int, int], int], chosen: list[tuple[int, int]]) -> None:
        if i == len(arcs):
            tx = [0] * nodes
            rx = [0] * nodes
            for u, v in chosen:
                tx[u] += 1
                rx[v] += 1
            if (max_tx is None or max(tx, default=0) <= max_tx) and (
                max_rx is None or max(rx, default=0) <= max_rx
            ):
                out.append(list(chosen))
            return
        rec(i + 1, used, chosen)
        direction, c, u, v, mask = arcs[i]
        key = (direction, c)
        if not used.get(key, 0) & mask:
            chosen.append((u, v))
            old = used.get(key, 0)
            used[key] = old | mask
            rec(i + 1, used, chosen)
            used[key] = old
            chosen.pop()

    rec(0, {}, [])
    return out


def naive_min_slots(
    collective: str,
    nodes: int,
    channels: int,
    pieces: int = 1,
    hop_limit: int | None = None,
    max_tx: int | None = None,
    max_rx: int | None = None,
    max_slots: int = 12,
) -> int | None:
    """Same answer as ``min_slots`` by plain breadth-first search: every conflict-free lightpath
    set, every carried piece (and operation), no symmetry, dominance, bound or other cut. Only
    for tiny instances (N <= 3; N = 4 with one piece for allgather/allreduce); it enumerates
    all lightpath sets and all states explicitly."""
    _check_args(collective, nodes, channels, pieces, hop_limit, max_tx, max_rx, max_slots)
    q = pieces
    slots = _all_lightpath_sets(nodes, channels, hop_limit, max_tx, max_rx)
    full_nodes = (1 << nodes) - 1
    state: tuple[int, ...]
    if collective == "allgather":
        # state: per node a frozenset-like mask of pieces (i, j) -> bit i*q + j
        state = tuple(((1 << q) - 1) << (v * q) for v in range(nodes))
        goal = tuple([(1 << (nodes * q)) - 1] * nodes)
    elif collective == "alltoall":
        blocks = [(s, d) for s in range(nodes) for d in range(nodes) if s != d]
        own = [0] * nodes
        want = [0] * nodes
        for k, (s, d) in enumerate(blocks):
            own[s] |= ((1 << q) - 1) << (k * q)
            want[d] |= ((1 << q) - 1) << (k * q)
        state = tuple(own)
    else:
        # state: A[v][j] at index v*q + j
        state = tuple(1 << v for v in range(nodes) for _ in range(q))

    def is_done(st: tuple[int, ...]) -> bool:
        if collective == "allgather":
            return st == goal
        if collective == "alltoall":
            return all(st[d] & want[d] == want[d] for d in range(nodes))
        return all(a == full_nodes for a in st)

    def successors(st: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        for slot in slots:
            if collective in ("allgather", "alltoall"):
                choices = [_bits(st[u]) for u, _ in slot]  # any piece the sender holds
                for combo in itertools.product(*choices):
                    new = list(st)
                    for (_, v), bit in zip(slot, combo, strict=True):
                        new[v] |= bit
                    yield tuple(new)
            else:
                ops_per_lp = [[(j, op) for j in range(q) for op in ("ADD", "COPY")] for _ in slot]
                for ops in itertools.product(*ops_per_lp):
                    result = _apply_allreduce(st, slot, ops, nodes, q)
                    if result is not None:
                        yield result

    layer = {state}
    seen = {state}
    for depth in range(max_slots + 1):
        if any(is_done(s) for s in layer):
            return depth
        if depth == max_slots:
            return None
        nxt = set()
        for st in layer:
            for succ in successors(st):
                if succ not in seen:
                    if is_done(succ):
                        return depth + 1  # layer depth + 1 holds a done state
                    seen.add(succ)
                    nxt.add(succ)
        if not nxt:
            return None
        layer = nxt
    return None


def _apply_allreduce(
    st: tuple[int, ...],
    slot: Sequence[tuple[int, int]],
    ops: Sequence[tuple[int, str]],
    nodes: int,
    q: int,
) -> tuple[int, ...] | None:
    """One allreduce slot straight from the rules, or None if an operation is illegal."""
    full = (1 << nodes) - 1
    adds: dict[tuple[int, int], list[int]] = {}
    copies: dict[tuple[int, int], int] = {}
    for (u, v), (j, op) in zip(slot, ops, strict=True):
        a_u = st[u * q + j]
        if op == "COPY":
            if a_u != full:
                return None
            copies[(v, j)] = copies.get((v, j), 0) + 1
        else:
            adds.setdefault((v, j), []).append(a_u)
    new = list(st)
    for (v, j), sets in adds.items():
        if (v, j) in copies:
            return None
        acc = st[v * q + j]
        for s in sets:
            if acc & s:
                return None  # overlaps the receiver or another ADD of this slot
            acc |= s
        new[v * q + j] = acc
    for v, j in copies:
        new[v * q + j] = full
    return tuple(new)
