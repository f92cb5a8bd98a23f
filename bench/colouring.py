"""Benchmark of the heuristic's sweep (`solver.heuristic.colour_direction`), the step every
large stage's colouring starts with, against the same sweep as it was written before session
31 (numpy scalars read per interval, global lookups; kept below as `reference`), on the
directions of the stages a shape search solves: synth's rooted all-reduce at N = 2048 (16-slot
trees from 512 roots, 64 MiB's winner) and its 64 x 32 window shape. Checks that both return
the same runs and colours; prints the ratio of the best of `REPEATS` times measured in the
same run, and tracemalloc's peak of one pass each.

    .venv/bin/python bench/colouring.py
"""

from __future__ import annotations

import bisect
import heapq
import platform
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.algorithms.base import Collective
from models.ring import Ring
from models.synthesis import synthesized
from solver.bounds import load_bound
from solver.heuristic import _NEVER, IntArray, colour_direction

REPEATS = 3
CASES = [  # (label, N, w, shape)
    ("synth all-reduce, 16-slot trees from 512 roots", 2048, 64,
     {"radices": (2048,), "pieces": 32, "tree": 16, "roots": 512}),
    ("synth all-reduce, 64 x 32 with a sweep", 2048, 64,
     {"radices": (64, 32), "pieces": 2, "tree": 5, "sweep": 1, "centres": 2}),
]  # fmt: skip

Direction = tuple[int, IntArray, IntArray, IntArray, IntArray]


def reference(
    n: int, lo: IntArray, length: IntArray, mult: IntArray, load: IntArray
) -> tuple[list[tuple[int, int, int]], int]:
    """The sweep as it was (no deadline): one numpy scalar read per interval and field."""
    runs: list[tuple[int, int, int]] = []
    if len(lo) == 0:
        return runs, 0
    cut = int(np.argmin(load))
    start = (lo - cut - 1) % n
    end = start + length
    through = end > n - 1
    fresh = 0
    pool: list[tuple[int, int, int]] = []
    pending: list[tuple[int, int, int, int]] = []
    for i in np.flatnonzero(through):
        m = int(mult[i])
        runs.append((int(i), fresh, m))
        opens, deadline = int(end[i] - n), int(start[i])
        if deadline > opens:
            pending.append((opens, deadline, fresh, m))
        fresh += m
    pending.sort()
    releases: list[tuple[int, int, int, int]] = []
    p_next = 0
    order = np.flatnonzero(~through)
    order = order[np.lexsort((end[order], start[order]))]
    for i in order:
        left, right, need = int(start[i]), int(end[i]), int(mult[i])
        while releases and releases[0][0] <= left:
            _, deadline, first, count = heapq.heappop(releases)
            bisect.insort(pool, (deadline, first, count))
        while p_next < len(pending) and pending[p_next][0] <= left:
            _, deadline, first, count = pending[p_next]
            bisect.insort(pool, (deadline, first, count))
            p_next += 1
        at = bisect.bisect_left(pool, (right, -1, 0))
        while need and at < len(pool):
            deadline, first, count = pool[at]
            take = min(count, need)
            runs.append((int(i), first, take))
            heapq.heappush(releases, (right, deadline, first, take))
            if take == count:
                pool.pop(at)
            else:
                pool[at] = (deadline, first + take, count - take)
                at += 1
            need -= take
        if need:
            runs.append((int(i), fresh, need))
            heapq.heappush(releases, (right, _NEVER, fresh, need))
            fresh += need
    return runs, fresh


def directions(nodes: int, wavelengths: int, shape: dict[str, object]) -> list[Direction]:
    """Every stage's two directions as the heuristic colours them (routed by the LP of L*)."""
    algorithm = synthesized(Collective.ALLREDUCE, hop_limit=80)
    ring = Ring(nodes, 1, wavelengths)
    out: list[Direction] = []
    for stage in algorithm.stages(ring, algorithm.resolve(ring, shape)):
        routing = load_bound(stage).routing
        s, d, n = stage.sources, stage.destinations, stage.nodes
        for units, lo, length, load in (
            (routing.clockwise, s, (d - s) % n, routing.cw_load),
            (stage.counts - routing.clockwise, d, (s - d) % n, routing.ccw_load),
        ):
            used = np.flatnonzero(units > 0)
            out.append((n, lo[used], length[used], units[used], load))
    return out


def measure(sweep: Callable[..., tuple[list[tuple[int, int, int]], int]],
            cases: list[Direction]) -> tuple[float, float, list[object]]:  # fmt: skip
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        results = [sweep(*case) for case in cases]
        best = min(best, time.perf_counter() - started)
    tracemalloc.start()
    for case in cases:
        sweep(*case)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return best, peak, results


def main() -> None:
    print(f"python {platform.python_version()}, {platform.machine()}; best of {REPEATS}")
    print(f"{'case':<50}{'dirs':>6}{'runs':>9}{'before s':>10}{'now s':>8}{'ratio':>7}"
          f"{'MB before':>11}{'MB now':>8}")  # fmt: skip
    for label, nodes, wavelengths, shape in CASES:
        cases = directions(nodes, wavelengths, shape)
        before, before_mb, expected = measure(reference, cases)
        now, now_mb, got = measure(colour_direction, cases)
        assert got == expected, f"{label}: the sweep's runs differ from the reference's"
        runs = sum(len(r[0]) for r in got)  # type: ignore[index]
        print(f"{label:<50}{len(cases):>6}{runs:>9}{before:>10.2f}{now:>8.2f}"
              f"{before / now:>6.2f}x{before_mb:>11.1f}{now_mb:>8.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
