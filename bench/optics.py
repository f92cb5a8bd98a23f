"""Benchmark of the per-lightpath neighbour counts (`solver.feasibility.neighbours`), the step
that takes most of a plan's optics evaluation, against the same function as it was before
session 32 (np.bincount's int64 counts per cell and an int64 prefix sum; kept below as
`reference`), on the slot windows of real stages: OSM's one stage at N = 4096, w = 64 (16.7M
lightpaths, the N = 4096 all-gather plan's slowest evaluation) and synth's 64 x 64 all-gather
stages. Checks that both give the same counts; prints the ratio of the best of `REPEATS` times
measured in the same run, and tracemalloc's peak of one window each.

    .venv/bin/python bench/optics.py [--nodes 4096]
"""

from __future__ import annotations

import argparse
import itertools
import platform
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.ring import Ring
from solver.catalog import get_algorithm
from solver.feasibility import CHUNK_CELLS, DENSE_FACTOR, IntArray, neighbours, slot_windows, window
from solver.plan import plan_algorithm

REPEATS = 5
Table = dict[str, IntArray]


def reference(ring: Ring, table: Table) -> tuple[IntArray, IntArray]:
    """`neighbours` as it was (its dense branch; the sparse one is unchanged)."""
    n = ring.nodes
    s, d, o = table["source"], table["destination"], table["direction"]
    count = len(s)
    rx = np.zeros(count, dtype=np.int64)
    tx = np.zeros(count, dtype=np.int64)
    if count == 0:
        return rx, tx
    key = (table["slot"] * 2 + o) * ring.fibers_per_direction + table["fiber"]
    order = np.argsort(key, kind="stable")
    g_all = np.cumsum(np.concatenate(([0], np.diff(key[order]) != 0)))
    groups_total = int(g_all[-1]) + 1
    assert groups_total * n <= DENSE_FACTOR * count, "a sparse window: nothing changed there"
    per_chunk = max(1, CHUNK_CELLS // n)
    cuts = [*np.searchsorted(g_all, np.arange(0, groups_total, per_chunk)).tolist(), count]
    for first, last in itertools.pairwise(cuts):
        pick = order[first:last]
        g = g_all[first:last] - g_all[first]
        groups = int(g[-1]) + 1
        ps, pd = s[pick], d[pick]
        lo = np.where(o[pick] == 0, ps, pd)
        start = (lo + 1) % n
        stop = start + table["hops"][pick] - 1
        wrap = stop > n
        tail = np.where(wrap, stop - n, 0)
        head = np.minimum(stop, n)
        size = groups * n
        sends = np.bincount(g * n + ps, minlength=size)
        ends = sends + np.bincount(g * n + pd, minlength=size)
        prefix = np.zeros((groups, n + 1), dtype=np.int64)
        np.cumsum((ends >= 1).reshape(groups, n), axis=1, out=prefix[:, 1:])
        inner = np.where(
            wrap,
            prefix[g, n] - prefix[g, start] + prefix[g, tail],
            prefix[g, head] - prefix[g, start],
        )
        rx[pick] = inner + (ends[g * n + pd] >= 2)
        tx[pick] = sends[g * n + ps] >= 2
    return rx, tx


def tables(algorithm: str, nodes: int) -> list[Table]:
    """The slot windows (`evaluate_stage`'s) of every distinct stage of the paper shape."""
    ring = Ring(nodes, 1, 64)
    chosen = get_algorithm("allgather", algorithm)
    plan = plan_algorithm(chosen, ring, chosen.paper_shape(ring))
    out = []
    for s in plan.stages:
        if s.solution_stage == s.index:
            a = s.result.assignment
            for c0, c1 in slot_windows(ring, a):
                out.append(window(a, c0, c1).lightpaths(ring, s.stage))
    return out


def measure(
    count: Callable[[Ring, Table], tuple[IntArray, IntArray]], ring: Ring, windows: list[Table]
) -> tuple[float, float, list[tuple[IntArray, IntArray]]]:
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        results = [count(ring, t) for t in windows]
        best = min(best, time.perf_counter() - started)
    tracemalloc.start()
    count(ring, windows[0])
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return best, peak, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=4096)
    nodes = parser.parse_args().nodes
    ring = Ring(nodes, 1, 64)
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}; "
          f"N = {nodes}, w = 64; best of {REPEATS}")  # fmt: skip
    print(f"{'stage':<28}{'windows':>8}{'lightpaths':>12}{'before s':>10}{'now s':>8}"
          f"{'ratio':>7}{'MB before':>11}{'MB now':>8}")  # fmt: skip
    for algorithm in ("osm", "synth"):
        windows = tables(algorithm, nodes)
        before, before_mb, expected = measure(reference, ring, windows)
        now, now_mb, got = measure(neighbours, ring, windows)
        for (a, b), (c, d) in zip(expected, got, strict=True):
            assert (a == c).all() and (b == d).all(), f"{algorithm}: the counts differ"
        lightpaths = sum(len(t["source"]) for t in windows)
        print(f"{algorithm:<28}{len(windows):>8}{lightpaths:>12}{before:>10.2f}{now:>8.2f}"
              f"{before / now:>7.2f}{before_mb:>11.0f}{now_mb:>8.0f}")  # fmt: skip


if __name__ == "__main__":
    main()
