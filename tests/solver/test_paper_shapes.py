"""True steps of the papers' own shapes beside their closed forms, where the papers'
assumptions hold (SPEC sections 5 and 7)."""

from __future__ import annotations

import pytest

from models.algorithms.catalog import get_algorithm
from models.ring import Ring
from solver.plan import plan_algorithm


@pytest.mark.parametrize("w", [1, 2, 4, 8])
def test_wrht_allreduce_paper_shape_meets_its_formula(w: int) -> None:
    """With m = 2w + 1 every group gathers in one step, and the stopping rule leaves an
    all-to-all that fits w: each stage is one step, so the true count is the formula's
    2 ceil(log_m N) - 1 (with the all-to-all) or 2 ceil(log_m N) (without)."""
    algorithm = get_algorithm("allreduce", "wrht")
    for n in range(2, 120):
        ring = Ring(n, 1, w)
        params = algorithm.paper_shape(ring)
        plan = plan_algorithm(algorithm, ring, params)
        assert plan.steps_optimal
        assert plan.true_steps == plan.claimed_steps, (n, w, params)


def test_wrht_at_64_nodes_and_64_wavelengths_groups_first() -> None:
    """The finding of the old fixed-depth form (one 64-node all-to-all, 8 steps) is gone:
    the paper's rule gathers to one representative and broadcasts, 2 steps."""
    algorithm = get_algorithm("allreduce", "wrht")
    ring = Ring(64, 1, 64)
    plan = plan_algorithm(algorithm, ring, algorithm.paper_shape(ring))
    assert plan.true_steps == 2 == plan.claimed_steps
    fixed = plan_algorithm(algorithm, ring, algorithm.resolve(ring, {"levels": 0}))
    assert fixed.true_steps == 8  # ceil(64^2 / 8) = 512 channels over w = 64


@pytest.mark.parametrize("n,g,w", [(1000, 5, 64), (64, 8, 8), (60, 6, 8), (48, 12, 16)])
def test_hring_true_steps_are_one_per_step_and_the_formula_adds_ceil_g_over_w(
    n: int, g: int, w: int
) -> None:
    """Each H-Ring step is one lightpath per node: 2(g - 1) intra + 2(N/g - 1) inter steps,
    each one slot while the inter-group ring fits w (its load is g (N - g) / N <= g <= w
    here; with fewer wavelengths an inter step takes more slots). The WRHT paper's
    2(g^2 + N)/g + ceil(g/w) - 4 is that
    plus ceil(g/w) (407 vs 406 at N = 1000, g = 5); Table I prints 411."""
    algorithm = get_algorithm("allreduce", "hring")
    ring = Ring(n, 1, w)
    plan = plan_algorithm(algorithm, ring, algorithm.resolve(ring, {"group": g}))
    steps = 2 * (g - 1) + 2 * (n // g - 1)
    assert plan.true_steps == steps
    assert plan.claimed_steps == steps + -(-g // w)
