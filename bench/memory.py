"""Calibrates the memory estimate of admission (`solver.memory`): the peak resident memory of a
plan's solve, measured the way a solver process runs it (prepare + run_plan in a fresh
process, w = 64, one 4 MiB message), per algorithm at its paper shape, and per collective for
the default plan (every algorithm, best shapes). Writes the points to
solver/memory_calibration.json (read by solver.memory) and a table to docs/bench-memory.md,
with the estimate beside each measurement.

    .venv/bin/python bench/memory.py            # N = 512 .. 4096; about 15 minutes on 2 cores
    .venv/bin/python bench/memory.py --quick    # N = 512 and 1024 (a trial, not committed)
Rerun it whenever the solvers or the shape search change what they hold.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PYTHON = str(ROOT / ".venv" / "bin" / "python")
CALIBRATION = ROOT / "solver" / "memory_calibration.json"
COLLECTIVES = ("allgather", "allreduce", "alltoall", "reducescatter")

# prepare + run_plan, as the service's solver process runs them (argv: collective, N,
# algorithm or 'all', shape); without the admission check that this very calibration feeds.
SOLVE = (
    "import sys, app.planning as p; p.check_memory = lambda *args: None; "
    "from app.planning import prepare, run_plan; "
    "from app.schemas.requests import PlanRequest; "
    "a = sys.argv[3]; r = PlanRequest.model_validate({'ring': {'nodes': int(sys.argv[2]), "
    "'wavelengths_per_fiber': 64}, 'collective': sys.argv[1], "
    "'algorithms': a if a == 'all' else [a], "
    "'message_sizes_bytes': [4194304], 'shape': sys.argv[4]}); run_plan(prepare(r)); "
    "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0])"
)


def peak_mb(collective: str, nodes: int, algorithm: str, shape: str) -> tuple[float, float]:
    """Peak RSS (MB: the process's own high-water mark, VmHWM) and wall seconds of one
    solve in a fresh process; (nan, nan) when the algorithm refuses the ring (e.g. TRA2's
    paper shape beyond its lightpath limit)."""
    argv = [PYTHON, "-c", SOLVE, collective, str(nodes), algorithm, shape]
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        if "AlgorithmRefusedError" in done.stderr:
            return math.nan, math.nan
        raise SystemExit(f"{argv[3:]} failed: {done.stderr[-2000:]}")
    return int(done.stdout.split()[-1]) / 1024, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 512 and 1024 only")
    args = parser.parse_args()
    sizes = (512, 1024) if args.quick else (512, 1024, 2048, 4096)

    from solver.catalog import algorithms

    base, _ = peak_mb("allgather", 8, "ring", "paper")
    points: dict[str, dict[str, dict[str, float]]] = {}
    best: dict[str, dict[str, float]] = {}
    rows = []
    for collective in COLLECTIVES:
        names = [a.name for a in algorithms(collective) if a.name != "optimal"]
        points[collective] = {}
        for name in names:
            points[collective][name] = {}
            for n in sizes:
                mb, seconds = peak_mb(collective, n, name, "paper")
                if not math.isnan(mb):
                    points[collective][name][str(n)] = round(mb, 1)
                rows.append((collective, name, "paper", n, mb, seconds))
                print(rows[-1], flush=True)
            if len(points[collective][name]) < 2:  # refused almost everywhere: no curve
                del points[collective][name]
        best[collective] = {}
        for n in sizes:
            mb, seconds = peak_mb(collective, n, "all", "best")
            best[collective][str(n)] = round(mb, 1)
            rows.append((collective, "all", "best", n, mb, seconds))
            print(rows[-1], flush=True)
    calibration: dict[str, Any] = {
        "measured": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "base_mb": round(base, 1),
        "paper": points,
        "best": best,
    }
    if args.quick:
        print(json.dumps(calibration, indent=1))
        return
    CALIBRATION.write_text(json.dumps(calibration, indent=1) + "\n")

    from solver.memory import all_choices, estimate_mb

    lines = [
        "# Memory of a solve (`bench/memory.py`)",
        "",
        f"Machine: {calibration['machine']}. Peak RSS of prepare + run_plan in a fresh "
        "process (as a solver process runs a plan), w = 64, one 4 MiB message. The estimate "
        "(`solver.memory`, what admission checks against RWAOPT_SOLVE_MEMORY_MB) is computed "
        "from these very points, so at them it is the measurement times its margin; between "
        "and beyond them it interpolates and extrapolates.",
        "",
        f"Interpreter and libraries alone: {base:.0f} MB.",
        "",
        "| collective | algorithm | shape | N | peak RSS (MB) | estimate (MB) | wall (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    for collective, name, shape, n, mb, seconds in rows:
        if math.isnan(mb):
            lines.append(f"| {collective} | {name} | {shape} | {n} | refused | - | - |")
            continue
        if name != "all" and name not in calibration["paper"][collective]:
            continue
        chosen = all_choices(collective, True) if name == "all" else [(name, False)]
        estimate = estimate_mb(collective, n, chosen)
        lines.append(
            f"| {collective} | {name} | {shape} | {n} | {mb:.0f} | {estimate:.0f} | {seconds:.1f} |"
        )
    (ROOT / "docs" / "bench-memory.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
