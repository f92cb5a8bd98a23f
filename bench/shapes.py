"""Best-shape search: time, candidates solved and pruned, memory, against an unpruned baseline.

For every shaped family at N = 256, 1024, 4096 (w = 64, one 4 MiB message) it runs, each in a
forked child so peak RSS is its own:
- the search (`solver.shape_search`, bounds + pruning), with the paper's shape as incumbent;
- the baseline: the same candidates solved one after another in the same order with no
  pruning, under the same time budget.
It prints the search's seconds (the search alone, the budget's part), candidates, solved,
pruned, whether it was exhaustive, its best steps and, under the default optics
(`OpticalParameters()`; `--no-optics` to leave them out), its best feasible shape (with the
hop limit it was routed within, if any); the baseline's solved count in its budget; and the
ratio baseline / (paper solve + search) seconds when the baseline finished (else how far it
got). Run:

    PYTHONPATH=. .venv/bin/python bench/shapes.py [--budget 120] [--sizes 256 1024 4096]
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import sys
import time
from typing import Any

from models.algorithms.base import Algorithm
from models.errors import AlgorithmRefusedError
from models.optics import OpticalParameters
from models.ring import Hardware, Ring
from solver.catalog import Limits, get_algorithm
from solver.outcome import SolveOptions
from solver.plan import DeadlineReached, StageCache, plan_algorithm
from solver.shape_search import OpticsTarget, search_best_shape

FAMILIES = (
    ("allgather", "optree"),
    ("allgather", "wrht"),
    ("allreduce", "hring"),
    ("allreduce", "wrht"),
    ("alltoall", "tra"),
    ("alltoall", "tra2"),
)
SIZE = (4194304.0,)


def _algorithm(collective: str, name: str, optics: bool) -> Algorithm:
    """The family as a plan builds it: under the default optics TRA and TRA2 also offer
    their rounds relayed within the optics' reach (80 hops)."""
    reach = OpticsTarget.of(OpticalParameters()).reach if optics else None
    return get_algorithm(collective, name, Limits(hop_limit=reach))


def _search(collective: str, name: str, n: int, budget: float, optics: bool) -> dict[str, Any]:
    algorithm = _algorithm(collective, name, optics)
    ring = Ring(n, 1, 64)
    started = time.monotonic()
    cache = StageCache()
    paper_params = algorithm.paper_shape(ring)
    paper = plan_algorithm(algorithm, ring, paper_params, SIZE, Hardware(), None, None, cache)
    searched = time.monotonic()
    target = OpticsTarget.of(OpticalParameters()) if optics else None
    best = search_best_shape(
        algorithm, ring, SIZE, Hardware(), SolveOptions(), budget, paper, cache, target
    )
    r = best.report
    feasible = best.feasible
    return {
        "search_s": time.monotonic() - searched,
        "feasible": "-"
        if not optics
        else "none"
        if feasible is None
        else f"{feasible.plan.true_steps} {feasible.plan.params}"
        + (f" within {feasible.hop_limit} hops" if feasible.hop_limit is not None else ""),
        "seconds": time.monotonic() - started,
        "candidates": r.candidates,
        "evaluated": r.evaluated,
        "pruned": r.pruned,
        "exhaustive": r.exhaustive,
        "paper": paper.true_steps,
        "best": best.plan.true_steps,
        "best_params": best.plan.params,
    }


def _baseline(collective: str, name: str, n: int, budget: float, optics: bool) -> dict[str, Any]:
    """Every candidate solved, no bounds, same budget (stage cache shared, as in the search)."""
    algorithm = _algorithm(collective, name, optics)
    ring = Ring(n, 1, 64)
    started = time.monotonic()
    cache = StageCache()
    solved = 0
    best = None
    finished = True
    candidates = list(algorithm.shape_candidates(ring))
    total = len(candidates)
    for raw in candidates:
        try:
            params = algorithm.resolve(ring, raw)
        except AlgorithmRefusedError:
            continue
        try:
            plan = plan_algorithm(
                algorithm, ring, params, SIZE, Hardware(), None, None, cache, started + budget
            )
        except DeadlineReached:
            finished = False
            break
        solved += 1
        best = plan.true_steps if best is None else min(best, plan.true_steps)
        if time.monotonic() - started > budget:
            finished = False
            break
    return {
        "seconds": time.monotonic() - started,
        "solved": solved,
        "candidates": total,
        "finished": finished,
        "best": best,
    }


def _child(fn: Any, args: tuple[Any, ...], out: Any) -> None:
    try:
        value = fn(*args)
    except AlgorithmRefusedError as error:
        value = {"refused": error.message}
    value["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out.send(value)


def _measure(fn: Any, *args: Any) -> dict[str, Any]:
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(fn, args, send))
    proc.start()
    value: dict[str, Any] = recv.recv()
    proc.join()
    return value


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=float, default=120.0, help="seconds per family and N")
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 1024, 4096])
    parser.add_argument(
        "--no-optics", action="store_true", help="search without the default optics"
    )
    args = parser.parse_args()
    optics = not args.no_optics
    print(
        f"budget {args.budget:g} s per search and per baseline; w = 64, one 4 MiB message; "
        f"{'default optics (best_feasible)' if optics else 'no optics'}\n"
    )
    print(
        "| N | family | candidates | search s | solved | pruned | exhaustive | paper steps | "
        "best steps | best shape | best feasible | search MiB | baseline solved | "
        "baseline s | baseline best | baseline / search |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        for collective, name in FAMILIES:
            s = _measure(_search, collective, name, n, args.budget, optics)
            if "refused" in s:
                print(f"| {n} | {collective}/{name} | refused: {s['refused']} |")
                continue
            b = _measure(_baseline, collective, name, n, args.budget, optics)
            ratio = (
                f"{b['seconds'] / s['seconds']:.1f}x"
                if b["finished"]
                else f">= {b['seconds'] / s['seconds']:.1f}x (stopped at {b['solved']}/{b['candidates']})"
            )
            print(
                f"| {n} | {collective}/{name} | {s['candidates']} | {s['search_s']:.1f} | "
                f"{s['evaluated']} | {s['pruned']} | {s['exhaustive']} | {s['paper']} | "
                f"{s['best']} | {s['best_params']} | {s['feasible']} | {s['peak_mib']:.0f} | "
                f"{b['solved']} | "
                f"{b['seconds']:.1f} | {b['best']} | {ratio} |"
            )
            sys.stdout.flush()


if __name__ == "__main__":
    main()
