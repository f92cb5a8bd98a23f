"""The optical/electrical comparison of a plan: the crossover size, checked by hand."""

from __future__ import annotations

import math

import pytest

from models.algorithms.catalog import get_algorithm
from models.electrical import FatTree
from models.ring import Ring
from solver.electrical import compare
from solver.plan import plan_algorithm

FAST_LINKS = FatTree(link_gbps=10.0, link_latency_us=0.0)  # no latency, a quarter the rate


def optical_ring_s(m: float) -> float:
    """Ring all-reduce on N = 16: 30 slots of m/16 bytes, each m/16 x 8 / 40e9 + 25 us +
    ceil(m/16 / 32) cycles at 4 GHz (OpTree eq. (3) with the default hardware)."""
    x = m / 16
    return 30 * (x * 8 / 40e9 + 25e-6 + math.ceil(x / 32) / 4e9)


def electrical_ring_s(m: float) -> float:
    """Eq. (8) with alpha = 0, beta_E = 10 Gb/s: 30 x m/16 x 8 / 10e9."""
    return 30 * m / 16 * 8 / 10e9


def test_crossover_where_optics_overtakes() -> None:
    """Without latency the electrical ring wins on small messages; the optical one's 4x rate
    wins from x = m/16 with 6e-10 x = 25e-6 + x / 32 / 4e9, x = 42216 B: m = 675,462 B."""
    ring = Ring(16, 1, 4)
    algorithm = get_algorithm("allreduce", "ring")
    plan = plan_algorithm(algorithm, ring, algorithm.paper_shape(ring), [1e6])
    result = compare([plan], 16, [1e6], FAST_LINKS, simulate=False)
    assert result.crossover_bytes == pytest.approx(675_462, rel=5e-3)
    c = result.crossover_bytes
    assert c is not None
    assert optical_ring_s(1.01 * c) < electrical_ring_s(1.01 * c)
    assert optical_ring_s(0.99 * c) > electrical_ring_s(0.99 * c)
    (e_ring, e_rd) = result.algorithms
    assert e_ring.timings[0].hockney_s == pytest.approx(electrical_ring_s(1e6))
    assert e_rd.timings[0].simulated is None and result.simulator is None


def test_rd_needs_a_power_of_two() -> None:
    ring = Ring(12, 1, 4)
    algorithm = get_algorithm("allreduce", "ring")
    plan = plan_algorithm(algorithm, ring, algorithm.paper_shape(ring), [1e6])
    result = compare([plan], 12, [1e6], FatTree(), simulate=False)
    assert result.algorithms[1].refusal is not None and "n=8" in result.algorithms[1].refusal


def test_the_crossover_agrees_with_the_recommendation_at_every_size() -> None:
    """Fuzz of plan documents (session 35): `synth` on N = 36, w = 16 at 1 kB and 1 TB
    against a 400 Gb/s fat-tree without latency: the crossover, taken over each row's shape
    (the 1 kB winner, 60.6 s at 1 TB), said the fat-tree is faster at every size, beside a
    recommendation of `synth` at 1 TB (its 1 TB shape, 12.6 s, against E-Ring's 38.9 s). It
    is taken over the feasible shapes the recommendation picks from now: optics from the
    crossover on, the fat-tree below it, at every size of the plan."""
    from app.planning import prepare
    from app.schemas.requests import PlanRequest
    from app.service import answer

    body = {"ring": {"nodes": 36, "wavelengths_per_fiber": 16}, "collective": "allreduce",
            "algorithms": ["synth"], "message_sizes_bytes": [1000, 10**12], "electrical": True,
            "electrical_network": {"simulate": False, "link_gbps": 400,
                                   "link_latency_us": 0}}  # fmt: skip
    result = answer(prepare(PlanRequest.model_validate(body)))
    electrical = result.electrical
    assert electrical is not None and electrical.crossover_bytes is not None
    for advice in result.recommendation:
        optical = advice.message_bytes >= electrical.crossover_bytes
        assert advice.network == ("optical" if optical else "electrical"), advice
