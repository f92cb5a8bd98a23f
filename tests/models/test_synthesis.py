"""The synthesized family (models/synthesis.py): every shape delivers the collective (data-flow
simulator), its direct stages are the schedule's, every lightpath keeps to the hop limit."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.achievable import tree_hops
from models.algorithms.base import Algorithm, Collective
from models.dataflow import simulate
from models.errors import AlgorithmRefusedError, InvalidInputError, LimitExceededError
from models.ring import Direction, Ring
from models.stage import Stage
from models.synthesis import (
    Level,
    SynthAllGather,
    SynthAllReduce,
    SynthAllToAll,
    SynthReduceScatter,
    alltoall_digits,
    balanced_digits,
    centre_counts,
    centre_offsets,
    centre_reach,
    holding,
    idle_residues,
    levels,
    multiplicative_partitions,
    padded_sizes,
    synthesized,
    tree_slots,
)

FAMILIES = (SynthAllGather, SynthAllReduce, SynthReduceScatter, SynthAllToAll)


PADDED_SAMPLES = (17, 31, 47, 61)  # padded to 18, 32, 48 and 64 positions


def shapes(family: type, nodes: int) -> list[tuple[int, ...]]:
    """Every factorisation the family's search may try: of N, and on the sample rings of the
    padded sizes above it where the family pads (all but reduce-scatter; every N in 57..63
    pads to 64, so all of them would run 64's shapes seven times over)."""
    padded = family.padded and nodes in PADDED_SAMPLES  # type: ignore[attr-defined]
    sizes = padded_sizes(nodes) if padded else [nodes]
    return [radices for size in sizes for radices in multiplicative_partitions(size)]


def demands(stage: Stage) -> list[tuple[int, int, int]]:
    """(source, destination, count) with the directions merged, as the schedule states them."""
    n = stage.nodes
    pairs, merged = np.unique(stage.sources.astype(np.int64) * n + stage.destinations,
                              return_inverse=True)
    counts = np.bincount(merged, weights=stage.counts, minlength=len(pairs)).astype(np.int64)
    return list(zip((pairs // n).tolist(), (pairs % n).tolist(), counts.tolist(), strict=True))


def check(
    algorithm: Algorithm, ring: Ring, radices: tuple[int, ...], pieces: int | None,
    direct: int | None = None, sweep: int | None = None, holders: int | None = None,
    centres: int | None = None, tree: int | None = None,
) -> None:
    given: dict[str, object] = {"radices": radices}
    if tree is not None:
        given["tree"] = tree
    if holders is not None:
        given["holders"] = holders
    if centres is not None:
        given["centres"] = centres
    if pieces is not None:
        given["pieces"] = pieces
    if direct is not None:
        given["direct"] = direct
    if sweep is not None:
        given["sweep"] = sweep
    params = algorithm.resolve(ring, given)  # type: ignore[arg-type]
    schedule = algorithm.schedule(ring, params)
    simulate(schedule)
    direct_stages = algorithm.stages(ring, params)
    assert len(direct_stages) == algorithm.stage_count(ring, params) == schedule.stage_count
    if math.prod(radices) > ring.nodes:  # padded: the hosts' lightpaths, at least the data's
        check_padded(algorithm, ring, params, direct_stages, schedule.stages())
        return
    shifts = expected_shifts(algorithm, ring, params)
    for i, (mine, theirs) in enumerate(zip(direct_stages, schedule.stages(), strict=True)):
        assert demands(mine) == demands(theirs)
        assert mine.pieces == theirs.pieces
        # pinned directions: CW to v + m s, CCW to v - m s (m = 1 in a pipeline step)
        hops = _pinned_hops(mine, ring.nodes)
        assert (mine.allowed != 2).all()
        if shifts is None:  # all-to-all: one stride per stage, or a direct level's digits
            reached = set(hops.tolist())
            stride = min(reached)
            assert reached == {stride} or reached <= {m * stride for m in range(1, ring.nodes)}
            assert len(reached) == 1 or params["direct"]
            continue
        idle = holding(params) is not None
        for way, expected in zip((Direction.CW, Direction.CCW), shifts[i], strict=True):
            reached = set(hops[mine.allowed == way].tolist())
            # idle residues: a shift whose every class is idle sends nothing
            assert reached <= expected if idle else reached == expected


def check_padded(
    algorithm: Algorithm, ring: Ring, params: dict[str, object], mine: list[Stage],
    theirs: list[Stage],
) -> None:
    """A padded shape's stages (its positions' stages on their hosts) hold every lightpath its
    data flow needs (a virtual position's empty bundles may add some), the same way round and
    no longer than the positions' own lightpaths, none between a node and itself."""
    virtual = Ring(math.prod(params["radices"]), 1, ring.wavelengths_per_fiber)  # type: ignore[arg-type]
    ideal = algorithm._stages(virtual, params)  # type: ignore[attr-defined]
    for stage, needed, model in zip(mine, theirs, ideal, strict=True):
        have = {(s, d): k for s, d, k in demands(stage)}
        for s, d, k in demands(needed):
            assert have.get((s, d), 0) >= k, (stage.label, s, d)
        assert stage.pieces == needed.pieces == model.pieces
        assert stage.unit_lightpaths <= model.unit_lightpaths
        hops, model_hops = _pinned_hops(stage, ring.nodes), _pinned_hops(model, virtual.nodes)
        assert (hops >= 1).all()
        for way in (Direction.CW, Direction.CCW):
            longest = model_hops[model.allowed == way].max(initial=0)
            assert hops[stage.allowed == way].max(initial=0) <= longest


def _pinned_hops(stage: Stage, nodes: int) -> np.ndarray:
    """Per demand, the hops of its arc the way it is pinned (CW or CCW)."""
    cw = (stage.destinations - stage.sources) % nodes
    return np.where(stage.allowed == Direction.CW, cw, (nodes - cw) % nodes)  # type: ignore[no-any-return]


def _link_loads(stage: Stage, nodes: int) -> np.ndarray:
    """Lightpaths on every link, per direction (rows indexed by `Direction`): a CW lightpath
    from s covers the links after s, a CCW one those before it."""
    load = np.zeros((2, nodes), dtype=np.int64)
    for s, h, k, a in zip(stage.sources, _pinned_hops(stage, nodes), stage.counts,
                          stage.allowed, strict=True):
        links = (s + np.arange(h)) % nodes if a == Direction.CW else (s - 1 - np.arange(h)) % nodes
        load[a, links] += k
    return load


Reach = tuple[set[int], set[int]]  # hops of a stage's lightpaths: CW, CCW


def expected_shifts(
    algorithm: Algorithm, ring: Ring, params: dict[str, object]
) -> list[Reach] | None:
    """Per stage the hops reached CW and CCW: a pipeline step reaches one stride (CCW only in
    its first (k-1)//2 steps, and in an even window's last with `halves`; a sweep's in its
    last), a direct level its whole window, a tree
    slot the lengths of its base tree's edges first reached in it (their directions swapped
    in a reduce-scatter, which runs the slots in reverse). A swept top level comes once,
    between the reduce-scatter and the all-gather of the levels below it."""
    if isinstance(algorithm, SynthAllToAll):
        return None
    held = params.get("holders")
    found = levels(ring, params["radices"], params["pieces"], params["direct"],  # type: ignore[arg-type]
                   sweep=bool(params.get("sweep", 0)),
                   holders=held if isinstance(held, int) else None,
                   tree=params.get("tree", 0),  # type: ignore[arg-type]
                   hop_limit=algorithm.hop_limit,  # type: ignore[attr-defined]
                   node_limit=algorithm._node_limit())  # type: ignore[attr-defined]

    def strides(stride: int, cw: int, ccw: int) -> Reach:
        return {m * stride for m in range(1, cw + 1)}, {m * stride for m in range(1, ccw + 1)}

    def level(lv: Level, swept: bool = False, gather: bool = True) -> list[Reach]:
        if lv.tree:
            out = [({d for d, _ in slot.shifts if d > 0}, {-d for d, _ in slot.shifts if d < 0})
                   for slot in lv.tree]
            return out if gather else [(ccw, cw) for cw, ccw in reversed(out)]
        if lv.direct:  # an even window's far member either way round, by the sender's block
            return [strides(lv.stride, lv.cw_steps,
                            lv.cw_steps if lv.split_far else lv.ccw_steps)]
        late = lv.cw_steps - lv.ccw_steps if swept else 0
        # halves: an even pipeline's last step carries the far class's B pieces CCW too
        far_ccw = lv.halves and lv.half_pieces[1] > 0
        return [
            strides(lv.stride, 1, int(late <= t < late + lv.ccw_steps or far_ccw))
            for t in range(lv.cw_steps)
        ]

    def up(below: list[Level]) -> list[Reach]:
        return [s for lv in below for s in level(lv, gather=False)]

    def down(below: list[Level]) -> list[Reach]:
        return [s for lv in reversed(below) for s in level(lv)]

    if isinstance(algorithm, SynthReduceScatter):  # bottom-up, once
        return up(found)
    if not isinstance(algorithm, SynthAllReduce):
        return down(found)
    if params["sweep"]:
        below, top = found[:-1], found[-1]
        centres = params["centres"]
        broadcast = []  # then each centre's sum one stride further a step, CCW while reached
        if centres < top.window and not top.direct:  # type: ignore[operator]
            cw, ccw = centre_reach(top.window, centres)  # type: ignore[arg-type]
            broadcast = [strides(top.stride, 1, int(ccw.max() >= x))
                         for x in range(1, cw.max() + 1)]
        return up(below) + level(top, swept=True) + broadcast + down(below)
    return up(found) + down(found)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("nodes", range(2, 65))
def test_every_shape_delivers_on_small_rings(family: type, nodes: int) -> None:
    ring = Ring(nodes, 1, 4)
    for radices in shapes(family, nodes):
        check(family(), ring, radices, None)


@pytest.mark.parametrize(
    ("family", "nodes", "radices"),
    [
        (SynthAllGather, 512, (16, 32)),
        (SynthAllGather, 1000, (10, 100)),
        (SynthAllGather, 1024, (32, 32)),
        (SynthAllGather, 4096, (64, 64)),
        (SynthAllReduce, 512, (8, 8, 8)),
        (SynthAllReduce, 1000, (10, 10, 10)),
        (SynthAllReduce, 1024, (4, 4, 4, 16)),
        (SynthAllReduce, 4096, (16, 16, 16)),
        (SynthReduceScatter, 512, (8, 8, 8)),
        (SynthReduceScatter, 1000, (10, 10, 10)),
        (SynthReduceScatter, 1024, (8, 8, 16)),
        (SynthReduceScatter, 4096, (64, 64)),
        (SynthAllToAll, 512, (16, 32)),
        (SynthAllToAll, 1000, (10, 100)),
        (SynthAllToAll, 1024, (4, 8, 32)),
    ],
)
def test_paper_scale_shapes_deliver(family: type, nodes: int, radices: tuple[int, ...]) -> None:
    check(family(), Ring(nodes, 1, 64), radices, 1)


@pytest.mark.parametrize(
    ("family", "nodes", "radices", "direct", "sweep"),
    [
        (SynthAllGather, 1021, (32, 32), 0, None),
        (SynthAllGather, 1000, (4, 4, 4, 16), 3, None),
        (SynthAllReduce, 1021, (8, 8, 16), 2, 1),  # the search's pick at w = 64, 4 MiB
        (SynthAllReduce, 1000, (4, 4, 4, 16), 3, 0),
        (SynthAllGather, 4093, (64, 64), 0, None),
        (SynthAllToAll, 1021, (4, 8, 32), None, None),
    ],
)
def test_padded_shapes_deliver_at_scale(
    family: type, nodes: int, radices: tuple[int, ...], direct: int | None, sweep: int | None
) -> None:
    """A prime or unsmooth N runs the shapes of the power of two above it, its virtual
    positions played by their neighbours (`models.synthesis.Padding`)."""
    check(family(), Ring(nodes, 1, 64), radices, 1, direct, sweep)


def test_padding_spreads_virtual_positions_and_keeps_every_node() -> None:
    """N' - N virtual positions, none at 0 or next to another, each hosted by the node before
    it; the real positions are the nodes in order."""
    from models.synthesis import padding

    for nodes, positions in [(1021, 1024), (1000, 1024), (61, 64), (17, 18)]:
        pad = padding(nodes, positions)
        assert int(pad.virtual.sum()) == positions - nodes and not pad.virtual[0]
        assert not (pad.virtual[1:] & pad.virtual[:-1]).any()
        assert (pad.host[~pad.virtual] == np.arange(nodes)).all()
        where = np.flatnonzero(pad.virtual)
        assert (pad.host[where] == pad.host[where - 1]).all()
    aligned = padding(1021, 1024, 16)  # each virtual position ends a block of 16
    assert ((np.flatnonzero(aligned.virtual) + 1) % 16 == 0).all()
    crowded = padding(1000, 1024, 64)  # 24 of them cannot all end blocks of 64: spread
    assert int(crowded.virtual.sum()) == 24
    assert not (crowded.virtual[1:] & crowded.virtual[:-1]).any()
    assert padded_sizes(1024) == [1024] and padded_sizes(1021) == [1021, 1024]
    assert padded_sizes(1000) == [1000, 1024] and padded_sizes(700) == [700, 729]
    assert padded_sizes(7) == [7]  # N // 8 = 0: no room for a virtual position


def test_reduce_scatter_is_never_padded() -> None:
    """Chunk i of a reduce-scatter ends at node i: N chunks, so no virtual positions."""
    with pytest.raises(AlgorithmRefusedError, match="no virtual positions"):
        SynthReduceScatter().resolve(Ring(1021, 1, 64), {"radices": (8, 8, 16)})
    assert all(
        math.prod(raw["radices"]) == 31  # type: ignore[arg-type]
        for raw in SynthReduceScatter().shape_candidates(Ring(31, 1, 4))
    )


WINDOWED = FAMILIES[:3]  # all-gather, all-reduce, reduce-scatter: the ones with direct levels


@pytest.mark.parametrize("family", WINDOWED)
@pytest.mark.parametrize("wavelengths", [4, 16])
@pytest.mark.parametrize("nodes", range(2, 65))
def test_every_direct_variant_delivers_on_small_rings(
    family: type, wavelengths: int, nodes: int
) -> None:
    """Every shape with every number of direct levels (1..L); 16 channels give the direct
    levels several lightpaths per partner (C // (s a (a + 1) / 2)), 4 mostly one."""
    ring = Ring(nodes, 1, wavelengths)
    for radices in shapes(family, nodes):
        for direct in range(1, len(radices) + 1):
            check(family(), ring, radices, None, direct)


@pytest.mark.parametrize(
    ("family", "nodes", "radices", "direct"),
    [
        (SynthAllGather, 512, (8, 64), 1),
        (SynthAllGather, 1000, (10, 10, 10), 2),
        (SynthAllGather, 1024, (4, 4, 4, 16), 3),
        (SynthAllReduce, 512, (8, 8, 8), 2),
        (SynthAllReduce, 1000, (10, 100), 1),
        (SynthAllReduce, 1024, (4, 4, 4, 16), 3),  # the search's pick at w = 64, 4 MiB
        (SynthAllReduce, 1024, (2, 4, 8, 16), 4),  # every level direct, the top one too
        (SynthReduceScatter, 1024, (4, 4, 4, 16), 3),  # the search's pick at w = 64, 4 MiB
        (SynthReduceScatter, 4096, (4, 4, 4, 64), 3),
    ],
)
def test_paper_scale_direct_levels_deliver(
    family: type, nodes: int, radices: tuple[int, ...], direct: int
) -> None:
    check(family(), Ring(nodes, 1, 64), radices, 1, direct)


@pytest.mark.parametrize("wavelengths", [4, 16])
@pytest.mark.parametrize("nodes", range(2, 65))
def test_every_sweep_delivers_on_small_rings(wavelengths: int, nodes: int) -> None:
    """The top level swept (running sums in scratch registers) under every shape and number
    of direct levels: the data-flow simulator finds each chunk's N contributions once at
    every node."""
    ring = Ring(nodes, 1, wavelengths)
    for radices in shapes(SynthAllReduce, nodes):
        for direct in range(len(radices) + 1):
            check(SynthAllReduce(), ring, radices, None, direct, sweep=1)


@pytest.mark.parametrize(
    ("nodes", "radices", "direct", "centres"),
    [
        (512, (8, 8, 8), 2, None),
        (1000, (10, 100), 1, None),
        (1024, (4, 4, 4, 16), 3, None),
        (1024, (16, 4, 16), 2, 4),
        (4096, (8, 8, 64), 2, 8),  # each chunk's sum at 8 of the 64 top members
    ],
)
def test_paper_scale_sweeps_deliver(
    nodes: int, radices: tuple[int, ...], direct: int, centres: int | None
) -> None:
    check(SynthAllReduce(), Ring(nodes, 1, 64), radices, 1, direct, sweep=1, centres=centres)


def _idle_candidates(ring: Ring, hop_limit: int) -> list[dict[str, object]]:
    """The all-reduce search's candidates with idle residues (holders < the top stride)."""
    return [
        raw for raw in SynthAllReduce(hop_limit=hop_limit).shape_candidates(ring)
        if holding(raw) is not None
    ]


@pytest.mark.parametrize(("wavelengths", "hop_limit"), [(1, 4), (2, 6), (3, 8)])
@pytest.mark.parametrize("nodes", range(4, 49))
def test_every_idle_residue_shape_delivers_on_small_rings(
    wavelengths: int, hop_limit: int, nodes: int
) -> None:
    """Top strides above F w with some residues idle (`holders`), as the search tries them,
    reduce-scattered and gathered or swept, every number of direct levels: the data-flow
    simulator finds every live chunk's N contributions once at every node, and the stages
    hold exactly the lightpaths the data needs (an idle class sends nothing)."""
    ring = Ring(nodes, 1, wavelengths)
    for raw in _idle_candidates(ring, hop_limit):
        check(SynthAllReduce(), ring, raw["radices"], None, raw["direct"], raw["sweep"],  # type: ignore[arg-type]
              raw["holders"], raw["centres"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("nodes", "radices", "direct", "sweep", "holders", "centres"),
    [
        (1024, (16, 5, 13), 2, 1, 64, 13),
        (1024, (16, 5, 13), 2, 1, 64, 5),  # the search's pick at 4 MiB
        (1040, (16, 5, 13), 2, 1, 64, 13),
        (1040, (16, 5, 13), 1, 0, 64, 13),
    ],
)
def test_paper_scale_idle_residues_deliver(
    nodes: int, radices: tuple[int, ...], direct: int, sweep: int, holders: int, centres: int
) -> None:
    check(SynthAllReduce(), Ring(nodes, 1, 64), radices, 1, direct, sweep, holders, centres)


@pytest.mark.parametrize(
    "radices", [(16, 5, 13), (20, 4, 52), (10, 8, 13), (5, 16, 13), (2, 3, 4), (3, 3, 2)]
)
def test_idle_residues_leave_every_class_below_as_many_live_chunks(
    radices: tuple[int, ...],
) -> None:
    """Each class mod s_{L-1} has the same number e of idle residues, for every e the
    holders allow, so every bundle below level L - 1 holds as many live chunks."""
    top, below = math.prod(radices[:-1]), math.prod(radices[:-2])
    for idle in range(radices[-2]):
        marks = idle_residues(radices, top - idle * below)
        assert marks.sum() == idle * below
        assert (np.bincount(np.arange(top)[marks] % below, minlength=below) == idle).all()


def test_holders_are_refused_with_the_values_that_fit() -> None:
    ring = Ring(1040, 1, 64)
    algorithm = SynthAllReduce()
    with pytest.raises(AlgorithmRefusedError, match=r"multiple of the stride below the top "
                       r"level, 16, .* use one of 80, 64, 48, 32, 16"):
        algorithm.resolve(ring, {"radices": (16, 5, 13), "holders": 70})
    with pytest.raises(AlgorithmRefusedError, match="more than the top level's stride 80"):
        algorithm.resolve(ring, {"radices": (16, 5, 13), "holders": 81})
    assert algorithm.resolve(ring, {"radices": (16, 5, 13)})["holders"] == 80


def test_the_search_tries_top_strides_between_the_channels_and_the_hop_limit() -> None:
    """N = 1024, 64 channels, 80 hops: 13 members at stride 80 (16 x 5 below, 64 of 80
    holding a share; 6 sweep slots instead of 8 at stride 64); 5 x 16 is not tried (its
    direct level 2 would need 160 lightpaths on a link), nor anything at stride 64 or below
    with idle residues (the plain shapes reach round the ring there)."""
    raws = _idle_candidates(Ring(1024, 1, 64), 80)
    tried = {raw["radices"] for raw in raws}
    assert (16, 5, 13) in tried and (5, 16, 13) not in tried
    assert all(math.prod(r[:-1]) > 64 and math.prod(r) <= 1024 + 128 for r in tried)  # type: ignore[arg-type]
    assert {"radices": (16, 5, 13), "direct": 2, "sweep": 1, "holders": 64, "centres": 13} in raws
    assert {"radices": (16, 5, 13), "direct": 2, "sweep": 1, "holders": 64, "centres": 5} in raws


def test_a_sweep_takes_half_the_top_levels_slots() -> None:
    """4x4x4x16 at N = 1024, 3 levels direct: reduce-scatter and all-gather take 3 slots
    each; the top window 16 takes 8 + 8 pipeline steps, or 8 swept; its lightpaths carry
    the whole class vector (16 chunks) instead of one chunk per step."""
    ring = Ring(1024, 1, 64)
    algorithm = SynthAllReduce()
    paired = algorithm.resolve(ring, {"radices": (4, 4, 4, 16), "direct": 3})
    swept = algorithm.resolve(ring, {"radices": (4, 4, 4, 16), "direct": 3, "sweep": 1})
    assert algorithm.stage_count(ring, paired) == 3 + 16 + 3
    assert algorithm.stage_count(ring, swept) == 3 + 8 + 3
    top = algorithm.stages(ring, swept)[3:11]
    assert {int(stage.pieces) for stage in top} == {16}
    assert {int(stage.pieces) for stage in algorithm.stages(ring, paired)[3:11]} == {1}


@pytest.mark.parametrize("wavelengths", [1, 4])
@pytest.mark.parametrize("nodes", range(2, 33))
def test_every_centre_count_delivers_on_small_rings(wavelengths: int, nodes: int) -> None:
    """A swept top level with each chunk's sum formed at 2..k_L - 1 of its members and then
    passed on from them, under every shape and number of direct levels below the top (4
    channels: several lightpaths a way where the top stride is short): the data-flow
    simulator finds each chunk's N contributions once at every node, and the stages hold
    exactly the lightpaths the data needs, one stride a step."""
    ring = Ring(nodes, 1, wavelengths)
    for radices in shapes(SynthAllReduce, nodes):
        for direct in range(len(radices)):
            for centres in range(2, radices[-1]):
                check(SynthAllReduce(), ring, radices, None, direct, 1, centres=centres)


@given(window=st.integers(2, 400), data=st.data())
def test_every_member_takes_its_sum_from_one_centre(window: int, data: st.DataObject) -> None:
    """`centre_reach` splits the members between the centres: each non-centre offset is
    within the CW reach after exactly one centre or the CCW reach before it, never both, and
    the broadcast takes floor(ceil(k / q) / 2) steps (the largest gap's middle)."""
    centres = data.draw(st.integers(1, window))
    offsets = centre_offsets(window, centres)
    cw, ccw = centre_reach(window, centres)
    told = np.zeros(window, dtype=np.int64)
    told[offsets] += 1
    for e, right, left in zip(offsets.tolist(), cw.tolist(), ccw.tolist(), strict=True):
        for x in range(1, right + 1):
            told[(e + x) % window] += 1
        for x in range(1, left + 1):
            told[(e - x) % window] += 1
    assert (told == 1).all()
    assert int(cw.max()) == -(-window // centres) // 2
    assert (ccw <= cw[np.arange(centres) - 1]).all()  # a gap's CCW half is never the larger


def test_centres_trade_bytes_for_broadcast_steps() -> None:
    """16 x 5 x 13 at N = 1024 (1040 positions, 64 of 80 holding, 2 direct): 5 centres at
    member offsets 0, 2, 5, 7, 10 of each chunk; the 6 sweep steps carry 5 of the 13 chunks
    of a class vector each way, then one broadcast step CW (every gap of 2 or 3 has a member
    after its first centre) and CCW from the three centres after a gap of 3: 11 slots
    against the plain sweep's 10, each top lightpath 5 pieces instead of 13."""
    assert centre_offsets(13, 5).tolist() == [0, 2, 5, 7, 10]
    cw, ccw = centre_reach(13, 5)
    assert cw.tolist() == [1, 1, 1, 1, 1] and ccw.tolist() == [1, 0, 1, 0, 1]
    assert centre_counts(13) == [5, 3, 2] and centre_counts(3) == []
    ring = Ring(1024, 1, 64)
    algorithm = SynthAllReduce()
    given = {"radices": (16, 5, 13), "direct": 2, "sweep": 1, "holders": 64}
    plain = algorithm.resolve(ring, given)
    fewer = algorithm.resolve(ring, {**given, "centres": 5})
    assert plain["centres"] == 13
    assert algorithm.stage_count(ring, plain) == 2 + 6 + 2
    assert algorithm.stage_count(ring, fewer) == 2 + 6 + 1 + 2
    top = algorithm.stages(ring, fewer)[2:9]
    assert [int(stage.pieces) for stage in top] == [5] * 7
    assert top[-1].label.endswith("broadcast")
    assert {int(stage.pieces) for stage in algorithm.stages(ring, plain)[2:8]} == {13}


def test_centres_are_refused_where_they_mean_nothing() -> None:
    ring = Ring(64, 1, 4)
    algorithm = SynthAllReduce()
    with pytest.raises(AlgorithmRefusedError, match="more than the top level's 16 members"):
        algorithm.resolve(ring, {"radices": (4, 16), "sweep": 1, "centres": 17})
    with pytest.raises(AlgorithmRefusedError, match=r"needs a swept top level \(sweep = 1\)"):
        algorithm.resolve(ring, {"radices": (4, 16), "centres": 4})
    with pytest.raises(AlgorithmRefusedError, match="the top level is direct"):
        algorithm.resolve(ring, {"radices": (4, 16), "sweep": 1, "direct": 2, "centres": 4})
    with pytest.raises(AlgorithmRefusedError, match="use sweep = 0"):
        algorithm.resolve(ring, {"radices": (4, 16), "sweep": 1, "centres": 1})


def test_sweep_is_zero_or_one() -> None:
    with pytest.raises(AlgorithmRefusedError, match="sweep is 0 or 1"):
        SynthAllReduce().resolve(Ring(16), {"radices": (4, 4), "sweep": 2})


@pytest.mark.parametrize("family", WINDOWED)
def test_direct_levels_take_one_slot_each(family: type) -> None:
    """4x4x4x16 at N = 1024: each window-4 level is 2 pipeline steps or 1 direct slot."""
    ring = Ring(1024, 1, 64)
    algorithm = family()
    phases = 2 if family is SynthAllReduce else 1  # reduce-scatter: its first half
    for direct in range(4):
        params = algorithm.resolve(ring, {"radices": (4, 4, 4, 16), "direct": direct})
        assert algorithm.stage_count(ring, params) == phases * (2 * (3 - direct) + direct + 8)


@pytest.mark.parametrize("nodes", [2, 7, 64, 1000, 1024, 4096])
def test_balanced_digits_represent_every_offset_within_the_windows(nodes: int) -> None:
    """All-to-all moves block (s, d) by the digits of d - s: they must sum to the offset and
    stay in the windows, so every lightpath is one stride and the block arrives (this is the
    delivery argument at N = 4096, where 16.7M blocks are too many to simulate in a test)."""
    for radices in multiplicative_partitions(nodes):
        digits = balanced_digits(nodes, radices)
        strides = np.cumprod((1, *radices[:-1]))
        assert ((digits @ strides) % nodes == np.arange(nodes)).all()
        for i, k in enumerate(radices):
            assert digits[:, i].min() >= -((k - 1) // 2) and digits[:, i].max() <= k // 2
        if len(radices) > 4:
            break  # deep shapes repeat the same check; the shallow ones cover every stride


@pytest.mark.parametrize("family", WINDOWED)
@pytest.mark.parametrize("direct", [0, 1, 2])
def test_pieces_fill_the_channels(family: type, direct: int) -> None:
    # N = 16, C = 8, radices (4, 4): strides 1 and 4; x = 8 and 2 lightpaths per pair in a
    # pipeline. Direct (window 4: partners at -1 and +1 strides, the far one 2 strides away CW
    # from even blocks v // s and CCW from odd ones): a link carries 1 + 1 strides' worth of
    # lightpaths per partner each way, x = C // (2 s): level 1 x = 4, level 2 x = 1, and
    # every link of every stage within C (3 s per partner with the far one always CW).
    ring = Ring(16, 1, 8)
    algorithm = family()
    params = algorithm.resolve(ring, {"radices": (4, 4), "direct": direct})
    assert params["pieces"] == 2  # C // top stride = 8 // 4
    found = levels(ring, (4, 4), 2, direct)
    assert [lv.lightpaths for lv in found] == [[8, 2], [4, 2], [4, 1]][direct]
    assert [lv.direct for lv in found] == [i < direct for i in range(2)]
    for stage in algorithm.stages(ring, params):
        load = np.zeros((2, ring.nodes), dtype=np.int64)
        for s, d, k, a in zip(stage.sources, stage.destinations, stage.counts, stage.allowed,
                              strict=True):
            hops = (d - s) % ring.nodes if a == Direction.CW else (s - d) % ring.nodes
            for j in range(hops):
                link = (s + j) % ring.nodes if a == Direction.CW else (d + j) % ring.nodes
                load[a, link] += k
        assert load.max() <= ring.channels_per_direction
        if direct and "direct" in stage.label:  # both directions busy alike
            assert load[0].max() == load[1].max()


@pytest.mark.parametrize("family", [SynthAllGather, SynthReduceScatter, SynthAllReduce])
def test_an_even_pipeline_sends_half_the_far_class_each_way(family: type) -> None:
    """N = 16, C = 8, 4 x 4, 4 pieces, pipelines. Level 2 (stride 4): one item a class,
    bundle 4 pieces on x = 8 // 4 = 2 lightpaths a pair, 2 pieces each; level 1 (stride 1):
    4 items a class, 16 pieces on 8 lightpaths, 2 each. Each level takes 2 steps (window 4:
    the member 2 strides away is the far one, the same class either way round): the first
    both ways at 2 pieces a lightpath, the last with the far class's first 2 (level 2) or 8
    (level 1) pieces CW and the other half CCW, at 1 piece a lightpath on the same 2 or 8
    lightpaths each way (before: all of it CW at 2 pieces, nothing CCW). The data-flow
    simulator delivers it."""
    ring = Ring(16, 1, 8)
    algorithm = family()
    params = algorithm.resolve(ring, {"radices": (4, 4), "pieces": 4})
    simulate(algorithm.schedule(ring, params))
    found = levels(ring, (4, 4), 4)
    assert [lv.halves for lv in found] == [True, True]
    assert [lv.half_pieces for lv in found] == [(8, 8), (2, 2)]
    assert [lv.half_per_lightpath for lv in found] == [1, 1]
    stages = algorithm.stages(ring, params)
    assert [stage.pieces for stage in stages] == {
        SynthAllGather: [2, 1, 2, 1], SynthReduceScatter: [2, 1, 2, 1],
        SynthAllReduce: [2, 1, 2, 1, 2, 1, 2, 1]}[family]
    for stage in stages:
        lightpaths = 2 if "level 2" in stage.label else 8
        for way in (Direction.CW, Direction.CCW):
            assert sorted(set(stage.counts[stage.allowed == way].tolist())) == [lightpaths]


def test_halves_only_where_a_per_node_limit_lets_both_ways_fit() -> None:
    """With one lightpath a node and slot (max_tx = max_rx = 1) the family is built on one
    channel (x = 1 at both levels of 4 x 4 on N = 16): a both-ways step is 2 lightpaths a
    node, which the limit serializes, so the far class stays on one side (each level's
    second, last step CW only). With 4 a node the capped ring has 4 channels: level 2
    (stride 4) has x = 1, both ways 2 <= 4, halves; level 1 (stride 1) x = 4, both ways
    8 > 4, none. A limit of 16 (twice the 8 channels) binds nowhere: halves at both."""
    ring = Ring(16, 1, 8)
    for limit, expected in ((1, [False, False]), (4, [False, True]), (16, [True, True])):
        limited = synthesized(Collective.ALLGATHER, max_tx=limit, max_rx=limit)
        params = limited.resolve(ring, {"radices": (4, 4)})
        capped = Ring(16, 1, min(8, limit))
        found = limited._levels(capped, params)  # type: ignore[attr-defined]
        assert [lv.halves for lv in found] == expected, limit
    stages = synthesized(Collective.ALLGATHER, max_tx=1, max_rx=1).stages(
        ring, {"radices": (4, 4), "pieces": 1, "direct": 0})
    assert len(stages) == 4
    for stage in stages[1::2]:
        assert (stage.allowed == Direction.CW).all()


def test_a_top_window_of_two_has_no_halves() -> None:
    """A top window of 2 spans the ring (2 s = N): its one partner is the same node CW and
    CCW, so halves would make one pair's lightpaths two (N = 22, 11 x 2 with a 4-slot tree
    at 35 pieces: 5 + 5 where the data needs 9). It keeps the far class CW."""
    ring = Ring(22, 1, 64)
    found = levels(ring, (11, 2), 35, tree=4, hop_limit=80)
    assert not found[-1].halves
    check(SynthAllGather(), ring, (11, 2), 35, tree=4)


def test_hop_limit_refusal_names_what_fits() -> None:
    ring = Ring(64, 1, 8)
    with pytest.raises(AlgorithmRefusedError, match="larger top radix"):
        SynthAllGather(hop_limit=6).resolve(ring, {"radices": (8, 8)})
    shapes = [c["radices"] for c in SynthAllGather(hop_limit=6).shape_candidates(ring)]
    assert shapes and all(64 // s[-1] <= 6 for s in shapes)  # type: ignore[index]
    assert (8, 8) not in shapes and (4, 16) in shapes


def test_direct_level_beyond_the_hop_limit_is_refused() -> None:
    """A direct level's longest lightpath has a s hops (a = k // 2): at N = 64 with a hop
    limit of 10, 8x8 may exchange level 1 directly (4 hops), not level 2 (4 x 8 = 32)."""
    ring = Ring(64, 1, 8)
    algorithm = SynthAllReduce(hop_limit=10)
    algorithm.resolve(ring, {"radices": (8, 8), "direct": 1})
    with pytest.raises(
        AlgorithmRefusedError,
        match=r"level 2 exchanged directly .* 32 hops .* hop limit 10; use direct <= 1, or a "
        r"smaller radix at level 2 \(at most 3\)",
    ):
        algorithm.resolve(ring, {"radices": (8, 8), "direct": 2})
    with pytest.raises(AlgorithmRefusedError, match="only 2"):
        algorithm.resolve(ring, {"radices": (8, 8), "direct": 3})
    shapes = list(algorithm.shape_candidates(ring))
    for sweep in (0, 1):  # 8 of 8 hold a share: the top stride is within the 8 channels
        plain = {"sweep": sweep, "holders": 8, "centres": 8}
        assert {"radices": (8, 8), "direct": 1, **plain} in shapes
        assert {"radices": (8, 8), "direct": 2, **plain} not in shapes
        # top stride 2, a = 16: 32 hops
        assert {"radices": (2, 32), "direct": 2, **plain, "holders": 2, "centres": 32} not in (
            shapes
        )
        assert {"radices": (8, 8), "direct": 0, **plain} in shapes
    assert {"radices": (8, 8), "direct": 1, "sweep": 1, "holders": 8, "centres": 3} in shapes
    assert {"radices": (8, 8)} not in shapes
    for raw in shapes:  # every candidate's lightpaths keep to the limit
        params = algorithm.resolve(ring, raw)
        for stage in algorithm.stages(ring, params):
            cw = (stage.destinations - stage.sources) % ring.nodes
            hops = np.where(stage.allowed == Direction.CW, cw, ring.nodes - cw)
            assert hops.max() <= 10, raw
    # without a limit every level may be direct
    assert {"radices": (8, 8), "direct": 2} in list(SynthAllGather().shape_candidates(ring))


def test_alltoall_direct_levels_keep_to_the_hop_limit() -> None:
    """An all-to-all level is direct only while its farthest digit, k // 2 strides, fits the
    hop limit: 8 x 8 within 8 hops has level 1 (4 x 1 hops) direct, not level 2 (4 x 8); the
    search offers 0 and 1 direct levels there, and every level without a limit. A direct
    level of radix 2 or 3 would be its pipeline's one step: not offered."""
    ring = Ring(64, 1, 4)
    limited = SynthAllToAll(hop_limit=8)
    assert limited.resolve(ring, {"radices": (8, 8), "direct": 1})["direct"] == 1
    with pytest.raises(AlgorithmRefusedError, match="use direct <= 1"):
        limited.resolve(ring, {"radices": (8, 8), "direct": 2})
    with pytest.raises(AlgorithmRefusedError, match="only 2"):
        SynthAllToAll().resolve(ring, {"radices": (8, 8), "direct": 3})
    offered = {raw["direct"] for raw in limited.shape_candidates(ring)
               if raw["radices"] == (8, 8)}
    assert offered == {0, 1}
    assert {"radices": (8, 8), "direct": 2} in list(SynthAllToAll().shape_candidates(ring))
    offered_small = {(raw["radices"], raw["direct"])
                     for raw in SynthAllToAll().shape_candidates(ring)}
    assert ((2, 4, 8), 1) not in offered_small
    assert {((2, 4, 8), 0), ((2, 4, 8), 2), ((2, 4, 8), 3)} <= offered_small
    for raw in limited.shape_candidates(ring):
        params = limited.resolve(ring, {**raw, "pieces": 1})
        for stage in limited.stages(ring, params):
            assert _pinned_hops(stage, 64).max() <= 8, raw


@pytest.mark.parametrize("nodes", range(2, 65))
def test_alltoall_direct_levels_deliver_on_small_rings(nodes: int) -> None:
    """Every shape of the all-to-all with 1 up to every level direct: the data-flow
    simulator delivers every block, and the stages built directly are the schedule's."""
    ring = Ring(nodes, 1, 4)
    for radices in shapes(SynthAllToAll, nodes):
        for direct in range(1, len(radices) + 1):
            check(SynthAllToAll(), ring, radices, None, direct=direct)


def test_a_direct_alltoall_level_fills_the_channels() -> None:
    """N = 64, C = 64, 8 x 8 with level 1 direct: each digit m in -3..4 but 0 has 8 offsets
    (8 pieces a partner); CW shifts 1..4 with x lightpaths each load a link with 10 x, CCW
    1..3 with 6 x. The least bundle b with ceil(8 / b) 10 <= 64 is 2: 4 lightpaths a
    partner, 40 of the 64 channels (1 piece: 8 lightpaths, 80)."""
    ring = Ring(64, 1, 64)
    algorithm = SynthAllToAll()
    params = algorithm.resolve(ring, {"radices": (8, 8), "pieces": 1, "direct": 1})
    stages = algorithm.stages(ring, params)
    assert len(stages) == 4 + 1  # level 2: 4 pipeline steps; level 1: one
    last = stages[-1]
    assert last.pieces == 2
    assert sorted(set(last.counts.tolist())) == [4]  # ceil(8 / 2) lightpaths per partner
    cw = (last.destinations - last.sources) % 64
    assert sorted(set(cw[last.allowed == Direction.CW].tolist())) == [1, 2, 3, 4]
    assert sorted(set((64 - cw[last.allowed == Direction.CCW]).tolist())) == [1, 2, 3]


@pytest.mark.parametrize("nodes", [2, 12, 64, 1000, 1024])
def test_alltoall_digits_split_the_far_top_digit(nodes: int) -> None:
    """At an even top radix k (a pipeline), every second offset whose top digit is k / 2
    takes -k / 2: the digits still sum to the offset mod N (k s = N), the lower ones are
    untouched, and the far offsets split between the directions, the first one staying CW.
    A direct top level keeps the balanced digits (it splits by sender instead)."""
    for radices in multiplicative_partitions(nodes):
        balanced = balanced_digits(nodes, radices)
        digits = alltoall_digits(nodes, radices)
        strides = np.cumprod((1, *radices[:-1]))
        assert ((digits @ strides) % nodes == np.arange(nodes)).all()
        assert (digits[:, :-1] == balanced[:, :-1]).all()
        k = radices[-1]
        top = digits[:, -1]
        if k % 2:
            assert (top == balanced[:, -1]).all()
        else:
            far = np.flatnonzero(balanced[:, -1] == k // 2)
            assert (top[far[0::2]] == k // 2).all() and (top[far[1::2]] == -(k // 2)).all()
            assert np.array_equal(np.flatnonzero(top != balanced[:, -1]), far[1::2])
        assert (alltoall_digits(nodes, radices, direct=len(radices)) == balanced).all()
        if len(radices) > 3:
            break


def test_alltoall_pipeline_top_carries_as_many_blocks_each_way() -> None:
    """N = 64, C = 64, 8 x 8, q = 2: top digits -3..4, eight offsets each (lower digits
    -3..4); the eight of digit 4 split 4 + 4. Step t moves the blocks whose top digit is t
    or more CW and -t or less CCW: 8 (4 - t) + 4 each way, where all eight far ones went CW
    before (CW 8 (5 - t), CCW 8 (4 - t)). Eight lightpaths a pair (C // 8), so each carries
    ceil(2 (8 (4 - t) + 4) / 8) pieces: 7, 5, 3, 1 (before 8, 6, 4, 2)."""
    ring = Ring(64, 1, 64)
    algorithm = SynthAllToAll()
    params = algorithm.resolve(ring, {"radices": (8, 8), "pieces": 2})
    top = [stage for stage in algorithm.stages(ring, params) if "level 2" in stage.label]
    assert [stage.pieces for stage in top] == [7, 5, 3, 1]
    for stage in top:
        assert sorted(set(stage.counts.tolist())) == [8]
        assert (stage.allowed == Direction.CW).sum() == (stage.allowed == Direction.CCW).sum()


def test_a_direct_alltoall_top_splits_its_far_partner_by_sender() -> None:
    """N = 64, C = 64, 4 x 16, both levels direct, q = 16. Top level (k = 16, stride 4):
    each digit -7..8 has 4 offsets, 64 pieces a partner, which no bundle fits into 64
    channels, so one lightpath per partner. Digits 1..7 load a CW link with 4 (1 + ... + 7)
    = 112 lightpaths, -1..-7 a CCW link with 112. The far partner, 32 hops either way, is
    reached CW from the nodes of even blocks v // 4 and CCW from the odd ones: a link is
    crossed by the far lightpaths of the 32 senders behind it, 8 blocks, 4 of each parity:
    16. Both directions: 128 (before: CW 112 + 32 = 144, CCW 112, so 3 slots of 64
    channels instead of 2)."""
    ring = Ring(64, 1, 64)
    algorithm = SynthAllToAll()
    params = algorithm.resolve(ring, {"radices": (4, 16), "pieces": 16, "direct": 2})
    top = algorithm.stages(ring, params)[0]
    assert "level 2" in top.label and top.pieces == 64
    assert sorted(set(top.counts.tolist())) == [1]
    far = ((top.destinations - top.sources) % 64) == 32
    assert np.array_equal(np.sort(top.sources[far]), np.arange(64))
    even = (top.sources[far] // 4) % 2 == 0
    assert (top.allowed[far] == np.where(even, Direction.CW, Direction.CCW)).all()
    load = _link_loads(top, 64)
    assert load[Direction.CW].max() == load[Direction.CCW].max() == 128
    assert (load == 128).all()


def test_a_direct_alltoall_top_of_odd_half_window_splits_by_block_parity() -> None:
    """N = 24, C = 16, 4 x 6 both levels direct, q = 1. Top level (k = 6, stride 4): digits
    -2..3, four offsets each; no bundle fits (one lightpath per partner: 4 + 8 = 12 one
    way before the far partner), so each partner gets one lightpath. The far partner (3
    strides, 12 hops) is reached CW from the even blocks v // 4 and CCW from the odd ones:
    the 12 senders behind a link are three blocks, at most two of one parity: 8 far
    lightpaths. Both directions: 12 + 8 = 20 (all far ones CW: 24 CW, 12 CCW)."""
    ring = Ring(24, 1, 16)
    algorithm = SynthAllToAll()
    params = algorithm.resolve(ring, {"radices": (4, 6), "pieces": 1, "direct": 2})
    top = algorithm.stages(ring, params)[0]
    assert "level 2" in top.label and sorted(set(top.counts.tolist())) == [1]
    load = _link_loads(top, 24)
    assert load[Direction.CW].max() == load[Direction.CCW].max() == 20


def test_radices_must_cover_n_within_the_padding() -> None:
    with pytest.raises(AlgorithmRefusedError, match="less than N = 12"):
        SynthAllReduce().resolve(Ring(12), {"radices": (2, 2)})
    with pytest.raises(AlgorithmRefusedError, match="at most N \\+ N // 8 = 1023"):
        SynthAllReduce().resolve(Ring(910), {"radices": (32, 32)})


@pytest.mark.parametrize("nodes", [12, 64, 360, 4096])
def test_partitions_are_every_sorted_factorisation(nodes: int) -> None:
    found = list(multiplicative_partitions(nodes))
    assert len(found) == len(set(found))
    assert all(math.prod(p) == nodes and list(p) == sorted(p) and min(p) >= 2 for p in found)
    brute = {
        tuple(sorted(p))
        for r in range(1, 13)
        for p in _products(nodes, r)
    }
    assert set(found) == brute


def _products(n: int, r: int) -> list[tuple[int, ...]]:
    if r == 1:
        return [(n,)] if n >= 2 else []
    return [(k, *rest) for k in range(2, n + 1) if n % k == 0 for rest in _products(n // k, r - 1)]


@pytest.mark.parametrize(("nodes", "radices"), [(1024, (4, 4, 4, 4, 4)), (4096, (4,) * 6)])
def test_alltoall_delivers_every_block_at_scale(nodes: int, radices: tuple[int, ...]) -> None:
    """Every block of the N^2, tracked stage by stage by its own holder (not the data-flow
    simulator, which would hold every piece at every node): each move starts where the block
    is, one stride long on the stage's one stride, no block twice in a stage, and every block
    ends at its destination. Deep shapes: their blocks make few moves (a 64 x 64 shape at
    N = 4096 would be 540M moves); the digits test covers every shape's arithmetic."""
    ring = Ring(nodes, 1, 64)
    algorithm = SynthAllToAll()
    params = algorithm.resolve(ring, {"radices": radices, "pieces": 1})
    everything = np.arange(nodes * nodes, dtype=np.int64)
    holder = (everything // nodes).astype(np.int32)  # block s N + d starts at s
    strides = set(np.cumprod((1, *radices[:-1])).tolist())
    stages = 0
    moved = np.zeros(nodes * nodes, dtype=np.int32)  # stage that last moved each block
    for flow in algorithm.flows(ring, params):
        stages += 1
        moved[flow.data] = stages
        assert np.count_nonzero(moved == stages) == flow.data.size  # none twice in a stage
        assert (holder[flow.data] == flow.senders).all()
        shift = (flow.receivers - flow.senders) % nodes
        stride = int(min(shift.min(), nodes - shift.max()))
        assert stride in strides
        assert np.isin(shift, (stride, nodes - stride)).all()
        holder[flow.data] = flow.receivers
    assert stages == algorithm.stage_count(ring, params)
    assert (holder == everything % nodes).all()


def test_the_far_member_is_split_where_it_fits() -> None:
    """4 x 4 x 4 x 16 at N = 1024, C = 64, the three lower levels direct: a window-4 level
    with its far member split between the directions carries 2 s x lightpaths on its busiest
    link (3 s x with it CW only): x = 32, 8, 2 instead of 21, 5, 1. At C = 4 level 2 (s = 4)
    cannot fit even one lightpath per partner (8 > 4): it keeps the far member CW, whose
    uniform arcs the RWA colours at their load over several steps."""
    found = levels(Ring(1024, 1, 64), (4, 4, 4, 16), 1, 3)
    assert [lv.lightpaths for lv in found] == [32, 8, 2, 1]
    assert [lv.split_far for lv in found] == [True, True, True, False]
    narrow = levels(Ring(1024, 1, 4), (4, 4, 4, 16), 1, 3)
    assert [(lv.lightpaths, lv.split_far) for lv in narrow[:3]] == [
        (2, True), (1, False), (1, False)
    ]


def tree_shapes(algorithm: Algorithm, ring: Ring) -> list[dict[str, object]]:
    """The candidates with a tree level the family's search tries on `ring` (the rooted
    trees, whose `tree` is the whole ring's, are tests/models/test_rooted_trees.py's)."""
    return [raw for raw in algorithm.shape_candidates(ring)
            if raw.get("tree") and not raw.get("roots")]


def check_raw(algorithm: Algorithm, ring: Ring, raw: dict[str, object]) -> None:
    keys = ("pieces", "direct", "sweep", "holders", "centres", "tree")
    check(algorithm, ring, raw["radices"], *(raw.get(k) for k in keys))  # type: ignore[arg-type]


@pytest.mark.parametrize("family", WINDOWED)
@pytest.mark.parametrize(("wavelengths", "hop_limit"), [(4, None), (16, None), (8, 5)])
@pytest.mark.parametrize("nodes", range(8, 65))
def test_every_tree_shape_delivers_on_small_rings(
    family: type, wavelengths: int, hop_limit: int | None, nodes: int
) -> None:
    """Every tree shape the search tries (a least tree of the lowest window, under at most
    two levels, with the swept tops and centres of the all-reduce): the data-flow simulator
    finds every item (chunk, complete sum) where it belongs, the stages are the schedule's,
    and every slot's lightpaths are its tree edges' lengths, the way round they are pinned;
    under a hop limit of 5 the trees take more slots than the hop-free ones."""
    ring = Ring(nodes, 1, wavelengths)
    algorithm = family(hop_limit=hop_limit)
    for raw in tree_shapes(algorithm, ring):
        check_raw(algorithm, ring, raw)


@pytest.mark.parametrize(
    ("family", "nodes", "radices", "tree", "pieces"),
    [
        (SynthAllReduce, 1024, (64, 16), 5, 4),  # the search's pick at w = 64, 64 MiB
        (SynthReduceScatter, 1024, (64, 16), 5, 4),
        (SynthAllGather, 1024, (64, 16), 4, 1),
        (SynthAllReduce, 512, (64, 8), 6, 8),
        (SynthAllReduce, 1000, (40, 25), 5, 2),
        (SynthReduceScatter, 4096, (64, 64), 5, 1),
        (SynthAllGather, 4096, (64, 64), 5, 1),
    ],
)
def test_paper_scale_trees_deliver(
    family: type, nodes: int, radices: tuple[int, ...], tree: int, pieces: int
) -> None:
    algorithm = family(hop_limit=80)
    check(algorithm, Ring(nodes, 1, 64), radices, pieces, tree=tree)


def test_the_searchs_swept_tree_delivers_at_4096() -> None:
    """N = 4096, 64 MiB: the search's pick, a 5-slot tree under a top of 64 swept to 3
    centres (docs/bench-achievable.md)."""
    algorithm = SynthAllReduce(hop_limit=80)
    check(algorithm, Ring(4096, 1, 64), (64, 64), 1, sweep=1, centres=3, tree=5)


@pytest.mark.parametrize(("window", "hop_limit", "slots"), [(8, 8, 2), (16, 3, 3), (64, 80, 5),
                                                            (64, 80, 3), (40, 80, 4)])
@pytest.mark.parametrize("bundle", [1, 16, 64])
def test_a_tree_level_is_a_least_tree_packed_into_the_channels(
    window: int, hop_limit: int, slots: int, bundle: int
) -> None:
    """The tree's edges reach every position of the window once, in increasing slots, from
    a position reached before, at Fact 3c's least hops F(g, S); each slot's lightpaths carry
    its bundles within C one way, at the fewest pieces per lightpath that fit (one fewer
    does not)."""
    channels = 64
    plan = tree_slots(window, hop_limit, slots, bundle, channels)
    assert plan is not None and len(plan) == slots
    reached, hops = {0}, 0
    for slot in plan:
        new = set()
        for p, d in slot.edges:
            assert p in reached and 1 <= abs(d) <= min(hop_limit, window // 2)
            new.add((p + d) % window)
            hops += abs(d)
        assert not new & reached and len(new) == len(slot.edges)
        reached |= new
        counts = {d: sum(1 for _, e in slot.edges if e == d) for _, d in slot.edges}
        assert dict(slot.shifts).keys() == counts.keys()

        def load(pieces: int, cw: bool) -> int:
            return sum(abs(d) * -(-c * bundle // pieces) for d, c in counts.items()  # noqa: B023
                       if (d > 0) == cw)

        assert max(load(slot.per_lightpath, True), load(slot.per_lightpath, False)) <= channels
        if slot.per_lightpath > 1:
            less = slot.per_lightpath - 1
            assert max(load(less, True), load(less, False)) > channels
        for d, x in slot.shifts:
            assert x == -(-counts[d] * bundle // slot.per_lightpath)
    assert reached == set(range(window))
    assert hops == tree_hops(window, min(hop_limit, window)).upto(slots)[slots]


@pytest.mark.parametrize(
    ("given", "hop_limit", "message"),
    [
        ({"radices": (16, 4), "tree": 1}, 20, "tree = 1 is a direct level"),
        ({"radices": (16, 4), "tree": 3, "direct": 1}, 20, "not both"),
        ({"radices": (64,), "tree": 4, "sweep": 1}, 20, "no tree under it"),
        ({"radices": (64,), "tree": 3}, 10, "cannot reach the window's position 32 away"),
        ({"radices": (64,), "tree": 3}, 20, "more than the 8 channels"),
    ],
)
def test_trees_that_cannot_be_built_are_refused(
    given: dict[str, object], hop_limit: int, message: str
) -> None:
    ring = Ring(64, 1, 8)
    with pytest.raises(AlgorithmRefusedError, match=message):
        SynthAllReduce(hop_limit=hop_limit).resolve(ring, given)  # type: ignore[arg-type]


def test_idle_residues_do_not_combine_with_a_tree() -> None:
    ring = Ring(1024, 1, 64)
    with pytest.raises(AlgorithmRefusedError, match="holders"):
        SynthAllReduce(hop_limit=80).resolve(
            ring, {"radices": (16, 5, 13), "tree": 4, "holders": 64})


@pytest.mark.parametrize("family", FAMILIES[:3])
@pytest.mark.parametrize("radices", [(16,), (8, 2), (2, 8), (4, 4)])
def test_every_tree_depth_is_built_or_refused(family: type, radices: tuple[int, ...]) -> None:
    """Review (session 34): an explicit `tree` deeper than the window's least tree needs
    (N = 16: (16,) with 9 slots, (4, 4) with 3, (2, 8) with 2) was accepted, then its empty
    slot crashed the stage build (ValueError, an internal error to the user). Every depth is
    now built, its stages delivering, or refused with what to use; the refusal's bound is
    the deepest depth that builds."""
    ring = Ring(16, 1, 4)
    algorithm = family()
    built = []
    for tree in range(2, 12):
        try:
            params = algorithm.resolve(ring, {"radices": radices, "tree": tree})
        except AlgorithmRefusedError as refused:
            if radices[0] == 2:
                assert "a direct level (direct = 1, tree = 0)" in refused.message
            if "use tree <=" in refused.message:
                deepest = int(refused.message.rsplit("use tree <= ", 1)[1])
                assert deepest == max(built)
            continue
        stages = algorithm.stages(ring, params)
        assert len(stages) == algorithm.stage_count(ring, params)
        assert all(stage.demand_count for stage in stages)
        simulate(algorithm.schedule(ring, params))  # raises if it does not deliver
        built.append(tree)
    assert built or radices[0] == 2  # a window of 2 is one slot: direct, never a tree


@st.composite
def _explicit_shape(draw: st.DrawFn) -> tuple[Algorithm, Ring, dict[str, object]]:
    """A synth shape as a user may give it: any radices of a size the family offers, any
    mix of its other parameters, on a small ring with or without a hop limit and node
    limits (most combinations are refused; what is accepted must deliver)."""
    n = draw(st.integers(2, 24))
    fibers, wavelengths = draw(st.sampled_from([(1, 1), (1, 2), (1, 3), (2, 2), (1, 8)]))
    hop_limit = draw(st.sampled_from([None, 1, 2, 3, 5]))
    limit = draw(st.sampled_from([None, None, 1, 2]))
    collective = draw(st.sampled_from(list(Collective)))
    algorithm = synthesized(collective, hop_limit=hop_limit, max_tx=limit, max_rx=limit)
    positions = draw(st.sampled_from(
        padded_sizes(n) if collective != Collective.REDUCESCATTER else [n]
    ))  # fmt: skip
    radices = draw(st.sampled_from(list(multiplicative_partitions(positions)) or [(positions,)]))
    given: dict[str, object] = {"radices": radices}
    below = math.prod(radices[:-1])
    for key, values in (
        ("pieces", [1, 2, 3, 8]), ("direct", list(range(len(radices) + 1))),
        ("tree", [2, 3, 4, 5]), ("sweep", [0, 1]), ("holders", list(range(1, below + 2))),
        ("centres", list(range(1, radices[-1] + 1))), ("roots", [1, 2, 3, 4, n]),
        ("mirror", [0, 1]),
    ):  # fmt: skip
        if draw(st.booleans()):
            given[key] = draw(st.sampled_from(values))
    return algorithm, Ring(n, fibers, wavelengths), given


@settings(max_examples=300, deadline=None)
@given(_explicit_shape())
def test_every_explicit_shape_is_refused_or_delivers(
    shape: tuple[Algorithm, Ring, dict[str, object]],
) -> None:
    """Review (session 34): the search's candidates are simulated on every small ring (the
    tests above), but a shape given explicitly was not, and the data-flow simulator runs in
    tests only; a fuzz of explicit shapes found `tree` beyond the window's depth crashing
    the build. Whatever `resolve` accepts builds its stages, delivers the collective, and
    keeps every lightpath within the hop limit."""
    algorithm, ring, given = shape
    try:
        params = algorithm.resolve(ring, given)
    except (AlgorithmRefusedError, InvalidInputError, LimitExceededError):
        return
    stages = algorithm.stages(ring, params)
    assert len(stages) == algorithm.stage_count(ring, params)
    simulate(algorithm.schedule(ring, params))
    if algorithm.hop_limit is not None:
        for stage in stages:
            clockwise = (stage.destinations - stage.sources) % ring.nodes
            hops = np.where(stage.allowed == Direction.CW, clockwise,
                            np.where(stage.allowed == Direction.CCW, ring.nodes - clockwise,
                                     np.minimum(clockwise, ring.nodes - clockwise)))
            assert hops.max(initial=0) <= algorithm.hop_limit


@pytest.mark.parametrize(
    ("given", "says"),
    [
        # "use sweep = 0 (or centres >= 2)" to a shape that gave sweep = 0 (fuzz, session 35)
        ({"radices": (4, 4), "centres": 1, "sweep": 0},
         "centres = 1 without a swept top level: every chunk's sum forms at one member "
         "already; leave centres out"),
        ({"radices": (4, 4), "centres": 1, "sweep": 1}, "use sweep = 0 (or centres >= 2)"),
        # roots = 0 beside a default documented as "0 (left out)"
        ({"radices": (16,), "roots": 0}, "parameter roots must be >= 1, or left out, got 0"),
    ],
)  # fmt: skip
def test_a_refused_synth_parameter_says_what_to_change(given: dict, says: str) -> None:
    with pytest.raises((AlgorithmRefusedError, InvalidInputError)) as refused:
        SynthAllReduce().resolve(Ring(16, 1, 4), given)
    assert says in refused.value.message
