"""Algorithm.stage_count (what planning checks against MAX_STAGES without aggregating demands)
equals the number of stages the algorithm builds."""

from __future__ import annotations

import pytest

from models.algorithms.base import Algorithm
from models.algorithms.catalog import algorithms
from models.errors import AlgorithmRefusedError
from models.ring import Ring


@pytest.mark.parametrize("nodes", [2, 5, 8, 12, 64, 100])
@pytest.mark.parametrize("algorithm", algorithms(), ids=lambda a: f"{a.collective}-{a.name}")
def test_stage_count_matches_the_stages(algorithm: Algorithm, nodes: int) -> None:
    ring = Ring(nodes, 1, 4)
    try:
        params = algorithm.resolve(ring)
    except AlgorithmRefusedError:
        pytest.skip("refused at this N")
    assert algorithm.stage_count(ring, params) == len(algorithm.stages(ring, params))
    assert algorithm.stage_count(ring, params) == algorithm.schedule(ring, params).stage_count
