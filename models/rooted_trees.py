"""Rooted whole-ring trees: the reduce-scatter's and all-reduce's `synth` shapes with `roots`
(SPEC 12, docs/achievable.md).

Fact 3c's least tree within S slots, F(N, S) hops, is what every chunk's contributions cost
to meet at one node, and the achievable bound charges exactly that. `synth`'s windows reach
it only level by level (a pipeline top at stride s <= F w takes N / (2 s) slots), and the
tree level of `models.synthesis` runs one tree per class, translated to every node, so a
slot's every distinct shift loads every link by its length: an 80-hop edge is 80 lightpaths
a link, more than 64 channels, and the whole ring's least tree cannot be packed.

Here the vector's N chunks are cut into K *parts*: part k is the chunks of the owners
lo_k .. hi_k - 1 (lo_k = k N // K, about g = N / K consecutive ones; an all-reduce, whose
chunks have no owners, cuts the N q pieces instead, `part_pieces`), and it runs along the
least tree of the whole ring (`least_tree(N, H, S)`) translated to its *root*, the middle
owner r_k. An edge p -> p + d of the tree first reached in slot t becomes, for every part,
node r_k + p sending to r_k + p + d (all-gather way round; a reduction runs the slots in
reverse, every edge reversed). Only K translates share the ring, not N, so a slot's long
edges load a link about d K / N times; and the parts whose edges leave one node along one
shift share its lightpaths. Per slot every pair carries its parts' pieces on as many
lightpaths as the slot's *pieces per lightpath* p need: the least p at which every link of
both directions carries at most C lightpaths (`_least_payload`, by bisection; exact, the
links counted one by one).

- Reduce-scatter: the S slots in reverse, node r_k + p + d adding its partial sum of part k
  (its subtree's contributions, which reached it in earlier slots) into its parent's; then a
  *scatter* slot: each root sends every owner of its part that owner's complete chunk (COPY),
  on lightpaths of at most g / 2 hops. S + 1 slots. Where that one slot does not fit (a part
  of g owners puts about g / 2 lightpaths on its root's links, or its owners are beyond the
  hop limit), two slots through relays (`_scatter`): S + 2.
- All-gather: the reduce-scatter reversed in time, every lightpath reversed (the same links
  and loads): each owner sends its item to its root (through its relay where the scatter
  has two slots), then the S slots forwards carry each part's items from its root.
- All-reduce: the same S reduction slots, then the tree forwards (COPY of the complete sums
  from each root): 2 S slots, each chunk's sum formed at its root only (reduce-then-broadcast).
- Mirror (`part_signs`): every other part may run the tree's mirror image (offsets and shifts
  negated). The least tree is not symmetric in every slot (N = 1024, 9 slots: slot 4 has
  edges of 164 hops CCW, 110 CW); a mirrored half of the parts moves as much each way, and
  their edges land on other links.

Measured (bench/achievable.py, w = 64, 80 hops; docs/bench-achievable.md): the
reduce-scatter at N = 4096 1.08x the achievable at 4 MiB (27-slot trees from 256 roots,
mirrored) and 1.13x at 64 MiB (1.31x and 1.29x with the window levels), at N = 1024,
4 MiB 1.24x (1.37x) and 64 MiB 1.15x (10-slot trees from 341 roots, mirrored; 1.19x); the
all-reduce at N = 256, 4 MiB 1.53x (1.63x before Fact 3h; 1.89x swept) and at N = 1024,
64 MiB 1.48x (1.57x before Fact 3h raised the bound; the same trees, parts of 96 or 97
pieces; against the old bound 1.58x with parts of whole owners' chunks, 1.69x unmirrored
from 256 roots, 1.70x with the window levels). Why not nearer:
README "Known limits".
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from models.achievable import least_tree_edges
from models.ring import Direction
from models.stage import IntArray, Reduction, Stage, StageFlow

ROOTED_GROUPS = (3, 4, 8, 16, 32)  # owners per part g = N / K the search tries
ROOTED_SLOTS = 3  # tree depths the search offers per part size and mirror: the shallowest
ROOTED_DEPTH = 16  # that fit, from the least reaching N / 2 to this many slots above it
ROOTED_MIRRORS = (0, 1)  # without and with every other part's tree mirrored
ROOTED_PIECES = (32,)  # pieces per chunk the search tries
# The search offers rooted shapes while N times their stage count stays within this: their
# stages are neither translation-invariant nor built by solver.constructions, so the RWA
# colours them arc by arc (N = 4096: about 6 s for a reduce-scatter's 28 stages, 16 s for an
# all-reduce's 54, against the shape search's 30 s budget).
ROOTED_WORK_LIMIT = 2**17


@dataclass(frozen=True, eq=False)
class RootedSlot:
    """One slot of the rooted trees, all-gather way round: the pairs (sender, signed shift,
    lightpaths) and the pieces a lightpath carries; `parents` / `shifts` are the base tree's
    edges first reached in the slot (offsets from the root), which every part runs."""

    senders: IntArray
    moves: IntArray  # signed shift per pair: > 0 CW
    lightpaths: IntArray
    per_lightpath: int
    parents: IntArray
    shifts: IntArray


@dataclass(frozen=True, eq=False)
class Scatter:
    """One slot of the reduce-scatter's scatter (its reverse is a slot of the all-gather's
    gather): per chunk moved, who sends it to whom; per (sender, shift) pair, the lightpaths
    and the pieces each carries."""

    senders: IntArray  # per pair
    moves: IntArray  # per pair, signed hops: > 0 CW
    lightpaths: IntArray  # per pair
    per_lightpath: int
    chunk_senders: IntArray  # per chunk moved
    chunk_receivers: IntArray
    chunks: IntArray


@dataclass(frozen=True, eq=False)
class RootedTrees:
    """The parts, their roots and the slots of one rooted-trees shape on an N-node ring."""

    nodes: int
    pieces: int  # per chunk
    first: IntArray  # per part: its first piece (`part_pieces`)
    stop: IntArray  # per part: one past its last piece
    roots: IntArray  # per part: its root (the middle owner)
    signs: IntArray  # per part: 1 runs the tree as computed, -1 its mirror image
    slots: tuple[RootedSlot, ...]  # all-gather way round
    scatter: tuple[Scatter, ...]  # the reduce-scatter's last slots; () when built without

    @property
    def parts(self) -> int:
        return len(self.roots)

    def part_data(self, part: int) -> IntArray:
        """The data of part k: piece j of chunk c is c * pieces + j."""
        return np.arange(int(self.first[part]), int(self.stop[part]), dtype=np.int64)


def part_bounds(nodes: int, parts: int) -> tuple[IntArray, IntArray, IntArray]:
    """Per part: first owner k N // K, one past its last, and its root, the middle owner."""
    low = (np.arange(parts, dtype=np.int64) * nodes) // parts
    high = (np.arange(1, parts + 1, dtype=np.int64) * nodes) // parts
    return low, high, low + (high - low - 1) // 2


def part_pieces(nodes: int, parts: int, pieces: int, whole_chunks: bool) -> tuple[IntArray,
                                                                               IntArray]:
    """Per part, its first piece and one past its last. With `whole_chunks` (the
    reduce-scatter's and all-gather's parts, whose chunks end at or start from their
    owners) the pieces of its owners' chunks; without (the all-reduce's: no chunk has an
    owner) the N q pieces cut as evenly as whole pieces allow, so no part is a chunk larger
    than the others: at N = 1024, 341 parts of 3 owners but one of 4, whose pairs set the
    pieces a lightpath of the slots they cross (1.209 ms; 96 or 97 pieces a part: 1.198 ms,
    session 35)."""
    if whole_chunks:
        low, high, _ = part_bounds(nodes, parts)
        return low * pieces, high * pieces
    total = nodes * pieces
    k = np.arange(parts + 1, dtype=np.int64)
    cuts = (k * total) // parts
    return cuts[:-1], cuts[1:]


def _link_loads(nodes: int, senders: IntArray, moves: IntArray, counts: IntArray) -> int:
    """The busiest link of either direction when `counts[i]` lightpaths go from senders[i]
    `moves[i]` hops (CW when > 0, else CCW): difference arrays over the doubled ring."""
    busiest = 0
    for way in (moves > 0, moves < 0):
        start = np.where(moves[way] > 0, senders[way], senders[way] + moves[way]) % nodes
        length = np.abs(moves[way])
        diff = np.bincount(start, counts[way], minlength=2 * nodes + 1)
        diff -= np.bincount(start + length, counts[way], minlength=2 * nodes + 1)
        load = np.cumsum(diff)[: 2 * nodes]
        busiest = max(busiest, int((load[:nodes] + load[nodes:]).max(initial=0)))
    return busiest


VOLUME_CLASSES_MOST = 64  # distinct pair volumes `_least_payload` counts per link at once


def _class_loads(nodes: int, senders: IntArray, moves: IntArray, classes: IntArray,
                 count: int) -> npt.NDArray[np.int64]:
    """Per link of either direction (2 N rows: CW links, then CCW) and per volume class, how
    many pairs cross it: difference arrays over the doubled ring, one column per class."""
    out = np.zeros((2, nodes, count), dtype=np.int64)
    for way, (index, cw) in enumerate(((moves > 0, True), (moves < 0, False))):
        start = np.where(cw, senders[index], senders[index] + moves[index]) % nodes
        end = start + np.abs(moves[index])
        bins = (2 * nodes + 1) * count
        diff = np.bincount(start * count + classes[index], minlength=bins)
        diff -= np.bincount(end * count + classes[index], minlength=bins)
        load = np.cumsum(diff.reshape(2 * nodes + 1, count), axis=0)[: 2 * nodes]
        out[way] = load[:nodes] + load[nodes:]
    return out.reshape(2 * nodes, count)


def _least_payload(
    nodes: int, senders: IntArray, moves: IntArray, volume: IntArray, channels: int
) -> int | None:
    """The least pieces per lightpath p with every link carrying at most `channels`
    lightpaths when each pair sends ceil(volume / p); None when one lightpath per pair is
    already too many.

    A link's lightpaths sum_j ceil(v_j / p) change only where some ceil(v_j / p) does, at
    p = ceil(v / k), so the least p that fits is one of those with k <= channels (no pair
    has more lightpaths than a link's channels). The pairs' volumes take few values (parts
    of equal size, merged a few at a time): the pairs crossing each link are counted once
    per volume (`_class_loads`), and each candidate p tried (by bisection, from the busiest
    link's pieces over the channels, a floor on p) is then a product of that table with the
    lightpaths each volume needs. Many distinct volumes fall back to counting the pairs'
    links at each p tried."""
    most = int(volume.max(initial=1))
    distinct, classes = np.unique(volume, return_inverse=True)
    if len(distinct) > VOLUME_CLASSES_MOST:
        return _least_payload_bisected(nodes, senders, moves, volume, channels)
    crossing = _class_loads(nodes, senders, moves, classes, len(distinct))
    if int(crossing.sum(axis=1).max(initial=0)) > channels:
        return None
    low = max(1, -(-int((crossing @ distinct).max(initial=0)) // channels))
    ks = np.arange(1, channels + 1, dtype=np.int64)
    candidates = np.unique(-(-distinct[:, None] // ks[None, :]))
    candidates = np.union1d(candidates[(candidates >= low) & (candidates <= most)], [most])
    table = crossing.astype(np.float64)  # exact at these sizes; a BLAS product

    def fits(p: int) -> bool:
        return float((table @ (-(-distinct // p)).astype(np.float64)).max()) <= channels

    low_at, high_at = 0, len(candidates) - 1  # the last (the largest volume) always fits
    while low_at < high_at:  # the load falls as p grows: bisect over the candidates
        mid = (low_at + high_at) // 2
        if fits(int(candidates[mid])):
            high_at = mid
        else:
            low_at = mid + 1
    return int(candidates[low_at])


def _least_payload_bisected(
    nodes: int, senders: IntArray, moves: IntArray, volume: IntArray, channels: int
) -> int | None:
    """`_least_payload` by bisection on p, every link counted at each p tried."""
    most = int(volume.max(initial=1))
    if _link_loads(nodes, senders, moves, np.ones_like(volume)) > channels:
        return None
    # p lightpaths' worth of pieces cross the busiest link at most channels times: p is at
    # least its pieces / channels; double from there until it fits, then bisect
    low = max(1, -(-_link_loads(nodes, senders, moves, volume) // channels))
    high = min(low, most)
    while high < most and _link_loads(nodes, senders, moves, -(-volume // high)) > channels:
        low, high = high + 1, min(2 * high, most)
    while low < high:  # the load falls as p grows: bisect for the least that fits
        mid = (low + high) // 2
        if _link_loads(nodes, senders, moves, -(-volume // mid)) <= channels:
            high = mid
        else:
            low = mid + 1
    return low


def part_signs(parts: int, mirror: bool) -> IntArray:
    """Per part, 1 (the tree as computed) or -1 (its mirror image: every offset and shift
    negated); with `mirror` the odd parts are mirrored."""
    k = np.arange(parts, dtype=np.int64)
    return np.where(mirror & (k % 2 == 1), -1, 1).astype(np.int64)


def merged_pairs(
    nodes: int, parents: IntArray, shifts: IntArray, parts: int, mirror: bool,
    sizes: IntArray,
) -> tuple[IntArray, IntArray, IntArray]:
    """The pairs every part's translate of one slot's edges (offsets `parents` from the
    root, signed `shifts`) makes, mirrored for the parts `part_signs` says, merged per
    (sender, shift): senders, shifts and the data they carry, `sizes[k]` (each > 0) per
    part k."""
    roots = part_bounds(nodes, parts)[2]
    signs = part_signs(parts, mirror)[:, None]
    senders = ((roots[:, None] + signs * parents[None, :]) % nodes).reshape(-1)
    moves = (signs * shifts[None, :]).reshape(-1)
    data = np.broadcast_to(sizes[:, None], (parts, len(shifts))).reshape(-1)
    # merge per (sender, shift): a slot has few distinct shifts, so count over
    # sender x shift index (no sort of the K x edges pairs: 0.35 of 0.69 s at N = 4096)
    distinct = np.unique(np.concatenate([shifts, -shifts]))
    key = senders * len(distinct) + np.searchsorted(distinct, moves)
    merged = np.bincount(key, data, minlength=nodes * len(distinct)).astype(np.int64)
    pairs = np.flatnonzero(merged)  # every part has some data
    return pairs // len(distinct), distinct[pairs % len(distinct)], merged[pairs]


def slot_payload(
    nodes: int, parents: IntArray, shifts: IntArray, parts: int, pieces: int, channels: int,
    mirror: bool, whole_chunks: bool = True,
) -> tuple[int | None, float]:
    """One slot of rooted trees along any tree's edges (`merged_pairs`): the least pieces
    per lightpath at which every link fits `channels` (None when one lightpath a pair is
    already too many; what `rooted_trees` builds) and the busiest link's pieces over the
    channels (the same with pieces per lightpath left fractional: a floor no rounding
    reaches). Parts as `part_pieces` cuts them. Used to measure trees other than the least
    (`bench/rooted_packing.py`)."""
    first, stop = part_pieces(nodes, parts, pieces, whole_chunks)
    senders, moves, volume = merged_pairs(nodes, parents, shifts, parts, mirror, stop - first)
    busiest = _link_loads(nodes, senders, moves, volume) / channels
    return _least_payload(nodes, senders, moves, volume, channels), busiest


@lru_cache(maxsize=1024)
def rooted_fit(
    nodes: int, hop_limit: int, slots: int, parts: int, pieces: int, channels: int,
    mirror: bool = False, scatter: bool = True,
) -> str | None:
    """Why `rooted_trees` of these arguments cannot be built, or None when they can: its
    refusals without its pieces per lightpath (one lightpath a pair per slot is what decides
    them), so the search can offer a shape without paying for its build."""
    if scatter:
        found = _scatter(nodes, hop_limit, parts, pieces, channels)
        if isinstance(found, str):
            return found
    edges = least_tree_edges(nodes, hop_limit, slots)
    ones = np.ones(parts, dtype=np.int64)  # only the pairs count here, not their data
    for t in range(slots, 0, -1):  # the last slots carry the most pairs: those first
        senders, moves, owners = merged_pairs(nodes, *edges[t - 1], parts, mirror, ones)
        if _link_loads(nodes, senders, moves, np.ones_like(owners)) > channels:
            return _too_many(t, parts, channels)
    return None


def _too_many(slot: int, parts: int, channels: int) -> str:
    return (f"slot {slot} of the {parts} trees needs more than the {channels} channels one "
            "way even at one lightpath per pair; use fewer roots or more slots")


@lru_cache(maxsize=256)
def rooted_trees(
    nodes: int, hop_limit: int, slots: int, parts: int, pieces: int, channels: int,
    mirror: bool = False, scatter: bool = True,
) -> RootedTrees | str:
    """The rooted trees of K = `parts` parts along the ring's least tree within `slots` slots
    (lightpaths of at most `hop_limit` hops), chunks cut into `pieces`, every other part's
    tree mirrored with `mirror` (`part_signs`), with the reduce-scatter's scatter slot when
    `scatter` (the all-reduce broadcasts from the roots instead and is built without it); or
    why they cannot be built: a slot (or the scatter) cannot fit one lightpath per pair into
    the channels, or (scatter) a root is farther than the hop limit from an owner of its
    part. Raises ValueError when `slots` slots cannot reach the node N / 2 away. Remembered
    (a search asks for each shape's plan again when it builds its stages and its
    schedule)."""
    return _build(nodes, hop_limit, slots, parts, pieces, channels, mirror, scatter)


def _build(
    nodes: int, hop_limit: int, slots: int, parts: int, pieces: int, channels: int,
    mirror: bool, scatter: bool,
) -> RootedTrees | str:
    roots = part_bounds(nodes, parts)[2]
    first, stop = part_pieces(nodes, parts, pieces, whole_chunks=scatter)
    last: tuple[Scatter, ...] = ()
    if scatter:  # first: it is cheap, and refuses large parts at any depth
        found = _scatter(nodes, hop_limit, parts, pieces, channels)
        if isinstance(found, str):
            return found
        last = found
    out = []
    edges = least_tree_edges(nodes, hop_limit, slots)
    # the last slots carry the most pairs: those first, so a shape that does not fit is
    # refused at its first pair count (the search tries up to ROOTED_DEPTH depths of every
    # part size, most of them refused where channels are few: N = 4096, w = 8, 70 refusals
    # took 4.3 s and 530 MB with every slot's pairs computed and kept)
    for t in range(slots, 0, -1):
        parents, shifts = edges[t - 1]
        senders, moves, volume = merged_pairs(nodes, parents, shifts, parts, mirror,
                                              stop - first)
        per = _least_payload(nodes, senders, moves, volume, channels)
        if per is None:
            return _too_many(t, parts, channels)
        out.append(RootedSlot(senders, moves, -(-volume // per), per, parents, shifts))
    out.reverse()
    return RootedTrees(nodes, pieces, first, stop, roots, part_signs(parts, mirror), tuple(out),
                       last)


RELAYS_MOST = 16  # the most relays a part's two-slot scatter is tried with


def _scatter_slot(nodes: int, senders: IntArray, receivers: IntArray, chunks: IntArray,
                  pieces: int, channels: int) -> Scatter | None:
    """The chunks `senders[i]` -> `receivers[i]` (one part's range each: the signed shift is
    their difference, never across 0) in one slot, merged per pair; None when one lightpath
    a pair is already more than the channels."""
    moves = receivers - senders
    key = senders * (2 * nodes + 1) + (moves + nodes)
    pairs, inverse = np.unique(key, return_inverse=True)
    volume = np.bincount(inverse, minlength=len(pairs)).astype(np.int64) * pieces
    pair_senders, pair_moves = pairs // (2 * nodes + 1), pairs % (2 * nodes + 1) - nodes
    per = _least_payload(nodes, pair_senders, pair_moves, volume, channels) if len(pairs) else 1
    if per is None:
        return None
    return Scatter(pair_senders, pair_moves, -(-volume // per), per, senders, receivers, chunks)


def scatter_slots(nodes: int, hop_limit: int, parts: int, pieces: int, channels: int) -> int:
    """The slots the reduce-scatter's scatter of these parts takes (1, or 2 through relays);
    0 when it cannot be built."""
    found = _scatter(nodes, hop_limit, parts, pieces, channels)
    return 0 if isinstance(found, str) else len(found)


@lru_cache(maxsize=64)
def _scatter(nodes: int, hop_limit: int, parts: int, pieces: int,
             channels: int) -> tuple[Scatter, ...] | str:
    """The reduce-scatter's last slots: root r_k sends owner c of its part chunk c (`pieces`
    pieces), c != r_k, in one slot when that fits the channels and the hop limit; else in
    two through relays: the part cut into R sub-blocks (R = 2 .. RELAYS_MOST), each one's
    middle owner its relay, the root sends each relay its sub-block's chunks, then each relay
    (the root for its own sub-block's owners where it is the relay) every owner of its
    sub-block its chunk; of the R that fit, the one of the fewest pieces a lightpath over
    both slots. Or why neither can be built. Remembered: the same for every tree depth and
    mirror the search tries (N = 4096: 15 relay counts tried per refused part size)."""
    low, high, roots = part_bounds(nodes, parts)
    owners = np.arange(nodes, dtype=np.int64)
    part_of = np.searchsorted(high, owners, side="right")
    root = roots[part_of]
    away = owners != root
    farthest = int(np.abs(owners - root).max(initial=0))
    if farthest <= hop_limit:
        direct = _scatter_slot(nodes, root[away], owners[away], owners[away], pieces, channels)
        if direct is not None:
            return (direct,)
    size = (high - low)[part_of]
    place = owners - low[part_of]
    best: tuple[int, tuple[Scatter, ...]] | None = None
    for relays in range(2, min(RELAYS_MOST, int(size.max(initial=1))) + 1):
        block = (place * relays) // size
        first = low[part_of] + (block * size) // relays
        last = low[part_of] + ((block + 1) * size) // relays  # one past
        relay = first + (last - 1 - first) // 2
        if max(int(np.abs(relay - root).max(initial=0)),
               int(np.abs(owners - relay).max(initial=0))) > hop_limit:
            continue
        to_relay = away & (relay != root)
        to_owner = away & (owners != relay)
        one = _scatter_slot(nodes, root[to_relay], relay[to_relay], owners[to_relay], pieces,
                            channels)
        two = _scatter_slot(nodes, relay[to_owner], owners[to_owner], owners[to_owner],
                            pieces, channels) if one is not None else None
        if one is None or two is None:
            continue
        cost = one.per_lightpath + two.per_lightpath
        if best is None or cost < best[0]:
            best = (cost, (one, two))
    if best is not None:
        return best[1]
    if farthest > hop_limit:
        return (
            f"a root is {farthest} hops from an owner of its part, more than the hop limit "
            f"{hop_limit}, and no two-slot scatter through relays keeps within it and the "
            f"channels; use more roots (parts of at most {2 * hop_limit + 1} owners)"
        )
    return (
        f"the scatter from the roots needs more than the {channels} channels one way, even "
        "in two slots through relays; use more roots"
    )


def slot_stage(nodes: int, slot: RootedSlot | Scatter, reverse: bool, label: str) -> Stage:
    """A slot's lightpaths as a stage, directions pinned (CW for a positive shift); `reverse`
    (a reduction) sends every pair the other way: from the receiver back to the sender."""
    senders, moves = slot.senders, slot.moves
    if reverse:
        senders, moves = (senders + moves) % nodes, -moves
    return Stage.from_demands(
        nodes, senders, (senders + moves) % nodes, slot.lightpaths,
        np.where(moves > 0, Direction.CW, Direction.CCW).astype(np.int64), label,
        slot.per_lightpath,
    )


def reduce_stages(plan: RootedTrees, scatter: bool) -> list[Stage]:
    """The reduction slots (the trees' slots in reverse, every edge reversed), then, for a
    reduce-scatter, the scatter."""
    n, depth = plan.nodes, len(plan.slots)
    out = [slot_stage(n, slot, True, f"rooted trees reduce slot {depth - i}")
           for i, slot in enumerate(reversed(plan.slots))]
    if scatter:
        assert plan.scatter, "built without the scatter"
        out += [slot_stage(n, slot, False, label)
                for slot, label in zip(plan.scatter, _scatter_labels(plan), strict=True)]
    return out


def _scatter_labels(plan: RootedTrees, gather: bool = False) -> list[str]:
    """The scatter slots' labels in the reduce-scatter's order (the gather's, reversed)."""
    if len(plan.scatter) == 1:
        return ["rooted trees gather" if gather else "rooted trees scatter"]
    if gather:
        return ["rooted trees gather from relays", "rooted trees gather to relays"]
    return ["rooted trees scatter to relays", "rooted trees scatter from relays"]


def broadcast_stages(plan: RootedTrees) -> list[Stage]:
    """The trees' slots forwards: each root's complete sums out to every node."""
    return [slot_stage(plan.nodes, slot, False, f"rooted trees broadcast slot {i + 1}")
            for i, slot in enumerate(plan.slots)]


def _edge_flow(plan: RootedTrees, slot: RootedSlot, reverse: bool, reduction: Reduction,
               label: str) -> StageFlow:
    """A slot as data: for every part k and edge p -> p + d, node r_k + p sends node
    r_k + p + d every piece of part k (r_k - p to r_k - p - d for a mirrored part;
    `reverse`: the child sends its partial sums to the parent)."""
    n = plan.nodes
    senders, receivers, data = [], [], []
    for k in range(plan.parts):
        sign = int(plan.signs[k])
        parent = (int(plan.roots[k]) + sign * slot.parents) % n
        child = (parent + sign * slot.shifts) % n
        part = plan.part_data(k)
        src, dst = (child, parent) if reverse else (parent, child)
        senders.append(np.repeat(src, len(part)))
        receivers.append(np.repeat(dst, len(part)))
        data.append(np.tile(part, len(src)))
    return StageFlow.of(np.concatenate(senders), np.concatenate(receivers), np.concatenate(data),
                        reduction, label, slot.per_lightpath)


def reduce_flows(plan: RootedTrees, scatter: bool) -> Iterator[StageFlow]:
    """The reduction as data (ADD: each node's partial sum of a part leaves it once, after
    its subtree's), then, for a reduce-scatter, the scatter (COPY of complete chunks, from
    the root to each owner, or to the relays and from them on)."""
    depth = len(plan.slots)
    for i, slot in enumerate(reversed(plan.slots)):
        yield _edge_flow(plan, slot, True, Reduction.ADD, f"rooted trees reduce slot {depth - i}")
    if scatter:
        assert plan.scatter, "built without the scatter"
        for moved, label in zip(plan.scatter, _scatter_labels(plan), strict=True):
            yield _chunk_flow(plan, moved, False, Reduction.COPY, label)


def _chunk_flow(plan: RootedTrees, slot: Scatter, reverse: bool, reduction: Reduction,
                label: str) -> StageFlow:
    """A scatter slot as data: every piece of each chunk it moves, from its sender to its
    receiver (`reverse`: the other way, a slot of the all-gather's gather)."""
    q = plan.pieces
    senders, receivers = slot.chunk_senders, slot.chunk_receivers
    if reverse:
        senders, receivers = receivers, senders
    data = (slot.chunks[:, None] * q + np.arange(q, dtype=np.int64)[None, :]).reshape(-1)
    return StageFlow.of(np.repeat(senders, q), np.repeat(receivers, q), data, reduction, label,
                        slot.per_lightpath)


def broadcast_flows(plan: RootedTrees,
                    reduction: Reduction = Reduction.COPY) -> Iterator[StageFlow]:
    """The broadcast of every part from its root: the all-reduce's complete sums (COPY), or
    the all-gather's items (Reduction.NONE)."""
    for i, slot in enumerate(plan.slots):
        yield _edge_flow(plan, slot, False, reduction, f"rooted trees broadcast slot {i + 1}")


def gather_stages(plan: RootedTrees) -> list[Stage]:
    """The all-gather's first slots: the reduce-scatter's scatter reversed, in reverse
    order (every owner's item to its part's root, or to its relay and from the relays on)."""
    assert plan.scatter, "built without the scatter"
    labels = _scatter_labels(plan, gather=True)
    return [slot_stage(plan.nodes, slot, True, label)
            for slot, label in zip(reversed(plan.scatter), reversed(labels), strict=True)]


def gather_flows(plan: RootedTrees) -> list[StageFlow]:
    """The gather as data: each owner's item to its part's root, through its relay when the
    scatter has two slots."""
    assert plan.scatter, "built without the scatter"
    labels = _scatter_labels(plan, gather=True)
    return [_chunk_flow(plan, slot, True, Reduction.NONE, label)
            for slot, label in zip(reversed(plan.scatter), reversed(labels), strict=True)]
