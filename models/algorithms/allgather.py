"""All-gather algorithms: Ring, Neighbor Exchange, one-stage model, WRHT, OpTree.

Item = each node's contribution d (the OpTree journal's d, eq. (3)); a unit lightpath carries
one item. Node i starts with item i and must end with all N items.
"""

from __future__ import annotations

import functools
import math
import threading
from collections import OrderedDict
from collections.abc import Iterator

import numpy as np

from models import closed_forms as cf
from models.algorithms.base import (
    Algorithm,
    Collective,
    Params,
    ParamSpec,
    StageSketch,
    int_param,
)
from models.algorithms.holdings import Holdings, PackedHoldings
from models.closed_forms import ClosedForm
from models.ring import Ring
from models.stage import IntArray, Schedule, Stage, StageFlow, frozen


def _schedule(ring: Ring, flows: list[StageFlow]) -> Schedule:
    n = ring.nodes
    return Schedule(Collective.ALLGATHER, n, np.arange(n), n, tuple(flows))


class RingAllGather(Algorithm):
    """Ring all-gather: in step t node i forwards item (i - t) mod N to node i + 1."""

    collective = Collective.ALLGATHER
    name = "ring"
    title = "Ring"
    source = "Chen et al. 2005, as summarised in OpTree journal Sec. IV-A.2"
    formula = cf.RING_ALLGATHER

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        n = ring.nodes
        i = np.arange(n)
        senders, receivers = frozen(i), frozen((i + 1) % n)  # shared by every flow
        flows = [
            StageFlow.of(senders, receivers, (i - t) % n, label=f"step {t + 1}")
            for t in range(n - 1)
        ]
        return _schedule(ring, flows)

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        return [self.formula.evaluate(ring.nodes)]


class NeighborExchangeAllGather(Algorithm):
    """Neighbor Exchange (Chen et al. 2005): step 1 swaps items with one neighbour, then
    alternating neighbours forward the two items received in the previous step; N/2 steps."""

    collective = Collective.ALLGATHER
    name = "ne"
    title = "Neighbor Exchange"
    source = "Chen et al. 2005, as summarised in OpTree journal Sec. IV-A.2"
    formula = cf.NE_ALLGATHER

    def refusal(self, ring: Ring, params: Params) -> str | None:
        if ring.nodes % 2:
            return (
                "Neighbor Exchange pairs nodes, so N must be even; use "
                f"N={ring.nodes - 1} or N={ring.nodes + 1}, or the ring algorithm"
            )
        return None

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        n = ring.nodes
        i = np.arange(n)
        even = i % 2 == 0
        first = np.where(even, i + 1, i - 1) % n
        second = np.where(even, i - 1, i + 1) % n
        flows = [StageFlow.of(i, first, i, label="step 1")]
        # After step 1 node i holds {i, first[i]}; it forwards both, then what it last got.
        payload = np.stack([i, first], axis=1)
        # Shared by every flow: the stages alternate between two sets of demands.
        senders = frozen(np.repeat(i, 2))
        receivers = (frozen(np.repeat(first, 2)), frozen(np.repeat(second, 2)))
        for t in range(1, n // 2):
            partner = second if t % 2 else first
            flows.append(
                StageFlow.of(senders, receivers[t % 2], payload.reshape(-1), label=f"step {t + 1}")
            )
            # Pairing is symmetric: node i just received what partner[i] sent.
            payload = payload[partner]
        return _schedule(ring, flows)

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        return [self.formula.evaluate(ring.nodes)]


class OneStageAllGather(Algorithm):
    """One-stage model (OSM): every node sends its item straight to every other node."""

    collective = Collective.ALLGATHER
    name = "osm"
    title = "One-stage model"
    source = "OpTree journal Lemma 1 and Table 1 (after Liang & Shen 2006)"
    formula = cf.OSM_ALLGATHER

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        n = ring.nodes
        s = np.repeat(np.arange(n), n)
        d = np.tile(np.arange(n), n)
        keep = s != d
        return _schedule(ring, [StageFlow.of(s[keep], d[keep], s[keep], label="one stage")])

    def stages(self, ring: Ring, params: Params) -> list[Stage]:
        """The schedule's one stage, every ordered pair, built in sorted order without the
        schedule's data (tests/models/test_shapes.py checks it equals the schedule's)."""
        n = ring.nodes
        s = np.repeat(np.arange(n, dtype=np.int64), n - 1)
        d = np.tile(np.arange(n - 1, dtype=np.int64), n)
        d += d >= s  # row s lists every node but s, ascending
        s.setflags(write=False)  # handed over: the stage keeps these arrays, not copies
        d.setflags(write=False)
        return [Stage.from_demands(n, s, d, label="one stage")]

    def stage_count(self, ring: Ring, params: Params) -> int:
        return 1

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        n, w = ring.nodes, ring.wavelengths_per_fiber
        return [self.formula.evaluate(n, w), cf.ONE_STAGE_RING_WAVELENGTHS.evaluate(n)]


def wrht_levels_by_rule(nodes: int, group: int, wavelengths: int) -> int:
    """Gather levels of WRHT as its paper builds them (WRHT Sec. III-C.1): the current
    representatives are grouped again "until the wavelength is sufficient enough to provide
    all-to-all communication among the representative nodes", the need of r representatives
    being ceil(r^2 / 8) wavelengths (Sec. III-C.2). Grouping stops at one representative."""
    reps, levels = nodes, 0
    while reps > 1 and cf.ceil_div(reps * reps, 8) > wavelengths:
        reps = cf.ceil_div(reps, group)
        levels += 1
    return levels


def wrht_max_levels(nodes: int, group: int) -> int:
    """ceil(log_m N): after that many levels one representative is left."""
    return cf.ceil_log(group, nodes)


def wrht_tree(
    nodes: int, group: int, levels: int
) -> tuple[list[list[tuple[int, list[int]]]], list[int]]:
    """WRHT's hierarchy: per gather level, the groups as (representative, members), and the
    final representatives. Groups are m consecutive (previous) representatives along the
    ring, the last one shorter; the middle member (index len // 2) represents the group."""
    reps = list(range(nodes))
    tree: list[list[tuple[int, list[int]]]] = []
    for _ in range(levels):
        level = []
        for lo in range(0, len(reps), group):
            members = reps[lo : lo + group]
            level.append((members[len(members) // 2], members))
        tree.append(level)
        reps = [rep for rep, _ in level]
    return tree, reps


@functools.lru_cache(maxsize=256)
def _wrht_levels(nodes: int, group: int) -> tuple[tuple[IntArray, IntArray, IntArray], ...]:
    """Per gather level of the deepest tree (ceil(log_m N) levels; a shallower one is a
    prefix): (members, their representative, items each member holds), in `wrht_tree`'s
    order. A member holds exactly the items of its subtree (groups are disjoint)."""
    tree, _ = wrht_tree(nodes, group, wrht_max_levels(nodes, group))
    size = np.ones(nodes, dtype=np.int64)
    out = []
    for level in tree:
        pairs = [(x, rep) for rep, members in level for x in members if x != rep]
        members = np.array([x for x, _ in pairs], dtype=np.int64)
        reps = np.array([r for _, r in pairs], dtype=np.int64)
        held = size[members]
        np.add.at(size, reps, held)
        for array in (members, reps, held):
            array.setflags(write=False)
        out.append((members, reps, held))
    return tuple(out)


def wrht_parts(
    nodes: int, group: int, levels: int
) -> tuple[list[tuple[IntArray, IntArray, IntArray]], IntArray, IntArray]:
    """WRHT's tree as arrays: per gather level (members, representatives, items each member
    holds), then the final representatives and the items each holds (its subtree)."""
    parts = list(_wrht_levels(nodes, group)[:levels])
    held = np.ones(nodes, dtype=np.int64)
    is_member = np.zeros(nodes, dtype=bool)
    for members, reps, items in parts:
        np.add.at(held, reps, items)
        is_member[members] = True
    reps_left = np.flatnonzero(~is_member)
    return parts, reps_left, held[reps_left]


def _all_to_all(nodes: IntArray, weights: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    """Every node of `nodes` to every other one, weights[i] from node i; sorted by
    (source, destination) when `nodes` is sorted."""
    r = len(nodes)
    s = np.repeat(nodes, r)
    d = np.tile(nodes, r)
    k = np.repeat(weights, r)
    keep = s != d
    return s[keep], d[keep], k[keep]


def wrht_sketches(
    ring: Ring, params: Params, reduce: bool, direct: bool = False
) -> list[StageSketch]:
    """WRHT's stages (all-gather: a member sends its subtree's items up and receives the
    rest down; all-reduce (`reduce`): one lightpath per pair), the representatives'
    all-to-all as a translated all-to-all unless `direct` (then built)."""
    n, m, levels = ring.nodes, int_param(params, "group"), int_param(params, "levels")
    parts, top, top_held = wrht_parts(n, m, levels)
    out = []
    for depth, (members, reps, held) in enumerate(parts, start=1):
        k = np.ones_like(held) if reduce else held
        label = f"{'reduce' if reduce else 'gather'} level {depth}"
        stage = Stage.from_demands(n, members, reps, k, label=label)
        out.append(StageSketch(("up", m, depth), stage=stage))
    if len(top) > 1:
        weights = np.ones_like(top_held) if reduce else top_held
        label = "all-to-all among representatives"
        if direct:
            s, d, k = _all_to_all(top, weights)
            stage = Stage.from_demands(n, s, d, k, label=label)
            out.append(StageSketch(("top", m, levels), stage=stage))
        else:
            out.append(
                StageSketch(
                    ("top", m, levels),
                    positions=top,
                    weights=weights,
                    offsets=np.zeros(1, dtype=np.int64),
                )
            )
    for depth, (members, reps, held) in reversed(list(enumerate(parts, start=1))):
        k = np.ones_like(held) if reduce else n - held
        stage = Stage.from_demands(n, reps, members, k, label=f"broadcast level {depth}")
        out.append(StageSketch(("down", m, depth), stage=stage))
    return out


def wrht_stages(ring: Ring, params: Params, reduce: bool) -> list[Stage]:
    """WRHT's stages built from `wrht_parts` (no holdings matrix: tests prove them equal
    to the schedule's)."""
    out = []
    for sketch in wrht_sketches(ring, params, reduce, direct=True):
        assert sketch.stage is not None
        out.append(sketch.stage)
    return out


WRHT_PARAMS = (
    ParamSpec(
        "group",
        "nodes per WRHT group (m), at most 2w + 1 so a group gathers in one step",
        2,
        None,
        default_rule="2w + 1 (WRHT Lemma 1; the m-bar of OpTree journal Table 1)",
        maximum_rule="2w + 1",
    ),
    ParamSpec(
        "levels",
        "gather levels before the representatives' all-to-all",
        0,
        None,
        default_rule="WRHT Sec. III-C: group again until the representatives' all-to-all "
        "needs at most w wavelengths (ceil(r^2/8) <= w)",
        maximum_rule="ceil(log_m N)",
    ),
)


def wrht_fill(ring: Ring, given: Params) -> Params:
    group = int_param(given, "group") if "group" in given else 2 * ring.wavelengths_per_fiber + 1
    out: Params = {"group": group}
    out["levels"] = (
        int_param(given, "levels")
        if "levels" in given
        else wrht_levels_by_rule(ring.nodes, group, ring.wavelengths_per_fiber)
    )
    return out


def wrht_refusal(ring: Ring, params: Params) -> str | None:
    m, levels = int_param(params, "group"), int_param(params, "levels")
    top = 2 * ring.wavelengths_per_fiber + 1
    if m > top:
        return f"group m={m} exceeds 2w + 1 = {top}; use 2 <= group <= {top}"
    most = wrht_max_levels(ring.nodes, m)
    if levels > most:
        return f"levels={levels} exceeds ceil(log_m N) = {most} for m={m}; use 0..{most}"
    return None


def wrht_candidates(ring: Ring) -> Iterator[Params]:
    """Every (m, levels): m = 2 .. min(N, 2w + 1) (larger m group like m = N), every level
    count 1 .. ceil(log_m N); and once the tree without levels (one all-to-all of all N
    nodes, the same for every m)."""
    top = 2 * ring.wavelengths_per_fiber + 1
    shapes: list[tuple[int, int, int]] = []  # (representatives left, m, levels)
    for m in range(2, min(ring.nodes, top) + 1):
        reps = ring.nodes
        for levels in range(1, wrht_max_levels(ring.nodes, m) + 1):
            reps = cf.ceil_div(reps, m)
            shapes.append((reps, m, levels))
    # Fewest representatives first: their all-to-all is the costly stage to build, so a
    # budget cuts the search where building is slow, not where it is cheap.
    for _, m, levels in sorted(shapes):
        yield {"group": m, "levels": levels}
    yield {"group": min(top, max(2, ring.nodes)), "levels": 0}


class WrhtAllGather(Algorithm):
    """WRHT routing without reduction (OpTree journal Sec. IV-A.2): members send everything
    they hold to their group's middle node for theta - 1 levels, the final representatives
    exchange all-to-all, then every level is broadcast back down."""

    collective = Collective.ALLGATHER
    name = "wrht"
    title = "WRHT (all-gather variant)"
    source = "OpTree journal Sec. IV-A.2, routing of WRHT (Dai et al. ICPP 2023)"
    params = WRHT_PARAMS
    formula = cf.WRHT_ALLGATHER

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        return wrht_fill(ring, given)

    def refusal(self, ring: Ring, params: Params) -> str | None:
        return wrht_refusal(ring, params)

    def shape_candidates(self, ring: Ring) -> Iterator[Params]:
        yield from wrht_candidates(ring)

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        hold = Holdings(ring.nodes)
        flows = [hold.stage(s, r, label) for s, r, label in self._pairs(ring, params)]
        return _schedule(ring, flows)

    def stages(self, ring: Ring, params: Params) -> list[Stage]:
        """The schedule's demands, counted from the tree (a member holds its subtree's items)
        rather than listed item by item."""
        return wrht_stages(ring, params, reduce=False)

    def stage_sketches(self, ring: Ring, params: Params) -> list[StageSketch]:
        return wrht_sketches(ring, params, reduce=False)

    def _pairs(self, ring: Ring, params: Params) -> list[tuple[IntArray, IntArray, str]]:
        """(senders, receivers, label) of every stage: members to their representative for
        each gather level, the representatives all-to-all, then every level broadcast back."""
        n, m = ring.nodes, int_param(params, "group")
        levels, top = wrht_tree(n, m, int_param(params, "levels"))
        out = []

        def arrays(pairs: list[tuple[int, int]], label: str) -> None:
            s = np.array([a for a, _ in pairs], dtype=np.int64)
            r = np.array([b for _, b in pairs], dtype=np.int64)
            out.append((s, r, label))

        for depth, level in enumerate(levels, start=1):
            arrays(
                [(x, rep) for rep, members in level for x in members if x != rep],
                f"gather level {depth}",
            )
        if len(top) > 1:
            arrays([(a, b) for a in top for b in top if a != b], "all-to-all among representatives")
        for depth, level in reversed(list(enumerate(levels, start=1))):
            arrays(
                [(rep, x) for rep, members in level for x in members if x != rep],
                f"broadcast level {depth}",
            )
        return out

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        """The OpTree journal's Table 1 form counts WRHT at m = 2w + 1 with the paper's
        levels only: another shape has no claim (its value None, the note saying what the
        form claims for the paper's shape), so its true steps are never set against a claim
        about a different schedule (at N = 256, w = 16 the best shape, m = 3, takes 73
        steps; the form claims 67 for m = 33, which takes 273)."""
        n, w = ring.nodes, ring.wavelengths_per_fiber
        form = self.formula.evaluate(n, w)
        paper = self.paper_shape(ring)
        if params == paper:
            return [form]
        note = (
            f"the closed form counts only the paper's shape (group m = 2w + 1 = "
            f"{paper['group']}, levels = {paper['levels']}), for which it claims "
            f"{form.value:g} steps; this shape has no closed form"
        )
        return [self.formula.at(None, None, note)]


def optree_balanced_cover(nodes: int, stages: int) -> tuple[int, ...]:
    """k integer factors that differ by at most one, with the least such product >= N.

    Start from max(2, floor(N^(1/k))) at every level and add 1 to levels in order (first
    level first) until the product reaches N."""
    base = max(2, math.floor(nodes ** (1 / stages) + 1e-9))
    factors = [base] * stages
    i = 0
    while math.prod(factors) < nodes:
        factors[i] += 1
        i = (i + 1) % stages
    return tuple(factors)


def ordered_factorisations(nodes: int, most_stages: int) -> Iterator[tuple[int, ...]]:
    """Every ordered vector of factors >= 2 whose product is exactly N, of length at most
    `most_stages` (N = 1 gives the empty vector)."""
    if nodes == 1:
        yield ()
        return
    if most_stages == 0:
        return
    for first in range(2, nodes + 1):
        if nodes % first == 0:
            for rest in ordered_factorisations(nodes // first, most_stages - 1):
                yield (first, *rest)


def optree_exact_factorisation(nodes: int, stages: int) -> tuple[int, ...] | None:
    """The most balanced vector of k factors with product exactly N (least largest factor,
    then least spread), larger factors first; None when N has fewer than k prime factors."""
    best: tuple[int, ...] | None = None
    for vector in ordered_factorisations(nodes, stages):
        if len(vector) != stages or list(vector) != sorted(vector, reverse=True):
            continue
        key = (max(vector), max(vector) - min(vector))
        if best is None or key < (max(best), max(best) - min(best)):
            best = vector
    return best


def optree_paper_branching(nodes: int) -> tuple[int, ...]:
    """OpTree's paper shape: depth k* of Lemma 3 (one stage, i.e. OSM, where k* is undefined,
    N <= 7) and every level m = N^(1/k*), realised as integers. The paper's tree has
    prod m_j = N (Algorithm 1 splits every group into m equal children), so an exact
    factorisation into k* factors is used when N has one (the most balanced); otherwise the
    balanced cover whose product is the least >= N, padded with listeners."""
    k = cf.optree_k_star(nodes) or 1
    k = min(k, max(1, optree_max_stages(nodes)))
    return optree_exact_factorisation(nodes, k) or optree_balanced_cover(nodes, k)


def optree_max_stages(nodes: int) -> int:
    """Deepest useful tree: every factor is >= 2, so at most floor(log2 N) levels."""
    return max(1, nodes.bit_length() - 1)


def optree_candidates(nodes: int) -> Iterator[tuple[int, ...]]:
    """The shape search's OpTree family: every ordered exact factorisation of N (every depth),
    then for every depth every ordering of its balanced cover when that pads (product > N)."""
    seen: set[tuple[int, ...]] = set()
    for vector in ordered_factorisations(nodes, optree_max_stages(nodes)):
        seen.add(vector)
        yield vector
    for k in range(1, optree_max_stages(nodes) + 1):
        cover = optree_balanced_cover(nodes, k)
        for vector in distinct_orderings(cover):
            if vector not in seen:
                seen.add(vector)
                yield vector


def distinct_orderings(values: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every distinct ordering of a multiset, largest first, without itertools.permutations'
    k! repeats (k = 12 levels would be 479 million tuples)."""
    counts = {v: values.count(v) for v in set(values)}

    def extend(prefix: tuple[int, ...], left: int) -> Iterator[tuple[int, ...]]:
        if left == 0:
            yield prefix
            return
        for v in sorted(counts, reverse=True):
            if counts[v]:
                counts[v] -= 1
                yield from extend((*prefix, v), left - 1)
                counts[v] += 1

    yield from extend((), len(values))


@functools.lru_cache(maxsize=512)
def optree_exact_stage(nodes: int, done: int, factor: int, label: str = "") -> Stage:
    """Demands of an OpTree stage when the tree is exact (prod m_j = N): groups of
    G = N / done consecutive nodes split into `factor` children of c = G / factor; every node
    sends the `done` items it holds to the node at its position in each sibling child. Equal
    to the stage the schedule builds (tests/models/test_shapes.py)."""
    group = nodes // done
    child = group // factor
    x = np.arange(nodes)
    index = (x % group) // child
    shifts = np.arange(1, factor)
    s = np.repeat(x, factor - 1)
    b = (np.repeat(index, factor - 1) + np.tile(shifts, nodes)) % factor
    d = s - np.repeat(index, factor - 1) * child + b * child
    return Stage.from_demands(nodes, s, d, np.full(len(s), done), label=label)


def _balanced_children(start: int, size: int, count: int) -> list[tuple[int, int]]:
    q, r = divmod(size, count)
    out, at = [], start
    for c in range(count):
        length = q + (1 if c < r else 0)
        out.append((at, length))
        at += length
    return out


@functools.lru_cache(maxsize=1024)
def _group_pairs(size: int, factor: int) -> tuple[IntArray, IntArray]:
    """(sender, receiver) offsets inside one group of `size` split into `factor` children."""
    children = _balanced_children(0, size, min(factor, size))
    start = np.array([s for s, _ in children], dtype=np.int64)
    length = np.array([n for _, n in children], dtype=np.int64)
    pos = np.arange(int(length.max()))
    member = length[:, None] > pos[None, :]  # child c has a node at position p
    node = np.where(member, start[:, None] + pos[None, :], (start + length - 1)[:, None])
    count = len(children)
    c1, c2, p = np.meshgrid(np.arange(count), np.arange(count), pos, indexing="ij")
    keep = member[c1, p] & (c1 != c2)
    senders, receivers = node[c1[keep], p[keep]], node[c2[keep], p[keep]]
    senders.setflags(write=False)  # cached: shared by every group of this size
    receivers.setflags(write=False)
    return senders, receivers


Groups = tuple[tuple[int, int], ...]  # (start, size) of every current group


def _level_pairs(groups: Groups, m: int) -> tuple[IntArray, IntArray, Groups]:
    """(senders, receivers) of one OpTree level splitting every group of `groups` into `m`
    balanced children, and the groups after it (in ring order; a group of one node stays)."""
    start = np.array([g[0] for g in groups], dtype=np.int64)
    size = np.array([g[1] for g in groups], dtype=np.int64)
    count = np.minimum(size, m)  # children per group (a single node is its own child)
    q, r = size // count, size % count
    child = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    child_start = np.repeat(start, count) + child * np.repeat(q, count)
    child_start += np.minimum(child, np.repeat(r, count))
    child_size = np.repeat(q, count) + (child < np.repeat(r, count))
    next_groups = tuple(zip(child_start.tolist(), child_size.tolist(), strict=True))
    senders, receivers = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    split = size > 1
    sizes, first = np.unique(size[split], return_index=True)
    for value in sizes[np.argsort(first)].tolist():  # first seen first, as groups come
        a, b = _group_pairs(value, m)
        offset = start[split & (size == value)][:, None]
        senders.append((offset + a[None, :]).reshape(-1))
        receivers.append((offset + b[None, :]).reshape(-1))
    return np.concatenate(senders), np.concatenate(receivers), next_groups


def optree_pair_arrays(nodes: int, branching: tuple[int, ...]) -> list[tuple[IntArray, IntArray]]:
    """(senders, receivers) of each OpTree stage (OpTree journal Sec. IV-A.1).

    Stage j splits every current group (a contiguous segment) into m_j children of balanced
    sizes; the nodes at the same position in sibling children exchange all-to-all. When the
    children differ in size, a shorter child has no node at the last position; its last node
    then also listens to that position (it receives, sends nothing extra), so every item still
    reaches every child. With N = prod(m_j) this is exactly the paper's tree. Groups of equal
    size share their relative pairs."""
    groups: Groups = ((0, nodes),)
    out: list[tuple[IntArray, IntArray]] = []
    for m in branching:
        s, r, groups = _level_pairs(groups, m)
        out.append((s, r))
    return out


CLASS_LP_MOST_CLASSES = 4096  # link classes of a padded stage's class LP bound
PADDED_STATES = 32  # prefixes of padded trees whose holdings are kept (2 MiB each at N = 4096)
_PaddedState = tuple[Stage, PackedHoldings, Groups, Groups]  # stage, holdings, groups before, after
_padded_states: OrderedDict[tuple[int, tuple[int, ...]], _PaddedState] = OrderedDict()
_padded_lock = threading.Lock()


def optree_padded_stage(nodes: int, prefix: tuple[int, ...]) -> Stage:
    """Stage len(prefix) of every OpTree tree whose branching starts with `prefix`: what its
    pairs carry given the holdings after the earlier levels (bit-packed). The holdings after
    a prefix are kept for the most recent PADDED_STATES prefixes, so trees taken in the
    candidates' order (orderings of a cover, largest first: depth first) build every shared
    level once. Equal to the schedule's stage (tests/models/test_shapes.py)."""
    return _padded_state(nodes, prefix)[0]


def _padded_state(nodes: int, prefix: tuple[int, ...]) -> _PaddedState:
    key = (nodes, prefix)
    with _padded_lock:
        known = _padded_states.get(key)
        if known is not None:
            _padded_states.move_to_end(key)
            return known
    groups: Groups
    if len(prefix) == 1:
        holdings, groups = PackedHoldings(nodes), ((0, nodes),)
    else:
        _, before, _, groups = _padded_state(nodes, prefix[:-1])
        holdings = before.copy()
    m = prefix[-1]
    s, r, after = _level_pairs(groups, m)
    k = holdings.stage_counts(s, r)
    keep = k > 0
    stage = Stage.from_demands(
        nodes, s[keep], r[keep], k[keep], label=f"stage {len(prefix)} (m={m})"
    )
    state = (stage, holdings, groups, after)
    with _padded_lock:
        _padded_states[key] = state
        while len(_padded_states) > PADDED_STATES:
            _padded_states.popitem(last=False)
    return state


def optree_padded_link_classes(nodes: int, prefix: tuple[int, ...], most: int) -> IntArray | None:
    """A partition of the links for `solver.bounds.class_lp_bound` of stage len(prefix) of a
    padded tree: link e (leaving node e) is classed by its offset in the group being split
    that holds node e and by that group's pattern (its size and its demands relative to its
    start, with their counts), so groups that carry the same demands share classes. When
    that makes more than `most` classes, groups are classed by size alone; None when even
    that is too many (the large groups of the first levels)."""
    stage, _, groups, _ = _padded_state(nodes, prefix)
    if sum({size for _, size in groups}) > most:
        return None
    starts = np.array([start for start, _ in groups], dtype=np.int64)
    sizes = np.array([size for _, size in groups], dtype=np.int64)
    owner = np.searchsorted(starts, stage.sources, side="right") - 1  # sources are sorted
    bounds = np.searchsorted(owner, np.arange(len(groups) + 1))
    relative = np.stack(
        [stage.sources - starts[owner], (stage.destinations - starts[owner]) % nodes, stage.counts]
    )
    patterns: dict[tuple[int, bytes], int] = {}
    pattern = np.empty(len(groups), dtype=np.int64)
    for g in range(len(groups)):
        block = relative[:, bounds[g] : bounds[g + 1]]
        pattern[g] = patterns.setdefault((int(sizes[g]), block.tobytes()), len(patterns))
    first = np.zeros(len(patterns), dtype=np.int64)  # class of offset 0 of each pattern
    size_of = np.zeros(len(patterns), dtype=np.int64)
    size_of[pattern] = sizes
    if int(size_of.sum()) > most:
        _, pattern = np.unique(sizes, return_inverse=True)
        size_of = np.zeros(int(pattern.max()) + 1, dtype=np.int64)
        size_of[pattern] = sizes
        first = np.zeros(len(size_of), dtype=np.int64)
    first[1:] = np.cumsum(size_of)[:-1]
    node = np.arange(nodes)
    group_of = np.searchsorted(starts, node, side="right") - 1
    classes: IntArray = first[pattern[group_of]] + node - starts[group_of]
    return classes


def optree_pairs(nodes: int, branching: tuple[int, ...]) -> list[list[tuple[int, int]]]:
    """`optree_pair_arrays` as lists of (sender, receiver) tuples."""
    return [
        list(zip(s.tolist(), r.tolist(), strict=True))
        for s, r in optree_pair_arrays(nodes, branching)
    ]


class OpTreeAllGather(Algorithm):
    """OpTree (OpTree journal Sec. IV-A): a k-level tree; in stage j the nodes at the same
    position of sibling subgroups exchange everything they hold by one-stage routing."""

    collective = Collective.ALLGATHER
    name = "optree"
    title = "OpTree"
    source = "Dai et al., OpTree journal Sec. IV-A"
    params = (
        ParamSpec(
            "stages",
            "tree depth k (number of stages)",
            1,
            None,
            default_rule="k* of Lemma 3 / eq. (2); N <= 7, where k* is undefined: 1",
            maximum_rule="floor(log2 N)",
        ),
        ParamSpec(
            "branching",
            "branching factor of each level, comma-separated; product must be >= N",
            2,
            None,
            default_rule="k* levels of m = N^(1/k*) as integers: the most balanced exact "
            "factorisation of N when one exists, else the balanced cover with the least "
            "product >= N",
            maximum_rule="at most floor(log2 N) factors, each at most N",
            is_list=True,
        ),
    )
    formula = cf.OPTREE

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        out = dict(given)
        if "branching" in out:
            branching = out["branching"]
            assert isinstance(branching, tuple)
            out.setdefault("stages", len(branching))
        else:
            if "stages" in out:
                k = int_param(out, "stages")
                out["branching"] = optree_exact_factorisation(
                    ring.nodes, k
                ) or optree_balanced_cover(ring.nodes, k)
            else:
                paper = optree_paper_branching(ring.nodes)
                out["branching"], out["stages"] = paper, len(paper)
        return out

    def refusal(self, ring: Ring, params: Params) -> str | None:
        branching = params["branching"]
        assert isinstance(branching, tuple)
        most = optree_max_stages(ring.nodes)
        if len(branching) > most:
            return (
                f"{len(branching)} levels is more than floor(log2 N) = {most}: every level "
                f"must split groups in at least 2; use at most {most} branching factors"
            )
        if max(branching) > ring.nodes:
            return f"a branching factor exceeds N={ring.nodes}; use factors 2..{ring.nodes}"
        if len(branching) != params["stages"]:
            return f"stages={params['stages']} but {len(branching)} branching factors given"
        if math.prod(branching) < ring.nodes:
            return (
                f"branching factors {','.join(map(str, branching))} cover only "
                f"{math.prod(branching)} nodes; their product must be >= {ring.nodes}"
            )
        return None

    def shape_candidates(self, ring: Ring) -> Iterator[Params]:
        for vector in optree_candidates(ring.nodes):
            yield {"stages": len(vector), "branching": vector}

    def stages(self, ring: Ring, params: Params) -> list[Stage]:
        branching = params["branching"]
        assert isinstance(branching, tuple)
        if math.prod(branching) != ring.nodes:
            return [
                optree_padded_stage(ring.nodes, branching[:j])
                for j in range(1, len(branching) + 1)
            ]
        out, done = [], 1
        for j, m in enumerate(branching, start=1):
            out.append(optree_exact_stage(ring.nodes, done, m, f"stage {j} (m={m})"))
            done *= m
        return out

    def stage_sketches(self, ring: Ring, params: Params) -> list[StageSketch] | None:
        """An exact tree's stage j (groups of G = N / done nodes, children of c = G / m_j):
        the column {0, c, .., (m_j - 1) c} exchanging `done` items all-to-all, at every
        position of every group (offsets g G + p, p < c): N / m_j translates. Keyed by
        (done, m_j): trees that share a level share its bound. A padded tree's stages are
        built on demand, level by level (`optree_padded_stage`), keyed by their prefix."""
        branching = params["branching"]
        assert isinstance(branching, tuple)
        n = ring.nodes
        if math.prod(branching) != n:
            return [
                StageSketch(
                    ("optree-padded", branching[:j]),
                    build=functools.partial(optree_padded_stage, n, branching[:j]),
                    classes=functools.partial(
                        optree_padded_link_classes, n, branching[:j], CLASS_LP_MOST_CLASSES
                    ),
                )
                for j in range(1, len(branching) + 1)
            ]
        out, done = [], 1
        for m in branching:
            group = n // done
            child = group // m
            offsets = (np.arange(done)[:, None] * group + np.arange(child)[None, :]).reshape(-1)
            out.append(
                StageSketch(
                    ("optree", done, m),
                    positions=np.arange(m, dtype=np.int64) * child,
                    weights=np.full(m, done, dtype=np.int64),
                    offsets=offsets.astype(np.int64),
                )
            )
            done *= m
        return out

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        branching = params["branching"]
        assert isinstance(branching, tuple)
        hold = Holdings(ring.nodes)
        flows = []
        for j, (s, r) in enumerate(optree_pair_arrays(ring.nodes, branching), start=1):
            flows.append(hold.stage(s, r, f"stage {j} (m={branching[j - 1]})"))
        return _schedule(ring, flows)

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        """The claim is about the shape being run. The paper's shape (depth k*): Theorem 2.
        Another depth k with the family's balanced levels (`fill_defaults`): Theorem 1,
        eq. (1) at k (its proof takes m = N^(1/k) at every level); k = 1 is OSM (Sec. V-B:
        "k = 1 implies that we are utilizing the OSM"), whose Table 1 form ceil(N^2 / (8w))
        is eq. (1) at k = 1. Levels of other sizes have no closed form: no claim, the note
        saying what the paper claims for its own shape."""
        n, w = ring.nodes, ring.wavelengths_per_fiber
        k_star = cf.optree_k_star(n)
        k = int_param(params, "stages")
        theorem_2 = self.formula.evaluate(
            n, w, note="" if k_star is not None else "k* undefined for N <= 7 (ln N < 2)"
        )
        balanced = self.fill_defaults(ring, {"stages": k})["branching"]
        assert isinstance(balanced, tuple)
        if params == self.paper_shape(ring):
            claim = theorem_2
        elif params["branching"] != balanced:
            claim = self.formula.at(
                None,
                None,
                "eq. (1) counts levels of m = N^(1/k) children each; these levels "
                f"({','.join(map(str, balanced))} would be balanced) have no closed form",
            )
        elif k == 1:
            claim = cf.OSM_ALLGATHER.evaluate(
                n, w, note="one level is OSM (OpTree journal Sec. V-B): eq. (1) at k = 1"
            )
        else:
            claim = cf.OPTREE_AT_K.evaluate(n, w, k)
        forms = [claim, cf.OPTREE_K_STAR.at(k_star)]
        if claim is not theorem_2:
            forms.append(theorem_2)
        if k >= 2:
            if claim.text != cf.OPTREE_AT_K.text:
                forms.append(cf.OPTREE_AT_K.evaluate(n, w, k))
            forms.append(cf.OPTREE_PROOF_SUM.evaluate(n, w, k))
            forms.append(cf.OPTREE_MAX_HOPS.evaluate(n, k))
        return forms
