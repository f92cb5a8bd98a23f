"""What the papers' algorithms reach of the achievable bound (SPEC 12, docs/achievable.md).

For N = 64, 256, 1024, 4096 (w = 64, F = 1, default optics and hardware, 4 MiB) and each
collective, the default plan (`rwaopt plan`, best shapes, 30 s search per algorithm): the
fastest optically feasible paper algorithm, its true time, the achievable bound and the
fraction; and the fastest regardless of optics against the bound without the optics' hop
limit. Also how long the bound itself takes at N = 4096 (best of 20) against the plan, as a
ratio measured in the same run.

    .venv/bin/python bench/achievable.py [--nodes 64 --nodes 256] [--out docs/bench-achievable.md]
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

from app.planning import prepare
from app.schemas.requests import PlanRequest
from app.service import answer
from models.achievable import achievable_bound
from models.ring import Hardware, Ring

SIZE = 4 * 2**20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, action="append", default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    rows = [
        "| N | collective | fastest feasible | time (s) | achievable (s) | fraction | "
        "fastest regardless of optics | time (s) | its achievable (s) | fraction | "
        "plan (s) | bound (ms) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(rows), flush=True)
    for n in args.nodes or [64, 256, 1024, 4096]:
        for collective in ("allgather", "allreduce", "alltoall"):
            request = PlanRequest.model_validate(
                {
                    "ring": {"nodes": n, "wavelengths_per_fiber": 64},
                    "collective": collective,
                    "message_sizes_bytes": [SIZE],
                }
            )
            started = time.monotonic()
            result = answer(prepare(request))
            plan_s = time.monotonic() - started
            bound_s = best_bound_seconds(collective, n)
            rec = result.recommendation[0]
            ach = result.achievable[0]
            fastest = min(result.algorithms, key=lambda a: a.timings[0].time_s)
            chosen = next((a for a in result.algorithms if a.algorithm == rec.algorithm), None)
            if chosen is None:
                feasible = "none | - | " + f"{ach.bound_s:.6g} | -"
            else:
                t = chosen.timings[0]
                feasible = (
                    f"{chosen.algorithm} | {t.time_s:.6g} | {ach.bound_s:.6g} | "
                    f"{t.fraction_of_achievable:.2%}"
                )
            ft = fastest.timings[0]
            row = (
                f"| {n} | {collective} | {feasible} | {fastest.algorithm} | {ft.time_s:.6g} | "
                f"{ft.achievable_s:.6g} | {ft.fraction_of_achievable:.2%} | {plan_s:.1f} | "
                f"{bound_s * 1e3:.3f} |"
            )
            rows.append(row)
            print(row, flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows.append(
        f"\n4 MiB, w = 64, F = 1, default optics (hop limit 80). Peak RSS {peak:.0f} MB. "
        "'bound (ms)': one achievable_bound call at this N, best of 20."
    )
    print(rows[-1])
    if args.out:
        args.out.write_text(
            "# The papers' algorithms against the achievable bound\n\n"
            "`.venv/bin/python bench/achievable.py`\n\n" + "\n".join(rows) + "\n"
        )


def best_bound_seconds(collective: str, nodes: int) -> float:
    ring, hw = Ring(nodes, 1, 64), Hardware()
    best = float("inf")
    for _ in range(20):
        started = time.perf_counter()
        achievable_bound(collective, ring, SIZE, hw, 80)
        best = min(best, time.perf_counter() - started)
    return best


if __name__ == "__main__":
    main()
