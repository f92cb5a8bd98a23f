"""Estimated peak memory of a plan's solve, so that admission refuses a plan that would not
fit (413 up front, with the largest ring that fits) instead of starting it.

The estimate is empirical, from peak resident memory measured by `bench/memory.py`
(memory_calibration.json beside this module): per algorithm at its paper shape and per
collective for the default plan (every algorithm, best shapes), at w = 64, N = 512 .. 4096.
For a plan it is

    base + sum over its algorithms of increment(algorithm, N)      (times MARGIN)

where an increment is the measured peak less the interpreter's `base`, interpolated between
calibration points on log-log axes, extrapolated past the largest N as the power law through
the last two points (exponent clamped to EXPONENTS), and held below the smallest. An
algorithm searched for its best shape gets its share of the default plan's increment (its
paper increment over the sum of all), and at least its paper increment. The sum is
conservative: a plan solves its algorithms one after the other and keeps only their
solutions. The estimate does not model w (the demand count, which dominates memory, does not
depend on it); the solver pool's resident-memory guard (app.jobs.processes) stops whatever
the estimate misses.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

CALIBRATION = Path(__file__).with_name("memory_calibration.json")
MARGIN = 1.25
EXPONENTS = (1.0, 2.5)
LARGEST_NODES = 1 << 20

Choice = tuple[str, bool]  # (algorithm, searched for its best shape)


@lru_cache(maxsize=1)
def _calibration() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(CALIBRATION.read_text())
    return data


def _curve(points: dict[str, float], base: float, nodes: int) -> float:
    """The increment over `base` at `nodes` from measured (N, MB) points."""
    xs = sorted((int(n), max(mb - base, 1.0)) for n, mb in points.items())
    if nodes <= xs[0][0]:
        return xs[0][1]
    for (n0, m0), (n1, m1) in itertools.pairwise(xs):
        if nodes <= n1:
            t = math.log(nodes / n0) / math.log(n1 / n0)
            return math.exp(math.log(m0) + t * (math.log(m1) - math.log(m0)))
    (n0, m0), (n1, m1) = xs[-2], xs[-1]
    exponent = math.log(m1 / m0) / math.log(n1 / n0)
    exponent = min(max(exponent, EXPONENTS[0]), EXPONENTS[1])
    return float(m1 * (nodes / n1) ** exponent)


def _increment(collective: str, name: str, nodes: int) -> float:
    calibration = _calibration()
    curves: dict[str, dict[str, float]] = calibration["paper"][collective]
    base = float(calibration["base_mb"])
    if name in curves:
        return _curve(curves[name], base, nodes)
    # Not calibrated (`optimal`, whose model size its own limit caps; a new algorithm): the
    # collective's largest.
    return max(_curve(points, base, nodes) for points in curves.values())


def all_choices(collective: str, best: bool) -> list[Choice]:
    """Every calibrated algorithm of `collective`, searched or at its paper shape."""
    return [(name, best) for name in _calibration()["paper"][collective]]


def estimate_mb(collective: str, nodes: int, choices: Sequence[Choice]) -> float:
    """Estimated peak resident memory (MB) of solving these algorithms at `nodes`."""
    calibration = _calibration()
    base = float(calibration["base_mb"])
    names = calibration["paper"][collective]
    total = 0.0
    every = None
    for name, best in choices:
        increment = _increment(collective, name, nodes)
        if best:
            if every is None:
                every = sum(_increment(collective, other, nodes) for other in names)
            searched_curve = calibration["best"].get(collective)
            if searched_curve is not None:
                searched = _curve(searched_curve, base, nodes)
                increment = max(increment, searched * increment / every)
        total += increment
    return MARGIN * (base + total)


def largest_nodes_within(
    collective: str, choices: Sequence[Choice], budget_mb: float, below: int
) -> int | None:
    """The largest ring size under `below` whose estimate fits `budget_mb` (the estimate
    grows with N), or None if not even N = 2 fits."""
    if estimate_mb(collective, 2, choices) > budget_mb:
        return None
    low, high = 2, min(below, LARGEST_NODES)  # low fits; every N >= high is not asked
    while high - low > 1:
        middle = (low + high) // 2
        if estimate_mb(collective, middle, choices) <= budget_mb:
            low = middle
        else:
            high = middle
    return low
