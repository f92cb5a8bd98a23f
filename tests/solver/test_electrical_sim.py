"""SimGrid simulations of Ring and RD all-reduce on the fat-tree: wired right (Hockney on
contention-free schedules without correction factors) and delivering the reduction."""

from __future__ import annotations

import pytest

from models.electrical import FatTree, e_rd_hockney_s, e_ring_hockney_s
from solver.electrical_sim import simgrid_available, simulate_allreduce

NET = FatTree()
M = 16e6


def test_simgrid_is_installed() -> None:
    """`make test` installs Debian's python3-simgrid into the venv: no simulator test skips."""
    assert simgrid_available(), "run `make simgrid` (Debian's python3-simgrid)"


@pytest.mark.parametrize(("n", "links"), [(16, 2), (36, 4)])
def test_ring_without_contention_is_hockney_with_the_route_latency(n: int, links: int) -> None:
    """Each ring step sends M/n from every host to its right neighbour: one flow per link, so
    under CM02 without cross traffic a step takes the route's latency plus M/n / beta."""
    expected = e_ring_hockney_s(n, M, links * NET.alpha_s, NET.link_bps)
    for full in (True, False):
        simulated = simulate_allreduce("ring", n, M, NET, model="cm02", full=full)
        assert simulated.time_s == pytest.approx(expected, rel=1e-5)


def test_rd_within_one_leaf_is_hockney() -> None:
    """16 hosts on one leaf: every RD step is a perfect matching through the leaf switch."""
    simulated = simulate_allreduce("rd", 16, M, NET, model="cm02", full=True)
    assert simulated.time_s == pytest.approx(
        e_rd_hockney_s(16, M, 2 * NET.alpha_s, NET.link_bps), rel=1e-5
    )


@pytest.mark.parametrize(("algorithm", "n"), [("ring", 5), ("ring", 40), ("rd", 2), ("rd", 64)])
def test_the_simulation_delivers_the_reduction(algorithm: str, n: int) -> None:
    simulated = simulate_allreduce(algorithm, n, 4096.0, NET, full=True)  # type: ignore[arg-type]
    assert simulated.mode == "full" and simulated.delivered is True


def test_default_model_is_slower_than_hockney() -> None:
    """SimGrid's default network model (what the papers ran) multiplies latency by 13.01 and
    bandwidth by 0.97: never faster than the factor-free route Hockney."""
    fast = e_ring_hockney_s(36, M, 4 * NET.alpha_s, NET.link_bps)
    assert simulate_allreduce("ring", 36, M, NET).time_s > fast
