"""Synthesized schedules (SPEC 12): the catalog algorithm `synth` of each collective.

No paper proposes these; rwaopt measures them against the achievable bound
(`models.achievable`, docs/achievable.md). The family is a hierarchy of sliding-window rings:

- the shape is a list of radices k_1, ..., k_L whose product is N (or a little more, below:
  padding); level i has stride
  s_i = k_1 ... k_{i-1} (s_1 = 1) and window k_i;
- at a pipeline level i a node v exchanges only with v +- s_i (lightpaths of s_i hops, one
  direction each: CW to v + s_i, CCW to v - s_i), so every lightpath keeps to the hop limit
  when s_L does (direct levels, below, have longer ones);
- all-gather runs the levels top-down: before level i a node holds the items of its residue
  class mod s_{i+1} (a *bundle*); in ceil((k_i - 1) / 2) steps it passes bundles on CW and in
  floor((k_i - 1) / 2) on CCW (a bidirectional ring pipeline over the nodes v + m s_i), after
  which it holds the bundle of its class mod s_i; at level 1 (s_1 = 1) that is everything;
- all-reduce is the mirror reduce-scatter bottom-up (each chunk's contributions flow to its
  target in the window from both sides, ADD) and then that all-gather (COPY);
- every item (chunk) is cut into `pieces` pieces, and a level's lightpaths carry bundles of
  pieces, so each step fills the channels: x_i = max(1, C // s_i) lightpaths per pair and
  direction (link load s_i x_i <= C), each carrying ceil(bundle / x_i) pieces.

**Halves** (every even pipeline window but a top window of 2; not swept, without idle
residues; under a per-node limit only where both ways fit it): the member k_i / 2 strides
away holds the same class either way round (classes are residues mod s_i k_i), so of every
bundle's P pieces the first ceil(P / 2) (A) take the window v - a s_i .. v + b s_i (a =
k_i / 2 steps CW, b = a - 1 CCW) and the rest (B) the mirror one, v - b s_i .. v + a s_i;
both tile the ring, level by level. The last step then carries the far class's A CW and its
B CCW, at ceil(ceil(P / 2) / x) pieces a lightpath (half of the step's where a lightpath
carried two or more pieces; else as many on fewer lightpaths), where it carried all of it
CW and nothing CCW (`Level.halves`; reduce-scatter: A's chains are a long CW and b long
CCW, B's the mirror, and the b-long ones end a step early, so there too the last step
carries one half each way). 32 x 32 at N = 1024, 4 MiB all-gather: 14.31 ms with 4 pieces
(14.75 before; the all-gather's and reduce-scatter's searches also try twice the default
pieces where the top level is an even pipeline above 2, whose bundles are one item).

One level (k_1 = N) is the bidirectional ring pipeline striped over every channel, which meets
the bound's byte term at large messages; more levels trade bytes (each level moves every item
once more) for slots (sum of k_i / 2 instead of N / 2).

**Direct levels** (`direct` = d, all-gather and all-reduce): the lowest d levels skip the
pipeline and exchange in one slot. At such a level node v sends, at once, to every member of
its window: v + m s_i for m = 1..a (CW, a = floor(k_i / 2)) and v - m s_i for m = 1..b (CCW,
b = floor((k_i - 1) / 2)), on lightpaths of m s_i hops (directions pinned as in the pipeline).
All-gather: v sends its own bundle to each (COPY). Reduce-scatter: v sends to each v +- m s_i its
partial sum of *that* node's class, so a node receives its class from the k_i - 1 others of its
window in one slot and adds them (contributions of disjoint node sets). The pipeline's window
is the same (v - a s_i .. v + b s_i), so the levels above see the same bundles. The CW links of a
direct level carry sum_m m s_i x = s_i x a (a + 1) / 2 lightpaths. With an even window the far
member a = k_i / 2 strides away is the same class either way round, so where that fits one
lightpath per partner in C the nodes of even block v // s_i reach it CW and the odd ones CCW
(`split_far`; each node's window then alternates with its block, and still tiles): the busiest
link carries s_i x (b (b + 1) / 2 + ceil(a / 2)), 2 s_i x instead of 3 s_i x at k = 4
(`_direct_load`). x = max(1, C // that) per partner keeps the load within C where possible: a
direct level moves about (a + 1) / 2 times the pipeline's link usage (longer lightpaths, fewer
channels per partner) for 1 slot instead of a. Reconfigurations cost ~25 us per slot, so at
small messages fewer slots win, at large ones the bytes do; the shape search weighs both on
true time. A direct level's longest lightpath has a s_i hops, which must keep to the hop limit:
the low levels' short strides can; the top level's a s_L is about N / 2, so it is direct only
on short rings.

**Tree** (`tree` = S, all-gather, reduce-scatter and all-reduce): the lowest level (window
g = k_1 at stride 1) runs along a least broadcast tree of its window instead of a pipeline
or direct levels. Before it (all-gather) the nodes of a class mod g are seeds g apart, and
filling the g - 1 nodes between two seeds is a broadcast on the ring of g positions, which
Fact 3c's `least_tree` does at the least hops F(g, S) (docs/achievable.md); every class at
once, shifted: at the tree's edge p -> p + d of slot t, node v sends to v + d the bundle
of class v - p mod g (`tree_slots`, `_tree_flows`). Each slot sends along a few shifts
(+-1 and one or two longer ones) several bundles each, packed into the channels at the
fewest pieces per lightpath whose one-way load fits C; the RWA colours them at that load
(shifts that do not divide N included, measured at N = 1024). A reduce-scatter runs the
slots in reverse with every shift negated: node v sends to v - d its partial sum of the
class it is p + d past, whose subtree has reported by then. Direct levels of radix 4 move
every item once per level, a tree about F(g, S) / g times in all: at N = 1024, 64 channels,
64 MiB, the all-reduce 64 x 16 with a 5-slot tree (4 pieces) takes 26 slots at 1.317 ms
against 4 x 4 x 4 x 16 with three direct levels, 22 slots at 1.422 ms; at N = 64, 64 MiB,
64 with a 5-slot tree 0.699 ms against 4 x 4 x 4's 0.804. A slot of a least tree whose
distinct shifts alone exceed C one way (small C, wide windows) cannot be packed: refused
(the tree ignores packing; a packing-aware tree could do better). Not combined with direct
levels or idle residues.

**Rooted trees** (`roots` = K, reduce-scatter, all-reduce and all-gather, with radices = (N,)
and `tree` = S): no windows at all; the vector's chunks in K parts, each reduced along the
whole ring's least tree translated to its root (`models.rooted_trees`). Only K translates
share the ring, not one per class, so the least tree's 80-hop edges fit 64 channels; the
reduce-scatter adds one scatter slot (two through relays where one does not fit), the
all-reduce runs the trees forwards, the all-gather is the reduce-scatter reversed in time
(a gather to the roots, then the trees forwards). The search meets them by their time
floor first (`time_floor`): their build is most of their cost. Not under a per-node limit,
not padded.

**Sweep** (`sweep` = 1, all-reduce): the top level is not reduce-scattered and gathered but
all-reduced by running sums swept both ways. After the levels below, node v holds its block's
partial sum of class v mod s_L (k_L chunks: the class vector). CW step t: v sends its class
vector plus the running sum L it holds (the members behind it) to v + s_L, which replaces its
L with it (scratch registers, `models.stage.REGISTERS`); CCW likewise with R, starting late so
both directions end together; in the last step the receivers add instead: a + b + 1 = k_L
members, each once. k_L / 2 slots instead of 2 floor(k_L / 2), each carrying the whole class
vector instead of one chunk: it wins where reconfigurations dominate (4 MiB), and it is
outside the reduce-then-broadcast class whose slot bound is 2 ceil(floor(N/2) / H)
(docs/achievable.md): at N = 4096, 80 hops, 4x4x4x64 swept takes 38 slots, the class 52. A
direct top level swept is one slot: every member sends its class vector to all the others.

**Centres** (`centres` = q < k_L, a swept pipeline top level). The plain sweep forms every
chunk's sum at every member, so every step carries the whole class vector (k_L chunks) both
ways: its last steps must, since each member needs the members a strides away on both sides
by then. With q centres chunk j's sum forms only at members j + e_i, e_i = floor(i k_L / q)
(`centre_offsets`): in sweep step t member m sends CW only the running sums of the chunks
whose chain ends at a centre a - t strides ahead (those with m + a - t - j an offset e_i),
CCW likewise: q chunks a step instead of k_L, each chain still starting at step 0 with
empty registers. Then each centre passes its sum on, one stride a step, to the members
between it and the next centre, the nearer half each way (`centre_reach`, COPY): floor(g / 2)
steps for a gap of g, so floor(ceil(k_L / q) / 2) broadcast slots in all. q = k_L is the
plain sweep, q = 1 the pipeline's reduce-scatter and all-gather (`sweep` = 0); in between,
each broadcast slot buys about (k_L - q) / k_L of every sweep step's bytes. At N = 1024,
64 channels, 80 hops, 16 x 5 x 13 (64 of 80 holding) with 5 centres takes 11 slots at
0.393 ms (4 MiB) against the plain sweep's 10 at 0.413; at N = 4096, 13 x 6 x 53 with 11
centres 32 slots at 0.976 ms against 20 x 4 x 52's 30 at 1.244 (docs/bench-achievable.md).
Complete sums form at q >= 2 members independently, so such a schedule is outside the
reduce-then-broadcast class too (docs/achievable.md).

**Idle residues** (`holders`, all-reduce). A top stride s_L above F w loads every link of the
top level with s_L lightpaths, more than the channels; with `holders` = h < s_L only h of every
s_L residues mod s_L hold a share of the vector (`idle_residues`: the vector is cut into the
live positions' chunks only), so an idle position has nothing to reduce or pass on at the top
level and its links carry h. The top stride can then go up to the hop limit: at N = 1024,
64 channels, 80 hops, 16 x 5 x 13 on 1040 positions (16 virtual) with 64 of every 80 holding a
share sweeps its top level in 6 slots instead of 8 x 8 x 16's 8, with both lower levels direct
(window 16 at stride 1, two lightpaths per partner; window 5 at stride 16): 10 slots, 0.413 ms
at 4 MiB against 0.463 (docs/bench-achievable.md). Each class mod s_{L-1} keeps the same
number idle, so the bundles below stay uniform; level L - 1 and the top level send whole
residues' classes, and an idle class sends nothing (`_edge_classes`). The search tries, beside
every plain shape with a top stride above F w, the shapes of `_idle_shapes`.

**Padding** (all-gather, all-reduce, all-to-all). A prime N has one factorisation, N itself: a
single level, N / 2 slots (the all-reduce of 1021 nodes took 19.7 ms at 4 MiB against 0.463 ms
at 1024). A shape may instead have N' = prod(radices) positions, N < N' <= N + N // 8
(`PADDING_LIMIT`): the N' - N virtual positions are spread evenly, none adjacent, and each is
played by the node before it (`Padding`). Positions' lightpaths run between their hosts the
same way round over no more links (a virtual position adds no link), so the hop limit and
every link's load carry over, and one between a node and the position it also plays is no
lightpath at all. Data: a virtual position holds no item, block or contribution; in an
all-reduce it keeps its partial sums in its host's registers 3 to 5 (`VIRTUAL_REGISTERS`),
which start empty, so the data-flow simulator checks it like any other endpoint. The search
tries N and the least power of two and 2^a 3^b within the limit (`padded_sizes`): 1021 nodes
run 1024's shapes with 3 virtual positions (all-reduce 0.463 ms with 8 x 8 x 16, 43x faster;
0.413 ms with the idle residues' 16 x 5 x 13 on 1040 positions; docs/bench-padding.md).
The stages are no longer translation-invariant, so the RWA may need more channels than the
load: 8 x 8 x 16 at 1021 coloured its direct level at stride 8 with 71
channels for a load of 64 (two steps) until the virtual positions were moved to the ends of
blocks of twice that stride (`_Windowed._align`), where it colours at 64 and takes what 1024
takes; at 4093, 8 x 8 x 64 still needs 66. Reduce-scatter is not padded: its chunk i ends at
node i.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache, partial
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from models.achievable import least_tree_edges, tree_hops
from models.algorithms.base import Algorithm, Collective, Params, ParamSpec, int_param
from models.closed_forms import ClosedForm, Formula
from models.ring import Direction, Hardware, Ring
from models.rooted_trees import (
    ROOTED_DEPTH,
    ROOTED_GROUPS,
    ROOTED_MIRRORS,
    ROOTED_PIECES,
    ROOTED_SLOTS,
    ROOTED_WORK_LIMIT,
    RootedTrees,
    broadcast_flows,
    broadcast_stages,
    gather_flows,
    gather_stages,
    reduce_flows,
    reduce_stages,
    rooted_fit,
    rooted_trees,
    scatter_slots,
)
from models.stage import IntArray, Reduction, Schedule, Stage, StageFlow, frozen


def _none(*_: int) -> None:
    return None


Sent = tuple[npt.NDArray[np.bool_], Callable[[int, IntArray], IntArray]]
"""An all-reduce step with idle residues (`idle_residues`): which residues mod the top stride
are live, and, per shift (its index and offsets), the residue of the class each node sends."""

PADDING_LIMIT = 8
"""A shape may have N' = prod(radices) positions for N <= N' <= N + N // PADDING_LIMIT nodes."""


@dataclass(frozen=True)
class Padding:
    """N' positions on N nodes: the N' - N virtual positions are spread evenly, none at 0 and
    no two adjacent, and each is played by the node before it (`host`); the real positions are
    the nodes in ring order. A lightpath between positions runs between their hosts the same
    way round, over no more links (a virtual position adds none), so the shape's hop limit
    and every link's load carry over; a virtual position's transfers to or from its own host
    need no lightpath."""

    positions: int
    virtual: npt.NDArray[np.bool_]  # per position: played by the node before it
    host: IntArray  # per position: its ring node


def padding(nodes: int, positions: int, align: int = 1) -> Padding:
    """Virtual positions at the evenly spread (j + 1) N' / (N' - N) - 1, each moved down to
    the last position of a block of `align` when that keeps them apart (else unaligned)."""
    extra = positions - nodes
    virtual = np.zeros(positions, dtype=bool)
    if extra:
        spread = (np.arange(1, extra + 1) * positions) // extra
        for step in (align, 1):
            spots = (spread // step) * step - 1
            gaps = np.diff(np.concatenate([[-1], spots, [positions]]))
            if spots[0] >= 1 and (gaps[1:-1] >= 2).all() and gaps[-1] >= 1:
                break
        virtual[spots] = True
    host = np.cumsum(~virtual) - 1
    virtual.flags.writeable = False
    return Padding(positions, virtual, frozen(host))


def padded_sizes(nodes: int) -> list[int]:
    """The position counts a shape search tries: N, and the least power of two and the least
    2^a 3^b above N when within N + N // PADDING_LIMIT (a prime N has one shape of N
    positions, a single level; 1021 nodes run 1024's shapes with 3 virtual positions)."""
    out = [nodes]
    smooth = min(2**a * 3**b for a in range(nodes.bit_length() + 1)
                 for b in range(nodes.bit_length()) if 2**a * 3**b >= nodes)
    for size in (1 << (nodes - 1).bit_length(), smooth):
        if size > nodes and padding_allows(nodes, size) and size not in out:
            out.append(size)
    return out


def padding_allows(nodes: int, positions: int) -> bool:
    """Whether the shape search may run N nodes on this many positions (N itself, or up to
    N + N // PADDING_LIMIT): the one rule of `padded_sizes` and `_idle_shapes`."""
    return nodes <= positions <= nodes + nodes // PADDING_LIMIT


def _stage_on_nodes(stage: Stage, pad: Padding, nodes: int) -> Stage:
    """A stage of the positions as the nodes' demands: hosts, same directions and counts,
    none between a node and itself."""
    s, d = pad.host[stage.sources], pad.host[stage.destinations]
    remote = s != d
    return Stage.from_demands(
        nodes, s[remote], d[remote], stage.counts[remote], stage.allowed[remote], stage.label,
        stage.pieces,
    )


def _kept_on_nodes(stage: Stage, pad: Padding, nodes: int) -> list[Stage]:
    """`_stage_on_nodes` after the stage itself, which a memo keyed by its arrays' ids keeps
    alive with it (`_remembered`)."""
    return [stage, _stage_on_nodes(stage, pad, nodes)]


VIRTUAL_REGISTERS = 3
"""All-reduce: a virtual position keeps its partial sums in its host's registers 3 to 5 (its
own 0 to 2), which start empty: it has no contribution."""


def _flow_on_nodes(
    flow: StageFlow, pad: Padding, collective: str, pieces: int, nodes: int
) -> StageFlow:
    """A flow of the positions as the nodes': senders and receivers their hosts. All-reduce:
    every transfer kept (one between a node and its virtual position is a move between
    registers), a virtual position's registers shifted by VIRTUAL_REGISTERS. All-gather and
    all-to-all: the data of virtual positions (they have none) dropped, the rest renamed by
    node, and transfers within a node dropped (the node holds the datum already)."""
    hs, hr = pad.host[flow.senders], pad.host[flow.receivers]
    if collective == "allreduce":
        reads = np.left_shift(
            np.ones(len(hs), dtype=np.int64) if flow.reads is None else flow.reads,
            VIRTUAL_REGISTERS * pad.virtual[flow.senders],
        )
        writes = (0 if flow.writes is None else flow.writes) + (
            VIRTUAL_REGISTERS * pad.virtual[flow.receivers]
        )
        return StageFlow.of(
            hs, hr, flow.data, flow.reduction, flow.label, flow.bundle, flow.copies, reads, writes
        )
    datum, piece = np.divmod(flow.data, pieces)
    if collective == "allgather":
        keep = ~pad.virtual[datum] & (hs != hr)
        data = pad.host[datum] * pieces + piece
    else:
        source, target = np.divmod(datum, pad.positions)
        keep = ~pad.virtual[source] & ~pad.virtual[target] & (hs != hr)
        data = (pad.host[source] * nodes + pad.host[target]) * pieces + piece
    return StageFlow.of(hs[keep], hr[keep], data[keep], flow.reduction, flow.label, flow.bundle)


def _schedule_on_nodes(schedule: Schedule, pad: Padding, nodes: int) -> Schedule:
    """The schedule of the positions run on the nodes (`_flow_on_nodes`, stage by stage)."""
    collective, q = str(schedule.collective), schedule.pieces
    flows = tuple(_flow_on_nodes(flow, pad, collective, q, nodes) for flow in schedule.flows)
    count = {
        "allreduce": schedule.data_count,  # the vector cut into N' chunks
        "allgather": nodes * q,
        "alltoall": nodes * nodes * q,
    }[collective]
    return Schedule(collective, nodes, frozen(np.arange(nodes, dtype=np.int64)), count, flows,
                    pieces=q)


@dataclass(frozen=True)
class Level:
    stride: int  # s_i: hops of every lightpath of the level
    window: int  # k_i
    lightpaths: int  # x_i: per (node, direction) and step
    bundle_pieces: int  # pieces a node passes on per step and direction
    per_lightpath: int  # pieces one lightpath carries: ceil(bundle_pieces / lightpaths)
    direct: bool = False  # one slot to every window member instead of the pipeline
    sweep: bool = False  # all-reduce's top level: running sums swept both ways (no RS + AG)
    split_far: bool = False  # direct, even window: the far member reached both ways round
    centres: int | None = None  # a sweep's: members forming each chunk's sum (None: all)
    tree: tuple[TreeSlot, ...] = ()  # the lowest level along a least tree (`tree_slots`)
    halves: bool = False  # even pipeline window: the far class comes half each way round

    @property
    def modulus(self) -> int:
        """Bundles are the classes mod this: s k, or s for a sweep (whole class vectors)."""
        return self.stride if self.sweep else self.stride * self.window

    @property
    def cw_steps(self) -> int:
        return self.window // 2  # ceil((k - 1) / 2)

    @property
    def ccw_steps(self) -> int:
        return (self.window - 1) // 2

    @property
    def half_pieces(self) -> tuple[int, int]:
        """`halves`: the pieces of a bundle that take the first window orientation (A, the
        first ceil(P / 2) of its P pieces, in `_bundles_flow`'s order) and the second (B)."""
        return -(-self.bundle_pieces // 2), self.bundle_pieces // 2

    @property
    def half_per_lightpath(self) -> int:
        """`halves`: pieces per lightpath of the last step, which carries A one way and B the
        other on at most the level's x lightpaths each."""
        return -(-self.half_pieces[0] // self.lightpaths)

    @property
    def broadcast_steps(self) -> int:
        """Slots a swept level with fewer centres than members takes after its sweep to
        bring each chunk's sum from its centres to the other members (`centre_reach`)."""
        if not self.sweep or self.direct or self.centres is None:
            return 0
        return len(broadcast_chunks(self.window, self.centres))

    @property
    def steps(self) -> int:
        """Slots of the level: one when direct, the tree's slots along a tree, else the
        pipeline's cw_steps (a sweep with centres: and its broadcast steps)."""
        if self.tree:
            return len(self.tree)
        return 1 if self.direct else self.cw_steps + self.broadcast_steps

    @property
    def longest_hops(self) -> int:
        """Hops of the level's longest lightpath: a s when direct, the tree's longest edge
        along a tree, else s."""
        if self.tree:
            return max(abs(shift) for slot in self.tree for shift, _ in slot.shifts)
        return self.stride * (self.cw_steps if self.direct else 1)


def levels(
    ring: Ring, radices: tuple[int, ...], pieces: int, direct: int = 0, sweep: bool = False,
    holders: int | None = None, centres: int | None = None, tree: int = 0,
    hop_limit: int | None = None, node_limit: int | None = None,
) -> list[Level]:
    """The levels of a shape, bottom (stride 1) first; the lowest `direct` are direct; with
    `sweep` the top level is swept (all-reduce). `holders` (all-reduce): of every s_L
    residues mod the top stride, how many hold a share of the vector (`idle_residues`); the
    bundles below the top level hold that fraction of their chunks, and the top level's
    lightpaths are counted per holder, not per stride. `centres` (a swept top level): of its
    k_L members, how many form each chunk's sum (None or k_L: every member). `tree` > 0: the
    lowest level runs along a least broadcast tree of its window in that many slots, its
    lightpaths within `hop_limit` (`tree_slots`; the caller checks that it exists).
    Even pipeline windows send half the far class each way (`Level.halves`), except a top
    window of 2 (its one partner is the same node both ways round, so the two directions'
    lightpaths would be one pair's) and, under `node_limit` lightpaths a node and slot,
    levels whose both-ways steps exceed it."""
    channels = ring.channels_per_direction
    top_stride = math.prod(radices[:-1])
    held = top_stride if holders is None else holders
    out, stride = [], 1
    for i, k in enumerate(radices):
        swept = sweep and i == len(radices) - 1
        split = False
        if i < direct:
            # split the far member's lightpaths between the directions where that fits one
            # lightpath per partner in C; beyond, every node reaches it CW as before, whose
            # translation-invariant arcs the RWA colours at their load (proven) however
            # many steps they need
            split = k % 2 == 0 and stride * _direct_load(k, True) <= channels
            lightpaths = max(1, channels // (stride * _direct_load(k, split)))
        else:
            lightpaths = max(1, channels // (held if i == len(radices) - 1 else stride))
        # items of a class mod s_{i+1} (a sweep's: of its class mod s_i, the whole vector);
        # below the top, a class of several residues mod s_L holds only their live chunks
        modulus = stride if swept else stride * k
        bundle = ring.nodes // modulus * pieces
        if modulus < top_stride:
            bundle = ring.nodes // top_stride * (held // modulus) * pieces
        plan: tuple[TreeSlot, ...] = ()
        if tree and i == 0:
            found = tree_slots(k, hop_limit or k, tree, bundle, channels)
            assert found is not None, "a tree level the refusal lets through"
            plan = found
            lightpaths = max(x for slot in plan for _, x in slot.shifts)
        # an even pipeline's far class is the same either way round: half of every bundle
        # takes each window orientation (not with idle residues, whose steps send whole
        # residues' classes)
        split_halves = (k % 2 == 0 and i >= direct and not swept and not plan
                        and held == top_stride and not (k == 2 and i == len(radices) - 1)
                        and (node_limit is None or 2 * lightpaths <= node_limit))
        out.append(
            Level(stride, k, lightpaths, bundle, -(-bundle // lightpaths), i < direct, swept,
                  split, centres if swept and centres is not None and centres < k else None,
                  plan, split_halves)
        )
        stride *= k
    return out


@dataclass(frozen=True)
class TreeSlot:
    """One slot of a tree level, all-gather way round (a reduce-scatter runs the slots in
    reverse, every shift negated): the edges of the window's least tree first reached in it,
    as (offset of the sender from the class's seed, signed shift), and per shift the
    lightpaths every node sends and the pieces each carries."""

    edges: tuple[tuple[int, int], ...]
    shifts: tuple[tuple[int, int], ...]  # (signed shift, lightpaths per node)
    per_lightpath: int


@lru_cache(maxsize=256)
def tree_slots(
    window: int, hop_limit: int, slots: int, bundle: int, channels: int
) -> tuple[TreeSlot, ...] | None:
    """The lowest level (window g = k_1 at stride 1) along a tree instead of a pipeline or
    one direct slot. Before it (all-gather) node v holds the bundle of its class v mod g, so
    the nodes of a class are seeds g apart and the g - 1 nodes between two seeds are one
    gap of g links with both ends held: filling every gap at once is a broadcast on the ring
    of g positions, which `least_tree` does at the least hops F(g, S) (docs/achievable.md,
    Fact 3c; Fact 3c's tree itself at g = N). Its edge p -> p + d reached in slot t becomes,
    for every class, node v sending to v + d the bundle of class v - p mod g: translation
    invariant, so per slot every node sends c_d bundles along shift d, for each shift d
    with c_d edges. The pieces per lightpath are the least p with sum over shifts of one way
    |d| ceil(c_d bundle / p) <= C (each shift's lightpaths from every node load every link
    by |d| each), which the RWA colours at that load (measured at N = 1024, g = 64: every
    slot at its load). None when the slot's distinct shifts alone need more than C channels
    one way. Raises ValueError when `slots` slots of lightpaths within the hop limit cannot
    reach the position g / 2 away."""
    out = []
    for parents, shifts in least_tree_edges(window, min(hop_limit, window), slots):
        edges = tuple(zip(parents.tolist(), shifts.tolist(), strict=True))
        count: dict[int, int] = {}
        for _, d in edges:
            count[d] = count.get(d, 0) + 1

        most = max(count.values(), default=1) * bundle
        if _tree_load(count, bundle, most) > channels:
            return None
        low, high = 1, most  # the least pieces per lightpath that fit, by bisection
        while low < high:
            mid = (low + high) // 2
            if _tree_load(count, bundle, mid) <= channels:
                high = mid
            else:
                low = mid + 1
        shifts = tuple((d, -(-c * bundle // low)) for d, c in sorted(count.items()))
        out.append(TreeSlot(edges, shifts, low))
    return tuple(out)


def _direct_load(window: int, split_far: bool) -> int:
    """Lightpaths on the busiest link of one direction, per stride and per lightpath to each
    partner, in a direct level of this window: partners m = 1..b both ways cover b (b + 1) / 2
    strides of every link. With an even window the far partner a = k / 2 strides away is one
    more CW (a strides: a (a + 1) / 2 in all), or, `split_far` (either way round: +a s and
    -a s are the same class), reached CW from the nodes of even block v // s and CCW from
    the odd ones (`_shifts`), at most ceil(a / 2) strides of a link each way: 2 instead of 3
    at k = 4, 32 instead of 36 at k = 16."""
    a, b = window // 2, (window - 1) // 2
    if a == b:
        return b * (b + 1) // 2
    return b * (b + 1) // 2 + (-(-a // 2) if split_far else a)


def centre_offsets(window: int, centres: int) -> IntArray:
    """A swept level's centres (`centres` = q of its k members): chunk j's sum forms at the
    members j + e_i, e_i = floor(i k / q) for i < q, spread evenly round the window; every
    chunk's centres are the same offsets from it, so each member is a centre of q chunks and
    each sweep step sends q chunks a way."""
    return (np.arange(centres, dtype=np.int64) * window) // centres


def centre_reach(window: int, centres: int) -> tuple[IntArray, IntArray]:
    """Per centre (`centre_offsets`), how many members after it (CW) and before it (CCW)
    take the sum from it: of the g - 1 members between it and the next centre, the nearer
    half each, the middle one (g even) from behind: floor(g / 2) CW, (g - 1) // 2 CCW."""
    offsets = centre_offsets(window, centres)
    gaps = np.diff(np.append(offsets, window))
    return gaps // 2, np.roll((gaps - 1) // 2, 1)


def broadcast_chunks(window: int, centres: int) -> list[tuple[int, int]]:
    """Per broadcast step x = 1, 2, ... after a sweep with centres, the chunks each member
    passes on CW and CCW: the centres whose reach (`centre_reach`) goes x strides that way.
    As many steps as the farthest reach; CW is never fewer than CCW."""
    cw, ccw = centre_reach(window, centres)
    return [
        (int((cw >= x).sum()), int((ccw >= x).sum())) for x in range(1, int(cw.max()) + 1)
    ]


def idle_residues(radices: tuple[int, ...], holders: int) -> npt.NDArray[np.bool_]:
    """Per residue mod the top stride s_L: True where it holds no share of an all-reduce's
    vector (`holders` of the s_L live). The vector is cut into the live positions' chunks
    only, so an idle position has nothing to add or send at the top level, whose lightpaths
    then load a link with `holders`, not s_L: a top stride between F w and the hop limit
    (80 at N = 1024: 13 members instead of 16, 6 sweep slots instead of 8) fits the channels.
    Each class mod s_{L-1} keeps e = (s_L - holders) / s_{L-1} of its k_{L-1} residues
    r + j s_{L-1} idle, those with (j - r) e mod k_{L-1} < e (spread out), so every bundle
    below level L - 1 holds the same number of live chunks."""
    top, below = math.prod(radices[:-1]), math.prod(radices[:-2])
    window = radices[-2] if len(radices) > 1 else 1
    idle = (top - holders) // below
    residue = np.arange(top, dtype=np.int64)
    return ((residue // below - residue % below) * idle) % window < idle


def multiplicative_partitions(n: int, smallest: int = 2) -> Iterator[tuple[int, ...]]:
    """Every way of writing n as a product of factors >= 2 in nondecreasing order."""
    if n == 1:
        yield ()
        return
    for k in range(smallest, n + 1):
        if n % k == 0:
            for rest in multiplicative_partitions(n // k, k):
                yield (k, *rest)


@dataclass(eq=False)
class _Synthesized(Algorithm):
    """Shared by the all-gather and all-reduce families: shape, refusals, direct stages."""

    hop_limit: int | None = None

    title: ClassVar[str] = "Synthesized: hierarchy of sliding-window rings, pieces striped"
    source: ClassVar[str] = "rwaopt, SPEC section 12 (no paper claim; see the achievable bound)"
    params: ClassVar[tuple[ParamSpec, ...]] = (
        ParamSpec(
            "radices",
            "window per level, bottom (stride 1) first; their product N' is N, or up to "
            "N + N // 8 for all-gather, all-reduce and all-to-all (N' - N virtual positions, "
            "each played by the node before it); level i's lightpaths have at most "
            "k_1 ... k_{i-1} hops",
            1,
            None,
            default_rule="N (one level: the bidirectional ring, striped over the channels)",
            maximum_rule="the top level's stride N / k_L within the hop limit",
            is_list=True,
        ),
        ParamSpec(
            "pieces",
            "pieces each item (chunk) is cut into",
            1,
            None,
            default_rule="max(1, F w // top level's stride): the top level fills the channels",
        ),
    )
    formula: ClassVar[Formula] = Formula(
        "steps", "no closed form: a synthesized schedule", "rwaopt", _none
    )
    from_paper: ClassVar[bool] = False

    padded: ClassVar[bool] = True  # may run a shape of more positions than nodes (`Padding`)

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        out = dict(given)
        out.setdefault("radices", (ring.nodes,))
        radices = out["radices"]
        assert isinstance(radices, tuple)
        positions = math.prod(radices) if radices else 0
        top = positions // radices[-1] if ring.nodes <= positions else 1
        out.setdefault("pieces", max(1, ring.channels_per_direction // max(1, top)))
        return out

    def refusal(self, ring: Ring, params: Params) -> str | None:
        radices = params["radices"]
        assert isinstance(radices, tuple)
        if any(k < 2 for k in radices):
            return "every radix must be at least 2"
        positions, n = math.prod(radices), ring.nodes
        if not self.padded and positions != n:
            return (
                f"the radices' product is {positions}, not N = {n} (a reduce-scatter leaves "
                "chunk i at node i: no virtual positions)"
            )
        if positions < n:
            return f"the radices' product is {positions}, less than N = {n}"
        if positions > n + n // PADDING_LIMIT:
            return (
                f"the radices' product is {positions}: at most N + N // {PADDING_LIMIT} = "
                f"{n + n // PADDING_LIMIT} positions (virtual ones played by their neighbours)"
            )
        top = positions // radices[-1]
        if self.hop_limit is not None and self.hop_limit < 1:
            return ("with these optics not even a one-hop lightpath can be reliable: raise "
                    "laser_power_dbm")
        if self.hop_limit is not None and top > self.hop_limit:
            return (
                f"the top level's lightpaths would have {top} hops, more than the hop limit "
                f"{self.hop_limit}; use a larger top radix (at least "
                f"{-(-ring.nodes // self.hop_limit)})"
            )
        return None

    def shape_candidates(self, ring: Ring) -> Iterator[Params]:
        """Every factorisation of N and, when padding is allowed, of the `padded_sizes`
        above it, whose top level keeps to the hop limit."""
        for positions in padded_sizes(ring.nodes) if self.padded else [ring.nodes]:
            for radices in multiplicative_partitions(positions):
                if self.hop_limit is None or positions // radices[-1] <= self.hop_limit:
                    yield {"radices": radices}

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        return []

    def positions(self, params: Params) -> int:
        """N' = prod(radices): the ring the shape is built on (N' - N positions virtual)."""
        radices = params["radices"]
        assert isinstance(radices, tuple)
        return math.prod(radices)

    def _virtual(self, ring: Ring, params: Params) -> Ring:
        """The ring of the shape's positions: `ring` itself unless the shape is padded."""
        positions = self.positions(params)
        if positions == ring.nodes:
            return ring
        return Ring(positions, ring.fibers_per_direction, ring.wavelengths_per_fiber)

    def stages(self, ring: Ring, params: Params) -> list[Stage]:
        virtual = self._virtual(ring, params)
        out = self._stages(virtual, params)
        if virtual is ring:
            return out
        pad = self._padding(ring, virtual, params)
        # a pipeline repeats one stage object per step, and a shape's variants share their
        # levels' arrays (`_remembered`): each set of arrays mapped (and later keyed) once
        mapped: dict[int, Stage] = {}
        where = (ring.nodes, pad.positions, pad.virtual.tobytes())
        for stage in out:
            if id(stage) not in mapped:
                arrays = (stage.sources, stage.destinations, stage.counts, stage.allowed)
                on_nodes = _remembered(
                    (*(id(array) for array in arrays), *where),
                    partial(_kept_on_nodes, stage, pad, ring.nodes),
                )[1]
                mapped[id(stage)] = replace(on_nodes, label=stage.label, pieces=stage.pieces)
        return [mapped[id(stage)] for stage in out]

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        virtual = self._virtual(ring, params)
        out = self._schedule(virtual, params)
        if virtual is ring:
            return out
        return _schedule_on_nodes(out, self._padding(ring, virtual, params), ring.nodes)

    def _padding(self, ring: Ring, virtual: Ring, params: Params) -> Padding:
        """Where the virtual positions of a padded shape sit (the same for its stages and
        its schedule)."""
        return padding(ring.nodes, virtual.nodes, self._align(virtual, params))

    def _align(self, ring: Ring, params: Params) -> int:
        """Blocks the virtual positions end on (`padding`): 1, or see `_Windowed`."""
        return 1

    def stage_count(self, ring: Ring, params: Params) -> int:
        return self._stage_count(self._virtual(ring, params), params)

    def _stages(self, ring: Ring, params: Params) -> list[Stage]:
        raise NotImplementedError

    def _schedule(self, ring: Ring, params: Params) -> Schedule:
        raise NotImplementedError

    def _stage_count(self, ring: Ring, params: Params) -> int:
        raise NotImplementedError


@dataclass(eq=False)
class _Windowed(_Synthesized):
    """All-gather and all-reduce: the window levels, each a pipeline or direct (`direct`).
    Even pipeline windows send half the far class each way (`Level.halves`), but under a
    per-node limit only at levels whose both-ways steps fit it (2 x <= the limit): where they
    do not, the last step's second direction is x more lightpaths a node, which the limit
    serializes (N = 24, w = 4, one lightpath a node and slot: the all-reduce 2.07 ms with
    halves against 1.92 without)."""

    def _node_limit(self) -> int | None:
        """The lightpaths a node may send or receive per slot (None: no limit)."""
        return None

    params: ClassVar[tuple[ParamSpec, ...]] = (
        *_Synthesized.params,
        ParamSpec(
            "direct",
            "how many of the lowest levels exchange directly, in one slot: node v sends to "
            "every member of its window v + m s (m = 1..k//2, CW) and v - m s "
            "(m = 1..(k-1)//2, CCW) at once, on lightpaths of up to k//2 strides, instead of "
            "passing bundles one stride per step; fewer slots for more link usage",
            0,
            0,
            default_rule="0: every level a pipeline",
            maximum_rule="the number of levels; each direct level's k//2 s within the hop limit",
        ),
        ParamSpec(
            "tree",
            "slots of the lowest level (window k_1 at stride 1) run along a least broadcast "
            "tree of the window (reduce-scatter: the same tree reversed) instead of a pipeline: "
            "every node sends along several shifts a slot, the bundles of the classes whose "
            "tree has that edge there; fewer hops than direct levels for the same slots",
            0,
            None,
            default_rule="0 (left out): no tree",
            maximum_rule="S with S lightpaths of at most the hop limit reaching k_1 // 2, and "
            "every slot's shifts within the channels; not with direct levels",
        ),
    )

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        return _with_direct(super().fill_defaults(ring, given))

    def refusal(self, ring: Ring, params: Params) -> str | None:
        reason = super().refusal(ring, params) or _direct_count_refusal(params)
        if reason:
            return reason
        radices = params["radices"]
        assert isinstance(radices, tuple)
        direct = int_param(params, "direct")
        found = levels(self._virtual(ring, params), radices, 1, direct)
        fits = _direct_levels_within(found, self.hop_limit)
        if fits < direct:
            level = found[fits]
            return (
                f"level {fits + 1} exchanged directly (window {level.window}, stride "
                f"{level.stride}) would need lightpaths of {level.longest_hops} hops "
                f"({level.cw_steps} strides), more than the hop limit {self.hop_limit}; use "
                f"direct <= {fits}, or a smaller radix at level {fits + 1} (at most "
                f"{2 * ((self.hop_limit or 0) // level.stride) + 1})"
            )
        return _tree_refusal(self._virtual(ring, params), params, self.hop_limit)

    def shape_candidates(self, ring: Ring) -> Iterator[Params]:
        """Every radices within the hop limit, each with every valid `direct` (0 first), then
        the tree shapes (`_tree_variants`). A level of window 2 or 3 takes one step either
        way with the same lightpaths, so making it direct repeats the candidate below it:
        skipped."""
        for raw in super().shape_candidates(ring):
            radices = raw["radices"]
            assert isinstance(radices, tuple)
            yield from self._direct_variants(ring, radices)
        yield from self._tree_variants(ring)

    def _tree_variants(self, ring: Ring) -> Iterator[Params]:
        """Shapes whose lowest level is a tree: a window g >= TREE_WINDOW_MIN at the bottom
        (any divisor of N', larger than the levels above it or not) under at most two more
        levels (nondecreasing, the top stride within the hop limit), in each of TREE_SLOTS
        slots that is fewer than g / 2 (the pipeline's) and that the tree fits; with the
        default pieces and, where the tree's bundles (N' / g items) hold fewer than C pieces,
        with enough pieces to make them C (64 x 16 at N = 1024, 64 MiB: 1.317 ms with 4
        pieces against 1.358 with 1)."""
        for positions in padded_sizes(ring.nodes) if self.padded else [ring.nodes]:
            virtual = ring if positions == ring.nodes else Ring(
                positions, ring.fibers_per_direction, ring.wavelengths_per_fiber)
            for window in range(TREE_WINDOW_MIN, positions + 1):
                if positions % window:
                    continue
                above = positions // window
                tops = [()] if above == 1 else [
                    r for r in multiplicative_partitions(above) if len(r) <= 2
                ]
                for top in tops:
                    radices = (window, *top)
                    if self.hop_limit is not None and positions // radices[-1] > self.hop_limit:
                        continue
                    # the default pieces (top level's channels filled), and where that
                    # leaves the tree's bundles below C pieces, finer ones: each slot's
                    # pieces per lightpath are whole, finer pieces round less
                    pieces = int_param(self.fill_defaults(ring, {"radices": radices}), "pieces")
                    channels, bundle = virtual.channels_per_direction, above * pieces
                    finer = [pieces] + ([pieces * -(-channels // bundle)]
                                        if bundle < channels else [])
                    for tree in TREE_SLOTS:
                        raw: Params = {"radices": radices, "direct": 0, "tree": tree}
                        if tree >= window // 2 or _tree_refusal(virtual, raw, self.hop_limit):
                            continue
                        for q in finer:
                            yield {**raw, "pieces": q}

    def _direct_variants(self, ring: Ring, radices: tuple[int, ...]) -> Iterator[Params]:
        """The shape with every valid number of direct levels, 0 first (see
        `shape_candidates`). Where the top level is an even pipeline above 2, each also with twice
        the default pieces: at the default a top lightpath carries one piece, so the half
        of the far class its last step carries each way (`Level.halves`) still takes a
        whole one (32 x 32 at N = 1024, 4 MiB all-gather: 14.75 ms with 2 pieces, 14.31 ms
        with 4)."""
        virtual = self._virtual(ring, {"radices": radices})
        fits = _direct_levels_within(levels(virtual, radices, 1, len(radices)), self.hop_limit)
        pieces = int_param(self.fill_defaults(ring, {"radices": radices}), "pieces")
        for direct in range(fits + 1):
            if direct and radices[direct - 1] <= 3:
                continue
            yield {"radices": radices, "direct": direct}
            if radices[-1] % 2 == 0 and radices[-1] > 2 and direct < len(radices):
                yield {"radices": radices, "direct": direct, "pieces": 2 * pieces}

    def _align(self, ring: Ring, params: Params) -> int:
        """Twice the largest stride of a direct level whose far member is split by block
        parity (`_shifts`): a virtual position then ends an odd block, where the parity
        pattern of the blocks around it is kept. Measured on 8 x 8 x 16 (all-reduce, 2
        direct, swept) at N = 1009, 1019, 1021: every stage coloured at its load of 64
        (0.463 ms at 4 MiB, as at 1024) against 71 to 73 channels (two steps, 0.541 ms)
        unaligned; 4 x 4 x 4 x 16 at 1021 likewise. Not a proof: at N = 4093, 8 x 8 x 64
        still needs 66 for a load of 64 (71 unaligned)."""
        split = [level.stride for level in self._levels(ring, params) if level.split_far]
        return 2 * max(split, default=0) or 1

    def _levels(self, ring: Ring, params: Params) -> list[Level]:
        radices = params["radices"]
        assert isinstance(radices, tuple)
        holders, centres = params.get("holders"), params.get("centres")
        return levels(
            ring, radices, int_param(params, "pieces"), int_param(params, "direct"),
            bool(params.get("sweep", 0)), holders if isinstance(holders, int) else None,
            centres if isinstance(centres, int) else None, _tree(params), self.hop_limit,
            node_limit=self._node_limit(),
        )

    def _step_stage(
        self, ring: Ring, level: Level, ccw: bool, label: str, sent: Sent | None = None
    ) -> Stage:
        """One step of a level: every node sends x lightpaths to v + s (CW) and, when the
        step has both, x to v - s (CCW); a direct level's one step sends x to each window
        member (`_shifts`). Directions pinned (the design's routing). `sent` (an all-reduce
        with idle residues): per shift, the residue of the class each node sends, and which
        residues are live; a node whose class there is idle sends nothing."""
        n = ring.nodes
        nodes = np.arange(n, dtype=np.int64)
        sources, destinations, allowed = [], [], []
        shifts = _shifts(level, ccw, n)
        for i, shift in enumerate(shifts):
            keep: slice | npt.NDArray[np.bool_] = slice(None)
            if sent is not None:
                live, classes = sent
                keep = live[classes(i, shift) % len(live)]
            sources.append(nodes[keep])
            destinations.append((nodes + shift)[keep] % n)
            allowed.append(np.where(shift > 0, Direction.CW, Direction.CCW)[keep].astype(np.int64))
        s = np.concatenate(sources)
        return Stage.from_demands(
            n,
            s,
            np.concatenate(destinations),
            np.full(len(s), -(-level.bundle_pieces // level.per_lightpath), dtype=np.int64),
            np.concatenate(allowed),
            label,
            level.per_lightpath,
        )

    def _stage_count(self, ring: Ring, params: Params) -> int:
        """Every level once (all-gather, reduce-scatter); the all-reduce runs them twice."""
        return sum(level.steps for level in self._levels(ring, params))

    def _level_stages(
        self, ring: Ring, level: Level, name: str, sent: Callable[[int], Sent] | None = None,
        sent_key: Hashable = None, gather: bool = True,
    ) -> list[Stage]:
        """A pipeline's steps take both directions first (CCW has fewer); a sweep's take the
        CW-only step first, so both directions' last steps land together. `sent` (idle
        residues): per step t, what `_step_stage` filters by, and `sent_key` what it depends
        on beside the ring and the level (None: nothing). The stages are remembered
        (`_remembered`): a shape's variants (sweep, centres) share their levels' stages."""
        if level.tree:  # a reduce-scatter runs the tree the other way (`gather` False)
            return _remembered((ring, level, name, gather),
                               lambda: _tree_stages(ring, level, name, gather))
        return _remembered(
            (ring, level, name, sent is not None, sent_key),
            lambda: self._build_level_stages(ring, level, name, sent, sent_key),
        )

    def _build_level_stages(
        self, ring: Ring, level: Level, name: str, sent: Callable[[int], Sent] | None,
        sent_key: Hashable,
    ) -> list[Stage]:
        if level.direct:
            return [self._step_stage(ring, level, True, f"{name} direct",
                                     None if sent is None else sent(0))]
        if level.centres is not None:
            return self._centre_stages(ring, level, name, sent, sent_key)
        a, b = level.cw_steps, level.ccw_steps
        if sent is not None:  # the classes sent may change with the step
            both_at = range(a - b, a) if level.sweep else range(b)
            built: dict[tuple[bool, int], Stage] = {}
            out = []
            for t in range(a):
                given = sent(t)  # the same object every step where the classes do not change
                key = (t in both_at, id(given))
                if key not in built:
                    built[key] = self._step_stage(ring, level, key[0], name, given)
                out.append(built[key])
            return out
        both = self._step_stage(ring, level, True, name)
        only_cw = self._step_stage(ring, level, False, name)
        if level.sweep:
            return [only_cw if t < a - b else both for t in range(a)]
        if level.halves:  # the last step: half of the far class each way
            last = _halves_stage(both, level)
            return [both if t < b else last for t in range(a)]
        return [both if t < b else only_cw for t in range(a)]

    def _centre_stages(
        self, ring: Ring, level: Level, name: str, sent: Callable[[int], Sent] | None,
        sent_key: Hashable,
    ) -> list[Stage]:
        """A sweep with centres: the plain sweep's steps, each lightpath carrying only the q
        chunks whose chains end at a centre (`_towards_centres`), then the broadcast steps,
        CW and, while some centre reaches that far back, CCW (`_centre_broadcasts`). The
        lightpaths are the plain sweep's (the same arrays: bounded once in a search), with
        their pieces (and, several lightpaths a way, counts) of these chunks."""
        assert level.centres is not None
        pieces = level.bundle_pieces // level.window
        plain = replace(level, centres=None)
        sweep = self._level_stages(ring, plain, name, sent, sent_key)
        both = sweep[-1]  # the last step goes both ways
        only_cw = sweep[0] if level.window % 2 == 0 else _remembered(
            (ring, plain, name, "CW only", sent is not None, sent_key),
            lambda: [self._step_stage(ring, plain, False, name, None if sent is None else
                                      sent(0))],
        )[0]
        # one stage object per distinct step, repeated like a pipeline's
        made: dict[tuple[int, int, int], Stage] = {}

        def step(stage: Stage, cw: int, ccw: int, label: str) -> Stage:
            key = (id(stage), cw, ccw)
            if key not in made:
                made[key] = _carrying(stage, cw * pieces, ccw * pieces, level.lightpaths, label)
            return made[key]

        q = level.centres
        out = [step(stage, q, q, stage.label) for stage in sweep]
        for cw, ccw in broadcast_chunks(level.window, q):
            out.append(step(both if ccw else only_cw, cw, ccw, f"{name} broadcast"))
        return out


def _carrying(stage: Stage, cw_pieces: int, ccw_pieces: int, lightpaths: int,
              label: str) -> Stage:
    """`stage`'s lightpaths carrying `cw_pieces` CW and `ccw_pieces` CCW per pair over up to
    `lightpaths` lightpaths each (a centre sweep's steps): the same arrays where the counts
    do not change."""
    per = -(-cw_pieces // lightpaths)
    counts = np.where(stage.allowed == Direction.CCW, -(-ccw_pieces // per), -(-cw_pieces // per))
    if np.array_equal(counts, stage.counts):
        counts = stage.counts
    return replace(stage, counts=counts, pieces=per, label=label)


def _halves_stage(both: Stage, level: Level) -> Stage:
    """The last step of a `halves` pipeline: the both-ways step's pairs, CW carrying the
    bundles' A pieces and CCW their B pieces (`Level.half_pieces`) on as many lightpaths as
    `half_per_lightpath` pieces each need (at most x; CCW none when B is empty)."""
    per = level.half_per_lightpath
    cw, ccw = (-(-part // per) for part in level.half_pieces)
    counts = np.where(both.allowed == Direction.CCW, ccw, cw)
    keep = counts > 0
    return Stage.from_demands(both.nodes, both.sources[keep], both.destinations[keep],
                              counts[keep], both.allowed[keep], both.label, per)


_MEMO_SIZE = 64
_memo: OrderedDict[Hashable, list[Stage]] = OrderedDict()
_memo_lock = threading.Lock()


def _remembered(key: Hashable, build: Callable[[], list[Stage]]) -> list[Stage]:
    """The stages of `key`, built once while among the last `_MEMO_SIZE` asked for (a key
    naming arrays by id keeps them in its value, so no id is reused meanwhile). A
    search takes a shape's variants (with and without a sweep, each number of centres) one
    after the other; they share their levels' stages, and the search's bounds cache knows
    a stage it has met by the identity of its arrays, so a remembered stage is neither built
    nor hashed again (N = 4096: 1934 all-reduce candidates)."""
    with _memo_lock:
        if key in _memo:
            _memo.move_to_end(key)
            return _memo[key]
    out = build()
    with _memo_lock:
        _memo[key] = out
        if len(_memo) > _MEMO_SIZE:
            _memo.popitem(last=False)
    return out


def _with_direct(params: Params) -> Params:
    """`direct` defaults to 0 (every level a pipeline), listed after radices and pieces."""
    params["direct"] = params.pop("direct", 0)
    return params


def _direct_count_refusal(params: Params) -> str | None:
    """More direct levels than the shape has levels."""
    radices = params["radices"]
    assert isinstance(radices, tuple)
    direct = int_param(params, "direct")
    if direct > len(radices):
        return (
            f"direct = {direct} levels, but the shape has only {len(radices)}; "
            f"use direct <= {len(radices)}"
        )
    return None


def _direct_levels_within(found: list[Level], hop_limit: int | None) -> int:
    """How many of the lowest levels can be direct: each one's longest lightpath (a s hops)
    within the hop limit."""
    fits = 0
    for level in found:
        if hop_limit is not None and level.stride * level.cw_steps > hop_limit:
            break
        fits += 1
    return fits


ROOTS_PARAM = ParamSpec(
    "roots",
    "the chunks (all-gather: the items) cut into this many parts of about N / roots "
    "consecutive owners (all-reduce: the vector's pieces cut as evenly as whole pieces "
    "allow), each reduced along the whole ring's least tree of `tree` slots "
    "translated to the part's middle owner (models/rooted_trees.py), instead of the window "
    "levels; the reduce-scatter then scatters each part from its root in one slot, the "
    "all-reduce runs the trees forwards; the all-gather gathers each part at its root in "
    "one slot, then runs the trees forwards",
    1,
    None,
    default_rule="left out (no parts): the window levels",
    maximum_rule="N; with radices = N, direct = 0 and no per-node limit",
)


MIRROR_PARAM = ParamSpec(
    "mirror",
    "with roots: 1 runs every other part's tree mirrored (every edge the other way round), "
    "so each slot's long edges load both directions alike and the parts' edges spread "
    "over more links",
    0,
    None,
    default_rule="0 (left out): every part runs the tree as computed",
    maximum_rule="1",
)


def _roots(params: Params) -> int:
    roots = params.get("roots", 0)
    assert isinstance(roots, int)
    return roots


def _mirror(params: Params) -> int:
    mirror = params.get("mirror", 0)
    assert isinstance(mirror, int)
    return mirror


def _least_tree_slots(nodes: int, hop_limit: int | None) -> int:
    """The fewest slots in which lightpaths of at most the hop limit reach the node N / 2
    away (the rooted trees' least `tree`)."""
    reach = max(1, min(hop_limit or nodes, nodes // 2))
    return max(1, -(-(nodes // 2) // reach))


def _rooted_defaults(ring: Ring, given: Params, out: Params, hop_limit: int | None) -> Params:
    """A rooted shape's defaults: one piece a chunk (a part is already N / roots chunks) and
    the least tree that reaches N / 2, unless given; `mirror` = 0 left out (its default), and
    so is `mirror` = 1 with one part (nothing to mirror it against)."""
    if not _mirror(out) or _roots(out) == 1:
        out.pop("mirror", None)
    if not _roots(out):
        return out
    if "pieces" not in given:
        out["pieces"] = 1
    out.setdefault("tree", _least_tree_slots(ring.nodes, hop_limit))
    return out


def _rooted_plan(ring: Ring, params: Params, hop_limit: int | None,
                 scatter: bool) -> RootedTrees | str:
    """The rooted trees of a shape with `roots` (with the reduce-scatter's scatter slots
    when `scatter`), or why they cannot be built."""
    args = _rooted_args(ring, params, hop_limit, scatter)
    return args if isinstance(args, str) else rooted_trees(*args)


def _rooted_args(ring: Ring, params: Params, hop_limit: int | None,
                 scatter: bool) -> tuple[int, int, int, int, int, int, bool, bool] | str:
    """`rooted_trees`' arguments for a shape with `roots`, or why the shape is not one."""
    radices = params["radices"]
    if radices != (ring.nodes,):
        return (f"rooted trees run on the whole ring: radices = {ring.nodes}, not "
                f"{'x'.join(map(str, radices))}")  # type: ignore[arg-type]
    if int_param(params, "direct"):
        return "rooted trees have no direct levels: use direct = 0"
    roots, tree = _roots(params), _tree(params)
    if roots > ring.nodes:
        return f"roots = {roots}: at most one part per owner, roots <= N = {ring.nodes}"
    least = _least_tree_slots(ring.nodes, hop_limit)
    if tree < least:
        return (f"{tree} tree slots of lightpaths of at most {hop_limit} hops cannot reach the "
                f"node {ring.nodes // 2} away; use tree >= {least}")
    return (ring.nodes, hop_limit or ring.nodes, tree, roots, int_param(params, "pieces"),
            ring.channels_per_direction, bool(_mirror(params)), scatter)


def _rooted_time_floor(
    ring: Ring, raw: Params, hop_limit: int | None, sizes: Sequence[float],
    hardware: Hardware, pieces_per_message: int, phases: int,
) -> tuple[int, list[float]] | None:
    """A rooted shape's (`raw` from `_rooted_variants`) least slots and times, without
    building it: its S tree slots a phase (`phases`: 2 for the all-reduce) and the
    reduce-scatter's scatter slots (the all-gather's gather) each pay a reconfiguration, and
    each phase carries every chunk's q pieces over the tree's F(N, S) hops, which the
    2 N C link-channels of its slots carry at p_t pieces a lightpath at most: sum p_t >=
    q F(N, S) / (2 C) pieces a phase, each at least its bytes / B."""
    args = _rooted_args(ring, raw, hop_limit, phases == 1)
    if isinstance(args, str):
        return None
    nodes, hops, tree, roots, pieces, channels, _mirror_it, _scatter_it = args
    slots = phases * tree
    if phases == 1:
        slots += max(1, scatter_slots(nodes, hops, roots, pieces, channels))
    tree_cost = int(tree_hops(nodes, hops).upto(tree)[tree])
    carried = phases * -(-pieces * tree_cost // (2 * channels))
    per_byte = 8 / (hardware.bandwidth_per_wavelength_gbps * 1e9)
    reconfigure = hardware.mrr_reconfiguration_us * 1e-6
    return slots, [slots * reconfigure + carried * size / pieces_per_message * per_byte
                   for size in sizes]


def _mirror_refusal(params: Params) -> str | None:
    """`mirror` is 0 or 1, and 1 only with rooted trees (it mirrors their parts)."""
    if _mirror(params) not in (0, 1):
        return f"mirror is 0 or 1, got {_mirror(params)}"
    if _mirror(params) and not _roots(params):
        return "mirror = 1 mirrors rooted trees' parts: give roots, or leave mirror out"
    return None


def _rooted_refusal(ring: Ring, params: Params, hop_limit: int | None,
                    node_limit: int | None, scatter: bool) -> str | None:
    if node_limit is not None:
        return ("rooted trees do not keep to a per-node limit (a node sends for every part "
                "whose tree has an edge at it): leave roots out")
    plan = _rooted_plan(ring, params, hop_limit, scatter)
    return plan if isinstance(plan, str) else None


def _rooted(ring: Ring, params: Params, hop_limit: int | None, scatter: bool) -> RootedTrees:
    plan = _rooted_plan(ring, params, hop_limit, scatter)
    assert not isinstance(plan, str), plan  # resolve() refused it already
    return plan


def _rooted_variants(ring: Ring, hop_limit: int | None, extra: Params,
                     phases: int) -> Iterator[Params]:
    """The rooted-tree shapes the search tries: parts of each of ROOTED_GROUPS owners,
    ROOTED_PIECES pieces a chunk, each without and with every other part mirrored
    (ROOTED_MIRRORS), on the ROOTED_SLOTS shallowest trees that fit (`rooted_trees`) from
    the least that reaches N / 2 to ROOTED_DEPTH slots above it, while N x stages
    (`phases` trees of S slots) stays within ROOTED_WORK_LIMIT. Fewer channels fit only
    larger parts on deeper trees (N = 1024, w = 8: the first that fits, parts of 16
    owners, has 17 slots, ten above the least). Measured (80 hops): the all-reduce at
    N = 1024, w = 64, 64 MiB takes 10-slot trees from 341 roots, mirrored (3 owners a part:
    1.294 -> 1.21 ms); with w = 16 11-slot trees from 64 roots (1.426 ms against
    4 x 4 x 4 x 16's 1.640); the reduce-scatter at N = 1024, w = 8, 1 MiB 18-slot trees from
    64 roots (0.588 ms against 8 x 128's 1.666)."""
    n = ring.nodes
    least = _least_tree_slots(n, hop_limit)
    parts = sorted({n // g for g in ROOTED_GROUPS if n // g >= 1}, reverse=True)
    for roots in parts:
        for pieces in ROOTED_PIECES:
            for mirror in ROOTED_MIRRORS if roots > 1 else (0,):
                offered = 0
                for tree in range(least, least + ROOTED_DEPTH + 1):
                    if tree > max(1, n // 2) or n * phases * tree > ROOTED_WORK_LIMIT:
                        break
                    params: Params = {"radices": (n,), "direct": 0, "tree": tree,
                                      "roots": roots, "pieces": pieces, **extra}
                    if mirror:
                        params["mirror"] = 1
                    args = _rooted_args(ring, params, hop_limit, phases == 1)
                    if not isinstance(args, str) and rooted_fit(*args) is None:
                        yield params
                        offered += 1
                        if offered == ROOTED_SLOTS:
                            break


# The all-reduce's search tries twice the default pieces (an even pipeline top's halves,
# `_direct_variants`) only up to this ring size: at N = 4 and 6 with one or two channels
# they win at 4 MiB (N = 4, w = 1: 0.754 ms against 0.972), at N = 8192 the extra
# candidates pushed the search past its 30 s budget.
DOUBLED_PIECES_NODES = 1024
TREE_SLOTS = (4, 5, 6)  # the tree slot counts the search tries
TREE_WINDOW_MIN = 8  # the least lowest window it tries them on


def _tree_load(count: Mapping[int, int], bundle: int, pieces: int) -> int:
    """The busier direction's link load of a tree slot sending count[d] bundles along each
    shift d at `pieces` pieces a lightpath."""
    return max(
        sum(abs(d) * -(-c * bundle // pieces) for d, c in count.items() if (d > 0) == way)
        for way in (True, False)
    )


def _tree(params: Params) -> int:
    tree = params.get("tree", 0)
    assert isinstance(tree, int)
    return tree


def _tree_refusal(ring: Ring, params: Params, hop_limit: int | None) -> str | None:
    """Why the shape's `tree` cannot be built on `ring` (its positions), or None."""
    tree = _tree(params)
    if not tree:
        return None
    radices = params["radices"]
    assert isinstance(radices, tuple)
    window = radices[0]
    if tree < 2:
        return "tree = 1 is a direct level: use tree >= 2, or direct = 1 and tree = 0"
    if int_param(params, "direct"):
        return "the lowest level is a tree or direct, not both: use direct = 0 with a tree"
    if params.get("sweep") and len(radices) == 1:
        return "a one-level shape's only level is swept: no tree under it; use sweep = 0"
    if holding(params) is not None:
        return "idle residues (holders) do not combine with a tree: leave holders out"
    pieces = params.get("pieces", 1)  # whether a slot fits does not depend on it
    assert isinstance(pieces, int)
    bundle = ring.nodes // window * pieces
    reach = hop_limit or window
    try:
        plan = tree_slots(window, reach, tree, bundle, ring.channels_per_direction)
    except ValueError:
        return (
            f"{tree} slots of lightpaths of at most {min(reach, window // 2)} hops cannot "
            f"reach the window's position {window // 2} away; use tree >= "
            f"{-(-(window // 2) // max(1, min(reach, window // 2)))}"
        )
    used = sum(1 for parents, _ in least_tree_edges(window, min(reach, window), tree)
               if len(parents))
    if used < 2:
        return (
            f"the window of {window} positions is reached in one slot: that is a direct "
            "level (direct = 1, tree = 0), not a tree"
        )
    if used < tree:  # an empty slot is no stage (review, session 34: a ValueError)
        return (
            f"the window of {window} positions needs no more than {used} slots for its "
            f"least tree; use tree <= {used}"
        )
    if plan is None:
        return (
            f"a slot of the window's least tree in {tree} slots uses shifts whose lengths sum "
            f"to more than the {ring.channels_per_direction} channels one way; use more slots "
            "or a smaller window"
        )
    return None


def _tree_order(level: Level, gather: bool) -> tuple[TreeSlot, ...]:
    """A tree level's slots in the order they run: as built for an all-gather, reversed for
    a reduce-scatter (whose shifts are the negated ones)."""
    return level.tree if gather else tuple(reversed(level.tree))


def _tree_stages(ring: Ring, level: Level, name: str, gather: bool) -> list[Stage]:
    """A tree level's slots (`tree_slots`): every node sends x_d lightpaths along each shift
    d of the slot, CW for d > 0, CCW else; a reduce-scatter takes the slots in reverse, every
    shift negated."""
    n = ring.nodes
    nodes = np.arange(n, dtype=np.int64)
    sign = 1 if gather else -1
    out = []
    for j, slot in enumerate(_tree_order(level, gather)):
        sources, destinations, counts, allowed = [], [], [], []
        for d, x in slot.shifts:
            shift = sign * d
            sources.append(nodes)
            destinations.append((nodes + shift) % n)
            counts.append(np.full(n, x, dtype=np.int64))
            allowed.append(np.full(n, Direction.CW if shift > 0 else Direction.CCW,
                                   dtype=np.int64))
        out.append(Stage.from_demands(
            n, np.concatenate(sources), np.concatenate(destinations), np.concatenate(counts),
            np.concatenate(allowed), f"{name} tree slot {j + 1}", slot.per_lightpath,
        ))
    return out


def _tree_flows(
    ring: Ring, level: Level, pieces: int, reduction: Reduction, label: str
) -> list[StageFlow]:
    """A tree level's slots as data. All-gather (COPY / NONE): at the edge p -> p + d of a
    slot node v sends to v + d the bundle of class v - p mod g (v is p past that class's
    seed). Reduce-scatter (ADD), slots reversed: node v sends to v - d its partial sum of
    class v - p - d, the one v is p + d past, which holds every contribution of its subtree
    by then (reached later in the broadcast, so earlier here)."""
    nodes = np.arange(ring.nodes, dtype=np.int64)
    gather = reduction != Reduction.ADD
    flows = []
    for j, slot in enumerate(_tree_order(level, gather)):
        if gather:
            moves = [(d, nodes - p) for p, d in slot.edges]
        else:
            moves = [(-d, nodes - p - d) for p, d in slot.edges]
        flows.append(_bundles_flow(ring, replace(level, per_lightpath=slot.per_lightpath),
                                   moves, level.modulus, pieces, reduction,
                                   f"{label} tree slot {j + 1}"))
    return flows


def _shifts(level: Level, ccw: bool, nodes: int) -> list[IntArray]:
    """Per node, the ring offsets of one step's lightpaths (positive CW, negative CCW): +s
    and, with `ccw`, -s; a direct level's one step: +m s and -m s for m = 1..b, and with an
    even window the far member a = k / 2 strides away: +a s from every node, or, with
    `split_far`, the same class either way round: +a s from the nodes of even block v // s,
    -a s from the odd ones. Node w then hears the far class from exactly one of w -+ a s
    (their blocks are w's less and plus a, of one parity as N / s is even), and its window
    alternates with the block, the same for every member of a level above (their blocks
    differ by multiples of k): the windows still tile, and the far lightpaths split between
    the directions (`_direct_load`)."""
    s = level.stride
    everyone = np.ones(nodes, dtype=np.int64)
    if not level.direct:
        return [s * everyone, -s * everyone] if ccw else [s * everyone]
    near = [m * s * everyone for m in range(1, level.ccw_steps + 1)]
    near += [-m * s * everyone for m in range(1, level.ccw_steps + 1)]
    a = level.cw_steps
    if a == level.ccw_steps:
        return near
    if not level.split_far:
        return [*near[: level.ccw_steps], a * s * everyone, *near[level.ccw_steps :]]
    block = np.arange(nodes, dtype=np.int64) // s
    return [*near, np.where(block % 2 == 0, a * s, -a * s)]


def _flows(
    ring: Ring, level: Level, t: int, modulus: int, residue_cw: IntArray, residue_ccw: IntArray,
    pieces: int, reduction: Reduction, label: str,
) -> StageFlow:
    """Step t of a level as data: node v sends CW the bundle of class residue_cw[v] mod
    `modulus` and, when the step has both directions, CCW that of residue_ccw[v]."""
    moves = [(level.stride, residue_cw)]
    if t < level.ccw_steps:
        moves.append((-level.stride, residue_ccw))
    return _bundles_flow(ring, level, moves, modulus, pieces, reduction, label)


Move = tuple[int | IntArray, IntArray] | tuple[int | IntArray, IntArray, int]


def _bundles_flow(
    ring: Ring, level: Level, moves: Sequence[Move], modulus: int, pieces: int,
    reduction: Reduction, label: str, registers: list[tuple[int, int]] | None = None,
    per_lightpath: int | None = None,
) -> StageFlow:
    """Per (shift, residues[, part]): node v sends to v + shift the bundle of class
    residues[v] mod `modulus` (every item of the class, every piece of each), or with
    `part` 0 or 1 only its A or B pieces (`Level.half_pieces`: the first ceil(P / 2) of the
    bundle's P pieces, in the order below, or the rest). `registers` (all-reduce), per move:
    the mask of the sender's registers summed and the receiver's register written.
    `per_lightpath`: pieces a lightpath carries (default the level's)."""
    n = ring.nodes
    nodes = np.arange(n, dtype=np.int64)
    per_class = n // modulus
    offsets = ((np.arange(per_class, dtype=np.int64) * modulus)[:, None] * pieces + np.arange(
        pieces, dtype=np.int64
    )).reshape(-1)  # the class's items after the first, times pieces, plus each piece
    first_half = -(-len(offsets) // 2)
    parts = (offsets, offsets[:first_half], offsets[first_half:])
    senders, receivers, data = [], [], []
    for move in moves:
        shift, residues = move[0], move[1]
        chosen = parts[0] if len(move) == 2 else parts[1 + move[2]]
        if not len(chosen):
            continue
        first = (residues % modulus) * pieces
        data.append((first[:, None] + chosen[None, :]).reshape(-1))
        senders.append(np.repeat(nodes, len(chosen)))
        receivers.append(np.repeat((nodes + shift) % n, len(chosen)))
    reads = writes = None
    if registers is not None:
        assert all(len(move) == 2 for move in moves), "registers move whole bundles"
        reads, writes = (np.repeat(column, n * len(offsets))
                         for column in zip(*registers, strict=True))
    return StageFlow.of(
        np.concatenate(senders), np.concatenate(receivers), np.concatenate(data), reduction,
        label, level.per_lightpath if per_lightpath is None else per_lightpath, reads=reads,
        writes=writes,
    )


def _direct_flows(
    ring: Ring, level: Level, pieces: int, reduction: Reduction, label: str
) -> StageFlow:
    """A direct level's one step as data. Reduce-scatter (ADD): v sends to each v + m s its
    partial sum of *that* node's class mod s k, so every node receives its own class from
    the k - 1 others of its window (disjoint sets) at once. All-gather (COPY / NONE): v sends
    its own bundle (class v mod s k) to each of them."""
    nodes = np.arange(ring.nodes, dtype=np.int64)
    reduce = reduction == Reduction.ADD
    moves = [
        (shift, nodes + shift if reduce else nodes)
        for shift in _shifts(level, True, ring.nodes)
    ]
    return _bundles_flow(ring, level, moves, level.modulus, pieces, reduction, label)


@dataclass(eq=False)
class _ScatterRooted(_Windowed):
    """The window levels, and the rooted trees with the reduce-scatter's scatter (the
    all-gather's gather, the same slots reversed): what the reduce-scatter and the all-gather
    share of `roots` and `mirror`."""

    params: ClassVar[tuple[ParamSpec, ...]] = (*_Windowed.params, ROOTS_PARAM, MIRROR_PARAM)

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        return _rooted_defaults(ring, given, super().fill_defaults(ring, given), self.hop_limit)

    def refusal(self, ring: Ring, params: Params) -> str | None:
        mirrored = _mirror_refusal(params)
        if mirrored is not None:
            return mirrored
        if _roots(params):
            return _Synthesized.refusal(self, ring, params) or _rooted_refusal(
                ring, params, self.hop_limit, self._node_limit(), scatter=True)
        return super().refusal(ring, params)

    def shape_candidates(self, ring: Ring) -> Iterator[Params]:
        """The window shapes, then the rooted trees (`_rooted_variants`; not under a
        per-node limit)."""
        yield from super().shape_candidates(ring)
        if self._node_limit() is None:
            yield from _rooted_variants(ring, self.hop_limit, {}, phases=1)

    def time_floor(
        self, ring: Ring, raw: Params, sizes: Sequence[float], hardware: Hardware
    ) -> tuple[int, list[float]] | None:
        if not _roots(raw) or self._node_limit() is not None:
            return None
        return _rooted_time_floor(ring, raw, self.hop_limit, sizes, hardware,
                                  self.data_per_message(ring, raw), phases=1)

    def _stage_count(self, ring: Ring, params: Params) -> int:
        if _roots(params):
            return _tree(params) + len(_rooted(ring, params, self.hop_limit, True).scatter)
        return super()._stage_count(ring, params)


@dataclass(eq=False)
class SynthAllGather(_ScatterRooted):
    """All-gather: the window levels top-down (pipelines, direct or a tree at the lowest),
    or, with `roots`, the reduce-scatter's rooted trees reversed in time: each owner sends
    its item to its part's root in one slot, then every part's items go out along the whole
    ring's least tree from its root (`models.rooted_trees`). Few channels make the window
    levels slow on small items, one pipeline stride a slot (N = 1024, w = 8, 1 KiB items:
    8 x 128, 65 slots, 1.666 ms); the rooted trees take their least depth that fits."""

    collective: ClassVar[Collective] = Collective.ALLGATHER
    name: ClassVar[str] = "synth"

    def data_per_message(self, ring: Ring, params: Params) -> int:
        return int_param(params, "pieces")


    def _stages(self, ring: Ring, params: Params) -> list[Stage]:
        if _roots(params):
            plan = _rooted(ring, params, self.hop_limit, scatter=True)
            return [*gather_stages(plan), *broadcast_stages(plan)]
        out: list[Stage] = []
        for i, level in reversed(list(enumerate(self._levels(ring, params)))):
            out += self._level_stages(ring, level, f"all-gather level {i + 1}")
        return out

    def _schedule(self, ring: Ring, params: Params) -> Schedule:
        n, q = ring.nodes, int_param(params, "pieces")
        if _roots(params):
            plan = _rooted(ring, params, self.hop_limit, scatter=True)
            flows = [*gather_flows(plan), *broadcast_flows(plan, Reduction.NONE)]
        else:
            flows = _gather_flows(ring, self._levels(ring, params), q, Reduction.NONE)
        nodes = frozen(np.arange(n, dtype=np.int64))
        return Schedule("allgather", n, nodes, n * q, tuple(flows), pieces=q)


def _gather_flows(
    ring: Ring, found: list[Level], pieces: int, reduction: Reduction
) -> list[StageFlow]:
    """The all-gather of `found` (bottom first) as data, top level first: at level i node v
    passes on the bundle of its class mod s_{i+1} and those it received, t strides behind
    (CW) and ahead (CCW) at step t; a direct level sends its own bundle to its window.
    Reduction.NONE for items, COPY for an all-reduce's complete sums."""
    nodes = np.arange(ring.nodes, dtype=np.int64)
    flows = []
    for i, level in reversed(list(enumerate(found))):
        if level.tree:
            flows += _tree_flows(ring, level, pieces, reduction, f"all-gather level {i + 1}")
            continue
        if level.direct:
            flows.append(_direct_flows(ring, level, pieces, reduction,
                                       f"all-gather level {i + 1} direct"))
            continue
        for t in range(level.cw_steps):
            label = f"all-gather level {i + 1} step {t + 1}"
            if level.halves and t == level.ccw_steps:
                # the far class: its A pieces from behind (CW), its B pieces from ahead
                behind, ahead = nodes - t * level.stride, nodes + t * level.stride
                flows.append(_bundles_flow(
                    ring, level, [(level.stride, behind, 0), (-level.stride, ahead, 1)],
                    level.modulus, pieces, reduction, label,
                    per_lightpath=level.half_per_lightpath))
                continue
            flows.append(
                _flows(ring, level, t, level.modulus, nodes - t * level.stride,
                       nodes + t * level.stride, pieces, reduction, label)
            )
    return flows


def _sweep_flows(ring: Ring, level: Level, pieces: int, label: str) -> list[StageFlow]:
    """The top level's all-reduce by sweeps: every member holds its class vector (register 0,
    the partial sum of its block). CW step t: v sends own + L (registers 0 and 1) to v + s,
    which sets its L to it: after t steps L(v) is the sum of the t members behind v. CCW
    likewise into R (register 2), starting a - b steps late so both directions' last steps
    (t = a, ADD into register 0) come together: v ends with the a members behind, itself and
    the b ahead, a + b + 1 = k, each once. A direct level does it in one slot: v sends its
    class vector to every member of its window, which adds them."""
    if level.direct:
        return [_direct_flows(ring, level, pieces, Reduction.ADD, f"{label} direct")]
    nodes = np.arange(ring.nodes, dtype=np.int64)
    a, b = level.cw_steps, level.ccw_steps
    out = []
    for t in range(a):
        last = t == a - 1
        moves, registers = [(level.stride, nodes)], [(0b011, 0 if last else 1)]
        if t >= a - b:
            moves.append((-level.stride, nodes))
            registers.append((0b101, 0 if last else 2))
        flow = _bundles_flow(
            ring, level, moves, level.modulus, pieces,
            Reduction.ADD if last else Reduction.SET, f"{label} step {t + 1}", registers,
        )
        out.append(
            flow if level.centres is None else _towards_centres(ring, level, t, pieces, flow)
        )
    if level.centres is not None:
        out += _centre_broadcasts(ring, level, pieces, label)
    return out


def _towards_centres(
    ring: Ring, level: Level, t: int, pieces: int, flow: StageFlow
) -> StageFlow:
    """Sweep step t with centres: of its class vector member m sends only the running sums
    whose chain ends at a centre of theirs: CW the chunks j with m + (a - t) a centre of j
    (the chain started a strides behind it at step 0), CCW those with m - (a - t) one. The
    registers are the sweep's: every chain starts at step 0 with empty L and R, and a member
    that sends a chunk's running sum at step t > 0 received it (same centre) at step t - 1."""
    assert level.centres is not None
    s, k, a = level.stride, level.window, level.cw_steps
    centre = np.zeros(k, dtype=bool)
    centre[centre_offsets(k, level.centres)] = True
    member, chunk = flow.senders // s, flow.data // pieces // s
    cw = (flow.receivers - flow.senders) % ring.nodes == s
    ahead = np.where(cw, member + (a - t), member - (a - t))
    keep = centre[(ahead - chunk) % k]
    bundle = -(-level.centres * pieces // level.lightpaths)
    return StageFlow.of(
        flow.senders[keep], flow.receivers[keep], flow.data[keep], flow.reduction, flow.label,
        bundle, reads=None if flow.reads is None else flow.reads[keep],
        writes=None if flow.writes is None else flow.writes[keep],
    )


def _centre_broadcasts(ring: Ring, level: Level, pieces: int, label: str) -> list[StageFlow]:
    """After a sweep with centres, step x = 1..max reach: each chunk's sum goes one stride
    further from each of its centres, CW to the member x after it and CCW to the member x
    before it while they are within its reach (`centre_reach`): member m sends CW chunk j
    when m - j = e + x - 1 for a centre offset e reaching x CW, CCW when m - j = e - x + 1.
    COPY of complete sums into register 0 (each member takes its chunk from one centre)."""
    assert level.centres is not None
    s, k = level.stride, level.window
    offsets = centre_offsets(k, level.centres)
    cw_reach, ccw_reach = centre_reach(k, level.centres)
    nodes = np.arange(ring.nodes, dtype=np.int64)
    member, residue = nodes // s, nodes % s
    within = np.arange(pieces, dtype=np.int64)
    out = []
    for x, (cw, _) in enumerate(broadcast_chunks(k, level.centres), start=1):
        senders, receivers, data = [], [], []
        for shift, sends in ((s, offsets[cw_reach >= x] + x - 1),
                             (-s, offsets[ccw_reach >= x] - x + 1)):
            if not len(sends):
                continue
            chunk = (member[:, None] - sends[None, :]) % k  # per node, the chunks it sends
            item = (residue[:, None] + chunk * s)[:, :, None] * pieces + within
            data.append(item.reshape(-1))
            per_node = len(sends) * pieces
            senders.append(np.repeat(nodes, per_node))
            receivers.append(np.repeat((nodes + shift) % ring.nodes, per_node))
        out.append(StageFlow.of(
            np.concatenate(senders), np.concatenate(receivers), np.concatenate(data),
            Reduction.COPY, f"{label} broadcast {x}", -(-cw * pieces // level.lightpaths),
        ))
    return out


@dataclass(eq=False)
class SynthAllReduce(_Windowed):
    """Reduce-scatter bottom-up, then all-gather top-down; with `sweep` the top level instead
    all-reduces its class vectors by running sums swept both ways (docs/achievable.md: a
    reduce-then-broadcast schedule needs 2 ceil(floor(N/2) / H) slots, a sweep about half).
    With `holders` < s_L some residues mod the top stride hold no share of the vector
    (`idle_residues`), so a top stride above F w keeps the top level's load within F w."""

    collective: ClassVar[Collective] = Collective.ALLREDUCE
    name: ClassVar[str] = "synth"
    params: ClassVar[tuple[ParamSpec, ...]] = (
        *_Windowed.params,
        ParamSpec(
            "sweep",
            "1: the top level all-reduces by sweeps instead of reduce-scatter + all-gather: "
            "every member sends its whole class vector plus the running sum of the members "
            "behind it, CW and CCW, each step; k//2 slots instead of 2 (k//2), for about "
            "k/2 times the top level's bytes",
            0,
            0,
            default_rule="0: reduce-scatter + all-gather at every level",
            maximum_rule="1",
        ),
        ParamSpec(
            "holders",
            "of every s_L consecutive positions (s_L the top level's stride), how many hold "
            "a share of the vector; the others hold none and sit the top level out, so its "
            "links carry `holders` lightpaths instead of s_L: a top stride above F w (up to "
            "the hop limit) fits the channels. s_L - holders must be a multiple of the "
            "stride below, s_{L-1}, so every class below holds as many live chunks",
            1,
            None,
            default_rule="s_L: every position holds a share",
            maximum_rule="s_L",
        ),
        ParamSpec(
            "centres",
            "with sweep = 1 (a pipeline top level of k_L members): at how many members each "
            "chunk's sum forms, spread evenly; the sweep sends each member only the running "
            "sums bound for a centre (centres / k_L of the class vector a step), and the "
            "centres then pass the sums on to the members between them, one stride a step: "
            "floor(ceil(k_L / centres) / 2) more slots for about centres / k_L of the bytes",
            1,
            None,
            default_rule="k_L: every member (the plain sweep)",
            maximum_rule="k_L",
        ),
        ROOTS_PARAM,
        MIRROR_PARAM,
    )

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        out = _rooted_defaults(ring, given, super().fill_defaults(ring, given), self.hop_limit)
        out["sweep"] = out.pop("sweep", 0)
        radices = out["radices"]
        assert isinstance(radices, tuple)
        out["holders"] = out.pop("holders", math.prod(radices[:-1]))
        out["centres"] = out.pop("centres", radices[-1])
        return out

    def refusal(self, ring: Ring, params: Params) -> str | None:
        mirrored = _mirror_refusal(params)
        if mirrored is not None:
            return mirrored
        if _roots(params):
            if int_param(params, "sweep") or centred(params) or holding(params):
                return "rooted trees reduce and broadcast: use sweep = 0, no holders or centres"
            return _Synthesized.refusal(self, ring, params) or _rooted_refusal(
                ring, params, self.hop_limit, self._node_limit(), scatter=False)
        reason = super().refusal(ring, params)
        if reason is None and int_param(params, "sweep") not in (0, 1):
            return f"sweep is 0 or 1, got {int_param(params, 'sweep')}"
        if reason is None:
            reason = _holders_refusal(params)
        return reason or _centres_refusal(params)

    def shape_candidates(self, ring: Ring) -> Iterator[Params]:
        """Every candidate of the hierarchy, each without and with the top-level sweep; where
        the top stride exceeds F w, also with the most holders that fit (`_holders_within`);
        and the shapes whose top stride lies between F w and the hop limit
        (`_idle_shapes`), which only holders make fit; then the rooted trees. The
        candidates with twice the pieces for an even top's halves (`_direct_variants`) only
        unswept and up to DOUBLED_PIECES_NODES nodes: none of them won at N = 1024 (the
        top's last step is 1 of 26 slots at 64 MiB, and 4 MiB sweeps its top), they win on
        the smallest rings, and at N = 8192 they pushed the search past its 30 s budget."""
        channels = ring.channels_per_direction
        for raw in super().shape_candidates(ring):
            radices = raw["radices"]
            assert isinstance(radices, tuple)
            if _tree(raw):  # no idle residues under a tree, no sweep of its only level
                shaped = {**raw, "holders": math.prod(radices[:-1])}
                yield from _with_centres(shaped) if len(radices) > 1 else [
                    {**shaped, "sweep": 0, "centres": radices[-1]}]
                continue
            if "pieces" in raw:  # twice the pieces for the top's halves: unswept only,
                if ring.nodes <= DOUBLED_PIECES_NODES:  # and on rings up to 1024 nodes
                    yield {**raw, "holders": math.prod(radices[:-1]), "sweep": 0,
                           "centres": radices[-1]}
                continue
            fit = _holders_within(radices, channels)
            for holders in (math.prod(radices[:-1]), fit):
                if holders is not None:
                    yield from _with_centres({**raw, "holders": holders})
        for radices in _idle_shapes(ring, self.hop_limit):
            fit = _holders_within(radices, channels)
            assert fit is not None
            for raw in self._direct_variants(ring, radices):
                if "pieces" not in raw:  # idle residues: no halves, so no use for more
                    yield from _with_centres({**raw, "holders": fit})
        if self._node_limit() is None:
            yield from _rooted_variants(ring, self.hop_limit,
                                        {"sweep": 0, "holders": 1, "centres": ring.nodes},
                                        phases=2)

    def time_floor(
        self, ring: Ring, raw: Params, sizes: Sequence[float], hardware: Hardware
    ) -> tuple[int, list[float]] | None:
        if not _roots(raw) or self._node_limit() is not None:
            return None
        return _rooted_time_floor(ring, raw, self.hop_limit, sizes, hardware,
                                  ring.nodes * int_param(raw, "pieces"), phases=2)

    def reduces_then_broadcasts(self, ring: Ring, params: Params) -> bool:
        # a sweep forms each chunk's sum at every member of the top window (or each centre)
        return ring.nodes == 1 or not int_param(params, "sweep")

    def data_per_message(self, ring: Ring, params: Params) -> int:
        """The vector is cut into one chunk per position that holds a share (every one of
        the N' unless `holders` < s_L; chunk c ends reduced at position c), each into pieces
        (N' = N unless the shape is padded)."""
        return self._live_positions(params) * int_param(params, "pieces")

    def _live_positions(self, params: Params) -> int:
        """Positions whose chunk is a share of the vector: N' holders / s_L."""
        radices = params["radices"]
        assert isinstance(radices, tuple)
        return self.positions(params) // math.prod(radices[:-1]) * int_param(params, "holders")

    def _live(self, params: Params) -> npt.NDArray[np.bool_] | None:
        """Per residue mod the top stride, whether it holds a share; None when all do."""
        held = holding(params)
        if held is None:
            return None
        radices = params["radices"]
        assert isinstance(radices, tuple)
        return ~idle_residues(radices, held[0])

    def _phases(self, ring: Ring, params: Params) -> tuple[list[Level], Level | None]:
        """The levels reduced and gathered, bottom first, and the swept top level (or None)."""
        found = self._levels(ring, params)
        if found[-1].sweep:
            return found[:-1], found[-1]
        return found, None

    def _stages(self, ring: Ring, params: Params) -> list[Stage]:
        if _roots(params):
            plan = _rooted(ring, params, self.hop_limit, scatter=False)
            return reduce_stages(plan, scatter=False) + broadcast_stages(plan)
        paired, swept = self._phases(ring, params)
        live = self._live(params)
        top = len(paired) - 1 if swept is None else len(paired)  # the top level's index

        def sent(i: int, gather: bool) -> Callable[[int], Sent] | None:
            """Levels L - 1 and L send whole residues' classes: which, per step (else None)."""
            if live is None or i < top - 1:
                return None
            if i == top:
                # every chunk a top member handles has its own residue, at every step: one
                # object, so each direction's stage is built once
                own: Sent = (live, lambda _i, _shift: np.arange(ring.nodes))
                return lambda t: own
            return lambda t: (live, _edge_classes(ring.nodes, paired[i], t, gather))

        def key(i: int, gather: bool) -> Hashable:
            """What `sent(i, gather)` depends on beside the ring and the level."""
            return None if live is None else (params["radices"], params["holders"], i == top,
                                              gather)

        out: list[Stage] = []
        for i, level in enumerate(paired):
            out += self._level_stages(ring, level, f"reduce-scatter level {i + 1}",
                                      sent(i, False), key(i, False), gather=False)
        if swept is not None:
            out += self._level_stages(ring, swept, f"sweep level {len(paired) + 1}",
                                      sent(top, False), key(top, False))
        for i, level in reversed(list(enumerate(paired))):
            out += self._level_stages(ring, level, f"all-gather level {i + 1}", sent(i, True),
                                      key(i, True))
        return out

    def _stage_count(self, ring: Ring, params: Params) -> int:
        if _roots(params):
            return 2 * _tree(params)
        paired, swept = self._phases(ring, params)
        return 2 * sum(level.steps for level in paired) + (swept.steps if swept else 0)

    def _schedule(self, ring: Ring, params: Params) -> Schedule:
        n, q = ring.nodes, int_param(params, "pieces")
        nodes = np.arange(n, dtype=np.int64)
        if _roots(params):
            plan = _rooted(ring, params, self.hop_limit, scatter=False)
            rooted = (*reduce_flows(plan, scatter=False), *broadcast_flows(plan))
            return Schedule("allreduce", n, frozen(nodes), n * q, rooted)
        paired, swept = self._phases(ring, params)
        flows = _reduce_flows(ring, paired, q)
        if swept is not None:
            flows += _sweep_flows(ring, swept, q, f"sweep level {len(paired) + 1}")
        flows += _gather_flows(ring, paired, q, Reduction.COPY)  # top-down
        live = self._live(params)
        if live is not None:
            chunk_live = live[nodes % len(live)]
            flows = [_live_flow(flow, chunk_live, q) for flow in flows]
        return Schedule("allreduce", n, frozen(nodes), self._live_positions(params) * q,
                        tuple(flows))


def holding(params: Mapping[str, object]) -> tuple[int, int] | None:
    """(holders, s_L) of an all-reduce shape some of whose residues are idle (`holders` below
    the top stride s_L); None for every other shape (every residue holds, or no `holders`).
    Takes resolved params or a plan's reported ones (radices as a list)."""
    radices = params["radices"]
    assert isinstance(radices, Sequence)
    top = math.prod(radices[:-1])
    holders = params.get("holders", top)
    assert isinstance(holders, int)
    return None if holders == top else (holders, top)


def centred(params: Mapping[str, object]) -> tuple[int, int] | None:
    """(centres, k_L) of an all-reduce shape whose swept top level forms each chunk's sum at
    fewer than its k_L members; None for every other shape. Takes resolved params or a
    plan's reported ones (radices as a list)."""
    radices = params["radices"]
    assert isinstance(radices, Sequence)
    centres = params.get("centres", radices[-1])
    assert isinstance(centres, int)
    return (centres, radices[-1]) if params.get("sweep") and centres < radices[-1] else None


def _holders_refusal(params: Params) -> str | None:
    """Why `holders` does not fit the shape, or None."""
    radices = params["radices"]
    assert isinstance(radices, tuple)
    holders, top = int_param(params, "holders"), math.prod(radices[:-1])
    below = math.prod(radices[:-2])
    if holders > top:
        return (
            f"holders = {holders}, more than the top level's stride {top}; use holders <= {top}"
        )
    if (top - holders) % below:
        window = radices[-2] if len(radices) > 1 else 1
        fits = ", ".join(str(top - e * below) for e in range(window))
        return (
            f"holders = {holders}: s_L - holders must be a multiple of the stride below the top "
            f"level, {below}, so every class below holds as many live chunks; use one of {fits}"
        )
    return None


def centre_counts(window: int) -> list[int]:
    """The centres worth trying on a swept top level of `window` members, most first: for
    broadcast steps d = 1, 2, 3, 4, 6, 9, 13, ... (each about 1.5 times the one before: a
    wide window would give dozens of counts, each a candidate of k / 2 stages or more), the
    fewest centres that leave every member within d strides of one, ceil(k / (2 d + 1)),
    down to 2 (one centre: reduce-scatter and all-gather, `sweep` = 0)."""
    out: list[int] = []
    d = 1
    while (q := -(-window // (2 * d + 1))) >= 2:
        if q not in out:
            out.append(q)
        d = max(d + 1, d * 3 // 2)
    return out


def _with_centres(raw: Params) -> Iterator[Params]:
    """A candidate without and with the sweep, and swept with each of `centre_counts` where
    its top level is a pipeline."""
    radices = raw["radices"]
    assert isinstance(radices, tuple)
    yield {**raw, "sweep": 0, "centres": radices[-1]}
    yield {**raw, "sweep": 1, "centres": radices[-1]}
    if int_param(raw, "direct") < len(radices):
        for centres in centre_counts(radices[-1]):
            yield {**raw, "sweep": 1, "centres": centres}


def _centres_refusal(params: Params) -> str | None:
    """Why `centres` does not fit the shape, or None: at most k_L, and fewer only for a
    swept top level that is a pipeline."""
    radices = params["radices"]
    assert isinstance(radices, tuple)
    centres, window = int_param(params, "centres"), radices[-1]
    if centres > window:
        return (
            f"centres = {centres}, more than the top level's {window} members; use "
            f"centres <= {window}"
        )
    if centres == 1 < window:
        if not int_param(params, "sweep"):  # "use sweep = 0" to one who gave it (fuzz, s. 35)
            return (
                "centres = 1 without a swept top level: every chunk's sum forms at one member "
                "already; leave centres out"
            )
        return (
            "centres = 1 forms every chunk's sum at one member and passes it on: that is "
            "the top level reduce-scattered and gathered; use sweep = 0 (or centres >= 2)"
        )
    if centres < window and not int_param(params, "sweep"):
        return (
            f"centres = {centres} needs a swept top level (sweep = 1); without it every "
            "chunk's sum forms at one member already (use centres = k_L)"
        )
    if centres < window and int_param(params, "direct") == len(radices):
        return (
            f"centres = {centres}: the top level is direct (one slot, every member sends its "
            "vector to all the others), so every member forms the sums; use centres = k_L "
            "or direct < the number of levels"
        )
    return None


def _holders_within(radices: tuple[int, ...], channels: int) -> int | None:
    """The most holders that keep the top level's load within the channels, where the top
    stride exceeds them (None where it does not, or no holder would be left)."""
    top, below = math.prod(radices[:-1]), math.prod(radices[:-2])
    if top <= channels or len(radices) < 2:
        return None
    idle = -(-(top - channels) // below)
    return top - idle * below if idle < radices[-2] else None


def _idle_shapes(ring: Ring, hop_limit: int | None) -> Iterator[tuple[int, ...]]:
    """Shapes whose top stride s lies between F w and the hop limit, which only idle
    residues make fit the channels: top radix k = ceil(N / s) (N' = k s within the padding
    limit) where no stride within F w reaches round the ring in k members (k F w < N), and
    two levels below it, k_1 k_2 = s with k_1 >= k_2: a direct level at stride k_1 loads a
    link with about k_1 k_2^2 / 8 lightpaths, so the wide level goes first (16 x 5 x 13 at
    N = 1024 reduces 80 positions in two direct slots, 5 x 16 cannot). One level below the
    top (window s > F w) is never faster than the plain shapes, and a third costs a slot
    each way."""
    channels, n = ring.channels_per_direction, ring.nodes
    if hop_limit is None:
        return
    for stride in range(channels + 1, hop_limit + 1):
        top = -(-n // stride)
        if top < 2 or top * channels >= n or not padding_allows(n, stride * top):
            continue
        for low in range(2, math.isqrt(stride) + 1):
            if stride % low == 0:
                radices = (stride // low, low, top)
                if _holders_within(radices, channels) is not None:
                    yield radices


def _edge_classes(
    nodes: int, level: Level, t: int, gather: bool
) -> Callable[[int, IntArray], IntArray]:
    """Level L - 1 of an all-reduce (its classes are single residues mod the top stride): per
    shift, the residue each node sends at step t. Reduce-scatter: the target's (direct: the
    partner's; pipeline: a - t strides ahead CW, b - t behind CCW); all-gather: direct, its
    own; pipeline, the one received t strides behind (CW) or ahead (CCW)."""
    v = np.arange(nodes, dtype=np.int64)
    s, a, b = level.stride, level.cw_steps, level.ccw_steps

    def classes(_index: int, shift: IntArray) -> IntArray:
        if level.direct:
            return v if gather else v + shift
        if gather:
            return np.where(shift > 0, v - t * s, v + t * s)
        return np.where(shift > 0, v + (a - t) * s, v - (b - t) * s)

    return classes


def _live_flow(flow: StageFlow, live: npt.NDArray[np.bool_], pieces: int) -> StageFlow:
    """An all-reduce flow without the chunks of idle residues (`live` per position), the
    others renumbered in order: chunk c's piece j becomes datum rank(c) pieces + j."""
    chunk, piece = np.divmod(flow.data, pieces)
    keep = live[chunk]
    rank = np.cumsum(live) - 1

    def pick(column: IntArray | None) -> IntArray | None:
        return None if column is None else column[keep]

    return StageFlow.of(
        flow.senders[keep], flow.receivers[keep], rank[chunk[keep]] * pieces + piece[keep],
        flow.reduction, flow.label, flow.bundle, pick(flow.copies), pick(flow.reads),
        pick(flow.writes),
    )


def _reduce_flows(ring: Ring, found: list[Level], pieces: int) -> list[StageFlow]:
    """The reduce-scatter of `found` (bottom first) as data, bottom-up: at level i node v adds
    what it received to its own part for the target t strides ahead (CW) or behind (CCW) and
    passes it on, so each class mod s_{i+1} ends summed over the window at its node; a direct
    level sends every window member its class at once. After the top level node v holds chunk
    v (class v mod N) summed over every node."""
    nodes = np.arange(ring.nodes, dtype=np.int64)
    flows = []
    for i, level in enumerate(found):
        if level.tree:
            flows += _tree_flows(ring, level, pieces, Reduction.ADD,
                                 f"reduce-scatter level {i + 1}")
            continue
        if level.direct:
            flows.append(_direct_flows(ring, level, pieces, Reduction.ADD,
                                       f"reduce-scatter level {i + 1} direct"))
            continue
        modulus, s = level.modulus, level.stride
        a, b = level.cw_steps, level.ccw_steps
        for t in range(a):
            label = f"reduce-scatter level {i + 1} step {t + 1}"
            if level.halves:
                # A pieces: targets' windows a strides behind to b ahead (the CW chain is
                # a long); B pieces: b behind to a ahead (the CCW chain is a long)
                moves: list[Move] = [(s, nodes + (a - t) * s, 0), (-s, nodes - (a - t) * s, 1)]
                if t < b:
                    moves += [(s, nodes + (b - t) * s, 1), (-s, nodes - (b - t) * s, 0)]
                flows.append(_bundles_flow(
                    ring, level, moves, modulus, pieces, Reduction.ADD, label,
                    per_lightpath=level.per_lightpath if t < b else level.half_per_lightpath))
                continue
            # CW: the part for the target (a - t) strides ahead; CCW: (b - t) behind
            flows.append(
                _flows(ring, level, t, modulus, nodes + (a - t) * s, nodes - (b - t) * s,
                       pieces, Reduction.ADD, label)
            )
    return flows


@dataclass(eq=False)
class SynthReduceScatter(_ScatterRooted):
    """Reduce-scatter: the all-reduce's first half, levels bottom-up (pipelines or direct).
    The message is each node's vector, cut into N chunks; chunk i ends summed at node i. In
    S slots each chunk's contributions meet at its owner on an in-tree of at least F(N, S)
    hops (docs/achievable.md, Fact 3c), which the shape search trades against slots."""

    collective: ClassVar[Collective] = Collective.REDUCESCATTER
    name: ClassVar[str] = "synth"
    padded: ClassVar[bool] = False  # chunk i ends at node i: N chunks, no virtual positions
    def data_per_message(self, ring: Ring, params: Params) -> int:
        """The vector is cut into N chunks (chunk c ends reduced at node c), each into pieces."""
        return ring.nodes * int_param(params, "pieces")


    def _stages(self, ring: Ring, params: Params) -> list[Stage]:
        if _roots(params):
            return reduce_stages(_rooted(ring, params, self.hop_limit, scatter=True),
                                 scatter=True)
        out: list[Stage] = []
        for i, level in enumerate(self._levels(ring, params)):
            out += self._level_stages(ring, level, f"reduce-scatter level {i + 1}",
                                      gather=False)
        return out

    def _schedule(self, ring: Ring, params: Params) -> Schedule:
        n, q = ring.nodes, int_param(params, "pieces")
        if _roots(params):
            flows = list(reduce_flows(_rooted(ring, params, self.hop_limit, scatter=True),
                                      scatter=True))
        else:
            flows = _reduce_flows(ring, self._levels(ring, params), q)
        nodes = frozen(np.arange(n, dtype=np.int64))
        return Schedule("reducescatter", n, nodes, n * q, tuple(flows), pieces=q)


def balanced_digits(nodes: int, radices: tuple[int, ...]) -> IntArray:
    """Per ring offset delta = 0..N-1, its digits m_i (one column per level) with
    sum m_i s_i = delta (mod N) and -floor((k_i - 1) / 2) <= m_i <= ceil((k_i - 1) / 2):
    the balanced mixed-radix representation (unique: the digit ranges cover N residues)."""
    delta = np.arange(nodes, dtype=np.int64)
    high = sum((k // 2) * s for k, s in zip(radices, _strides(radices), strict=True))
    value = np.where(delta > high, delta - nodes, delta)  # the representative in [-B, A]
    digits = np.zeros((nodes, len(radices)), dtype=np.int64)
    for i, (k, stride) in reversed(list(enumerate(zip(radices, _strides(radices), strict=True)))):
        a = k // 2
        lower_reach = sum((kk // 2) * ss for kk, ss in zip(radices[:i], _strides(radices)[:i],
                                                           strict=True))
        # the digit that leaves a remainder the lower levels can still represent
        digit = np.floor_divide(value + (stride - 1 - lower_reach), stride)
        digit = np.clip(digit, -((k - 1) // 2), a)
        digits[:, i] = digit
        value = value - digit * stride
    if (value != 0).any():
        raise AssertionError("balanced digits did not represent every offset")  # by range
    return digits


def alltoall_digits(nodes: int, radices: tuple[int, ...], direct: int = 0) -> IntArray:
    """The digits the all-to-all moves each ring offset by: `balanced_digits`, except that at
    an even top radix k run as a pipeline every second offset whose top digit is the far one,
    k / 2, takes -k / 2 instead (in offset order; the first stays k / 2). The top level spans
    the ring (k s = N), so k / 2 strides either way reach the same node: the block arrives
    where it did, over as many hops, but each pipeline step carries as many blocks each way,
    or one more CW where the top stride (the number of far offsets) is odd (N = 64, 8 x 8:
    28, 20, 12 and 4 blocks a direction instead of 32 and 24, ..., 8 and 0). A
    direct top level splits its far partner's lightpaths by sender instead (`_FarSplit`),
    which needs no second lightpath where one carries them all."""
    digits = balanced_digits(nodes, radices)
    k = radices[-1]
    if k % 2 == 0 and direct < len(radices):
        far = np.flatnonzero(digits[:, -1] == k // 2)
        digits[far[1::2], -1] = -(k // 2)
    return digits


@lru_cache(maxsize=1024)
def _pipeline_step_stage(
    nodes: int, stride: int, cw: int, ccw: int, pieces: int, label: str
) -> Stage:
    """A pipeline step of the all-to-all: every node sends `cw` lightpaths `stride` hops CW
    and `ccw` as far CCW, `pieces` pieces each. One object per step, shared by the shapes
    that have it (a search's variants of one radices share their pipeline levels), so the
    search neither builds nor hashes it again (N = 8192: 18293 steps over 62 shapes, 8279
    distinct; building and hashing them took most of the 30 s budget)."""
    nodes_at = np.arange(nodes, dtype=np.int64)
    ways = [(shift, count, way) for shift, count, way in
            ((stride, cw, Direction.CW), (-stride, ccw, Direction.CCW)) if count]
    return Stage.from_demands(
        nodes,
        np.concatenate([nodes_at for _ in ways]),
        np.concatenate([(nodes_at + shift) % nodes for shift, _, _ in ways]),
        np.concatenate([np.full(nodes, count, dtype=np.int64) for _, count, _ in ways]),
        np.concatenate([np.full(nodes, way, dtype=np.int64) for _, _, way in ways]),
        label,
        pieces,
    )


@dataclass(frozen=True)
class _FarSplit:
    """The far partner of a direct top level of even radix k (k / 2 strides away, N / 2 hops
    either way round): node v sends its x lightpaths there ceil(x / 2) CW and floor(x / 2)
    CCW when its block v // s is even, the other way round when odd (the all-gather's
    `split_far`, per lightpath), so the two directions carry alike. A link of one direction
    is crossed by the far lightpaths of the N / 2 senders behind it: (x // 2) N / 2, plus,
    for odd x, the most senders of one block parity among N / 2 consecutive ones
    (`odd_extra`)."""

    digit: int  # k / 2
    stride: int
    nodes: int

    @cached_property
    def odd_extra(self) -> int:
        even = (np.arange(self.nodes) // self.stride) % 2 == 0
        behind = self.nodes // 2
        window = np.convolve(np.concatenate([even, even[: behind - 1]]).astype(np.int64),
                             np.ones(behind, dtype=np.int64), mode="valid")
        return int(max(window.max(), behind - window.min()))

    def load(self, lightpaths: int) -> int:
        """Far lightpaths on the busiest link of either direction, x = `lightpaths` a node."""
        return lightpaths // 2 * (self.nodes // 2) + lightpaths % 2 * self.odd_extra

    def cw_lightpaths(self, lightpaths: int) -> IntArray:
        """Per node, how many of its x far lightpaths go CW (the rest CCW)."""
        even = (np.arange(self.nodes) // self.stride) % 2 == 0
        return np.where(even, -(-lightpaths // 2), lightpaths // 2).astype(np.int64)


def _strides(radices: tuple[int, ...]) -> list[int]:
    out, stride = [], 1
    for k in radices:
        out.append(stride)
        stride *= k
    return out


@dataclass(frozen=True, eq=False)
class _Step:
    """One stage of the synthesized all-to-all: a pipeline step of `level` (every block still
    to move at that level goes one stride, `cw` blocks per node one way and `ccw` the other),
    or, `digits` given, the whole level at once (each block by its digit there)."""

    level: int
    stride: int
    cw: int
    ccw: int
    digits: IntArray | None = None  # per ring offset 1..N-1, its digit at this level
    far: _FarSplit | None = None  # a direct top level's far partner, split by sender


def _direct_bundle(
    digits: IntArray, stride: int, pieces: int, channels: int, far: _FarSplit | None = None
) -> int:
    """Pieces per lightpath of a direct all-to-all level: node v sends the c_m q pieces of
    digit m to v + m s on ceil(c_m q / b) lightpaths, loading every link of a direction with
    sum over that direction's m of ceil(c_m q / b) |m| s of them (the pattern is the same at
    every node); the least bundle b that fits both directions into the channels, or one
    lightpath per partner (b = the largest c_m q) when none does (the stage then takes
    more slots). With `far` (a direct top level of even radix) the far partner's lightpaths
    split between the directions by sender and load each as `_FarSplit.load` says."""
    values, counts = np.unique(digits[digits != 0], return_counts=True)
    loads = counts * pieces
    reach = np.abs(values) * stride
    split = (values == far.digit) if far is not None else np.zeros(len(values), dtype=bool)

    def fits(bundle: int) -> bool:
        lightpaths = -(-loads // bundle)
        used = lightpaths * reach
        both = sum(far.load(int(x)) for x in lightpaths[split]) if far is not None else 0
        return max(int(used[(values > 0) & ~split].sum()),
                   int(used[values < 0].sum())) + both <= channels

    low, high = 1, int(loads.max(initial=1))
    if not fits(high):
        return high
    while low < high:  # the load falls as the bundle grows: bisect for the least that fits
        mid = (low + high) // 2
        low, high = (low, mid) if fits(mid) else (mid + 1, high)
    return low


@dataclass(eq=False)
class SynthAllToAll(_Synthesized):
    """All-to-all: every block moves by the balanced digits of its ring offset, level by level
    (top first), one stride per step, store-and-forward (SPEC 12 relays), so every lightpath
    has s_i <= the hop limit hops and every block crosses about its ring distance. With
    `direct` = d the lowest d levels move each block by its whole digit m in one stage, on a
    lightpath of |m| s_i hops: fewer slots, as many hops. An even top level's far digit goes
    either way round, half each (`alltoall_digits`, `_FarSplit`)."""

    collective: ClassVar[Collective] = Collective.ALLTOALL
    name: ClassVar[str] = "synth"
    params: ClassVar[tuple[ParamSpec, ...]] = (
        *_Synthesized.params,
        ParamSpec(
            "direct",
            "how many of the lowest levels move every block by its whole digit at once: node "
            "v sends the blocks whose digit at level i is m straight to v + m s_i (m > 0 CW, "
            "m < 0 CCW), on lightpaths of up to k//2 strides, in one stage instead of one "
            "stride per step; fewer slots for the same hops",
            0,
            0,
            default_rule="0: every level a pipeline",
            maximum_rule="the number of levels; each direct level's k//2 s within the hop limit",
        ),
    )

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        return _with_direct(super().fill_defaults(ring, given))

    def refusal(self, ring: Ring, params: Params) -> str | None:
        reason = super().refusal(ring, params) or _direct_count_refusal(params)
        if reason:
            return reason
        radices = params["radices"]
        assert isinstance(radices, tuple)
        direct = int_param(params, "direct")
        within = _direct_levels_within(levels(self._virtual(ring, params), radices, 1),
                                       self.hop_limit)
        if direct > within:
            return (
                f"direct = {direct}: level {within + 1}'s farthest digit would need a "
                f"lightpath beyond the hop limit {self.hop_limit}; use direct <= {within}"
            )
        return None

    def shape_candidates(self, ring: Ring) -> Iterator[Params]:
        """Every factorisation of the base family, with 0 up to every level direct that keeps
        to the hop limit; a direct level of radix 2 or 3 is its pipeline's one step (digits
        -1..1), so those repeats are left out."""
        for raw in super().shape_candidates(ring):
            radices = raw["radices"]
            assert isinstance(radices, tuple)
            virtual = Ring(math.prod(radices), ring.fibers_per_direction,
                           ring.wavelengths_per_fiber)
            within = _direct_levels_within(levels(virtual, radices, 1), self.hop_limit)
            for direct in range(within + 1):
                if direct == 0 or radices[direct - 1] > 3:
                    yield {**raw, "direct": direct}

    def data_per_message(self, ring: Ring, params: Params) -> int:
        """The send buffer is N blocks (message / N), each cut into pieces."""
        return ring.nodes * int_param(params, "pieces")

    def _moves(self, ring: Ring, params: Params) -> list[_Step]:
        """The stages, top level first: a pipeline level's steps, a direct level's one."""
        radices = params["radices"]
        assert isinstance(radices, tuple)
        direct = int_param(params, "direct")
        digits = alltoall_digits(ring.nodes, radices, direct)[1:]  # offset 0 never moves
        strides = _strides(radices)
        out = []
        for i in reversed(range(len(radices))):
            column = digits[:, i]
            if i < direct:
                k = radices[i]
                far = (_FarSplit(k // 2, strides[i], ring.nodes)
                       if i == len(radices) - 1 and k % 2 == 0 else None)
                if (column != 0).any():
                    out.append(_Step(i, strides[i], int((column > 0).sum()),
                                     int((column < 0).sum()), column, far))
                continue
            for t in range(1, radices[i] // 2 + 1):
                step = _Step(i, strides[i], int((column >= t).sum()), int((column <= -t).sum()))
                if step.cw or step.ccw:
                    out.append(step)
        return out

    def _bundle(self, step: _Step, channels: int, pieces: int) -> int:
        """Pieces per lightpath of a stage: a pipeline step fills the channels one stride
        long (F w // s lightpaths a direction), a direct level as `_direct_bundle` says."""
        if step.digits is not None:
            return _direct_bundle(step.digits, step.stride, pieces, channels, step.far)
        lightpaths = max(1, channels // step.stride)
        return -(-max(step.cw, step.ccw) * pieces // lightpaths)

    def _stages(self, ring: Ring, params: Params) -> list[Stage]:
        n, q = ring.nodes, int_param(params, "pieces")
        channels = ring.channels_per_direction
        nodes = np.arange(n, dtype=np.int64)
        out = []
        for step in self._moves(ring, params):
            per = self._bundle(step, channels, q)
            if step.digits is None:
                out.append(_pipeline_step_stage(
                    n, step.stride, -(-step.cw * q // per), -(-step.ccw * q // per), per,
                    f"all-to-all level {step.level + 1}",
                ))
                continue
            values, counts = np.unique(step.digits[step.digits != 0], return_counts=True)
            partners = [(int(m) * step.stride, int(c)) for m, c in zip(values, counts, strict=True)]
            wanted: list[tuple[int, IntArray, Direction]] = []  # (shift, per node, way)
            for shift, blocks in partners:
                if not blocks:
                    continue
                lightpaths = -(-blocks * q // per)
                if step.far is not None and shift == step.far.digit * step.stride:
                    cw = step.far.cw_lightpaths(lightpaths)
                    wanted += [(shift, cw, Direction.CW), (shift, lightpaths - cw, Direction.CCW)]
                else:
                    wanted.append((shift, np.full(n, lightpaths, dtype=np.int64),
                                   Direction.CW if shift > 0 else Direction.CCW))
            s, d, k, a = [], [], [], []
            for shift, count, way in wanted:
                some = count > 0  # a far partner is reached one way from some senders only
                s.append(nodes[some])
                d.append((nodes[some] + shift) % n)
                k.append(count[some])
                a.append(np.full(int(some.sum()), way, dtype=np.int64))
            out.append(Stage.from_demands(n, np.concatenate(s), np.concatenate(d),
                                          np.concatenate(k), np.concatenate(a),
                                          f"all-to-all level {step.level + 1}", per))
        return out

    def _stage_count(self, ring: Ring, params: Params) -> int:
        return len(self._moves(ring, params))

    def _schedule(self, ring: Ring, params: Params) -> Schedule:
        """Block by block: block s N + d (piece j: (s N + d) q + j) moves by its digits."""
        n, q = ring.nodes, int_param(params, "pieces")
        flows = tuple(self.flows(ring, params))
        return Schedule("alltoall", n, frozen(np.arange(n)), n * n * q, flows, pieces=q)

    def flows(self, ring: Ring, params: Params) -> Iterator[StageFlow]:
        """The schedule's stages as data, one at a time (a check at N = 4096 holds one stage's
        moves, not all of them)."""
        n, q = ring.nodes, int_param(params, "pieces")
        radices = params["radices"]
        assert isinstance(radices, tuple)
        channels = ring.channels_per_direction
        src, dst = np.divmod(np.arange(n * n, dtype=np.int64), n)
        moving = src != dst
        block = np.flatnonzero(moving)
        where = src[moving]
        offset = (dst[moving] - where) % n
        del src, dst, moving
        table = alltoall_digits(n, radices, int_param(params, "direct"))
        pieces = np.arange(q, dtype=np.int64)
        steps_done: dict[int, int] = {}
        level, column = -1, table[:0, 0]
        for step in self._moves(ring, params):
            if step.level != level:  # one level's digits at a time (all: N^2 L integers)
                level, column = step.level, table[offset, step.level]
            per = self._bundle(step, channels, q)
            t = steps_done[level] = steps_done.get(level, 0) + 1
            if step.digits is not None:  # direct: every block by its whole digit at once
                moving = column != 0
                shift = column[moving] * step.stride
            else:  # a pipeline step: one stride, CW while the digit is t or more
                ahead, behind = column >= t, column <= -t
                moving = ahead | behind
                shift = np.where(ahead[moving], step.stride, -step.stride)
            from_ = where[moving]
            to = (from_ + shift) % n
            where[moving] = to
            yield StageFlow.of(np.repeat(from_, q), np.repeat(to, q),
                               (block[moving][:, None] * q + pieces).reshape(-1),
                               Reduction.NONE, f"all-to-all level {level + 1}", per)


SYNTHESIZED: dict[Collective, Callable[[int | None], Algorithm]] = {
    Collective.ALLGATHER: SynthAllGather,
    Collective.ALLREDUCE: SynthAllReduce,
    Collective.ALLTOALL: SynthAllToAll,
    Collective.REDUCESCATTER: SynthReduceScatter,
}


def synthesized(
    collective: Collective,
    hop_limit: int | None = None,
    max_tx: int | None = None,
    max_rx: int | None = None,
) -> Algorithm:
    """The collective's `synth` for the plan's limits. With a per-node limit L on the
    lightpaths a node sends or receives per slot (max_tx / max_rx) below the channels C of a
    direction, the shapes are built as on a ring of L channels: built for C, each node
    sends up to C lightpaths of fewer pieces each, which the limit then serializes, so a
    second fibre made synth slower (N = 8, w = 2, max_tx 1, all-reduce 2 x 4: 10 steps at
    F = 1, 14 at F = 2); built for L it takes 8 at both. Routing and colouring stay on the
    real ring (`stages` return the same nodes' demands)."""
    algorithm = SYNTHESIZED[collective](hop_limit)
    limits = [x for x in (max_tx, max_rx) if x is not None]
    if not limits:
        return algorithm
    return NODE_LIMITED[collective](hop_limit, max(1, min(limits)))  # type: ignore[call-arg]



class _CappedChannels:
    """A synth family built on at most `per_node` channels a direction (`synthesized`);
    routing and colouring stay on the real ring (the stages are the same nodes' demands)."""

    per_node: int

    def _node_limit(self) -> int | None:
        return self.per_node

    def _capped(self, ring: Ring) -> Ring:
        if ring.channels_per_direction <= self.per_node:
            return ring
        return Ring(ring.nodes, 1, self.per_node)

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        return super().fill_defaults(self._capped(ring), given)  # type: ignore[misc,no-any-return]

    def refusal(self, ring: Ring, params: Params) -> str | None:
        return super().refusal(self._capped(ring), params)  # type: ignore[misc,no-any-return]

    def shape_candidates(self, ring: Ring) -> Iterator[Params]:
        return super().shape_candidates(self._capped(ring))  # type: ignore[misc,no-any-return]

    def stages(self, ring: Ring, params: Params) -> list[Stage]:
        return super().stages(self._capped(ring), params)  # type: ignore[misc,no-any-return]

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        return super().schedule(self._capped(ring), params)  # type: ignore[misc,no-any-return]

    def stage_count(self, ring: Ring, params: Params) -> int:
        return super().stage_count(self._capped(ring), params)  # type: ignore[misc,no-any-return]


# Module-level classes, so that plans holding them pickle into the solver processes.
@dataclass(eq=False)
class NodeLimitedSynthAllGather(_CappedChannels, SynthAllGather):
    per_node: int = 1


@dataclass(eq=False)
class NodeLimitedSynthAllReduce(_CappedChannels, SynthAllReduce):
    per_node: int = 1


@dataclass(eq=False)
class NodeLimitedSynthAllToAll(_CappedChannels, SynthAllToAll):
    per_node: int = 1


@dataclass(eq=False)
class NodeLimitedSynthReduceScatter(_CappedChannels, SynthReduceScatter):
    per_node: int = 1


NODE_LIMITED: dict[Collective, type[_Synthesized]] = {
    Collective.ALLGATHER: NodeLimitedSynthAllGather,
    Collective.ALLREDUCE: NodeLimitedSynthAllReduce,
    Collective.ALLTOALL: NodeLimitedSynthAllToAll,
    Collective.REDUCESCATTER: NodeLimitedSynthReduceScatter,
}
