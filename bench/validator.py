"""Benchmark of the independent validator (solver/validator.py): the per-link count against the
sort it falls back to, on the stages a large plan validates. Prints ratios against the sort
measured in the same run, on the same assignments, and the peak memory of each way.

    .venv/bin/python bench/validator.py

Each stage is solved once (the heuristic back end's assignment, as a plan would validate it);
then `validate` runs `REPEATS` times with the per-link count on (the default
`DENSE_CELLS_PER_PIECE`) and off (0: every window sorted), best time kept. Peak memory is
tracemalloc's peak over one validation (numpy reports its buffers to it).
"""

from __future__ import annotations

import platform
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import solver.validator as validator
from models.algorithms.base import Collective
from models.algorithms.catalog import get_algorithm
from models.ring import Ring
from models.stage import Stage
from models.synthesis import synthesized
from solver.assignment import Assignment
from solver.outcome import Method, SolveOptions
from solver.solve import solve_stage

REPEATS = 3

CASES = [  # (label, N, collective, algorithm, parameters, stage index)
    ("synth all-gather 64x64, pipeline step", 4096, "allgather", "synth",
     {"radices": (64, 64), "pieces": 2}, 0),
    ("synth all-gather 64x64, top step", 4096, "allgather", "synth",
     {"radices": (64, 64), "pieces": 2}, -1),
    ("WRHT group 3, first stage", 4096, "allgather", "wrht", {"group": 3, "levels": 6}, 0),
    ("OpTree 3x2x3x3x3x3x3x3, last stage", 4096, "allgather", "optree",
     {"branching": (3, 2, 3, 3, 3, 3, 3, 3)}, -1),
    ("ring all-reduce step", 4096, "allreduce", "ring", {}, 0),
    ("OSM (every pair at once)", 1024, "allgather", "osm", {}, 0),
]


def stage_and_assignment(
    nodes: int, collective: str, name: str, given: dict[str, object], index: int
) -> tuple[Stage, Assignment]:
    if name == "synth":
        algorithm = synthesized(Collective(collective), hop_limit=80)
    else:
        algorithm = get_algorithm(collective, name)
    ring = Ring(nodes, 1, 64)
    params = algorithm.resolve(ring, given)  # type: ignore[arg-type]
    schedule = algorithm.schedule(ring, params)
    stage = schedule.stage(index if index >= 0 else schedule.stage_count + index)
    result = solve_stage(ring, stage, SolveOptions(method=Method.HEURISTIC))
    return stage, result.assignment


def best_of(stage: Stage, assignment: Assignment, cells_per_piece: int) -> tuple[float, float]:
    """Best wall time over REPEATS and the tracemalloc peak (MB) of one validation."""
    validator.DENSE_CELLS_PER_PIECE = cells_per_piece
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        validator.validate(stage, assignment)
        best = min(best, time.perf_counter() - start)
    tracemalloc.start()
    validator.validate(stage, assignment)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return best, peak / 2**20


def main() -> None:
    default = validator.DENSE_CELLS_PER_PIECE
    print(f"Machine: {platform.machine()}, Python {platform.python_version()}; "
          f"best of {REPEATS}; baseline: every colour window sorted (DENSE_CELLS_PER_PIECE = 0)")
    print()
    print("| stage | N | unit lightpaths | colours | sort (s) | count (s) | speed-up "
          "| sort peak (MB) | count peak (MB) |")
    print("|---|---|---|---|---|---|---|---|---|")
    total_sort = total_count = 0.0
    for label, nodes, collective, name, given, index in CASES:
        stage, assignment = stage_and_assignment(nodes, collective, name, given, index)
        sort_s, sort_mb = best_of(stage, assignment, 0)
        count_s, count_mb = best_of(stage, assignment, default)
        total_sort += sort_s
        total_count += count_s
        print(f"| {label} | {nodes} | {int(assignment.count.sum())} | "
              f"{assignment.colours_used()} | {sort_s:.4f} | {count_s:.4f} | "
              f"{sort_s / count_s:.2f}x | {sort_mb:.0f} | {count_mb:.0f} |")
    print(f"| all of the above | | | | {total_sort:.4f} | {total_count:.4f} | "
          f"{total_sort / total_count:.2f}x | | |")
    validator.DENSE_CELLS_PER_PIECE = default


if __name__ == "__main__":
    main()
