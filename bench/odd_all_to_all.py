"""Benchmark of the odd ring all-to-all (OSM's one stage at odd N): the heuristic's sweep, which
reaches the optimum (r^2 - 1) / 8 but one Python step per interval, against the padded
construction solver.solve falls back to at the stage's time limit (solver/constructions.py:
the even construction on r + 1 nodes, the virtual node's pairs dropped). Prints the ratio of
times measured in the same run, each one's channels against the optimum, and peak memory.

    .venv/bin/python bench/odd_all_to_all.py [N ...]     # default: 1021 2045 4093

Both ways are timed without the load bound (computed first: the short way for every pair,
unique at odd r) and are checked by the validator, which is not timed. Each runs in a
process of its own, whose peak RSS (stage, load bound, assignment and validation included)
is reported.
"""

from __future__ import annotations

import json
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.algorithms.catalog import get_algorithm
from models.ring import Ring
from models.stage import Stage
from solver.bounds import load_bound
from solver.constructions import padded_all_to_all
from solver.heuristic import heuristic_assignment
from solver.validator import validate

DEFAULT_NODES = (1021, 2045, 4093)


def osm_stage(r: int) -> Stage:
    """OSM's one stage on a ring of r nodes: every ordered pair."""
    algorithm = get_algorithm("allgather", "osm")
    ring = Ring(r, 1, 64)
    return algorithm.stages(ring, algorithm.resolve(ring, {}))[0]


def one(method: str, r: int) -> None:
    """Run one way in this process and print (channels, seconds, peak RSS in MB) as JSON."""
    stage = osm_stage(r)
    routing = load_bound(stage).routing  # the short way for every pair: unique at odd r
    start = time.perf_counter()
    if method == "heuristic":
        assignment = heuristic_assignment(stage, routing)
    else:
        assignment = padded_all_to_all(r, 1)
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps([validate(stage, assignment).colours_used, seconds, peak_mb]))


def measured(method: str, r: int) -> tuple[int, float, float]:
    """(channels, seconds, peak RSS in MB) of one way, in a fresh process (its own peak)."""
    out = subprocess.run(
        [sys.executable, __file__, "--one", method, str(r)],
        check=True, capture_output=True, text=True,
    ).stdout
    chi, seconds, peak = json.loads(out)
    return int(chi), float(seconds), float(peak)


def main(nodes: list[int]) -> None:
    print(f"Machine: {platform.machine()}, Python {platform.python_version()}; one run each, "
          "each in a fresh process; baseline: the heuristic's sweep")
    print()
    print("| N | optimum (r^2 - 1) / 8 | heuristic channels | heuristic (s) | padded channels "
          "| padded (s) | speed-up | padded gap (steps of 64) | heuristic peak RSS (MB) "
          "| padded peak RSS (MB) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in nodes:
        sweep_chi, sweep_s, sweep_mb = measured("heuristic", r)
        padded_chi, padded_s, padded_mb = measured("padded", r)
        optimum = (r * r - 1) // 8
        gap = -(-padded_chi // 64) - -(-optimum // 64)
        print(f"| {r} | {optimum} | {sweep_chi} | {sweep_s:.2f} | {padded_chi} | "
              f"{padded_s:.2f} | {sweep_s / padded_s:.1f}x | {gap} | {sweep_mb:.0f} | "
              f"{padded_mb:.0f} |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        one(sys.argv[2], int(sys.argv[3]))
    else:
        main([int(a) for a in sys.argv[1:]] or list(DEFAULT_NODES))
