"""The synthesized family (models/synthesis.py): every shape delivers the collective (data-flow
simulator), its direct stages are the schedule's, every lightpath keeps to the hop limit."""

import math

import numpy as np
import pytest

from models.algorithms.base import Algorithm
from models.dataflow import simulate
from models.errors import AlgorithmRefusedError
from models.ring import Direction, Ring
from models.stage import Stage
from models.synthesis import (
    SynthAllGather,
    SynthAllReduce,
    SynthAllToAll,
    balanced_digits,
    multiplicative_partitions,
)

FAMILIES = (SynthAllGather, SynthAllReduce, SynthAllToAll)


def demands(stage: Stage) -> list[tuple[int, int, int]]:
    """(source, destination, count) with the directions merged, as the schedule states them."""
    out: dict[tuple[int, int], int] = {}
    for s, d, k in zip(stage.sources, stage.destinations, stage.counts, strict=True):
        out[(int(s), int(d))] = out.get((int(s), int(d)), 0) + int(k)
    return sorted((s, d, k) for (s, d), k in out.items())


def check(algorithm: Algorithm, ring: Ring, radices: tuple[int, ...], pieces: int | None) -> None:
    given: dict[str, object] = {"radices": radices}
    if pieces is not None:
        given["pieces"] = pieces
    params = algorithm.resolve(ring, given)  # type: ignore[arg-type]
    schedule = algorithm.schedule(ring, params)
    simulate(schedule)
    direct = algorithm.stages(ring, params)
    assert len(direct) == algorithm.stage_count(ring, params) == schedule.stage_count
    for mine, theirs in zip(direct, schedule.stages(), strict=True):
        assert demands(mine) == demands(theirs)
        assert mine.pieces == theirs.pieces
        # pinned directions, one stride long: CW to v + s, CCW to v - s
        cw = (mine.destinations - mine.sources) % ring.nodes
        hops = np.where(mine.allowed == Direction.CW, cw, (ring.nodes - cw) % ring.nodes)
        assert (mine.allowed != 2).all()
        assert len(set(hops.tolist())) == 1


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("nodes", range(2, 65))
def test_every_shape_delivers_on_small_rings(family: type, nodes: int) -> None:
    ring = Ring(nodes, 1, 4)
    for radices in multiplicative_partitions(nodes):
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
        (SynthAllToAll, 512, (16, 32)),
        (SynthAllToAll, 1000, (10, 100)),
        (SynthAllToAll, 1024, (4, 8, 32)),
    ],
)
def test_paper_scale_shapes_deliver(family: type, nodes: int, radices: tuple[int, ...]) -> None:
    check(family(), Ring(nodes, 1, 64), radices, 1)


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


@pytest.mark.parametrize("family", FAMILIES[:2])
def test_pieces_fill_the_channels(family: type) -> None:
    # N = 16, C = 8, radices (4, 4): strides 1 and 4; x = 8 and 2 lightpaths per pair.
    ring = Ring(16, 1, 8)
    algorithm = family()
    params = algorithm.resolve(ring, {"radices": (4, 4)})
    assert params["pieces"] == 2  # C // top stride = 8 // 4
    for stage in algorithm.stages(ring, params):
        load = np.zeros((2, ring.nodes), dtype=np.int64)
        for s, d, k, a in zip(stage.sources, stage.destinations, stage.counts, stage.allowed,
                              strict=True):
            hops = (d - s) % ring.nodes if a == Direction.CW else (s - d) % ring.nodes
            for j in range(hops):
                link = (s + j) % ring.nodes if a == Direction.CW else (d + j) % ring.nodes
                load[a, link] += k
        assert load.max() <= ring.channels_per_direction


def test_hop_limit_refusal_names_what_fits() -> None:
    ring = Ring(64, 1, 8)
    with pytest.raises(AlgorithmRefusedError, match="larger top radix"):
        SynthAllGather(hop_limit=6).resolve(ring, {"radices": (8, 8)})
    shapes = [c["radices"] for c in SynthAllGather(hop_limit=6).shape_candidates(ring)]
    assert shapes and all(64 // s[-1] <= 6 for s in shapes)  # type: ignore[index]
    assert (8, 8) not in shapes and (4, 16) in shapes


def test_radices_must_multiply_to_n() -> None:
    with pytest.raises(AlgorithmRefusedError, match="product"):
        SynthAllReduce().resolve(Ring(12), {"radices": (2, 2)})


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
