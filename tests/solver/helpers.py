"""Independent reference computations for solver tests (brute force, no solver code)."""

from __future__ import annotations

import itertools

import numpy as np

from models.ring import Direction
from models.stage import Stage


def links(n: int, s: int, d: int, direction: int) -> set[int]:
    if direction == 0:
        return {(s + j) % n for j in range((d - s) % n)}
    return {(d + j) % n for j in range((s - d) % n)}


def brute_min_max_load(stage: Stage) -> int:
    """min over integer splits of the max directed-link load (L*), by enumeration."""
    n = stage.nodes
    best = None
    ranges = []
    for k, allowed in zip(stage.counts.tolist(), stage.allowed.tolist(), strict=True):
        lo = k if allowed == Direction.CW else 0
        hi = 0 if allowed == Direction.CCW else k
        ranges.append(range(lo, hi + 1))
    for split in itertools.product(*ranges):
        load = [[0] * n, [0] * n]
        for i, x in enumerate(split):
            s, d, k = int(stage.sources[i]), int(stage.destinations[i]), int(stage.counts[i])
            for e in links(n, s, d, 0):
                load[0][e] += x
            for e in links(n, s, d, 1):
                load[1][e] += k - x
        value = max(max(load[0]), max(load[1]))
        best = value if best is None else min(best, value)
    return int(best or 0)


def brute_chi(stage: Stage, limit: int = 8) -> int:
    """Least number of colours for the stage, by enumerating (direction, colour) per unit."""
    n = stage.nodes
    units = []
    for i in range(stage.demand_count):
        units += [i] * int(stage.counts[i])
    for colours in range(1, limit + 1):
        options = [(o, c) for o in (0, 1) for c in range(colours)]

        def ok(choice: tuple[tuple[int, int], ...]) -> bool:
            used: set[tuple[int, int, int]] = set()
            for unit, (o, c) in zip(units, choice, strict=True):
                allowed = int(stage.allowed[unit])
                if (allowed == Direction.CW and o == 1) or (allowed == Direction.CCW and o == 0):
                    return False
                for e in links(n, int(stage.sources[unit]), int(stage.destinations[unit]), o):
                    if (o, e, c) in used:
                        return False
                    used.add((o, e, c))
            return True

        if any(ok(choice) for choice in itertools.product(options, repeat=len(units))):
            return colours
    raise AssertionError("more colours than the brute-force limit")


def ring_all_to_all_optimum(n: int) -> int:
    """Wilfong 1996 / Opatrny 2003 / Gu & Peng 2003: the load bound, for every n."""
    if n % 4 == 0:
        return n * n // 8
    if n % 4 == 2:
        return (n * n + 4) // 8
    return (n * n - 1) // 8


def among(n: int, nodes: list[int], count: int = 1) -> Stage:
    """Every ordered pair of `nodes` on a ring of n, `count` lightpaths each: an all-to-all
    among some of the ring's nodes."""
    s, d = np.repeat(nodes, len(nodes)), np.tile(nodes, len(nodes))
    keep = s != d
    return Stage.from_demands(n, s[keep], d[keep], np.full(int(keep.sum()), count))
