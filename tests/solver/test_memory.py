"""The memory estimate of admission (solver.memory) against its calibration and against a
solve measured here, at a ring size it was not calibrated at."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.algorithms.base import Collective
from solver.memory import CALIBRATION, MARGIN, all_choices, estimate_mb, largest_nodes_within

CALIBRATED = json.loads(CALIBRATION.read_text())
COLLECTIVES = tuple(c.value for c in Collective)


def test_every_collective_is_calibrated() -> None:
    """Admission estimates from these curves: a collective without them would fail at plan
    time instead of giving a number. Its synthesized schedule has its own curve (an
    algorithm without one, like `optimal` or TRA2 refused almost everywhere, gets the
    collective's largest)."""
    for collective in COLLECTIVES:
        assert "synth" in CALIBRATED["paper"][collective], collective
        assert collective in CALIBRATED["best"]
        assert estimate_mb(collective, 1024, all_choices(collective, True)) > 0


@pytest.mark.parametrize("collective", COLLECTIVES)
def test_at_a_calibration_point_the_estimate_is_the_measurement_with_its_margin(
    collective: str,
) -> None:
    for name, points in CALIBRATED["paper"][collective].items():
        for nodes, mb in points.items():
            expected = MARGIN * max(mb, CALIBRATED["base_mb"] + 1)
            assert estimate_mb(collective, int(nodes), [(name, False)]) == pytest.approx(expected)


@given(
    st.sampled_from(COLLECTIVES),
    st.integers(2, 20_000),
    st.integers(1, 5_000),
    st.booleans(),
)
def test_the_estimate_grows_with_the_ring_and_the_algorithms(
    collective: str, nodes: int, more: int, best: bool
) -> None:
    every = all_choices(collective, best)
    one = every[:1]
    assert estimate_mb(collective, nodes, one) <= estimate_mb(collective, nodes + more, one)
    assert estimate_mb(collective, nodes, one) <= estimate_mb(collective, nodes, every)
    assert estimate_mb(collective, nodes, all_choices(collective, False)) <= estimate_mb(
        collective, nodes, all_choices(collective, True)
    )


@given(st.sampled_from(COLLECTIVES), st.floats(100, 50_000), st.booleans())
def test_the_largest_ring_that_fits_is_the_last_one_under_the_budget(
    collective: str, budget: float, best: bool
) -> None:
    choices = all_choices(collective, best)
    fits = largest_nodes_within(collective, choices, budget, 1 << 16)
    if fits is None:
        assert estimate_mb(collective, 2, choices) > budget
        return
    assert estimate_mb(collective, fits, choices) <= budget
    if fits + 1 < 1 << 16:
        assert estimate_mb(collective, fits + 1, choices) > budget


SOLVE = (
    "import app.planning as p; p.check_memory = lambda *args: None; "
    "from app.schemas.requests import PlanRequest; "
    "r = PlanRequest.model_validate({'ring': {'nodes': 1536, 'wavelengths_per_fiber': 64}, "
    "'collective': 'allgather', 'algorithms': ['osm'], 'message_sizes_bytes': [4194304], "
    "'shape': 'paper'}); p.run_plan(p.prepare(r)); "
    "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0])"
)


def test_the_estimate_covers_a_solve_measured_between_calibration_points() -> None:
    """OSM all-gather (one stage of N(N - 1) lightpaths, the steepest curve) at N = 1536:
    the peak of a fresh process stays under the estimate. The process reports its own
    high-water mark (VmHWM): the rusage of a child counts the parent's pages it was forked
    with, and this test's parent may hold gigabytes by then."""
    done = subprocess.run([sys.executable, "-c", SOLVE], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    measured_mb = int(done.stdout.split()[-1]) / 1024
    assert 100 < measured_mb <= estimate_mb("allgather", 1536, [("osm", False)])
