"""How far the exact schedule model (solver/exact_schedule.py) reaches: per collective, ring
and pieces, its size, the seconds to a proven optimum (or the time limit), on this machine.

    .venv/bin/python bench/exact.py [--time-limit 60] [--out docs/bench-exact.md]

Prints a markdown table; the README's "exact optimum" limits come from its last run.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

from models.errors import LimitExceededError
from models.ring import Ring
from solver.exact_schedule import model_size, slots_lower_bound, solve_exact_schedule

CASES = [
    (n, w, q)
    for n in (3, 4, 5, 6, 7, 8, 10, 12)
    for w in (1, 2, 4)
    for q in (1, 2, 3)
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--collective", action="append", default=None)
    args = parser.parse_args()
    rows = ["| collective | N | w | pieces | size | slots | bound | proven | seconds |",
            "|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(rows), flush=True)
    for collective in args.collective or ["allgather", "allreduce", "alltoall", "reducescatter"]:
        stop = set()  # (w, q) that already failed at a smaller N: larger N would too
        for n, w, q in CASES:
            if (w, q) in stop:
                continue
            ring = Ring(n, 1, w)
            lower = slots_lower_bound(collective, ring, q, n - 1, None, None)
            size = model_size(collective, n, w, q, lower + 1, n - 1)
            started = time.monotonic()
            try:
                r = solve_exact_schedule(collective, ring, q, time_limit_s=args.time_limit)
                slots, bound, proven = r.slot_count, r.slots_lower_bound, r.optimal
            except LimitExceededError as error:
                slots, bound, proven = None, error.detail.get("slots_lower_bound"), False
            seconds = time.monotonic() - started
            if not proven:
                stop.add((w, q))
            row = (f"| {collective} | {n} | {w} | {q} | {size} | {slots} | {bound} | "
                   f"{'yes' if proven else 'no'} | {seconds:.2f} |")
            rows.append(row)
            print(row, flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows.append(f"\nPeak RSS {peak:.0f} MB; time limit {args.time_limit:g} s per case, 2 workers.")
    print(rows[-1])
    if args.out:
        args.out.write_text("# Exact schedule model: reach\n\n`.venv/bin/python bench/exact.py`\n\n"
                            + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
