"""Benchmark of the RWA back ends. Prints ratios against a baseline measured in the same run.

Part 1: fixed stages, small to paper scale. For each back end: wall time, peak RSS of a child
process running only that back end, chi, bound, gap; and its speed as a ratio to the textbook
link-based MILP (one binary per unit lightpath x direction x colour, one colour-used binary per
colour, link-capacity rows, minimise colours used) solved by HiGHS in the same process on the
same stage with the same colour cap (skipped where it would not fit).
Part 2: every catalog algorithm at N = 16, 64, 256, 1024 (w = 64): stages proven optimal,
worst gap, true vs claimed steps, plan time.

    .venv/bin/python bench/rwa.py            # both parts (about 4 minutes on 2 cores)
    .venv/bin/python bench/rwa.py --part 1   # stages only
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import platform
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import highspy
import numpy as np

from models.algorithms.catalog import algorithms, get_algorithm
from models.errors import AlgorithmRefusedError, LimitExceededError
from models.ring import Ring
from models.stage import Stage
from solver.outcome import Method, SolveOptions
from solver.plan import plan_algorithm
from solver.solve import solve_stage

TEXTBOOK_LIMIT = 3_000_000  # nonzeros
TIME_LIMIT_S = 60.0


def stage_of(n: int, collective: str, name: str, index: int, w: int = 64) -> Stage:
    algorithm = get_algorithm(collective, name)
    ring = Ring(n, 1, w)
    schedule = algorithm.schedule(ring, algorithm.resolve(ring))
    return schedule.stage(index if index >= 0 else schedule.stage_count + index)


STAGES = [
    ("all-to-all N=8", 8, "allgather", "osm", 0),
    ("all-to-all N=12", 12, "allgather", "osm", 0),
    ("all-to-all N=16", 16, "allgather", "osm", 0),
    ("OpTree N=16 last stage", 16, "allgather", "optree", -1),
    ("RD N=64 last stage", 64, "allreduce", "rd", -1),
    ("TRA N=64 round 5", 64, "alltoall", "tra", 5),
    ("OpTree N=1024 last stage", 1024, "allgather", "optree", -1),
    ("RD N=4096 distance-2048 stage", 4096, "allreduce", "rd", -1),
    ("OpTree N=4096 last stage", 4096, "allgather", "optree", -1),
]


def textbook_milp(stage: Stage, colours: int, time_limit_s: float) -> dict[str, float] | None:
    n = stage.nodes
    units = np.repeat(np.arange(stage.demand_count), stage.counts)
    u_count = len(units)
    s, d = stage.sources[units], stage.destinations[units]
    arcs = [((s - 0) % n, (d - s) % n), (d, (s - d) % n)]  # (lo, length) per direction
    nnz = int(sum(arcs[o][1].sum() for o in (0, 1))) * colours + u_count * 2 * colours
    if nnz > TEXTBOOK_LIMIT:
        return None
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", time_limit_s)
    h.setOptionValue("threads", 1)
    nz = u_count * 2 * colours
    ncol = nz + colours

    def z(u: int, o: int, c: int) -> int:
        return (u * 2 + o) * colours + c

    h.addVars(ncol, np.zeros(ncol), np.ones(ncol))
    h.changeColsIntegrality(
        ncol, np.arange(ncol, dtype=np.int32), np.full(ncol, highspy.HighsVarType.kInteger)
    )
    cost = np.zeros(ncol)
    cost[nz:] = 1.0
    h.changeColsCost(ncol, np.arange(ncol, dtype=np.int32), cost)
    starts, index, value, lo, hi = [], [], [], [], []
    for u in range(u_count):
        starts.append(len(index))
        index += [z(u, o, c) for o in (0, 1) for c in range(colours)]
        value += [1.0] * (2 * colours)
        lo.append(1.0)
        hi.append(1.0)
    for o in (0, 1):
        a_lo, a_len = arcs[o]
        for e in range(n):
            over = np.flatnonzero(((e - a_lo) % n) < a_len)
            for c in range(colours):
                starts.append(len(index))
                index += [z(int(u), o, c) for u in over] + [nz + c]
                value += [1.0] * len(over) + [-1.0]
                lo.append(-highspy.kHighsInf)
                hi.append(0.0)
    h.addRows(
        len(starts),
        np.array(lo),
        np.array(hi),
        len(index),
        np.array(starts, dtype=np.int32),
        np.array(index, dtype=np.int32),
        np.array(value),
    )
    t = time.perf_counter()
    h.run()
    elapsed = time.perf_counter() - t
    info = h.getInfo()
    return {
        "seconds": elapsed,
        "chi": info.objective_function_value,
        "bound": info.mip_dual_bound,
        "optimal": h.getModelStatus() == highspy.HighsModelStatus.kOptimal,
    }


def _child(args: tuple[str, int, str, str, int, str, float], queue: mp.Queue) -> None:
    _label, n, collective, name, index, method, limit = args
    stage = stage_of(n, collective, name, index)
    t = time.perf_counter()
    try:
        r = solve_stage(Ring(n, 1, 64), stage, SolveOptions(Method(method), limit))
        out = {
            "seconds": time.perf_counter() - t,
            "chi": r.chi,
            "bound": r.lower_bound,
            "gap": r.gap,
            "status": r.status.value,
            "method": r.method.value,
        }
    except LimitExceededError:
        out = {"skipped": "model too large"}
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put(out)


def run_isolated(*args: object) -> dict[str, object]:
    queue: mp.Queue = mp.Queue()
    proc = mp.get_context("fork").Process(target=_child, args=(args, queue))
    proc.start()
    out = queue.get()
    proc.join()
    return out


def part1() -> None:
    print("## Part 1: back ends per stage (time, peak RSS of a child running it, chi, bound)\n")
    print(
        "| stage | demands | unit lightpaths | back end | time (s) | peak RSS (MiB) | chi | bound | "
        "status | speed vs textbook MILP |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, n, collective, name, index in STAGES:
        stage = stage_of(n, collective, name, index)
        results = {
            m: run_isolated(label, n, collective, name, index, m, TIME_LIMIT_S)
            for m in ("heuristic", "auto", "exact", "exact-highs")
        }
        cap = int(results["heuristic"]["chi"])  # type: ignore[arg-type]
        base = textbook_milp(stage, cap, TIME_LIMIT_S)
        for method, r in results.items():
            if "skipped" in r:
                print(
                    f"| {label} | {stage.demand_count} | {stage.unit_lightpaths} | {method} | "
                    "- | - | - | - | model too large | - |"
                )
                continue
            ratio = (
                "n/a (textbook too large)"
                if base is None
                else f"{base['seconds'] / r['seconds']:.1f}x"
            )
            print(
                f"| {label} | {stage.demand_count} | {stage.unit_lightpaths} | {method} | "
                f"{r['seconds']:.3f} | {r['peak_rss_mib']:.0f} | {r['chi']} | {r['bound']} | "
                f"{r['status']} | {ratio} |"
            )
        if base is not None:
            print(
                f"| {label} | {stage.demand_count} | {stage.unit_lightpaths} | textbook MILP (HiGHS) | "
                f"{base['seconds']:.3f} | - | {base['chi']:.0f} | {base['bound']:.0f} | "
                f"{'optimal' if base['optimal'] else 'time limit'} | 1.0x |"
            )
        sys.stdout.flush()


def part2(sizes: list[int]) -> None:
    print("\n## Part 2: every catalog algorithm, w = 64, method auto, 10 s per stage\n")
    print(
        "| N | collective | algorithm | stages | proven optimal | worst gap | claimed | true | "
        "steps bound | plan time (s) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        for algorithm in algorithms():
            ring = Ring(n, 1, 64)
            try:
                params = algorithm.resolve(ring)
            except AlgorithmRefusedError:
                continue
            plan = plan_algorithm(algorithm, ring, params, [2**22])
            optimal = sum(s.result.status == "optimal" for s in plan.stages)
            gap = max((s.result.gap for s in plan.stages), default=0.0)
            print(
                f"| {n} | {algorithm.collective} | {algorithm.name} | {len(plan.stages)} | {optimal} | "
                f"{gap:.3f} | {plan.claimed_steps} | {plan.true_steps} | {plan.steps_lower_bound} | "
                f"{plan.seconds:.1f} |"
            )
            sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--part", choices=["1", "2", "all"], default="all")
    parser.add_argument("--sizes", default="16,64,256,1024")
    args = parser.parse_args()
    print(
        f"Machine: {platform.processor() or platform.machine()}, {mp.cpu_count()} cores, "
        f"Python {platform.python_version()}, highspy {highspy.__version__ if hasattr(highspy, '__version__') else '1.12'}\n"
    )
    if args.part in ("1", "all"):
        part1()
    if args.part in ("2", "all"):
        part2([int(x) for x in args.sizes.split(",")])
    print(json.dumps({"done": True}))


if __name__ == "__main__":
    main()
