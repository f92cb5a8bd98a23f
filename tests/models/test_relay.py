"""Relayed TRA and TRA2 (models/relay.py): every block still reaches its process, every
lightpath keeps to the relay length, the stages are the schedule's, K and D do not change."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.algorithms.alltoall import TunableRadixAllToAll, TwoLayerTunableRadixAllToAll
from models.dataflow import simulate
from models.errors import AlgorithmRefusedError
from models.relay import relay_lengths
from models.ring import Direction, Ring
from models.stage import Stage


@given(nodes=st.integers(2, 5000), offset=st.integers(0, 10_000), hops=st.integers(1, 200))
def test_relay_lengths_follow_the_shorter_arc(nodes: int, offset: int, hops: int) -> None:
    lengths = relay_lengths(nodes, offset, hops)
    assert sum(lengths) % nodes == offset % nodes
    distance = min(offset % nodes, nodes - offset % nodes)
    if distance <= hops:
        assert lengths == [offset % nodes]
    else:
        assert len(lengths) == -(-distance // hops)
        assert all(0 < abs(h) <= hops for h in lengths)
        assert sum(abs(h) for h in lengths) == distance
        assert max(abs(h) for h in lengths) - min(abs(h) for h in lengths) <= 1


def merged(stage: Stage) -> list[tuple[int, int, int]]:
    out: dict[tuple[int, int], int] = {}
    for s, d, k in zip(stage.sources, stage.destinations, stage.counts, strict=True):
        out[(int(s), int(d))] = out.get((int(s), int(d)), 0) + int(k)
    return sorted((s, d, k) for (s, d), k in out.items())


def check(algorithm: TunableRadixAllToAll | TwoLayerTunableRadixAllToAll, ring: Ring,
          given: dict[str, int]) -> None:
    params = algorithm.resolve(ring, given)  # type: ignore[arg-type]
    relay = int(params["relay_hops"])  # type: ignore[arg-type]
    schedule = algorithm.schedule(ring, params)
    simulate(schedule)
    stages = algorithm.stages(ring, params)
    assert len(stages) == schedule.stage_count
    for mine, theirs in zip(stages, schedule.stages(), strict=True):
        assert merged(mine) == merged(theirs)
        n = ring.nodes
        cw = (mine.destinations - mine.sources) % n
        pinned = mine.allowed != 2
        hops = np.where(mine.allowed == Direction.CW, cw, (n - cw) % n)
        assert (hops[pinned] <= relay).all()
        # an unpinned stage is a round that fits: its shorter way is within the relay
        assert (np.minimum(cw, n - cw)[~pinned] <= relay).all()
    paper = algorithm.message_counts(ring, {**params, "relay_hops": 0})
    assert algorithm.message_counts(ring, params) == paper  # K and D are the MPI rounds'


@pytest.mark.parametrize("nodes", range(2, 65))
@pytest.mark.parametrize("relay", [1, 3])
def test_relayed_tra_delivers(nodes: int, relay: int) -> None:
    check(TunableRadixAllToAll(), Ring(nodes), {"relay_hops": relay})


def test_relayed_tra_delivers_at_1024() -> None:
    check(TunableRadixAllToAll(), Ring(1024), {"relay_hops": 80})


def test_relayed_tra_delivers_at_4096() -> None:
    ring = Ring(4096)  # delivery only: the stages' equality is the same code as at 1024
    algorithm = TunableRadixAllToAll()
    simulate(algorithm.schedule(ring, algorithm.resolve(ring, {"relay_hops": 80})))


@pytest.mark.parametrize("nodes", range(2, 65))
@pytest.mark.parametrize("relay", [1, 3])
def test_relayed_tra2_delivers(nodes: int, relay: int) -> None:
    given = {"processes_per_node": 2, "radix_intra": 2, "radix_inter": 2, "relay_hops": relay}
    check(TwoLayerTunableRadixAllToAll(), Ring(nodes), given)


def test_relayed_tra2_delivers_at_scale() -> None:
    """N = 1024 within the default optics' 80 hops. At N = 4096 TRA2 refuses every shape
    (N Q^2 D unit lightpaths past its limit even at Q = 1): there is nothing to deliver."""
    given = {"processes_per_node": 1, "radix_intra": 2, "radix_inter": 32, "relay_hops": 80}
    check(TwoLayerTunableRadixAllToAll(), Ring(1024), given)
    with pytest.raises(AlgorithmRefusedError, match="limit"):
        TwoLayerTunableRadixAllToAll().resolve(Ring(4096), {**given, "radix_inter": 64})


def test_a_hop_limit_offers_relays_and_an_enforced_one_drops_the_paper_rounds() -> None:
    ring = Ring(64)
    offered = {c["relay_hops"] for c in TunableRadixAllToAll(8).shape_candidates(ring)}
    assert offered == {0, 8}
    enforced = TunableRadixAllToAll(8, enforced=True)
    assert {c["relay_hops"] for c in enforced.shape_candidates(ring)} == {8}
    assert enforced.paper_shape(ring)["relay_hops"] == 8
    assert TunableRadixAllToAll().paper_shape(ring)["relay_hops"] == 0
