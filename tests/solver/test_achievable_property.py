"""No algorithm of the papers' catalog, solved on true RWA, is ever faster than the achievable
bound (SPEC 12), whatever the ring, message size and hop limit."""

from hypothesis import given, settings
from hypothesis import strategies as st

from models.achievable import achievable_bound
from models.algorithms.alltoall import TunableRadixAllToAll, TwoLayerTunableRadixAllToAll
from models.algorithms.catalog import algorithms
from models.errors import AlgorithmRefusedError, LimitExceededError
from models.ring import Hardware, Ring
from solver.outcome import SolveOptions
from solver.plan import plan_algorithm

HW = Hardware()


@settings(max_examples=60, deadline=None)
@given(
    collective=st.sampled_from(["allgather", "allreduce", "alltoall"]),
    nodes=st.integers(2, 33),
    fibers=st.integers(1, 2),
    wavelengths=st.integers(1, 12),
    size=st.floats(1.0, 1e9),
    data=st.data(),
)
def test_no_algorithm_beats_the_bound(
    collective: str, nodes: int, fibers: int, wavelengths: int, size: float, data: st.DataObject
) -> None:
    ring = Ring(nodes, fibers, wavelengths)
    hops = data.draw(st.one_of(st.none(), st.integers(1, nodes)), label="hop limit")
    bound = achievable_bound(collective, ring, size, HW, hops)
    checked = 0
    candidates = list(algorithms(collective))
    if collective == "alltoall" and hops is not None:  # TRA and TRA2 relayed within the limit
        candidates += [TunableRadixAllToAll(hops, enforced=True),
                       TwoLayerTunableRadixAllToAll(hops, enforced=True)]  # fmt: skip
    for algorithm in candidates:
        try:
            params = algorithm.paper_shape(ring)
            plan = plan_algorithm(algorithm, ring, params, [size], HW, SolveOptions(max_hops=hops))
        except (AlgorithmRefusedError, LimitExceededError):
            continue  # refuses this ring, or a lightpath it needs exceeds the hop limit
        checked += 1
        assert plan.timings[0].time_s >= bound.bound_s * (1 - 1e-12), algorithm.name
    assert hops is not None or checked > 0  # without a limit something always runs
