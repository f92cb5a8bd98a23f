"""Benchmark of the service's hot paths. Prints ratios against baselines measured in the same
run, and peak memory (tracemalloc: numpy buffers included).

1. Neighbour counts for per-lightpath crosstalk (solver.feasibility.neighbours), vectorised,
   against the brute-force reference of the tests (pure Python, O(L^2) per stage), on the
   same OSM all-gather stages; then alone at paper scale, where brute force cannot run.
2. Lightpath table streaming (app.presentation.lightpath_table) rows/s for csv and ndjson, against
   `csv.writer` on the same rows as the baseline.

    .venv/bin/python bench/service.py          # about a minute on 2 cores
"""

from __future__ import annotations

import csv
import io
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.presentation.lightpath_table import _format
from models.algorithms.catalog import get_algorithm
from models.ring import Ring
from solver.feasibility import neighbours
from solver.plan import plan_algorithm
from tests.solver.test_feasibility import brute_neighbours


def measure(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Seconds of a plain run, then peak MiB of a second run under tracemalloc (which slows
    Python-heavy code several times, so it is not timed)."""
    started = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - started
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return seconds, peak, out


def table_of(algorithm: str, n: int, w: int) -> tuple[Ring, dict[str, Any]]:
    ring = Ring(n, 1, w)
    chosen = get_algorithm("allgather", algorithm)
    plan = plan_algorithm(chosen, ring, chosen.resolve(ring), [1])
    last = plan.stages[-1]
    return ring, last.result.assignment.lightpaths(ring, last.stage)


def part1() -> None:
    print("## 1. neighbour counts (per-lightpath crosstalk)\n")
    print("| stage | lightpaths | vectorised s | peak MiB | brute force s | speed-up |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, n, w in (("osm", 16, 4), ("osm", 32, 8), ("osm", 48, 8)):
        ring, table = table_of(name, n, w)
        fast_s, peak, fast = measure(lambda: neighbours(ring, table))  # noqa: B023
        slow_s, _, slow = measure(lambda: brute_neighbours(ring.nodes, table))  # noqa: B023
        assert (fast[0].tolist(), fast[1].tolist()) == slow
        rows = len(table["source"])
        print(
            f"| {name} N={n} w={w} | {rows} | {fast_s:.4f} | {peak:.1f} | {slow_s:.2f} "
            f"| {slow_s / fast_s:.0f}x |"
        )
    for name, n, w in (("osm", 1024, 64), ("optree", 1024, 64), ("optree", 4096, 64)):
        ring, table = table_of(name, n, w)
        fast_s, peak, _ = measure(lambda: neighbours(ring, table))  # noqa: B023
        rows = len(table["source"])
        print(f"| {name} N={n} w={w} (last stage) | {rows} | {fast_s:.3f} | {peak:.0f} | - | - |")


def part2() -> None:
    print("\n## 2. lightpath table streaming\n")
    _, table = table_of("osm", 1024, 64)
    rows = len(table["source"])

    def stream(fmt: str) -> int:
        return sum(len(chunk) for chunk in _format("osm", 0, table, fmt))

    def baseline() -> int:
        out = io.StringIO()
        writer = csv.writer(out)
        keys = ("source", "destination", "direction", "fiber", "wavelength", "slot", "hops")
        cols = [table[k].tolist() for k in keys]
        for values in zip(*cols, strict=True):
            writer.writerow(("osm", 0, *values))
        return len(out.getvalue())

    base_s, base_peak, _ = measure(baseline)
    print("| writer | rows | s | rows/s | peak MiB | vs csv.writer |")
    print("|---|---:|---:|---:|---:|---:|")
    print(
        f"| csv.writer (baseline) | {rows} | {base_s:.2f} | {rows / base_s:,.0f} "
        f"| {base_peak:.0f} | 1.00 |"
    )
    for fmt in ("csv", "ndjson"):
        s, peak, _ = measure(lambda: stream(fmt))  # noqa: B023
        print(
            f"| {fmt} chunks | {rows} | {s:.2f} | {rows / s:,.0f} | {peak:.0f} | {base_s / s:.2f} |"
        )


if __name__ == "__main__":
    part1()
    part2()
