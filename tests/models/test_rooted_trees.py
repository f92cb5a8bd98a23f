"""Rooted whole-ring trees (models/rooted_trees.py), `synth`'s reduce-scatter, all-reduce and
all-gather shapes with `roots`: every shape delivers (data-flow simulator), its stages are its data
flow's, every part runs the ring's least tree, each slot's pieces per lightpath are the
least that fit the channels (counted link by link here), and the shapes that cannot be built
are refused with what would work."""

import numpy as np
import pytest

from models.achievable import least_tree_edges, tree_hops
from models.dataflow import simulate
from models.errors import AlgorithmRefusedError
from models.ring import Direction, Hardware, Ring
from models.rooted_trees import (
    ROOTED_DEPTH,
    ROOTED_SLOTS,
    merged_pairs,
    part_bounds,
    reduce_flows,
    rooted_trees,
    slot_payload,
)
from models.stage import Stage
from models.synthesis import (
    NodeLimitedSynthAllGather,
    NodeLimitedSynthReduceScatter,
    SynthAllGather,
    SynthAllReduce,
    SynthReduceScatter,
)
from solver.plan import plan_time_s

FAMILIES = (SynthReduceScatter, SynthAllReduce, SynthAllGather)
Rooted = SynthReduceScatter | SynthAllReduce | SynthAllGather


def rooted_shapes(algorithm: Rooted, ring: Ring) -> list[dict]:
    return [raw for raw in algorithm.shape_candidates(ring) if raw.get("roots")]


def demands(stage: Stage) -> list[tuple[int, int, int]]:
    return sorted(zip(stage.sources.tolist(), stage.destinations.tolist(),
                      stage.counts.tolist(), strict=True))


def busiest_link(stage: Stage) -> int:
    """Lightpaths on the busiest link of either direction, every link of every arc listed
    (CW from s covers the links s .. s + h - 1, CCW from s the links s - 1 .. s - h)."""
    n = stage.nodes
    cw = stage.allowed == Direction.CW
    hops = np.where(cw, (stage.destinations - stage.sources) % n,
                    (stage.sources - stage.destinations) % n)
    arc = np.repeat(np.arange(len(hops)), hops)
    step = np.arange(len(arc)) - np.repeat(np.cumsum(hops) - hops, hops)
    link = np.where(cw[arc], stage.sources[arc] + step, stage.sources[arc] - 1 - step) % n
    load = np.zeros((2, n), dtype=np.int64)
    np.add.at(load, (stage.allowed[arc], link), stage.counts[arc])
    return int(load.max())


def check(algorithm: Rooted, ring: Ring, raw: dict) -> None:
    params = algorithm.resolve(ring, raw)
    schedule = algorithm.schedule(ring, params)
    report = simulate(schedule)
    if not isinstance(algorithm, SynthAllGather):  # each chunk's sum forms at its root only
        assert report.sums_formed == 1
    mine = algorithm.stages(ring, params)
    assert len(mine) == algorithm.stage_count(ring, params) == schedule.stage_count
    for stage, theirs in zip(mine, schedule.stages(), strict=True):
        assert demands(stage) == demands(theirs)
        assert stage.pieces == theirs.pieces
        assert busiest_link(stage) <= ring.channels_per_direction
        if algorithm.hop_limit is not None:
            hops = np.where(stage.allowed == Direction.CW,
                            (stage.destinations - stage.sources) % ring.nodes,
                            (stage.sources - stage.destinations) % ring.nodes)
            assert hops.max() <= algorithm.hop_limit


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize(("wavelengths", "hop_limit"), [(4, None), (16, None), (8, 5)])
@pytest.mark.parametrize("nodes", range(2, 65))
def test_every_rooted_shape_delivers_on_small_rings(
    family: type, wavelengths: int, hop_limit: int | None, nodes: int
) -> None:
    ring = Ring(nodes, 1, wavelengths)
    algorithm = family(hop_limit=hop_limit)
    for raw in rooted_shapes(algorithm, ring):
        check(algorithm, ring, raw)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize(("nodes", "tree", "roots", "mirror"),
                         [(1024, 8, 128, 0), (1000, 9, 125, 0), (1000, 8, 250, 0),
                          (1024, 10, 341, 1), (1000, 9, 333, 1), (1024, 8, 170, 0)])
def test_paper_scale_rooted_trees_deliver(
    family: type, nodes: int, tree: int, roots: int, mirror: int
) -> None:
    check(family(hop_limit=80), Ring(nodes, 1, 64),
          {"radices": (nodes,), "tree": tree, "roots": roots, "pieces": 1, "mirror": mirror})


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize(("nodes", "wavelengths", "tree", "roots", "mirror"),
                         [(1024, 16, 11, 64, 1), (2048, 32, 15, 128, 1)])
def test_rooted_trees_of_large_parts_deliver_on_fewer_channels(
    family: type, nodes: int, wavelengths: int, tree: int, roots: int, mirror: int
) -> None:
    """Parts of 16 owners: the search's picks at N = 1024, w = 16 and N = 2048, w = 32,
    16 MiB (README "rooted trees"); every slot within the channels, counted link by link."""
    check(family(hop_limit=80), Ring(nodes, 1, wavelengths),
          {"radices": (nodes,), "tree": tree, "roots": roots, "pieces": 1, "mirror": mirror})


def one_lightpath_a_pair_overflows(nodes: int, hop_limit: int, slots: int, parts: int,
                                   mirror: bool, channels: int) -> bool:
    """Some slot of the K translates of the least tree, one lightpath per distinct (sender,
    shift) pair, loads a link of one direction with more than `channels` lightpaths: the
    pairs and link loads counted here, part by part and link by link."""
    roots = part_bounds(nodes, parts)[2]
    for parents, shifts in least_tree_edges(nodes, hop_limit, slots):
        pairs = set()
        for k, root in enumerate(roots.tolist()):
            sign = -1 if mirror and k % 2 else 1
            for p, d in zip(parents.tolist(), shifts.tolist(), strict=True):
                pairs.add(((root + sign * p) % nodes, sign * d))
        load = np.zeros((2, nodes), dtype=np.int64)
        for sender, shift in pairs:
            for step in range(abs(shift)):
                if shift > 0:
                    load[0, (sender + step) % nodes] += 1
                else:
                    load[1, (sender - 1 - step) % nodes] += 1
        if load.max() > channels:
            return True
    return False


@pytest.mark.parametrize("family", [SynthReduceScatter, SynthAllReduce])
@pytest.mark.parametrize(("nodes", "wavelengths"), [(1024, 8), (1024, 16), (256, 8)])
def test_the_search_offers_the_shallowest_trees_that_fit(
    family: type, nodes: int, wavelengths: int
) -> None:
    """Per part size and mirror, the trees offered are the ROOTED_SLOTS shallowest that fit:
    every depth skipped, from the least that reaches N / 2 on, overflows a link at one
    lightpath a pair (counted in the test) or cannot scatter (fitting is not monotone in the
    depth: at N = 1024, w = 16 parts of 8 owners fit 14 slots, not 15); few channels push
    the first fit deep (N = 1024, w = 8: ten slots above the least for parts of 16 owners)."""
    algorithm = family(hop_limit=80)
    ring = Ring(nodes, 1, wavelengths)
    least = -(-(nodes // 2) // 80)
    offered: dict[tuple[int, int], list[int]] = {}
    for raw in rooted_shapes(algorithm, ring):
        offered.setdefault((raw["roots"], raw.get("mirror", 0)), []).append(raw["tree"])
    assert offered
    for (roots, mirror), trees in offered.items():
        assert trees == sorted(set(trees)) and len(trees) <= ROOTED_SLOTS
        last = trees[-1] if len(trees) == ROOTED_SLOTS else least + ROOTED_DEPTH
        for tree in sorted(set(range(least, last + 1)) - set(trees)):
            with pytest.raises(AlgorithmRefusedError) as refused:
                algorithm.resolve(ring, {"radices": (nodes,), "tree": tree, "roots": roots,
                                         "pieces": 8, "mirror": mirror})
            if "scatter" not in str(refused.value):
                assert one_lightpath_a_pair_overflows(nodes, 80, tree, roots, bool(mirror),
                                                      wavelengths)
    if (nodes, wavelengths) == (1024, 8):
        assert offered[(64, 0)][0] == least + 10


@pytest.mark.parametrize(("nodes", "wavelengths"), [(1024, 8), (256, 16), (64, 4)])
def test_the_all_gather_offers_the_reduce_scatters_rooted_shapes(
    nodes: int, wavelengths: int
) -> None:
    """The all-gather's rooted shapes are the reduce-scatter's (its gather is the scatter
    reversed, its trees the same), which the test above checks are the shallowest that fit."""
    ring = Ring(nodes, 1, wavelengths)
    shapes = rooted_shapes(SynthAllGather(hop_limit=80), ring)
    assert shapes and shapes == rooted_shapes(SynthReduceScatter(hop_limit=80), ring)


@pytest.mark.parametrize(
    ("nodes", "wavelengths", "hop_limit", "tree", "roots", "mirror", "scatter_says"),
    [(1024, 4, 80, 10, 8, 0, "more than the 4 channels one way, even in two slots"),
     (64, 2, 80, 6, 2, 0, "more than the 2 channels one way, even in two slots"),
     (64, 16, 5, 7, 2, 0, "a root is 16 hops from an owner")],
)
def test_the_all_reduce_is_not_refused_for_a_scatter_it_does_not_run(
    nodes: int, wavelengths: int, hop_limit: int, tree: int, roots: int, mirror: int,
    scatter_says: str,
) -> None:
    """Parts too large for the reduce-scatter's scatter, in one slot or in two through relays
    (too many lightpaths on the root's links, or owners farther than the hop limit) refuse
    the reduce-scatter and the all-gather (whose gather is the scatter reversed) only: the
    all-reduce broadcasts from the roots along the trees, and delivers within the channels
    and the hop limit."""
    ring = Ring(nodes, 1, wavelengths)
    shape = {"radices": (nodes,), "tree": tree, "roots": roots, "pieces": 1, "mirror": mirror}
    for family in (SynthReduceScatter, SynthAllGather):
        with pytest.raises(AlgorithmRefusedError, match=scatter_says):
            family(hop_limit=hop_limit).resolve(ring, shape)
    check(SynthAllReduce(hop_limit=hop_limit), ring, shape)


def direct_scatter_fits(nodes: int, channels: int, hop_limit: int, roots: int) -> bool:
    """Whether every root can send each other owner of its part one lightpath in one slot
    within the hop limit and the channels (part k: owners k N // K .. (k + 1) N // K - 1, its
    root the middle one), the link loads counted here one lightpath at a time."""
    load = np.zeros((2, nodes), dtype=np.int64)
    for k in range(roots):
        low, high = k * nodes // roots, (k + 1) * nodes // roots
        root = low + (high - low - 1) // 2
        for owner in range(low, high):
            if abs(owner - root) > hop_limit:
                return False
            for link in range(min(root, owner), max(root, owner)):
                load[0 if owner > root else 1, link] += 1
    return int(load.max()) <= channels


@pytest.mark.parametrize("family", [SynthReduceScatter, SynthAllGather])
@pytest.mark.parametrize(("nodes", "wavelengths", "hop_limit", "tree", "roots", "mirror"),
                         [(1024, 8, 80, 10, 32, 1), (64, 16, 5, 8, 4, 0), (64, 4, 8, 6, 4, 1)])
def test_parts_too_large_for_one_scatter_slot_scatter_through_relays(
    family: type, nodes: int, wavelengths: int, hop_limit: int, tree: int, roots: int,
    mirror: int,
) -> None:
    """Where one lightpath from each root to every other owner of its part overloads a link
    or exceeds the hop limit (counted in the test), the scatter (the all-gather's gather)
    takes two slots through relays, each within the channels and the hop limit, and the
    schedule delivers: at N = 1024, w = 8, parts of 32 owners on 10-slot trees (the search's
    pick at 1 MiB, 0.407 ms against 0.588 with parts of 16 on 18-slot trees)."""
    assert not direct_scatter_fits(nodes, wavelengths, hop_limit, roots)
    algorithm = family(hop_limit=hop_limit)
    ring = Ring(nodes, 1, wavelengths)
    shape = {"radices": (nodes,), "tree": tree, "roots": roots, "pieces": 2, "mirror": mirror}
    check(algorithm, ring, shape)
    labels = [stage.label for stage in algorithm.stages(ring, algorithm.resolve(ring, shape))]
    assert len(labels) == tree + 2
    relayed = (labels[-2:] if family is SynthReduceScatter else labels[:2])
    assert all("relays" in label for label in relayed)


@pytest.mark.parametrize(("nodes", "wavelengths", "roots"), [(64, 16, 4), (1024, 64, 341)])
def test_a_scatter_that_fits_one_slot_takes_one(nodes: int, wavelengths: int,
                                                roots: int) -> None:
    """Parts whose direct scatter fits (counted in the test) keep it: one slot, no relays."""
    assert direct_scatter_fits(nodes, wavelengths, 80, roots)
    algorithm = SynthReduceScatter(hop_limit=80)
    ring = Ring(nodes, 1, wavelengths)
    params = algorithm.resolve(ring, {"radices": (nodes,), "tree": 7 if nodes == 64 else 10,
                                      "roots": roots, "pieces": 2})
    labels = [stage.label for stage in algorithm.stages(ring, params)]
    assert labels[-1] == "rooted trees scatter" and "rooted trees scatter" not in labels[:-1]


@pytest.mark.parametrize("family", [SynthReduceScatter, SynthAllGather])
def test_the_searchs_rooted_reduce_scatter_delivers_at_4096(family: type) -> None:
    """The shape the search picks for the reduce-scatter at N = 4096, 4 and 64 MiB (27-slot
    trees from 256 roots, every other mirrored), one piece a chunk, and the all-gather's
    of the same shape: 16.8M moves simulated (about 6 s and 1.2 GB each); the all-reduce's
    rooted shapes are not offered at 4096 (`ROOTED_WORK_LIMIT`)."""
    check(family(hop_limit=80), Ring(4096, 1, 64),
          {"radices": (4096,), "tree": 27, "roots": 256, "pieces": 1, "mirror": 1})


@pytest.mark.parametrize(("nodes", "wavelengths", "tree", "roots", "mirror"),
                         [(64, 4, 5, 8, 1), (256, 8, 6, 16, 0), (1024, 8, 18, 64, 0)])
def test_the_rooted_all_gather_is_the_reduce_scatter_reversed(
    nodes: int, wavelengths: int, tree: int, roots: int, mirror: int
) -> None:
    """The all-gather's stages are the reduce-scatter's in reverse order, every lightpath
    reversed (sender and receiver swapped, the other direction, as many lightpaths of as
    many pieces): the same links at the same loads, so the same channels and true steps."""
    ring = Ring(nodes, 1, wavelengths)
    shape = {"radices": (nodes,), "tree": tree, "roots": roots, "pieces": 4, "mirror": mirror}
    rs, ag = SynthReduceScatter(hop_limit=80), SynthAllGather(hop_limit=80)
    reduce = rs.stages(ring, rs.resolve(ring, shape))
    gather = ag.stages(ring, ag.resolve(ring, shape))
    assert len(gather) == len(reduce) == tree + 1
    for mine, theirs in zip(gather, reversed(reduce), strict=True):
        reversed_theirs = sorted(zip(theirs.destinations.tolist(), theirs.sources.tolist(),
                                     theirs.counts.tolist(), (1 - theirs.allowed).tolist(),
                                     strict=True))
        assert sorted(zip(mine.sources.tolist(), mine.destinations.tolist(),
                          mine.counts.tolist(), mine.allowed.tolist(),
                          strict=True)) == reversed_theirs
        assert mine.pieces == theirs.pieces
        assert busiest_link(mine) == busiest_link(theirs)


@pytest.mark.parametrize("mirror", [False, True])
@pytest.mark.parametrize(("nodes", "hop_limit", "slots", "parts"),
                         [(12, 3, 2, 3), (30, 4, 5, 5), (64, 80, 2, 8), (63, 5, 7, 9)])
def test_every_part_reduces_along_the_least_tree(
    nodes: int, hop_limit: int, slots: int, parts: int, mirror: bool
) -> None:
    """Each part's reduction moves (one per non-root node) cross F(N, S) hops in all, and
    reach its root from every node: the least tree within S slots, translated to the root
    (with `mirror`, every other part's the mirror image: the part's moves read from the
    data flow, so a wrongly mirrored edge leaves a node unreached or a chain broken)."""
    plan = rooted_trees(nodes, hop_limit, slots, parts, 1, 64, mirror)
    assert not isinstance(plan, str)
    low, high, roots = part_bounds(nodes, parts)
    assert ((low <= roots) & (roots < high)).all()
    assert plan.signs.tolist() == [-1 if mirror and k % 2 else 1 for k in range(parts)]
    least = int(tree_hops(nodes, hop_limit).upto(slots)[slots])
    flows = list(reduce_flows(plan, scatter=False))
    for k, root in enumerate(plan.roots.tolist()):
        part = set(plan.part_data(k).tolist())
        parent = {}
        for flow in flows:
            for s, r, x in zip(flow.senders.tolist(), flow.receivers.tolist(),
                               flow.data.tolist(), strict=True):
                if x == min(part):  # the part's first piece: one move per child
                    ring_hops = min((s - r) % nodes, (r - s) % nodes)
                    assert s not in parent
                    parent[s] = (r, ring_hops)
        assert len(parent) == nodes - 1 and root not in parent
        assert sum(h for _, h in parent.values()) == least
        assert max(h for _, h in parent.values()) <= hop_limit
        for v in parent:  # every chain ends at the root
            seen = 0
            while v != root:
                v, seen = parent[v][0], seen + 1
                assert seen < nodes


@pytest.mark.parametrize(("nodes", "slots", "parts", "pieces", "channels"),
                         [(16, 3, 4, 3, 4), (24, 2, 6, 1, 16), (40, 3, 10, 2, 8)])
def test_each_slot_carries_the_least_pieces_that_fit(
    nodes: int, slots: int, parts: int, pieces: int, channels: int
) -> None:
    """Per slot, p pieces a lightpath fit the channels (every link counted) and p - 1 would
    not: the lightpaths each pair then needs, ceil(pieces of its parts / (p - 1)), overload a
    link."""
    algorithm = SynthReduceScatter()
    ring = Ring(nodes, 1, channels)
    params = algorithm.resolve(ring, {"radices": (nodes,), "tree": slots, "roots": parts,
                                      "pieces": pieces})
    schedule = algorithm.schedule(ring, params)
    for stage, flow in zip(algorithm.stages(ring, params), schedule.flows, strict=True):
        assert busiest_link(stage) <= channels
        if stage.pieces == 1:
            continue
        pairs: dict[tuple[int, int], int] = {}
        for s, d in zip(flow.senders.tolist(), flow.receivers.tolist(), strict=True):
            pairs[(s, d)] = pairs.get((s, d), 0) + 1
        fewer = Stage.from_demands(
            nodes, stage.sources, stage.destinations,
            [-(-pairs[(s, d)] // (stage.pieces - 1))
             for s, d in zip(stage.sources.tolist(), stage.destinations.tolist(), strict=True)],
            stage.allowed, pieces=stage.pieces - 1)
        assert busiest_link(fewer) > channels


@pytest.mark.parametrize(("nodes", "hop_limit", "slots", "parts", "mirror"),
                         [(40, 6, 4, 10, False), (64, 8, 5, 16, True), (1024, 80, 10, 341, True)])
def test_slot_payload_is_what_the_rooted_trees_build(
    nodes: int, hop_limit: int, slots: int, parts: int, mirror: bool
) -> None:
    """On the least tree's edges `slot_payload` answers each slot's pieces per lightpath as
    `rooted_trees` builds them, and its fractional floor is the busiest link's pieces (every
    link of the built slot counted here, each pair's pieces instead of its lightpaths) over
    the channels: at most the whole lightpaths' pieces."""
    pieces, channels = 8, 16 if nodes < 1024 else 64
    plan = rooted_trees(nodes, hop_limit, slots, parts, pieces, channels, mirror)
    assert not isinstance(plan, str)
    for (parents, shifts), slot in zip(least_tree_edges(nodes, hop_limit, slots), plan.slots,
                                       strict=True):
        per, floor = slot_payload(nodes, parents, shifts, parts, pieces, channels, mirror)
        assert per == slot.per_lightpath
        low, high, _ = part_bounds(nodes, parts)
        senders, moves, data = merged_pairs(nodes, parents, shifts, parts, mirror,
                                            (high - low) * pieces)
        assert (senders == slot.senders).all() and (moves == slot.moves).all()
        volume = Stage.from_demands(
            nodes, senders, (senders + moves) % nodes, data,
            np.where(moves > 0, Direction.CW, Direction.CCW).astype(np.int64))
        assert floor == pytest.approx(busiest_link(volume) / channels)
        assert floor <= per


def test_slot_payload_says_when_one_lightpath_a_pair_does_not_fit() -> None:
    """The least tree's first slot at N = 1024 has an 80-hop shift each way: with every
    owner its own part each link carries 80 pairs, more than 64 channels."""
    parents, shifts = least_tree_edges(1024, 80, 10)[0]
    per, floor = slot_payload(1024, parents, shifts, 1024, 8, 64, False)
    assert per is None and floor > 1


@pytest.mark.parametrize(("nodes", "hop_limit", "slots", "parts"),
                         [(64, 8, 5, 16), (100, 12, 6, 50), (1024, 80, 10, 342)])
def test_mirrored_parts_move_as_much_data_each_way(
    nodes: int, hop_limit: int, slots: int, parts: int
) -> None:
    """With an even number of parts, half mirrored, every slot moves exactly as many
    piece-hops CW as CCW (each part's tree and its mirror image swap the directions); the
    tree unmirrored does not (some of its slots have more hops one way)."""
    def per_way(mirror: bool) -> list[tuple[int, int]]:
        plan = rooted_trees(nodes, hop_limit, slots, parts, 1, 64, mirror)
        assert not isinstance(plan, str)
        out = []
        for flow in reduce_flows(plan, scatter=False):
            cw = (flow.receivers - flow.senders) % nodes
            ccw = (flow.senders - flow.receivers) % nodes
            # the tree's edges are within the hop limit, shorter than half the ring
            out.append((int(cw[cw <= hop_limit].sum()), int(ccw[ccw <= hop_limit].sum())))
        return out

    assert all(a == b for a, b in per_way(True))
    assert any(a != b for a, b in per_way(False))


def test_the_reduce_scatter_ends_with_one_scatter_slot_and_the_all_reduce_broadcasts() -> None:
    ring = Ring(64, 1, 16)
    shape = {"radices": (64,), "tree": 3, "roots": 8, "pieces": 2}
    rs = SynthReduceScatter(hop_limit=80)
    stages = rs.stages(ring, rs.resolve(ring, shape))
    assert [s.label for s in stages][-1] == "rooted trees scatter"
    assert len(stages) == 4
    ar = SynthAllReduce(hop_limit=80)
    params = ar.resolve(ring, shape)
    assert ar.stage_count(ring, params) == 6
    assert ar.reduces_then_broadcasts(ring, params)


@pytest.mark.parametrize(
    ("shape", "says"),
    [
        ({"radices": (8, 8), "tree": 2, "roots": 8}, "radices = 64"),
        ({"radices": (64,), "tree": 2, "roots": 8, "direct": 1}, "direct = 0"),
        ({"radices": (64,), "tree": 2, "roots": 65}, "roots <= N = 64"),
        ({"radices": (64,), "tree": 1, "roots": 16}, "use tree >= 2"),
        ({"radices": (64,), "tree": 2, "roots": 8, "mirror": 2}, "mirror is 0 or 1"),
        ({"radices": (8, 8), "mirror": 1}, "give roots"),
        ({"radices": (8, 8), "mirror": 2}, "mirror is 0 or 1"),
    ],
)
def test_rooted_shapes_that_cannot_be_built_are_refused(shape: dict, says: str) -> None:
    with pytest.raises(AlgorithmRefusedError, match=says):
        SynthReduceScatter(hop_limit=20).resolve(Ring(64, 1, 16), shape)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_mirror_that_changes_nothing_is_left_out_of_the_shape(family: type) -> None:
    """mirror = 0, or mirror = 1 with one part, is the unmirrored shape: one shape, one
    set of parameters."""
    ring = Ring(12, 1, 64)
    algorithm = family(hop_limit=None)
    plain = algorithm.resolve(ring, {"radices": (12,), "roots": 1})
    for mirror, roots in ((0, 1), (1, 1)):
        assert algorithm.resolve(ring, {"radices": (12,), "roots": roots,
                                        "mirror": mirror}) == plain
    assert "mirror" not in algorithm.resolve(ring, {"radices": (12,), "roots": 3, "mirror": 0})
    assert algorithm.resolve(ring, {"radices": (12,), "roots": 3, "mirror": 1})["mirror"] == 1


@pytest.mark.parametrize("limited", [NodeLimitedSynthReduceScatter, NodeLimitedSynthAllGather])
def test_rooted_trees_are_neither_searched_nor_accepted_under_a_node_limit(
    limited: type
) -> None:
    ring = Ring(64, 1, 16)
    algorithm = limited(per_node=4)
    assert not rooted_shapes(algorithm, ring)
    with pytest.raises(AlgorithmRefusedError, match="per-node limit"):
        algorithm.resolve(ring, {"radices": (64,), "tree": 2, "roots": 8})


def test_a_swept_rooted_all_reduce_is_refused() -> None:
    with pytest.raises(AlgorithmRefusedError, match="sweep = 0"):
        SynthAllReduce().resolve(Ring(64, 1, 16),
                                 {"radices": (64,), "tree": 2, "roots": 8, "sweep": 1})


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize(("nodes", "wavelengths", "hop_limit"),
                         [(64, 4, 8), (256, 8, 80), (1024, 8, 80), (1024, 64, 80)])
def test_the_time_floor_is_below_every_built_rooted_shape(
    family: type, nodes: int, wavelengths: int, hop_limit: int
) -> None:
    """`time_floor` (what the search prunes on before building a rooted shape) is at most
    the time of the shape's built slots at one step each (each slot at its pieces per
    lightpath, every slot's reconfiguration), at 1 KiB to 64 MiB: the floor's slots are the
    stages built, and its pieces at most theirs summed."""
    algorithm = family(hop_limit=hop_limit)
    ring = Ring(nodes, 1, wavelengths)
    sizes = [2.0**10, 2.0**22, 2.0**26]
    hardware = Hardware()
    shapes = rooted_shapes(algorithm, ring)
    assert shapes
    for raw in shapes:
        slots, floors = algorithm.time_floor(ring, raw, sizes, hardware)
        params = algorithm.resolve(ring, raw)
        stages = algorithm.stages(ring, params)
        assert slots == len(stages)
        built = [(1, stage.pieces) for stage in stages]
        per_message = algorithm.data_per_message(ring, params)
        for size, floor in zip(sizes, floors, strict=True):
            assert floor <= plan_time_s(built, size, per_message, hardware)
    assert algorithm.time_floor(ring, {"radices": (nodes,)}, sizes, hardware) is None


@pytest.mark.parametrize("family", FAMILIES)
def test_the_all_reduce_cuts_its_parts_by_pieces_the_others_by_chunks(family: type) -> None:
    """An all-reduce's parts have no owners: its N q pieces are cut as evenly as whole pieces
    allow (N = 40, 13 parts, 3 pieces a chunk: 9 or 10 pieces each, not 9 but one of 12),
    and the schedule delivers. The reduce-scatter's and all-gather's parts are their owners'
    whole chunks (part_bounds)."""
    ring = Ring(40, 1, 8)
    algorithm = family(hop_limit=6)
    shapes = [raw for raw in rooted_shapes(algorithm, ring) if raw["roots"] == 13]
    assert shapes
    for raw in shapes:
        raw = {**raw, "pieces": 3}
        check(algorithm, ring, raw)
        plan = rooted_trees(40, 6, raw["tree"], 13, 3, 8, bool(raw.get("mirror")),
                            scatter=family is not SynthAllReduce)
        assert not isinstance(plan, str)
        parts = [plan.part_data(k).tolist() for k in range(13)]
        assert [x for part in parts for x in part] == list(range(120))  # in order, once
        sizes = sorted(len(part) for part in parts)
        if family is SynthAllReduce:
            assert sizes == [9] * 10 + [10] * 3
        else:
            low, high, _ = part_bounds(40, 13)
            assert sizes == sorted(((high - low) * 3).tolist()) == [9] * 12 + [12]


def test_the_catalogs_all_reduce_at_n_1024_delivers_with_parts_cut_by_pieces() -> None:
    """The shape the N = 1024, w = 64, 64 MiB all-reduce plans (10-slot trees from 341
    roots, every other mirrored), at 4 pieces a chunk (the plan's 32 take 17 s to
    simulate): 341 parts of 12 or 13 pieces, most not on a chunk boundary, delivered
    (data-flow) within the channels."""
    ring, algorithm = Ring(1024, 1, 64), SynthAllReduce(hop_limit=80)
    shape = {"radices": (1024,), "tree": 10, "roots": 341, "pieces": 4, "mirror": 1}
    check(algorithm, ring, shape)
    plan = rooted_trees(1024, 80, 10, 341, 4, 64, True, scatter=False)
    assert not isinstance(plan, str)
    assert sorted(set((plan.stop - plan.first).tolist())) == [12, 13]
