"""Synthesized schedules with few wavelengths: `synth` against the achievable bound at
w = 4, 8, 16 and 32 (README "Benchmark"; the README's main table is w = 64, bench/achievable.py).

For N = 256 and 1024 (F = 1, default optics) and each collective, one plan of `synth` alone
with three message sizes (1, 16, 256 MiB; the all-gather also 1 and 16 KiB items, as many
bytes in all as the reduce-scatter's 1 and 16 MiB vectors; `rwaopt plan --algorithm synth`,
best shapes, 30 s search): per size the search's winner, its time, the achievable bound and
the ratio, and for the all-reduce the ratio to the reduce-then-broadcast class's bound.
Where few channels leave the ratio high is where the synthesized families still lack a
shape.

    .venv/bin/python bench/few_channels.py [--nodes 256] [--out docs/bench-few-channels.md]
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path
from typing import Any

from app.planning import prepare
from app.schemas.requests import PlanRequest
from app.service import answer

SIZES = (2**20, 16 * 2**20, 256 * 2**20)
ITEM_SIZES = (2**10, 16 * 2**10, *SIZES)  # the all-gather's: each node's item
WAVELENGTHS = (4, 8, 16, 32)
COLLECTIVES = ("allgather", "reducescatter", "allreduce", "alltoall")
SHOWN = ("radices", "tree", "roots", "mirror", "direct", "sweep", "centres", "holders")


def shape(params: dict[str, Any]) -> str:
    """The winner's parameters that tell its family apart (defaults left out)."""
    out = []
    for key in SHOWN:
        value = params.get(key)
        if value in (None, 0) or (key == "holders" and value == 1):
            continue
        if key == "centres" and value == params.get("radices", [0])[-1]:
            continue  # every top member sums: the plain sweep or no sweep
        text = "x".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
        out.append(f"{key}={text}")
    return ", ".join(out)


def label(size: int) -> str:
    return f"{size // 2**20} MiB" if size >= 2**20 else f"{size // 2**10} KiB"


def rows(nodes: int, wavelengths: int, collective: str) -> list[str]:
    """One table row per message size of a `synth` plan."""
    sizes = ITEM_SIZES if collective == "allgather" else SIZES
    request = PlanRequest.model_validate(
        {
            "ring": {"nodes": nodes, "wavelengths_per_fiber": wavelengths},
            "collective": collective,
            "algorithms": ["synth"],
            "message_sizes_bytes": list(sizes),
        }
    )
    started = time.monotonic()
    result = answer(prepare(request))
    seconds = time.monotonic() - started
    synth = next(a for a in result.algorithms if a.algorithm == "synth")
    search = synth.shapes.search
    winners = search.best_by_message if search is not None else []
    out = []
    for i, size in enumerate(sizes):
        bound = result.achievable[i]
        winner = winners[i] if winners else None
        time_s = winner.time_s if winner is not None else synth.timings[i].time_s
        params = winner.parameters if winner is not None else synth.parameters
        family = bound.reduce_then_broadcast_s
        versus_class = f"{time_s / family:.2f}x" if family else "-"
        out.append(
            f"| {nodes} | {wavelengths} | {collective} | {label(size)} | "
            f"{shape(dict(params))} | {time_s:.4g} | {bound.bound_s:.4g} | "
            f"{time_s / bound.bound_s:.2f}x | {versus_class} | {seconds:.1f} |"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, action="append", default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    table = [
        "| N | w | collective | message | synth's shape | synth (s) | achievable (s) | "
        "synth / achievable | synth / class bound | plan (s) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(table), flush=True)
    for nodes in args.nodes or [256, 1024]:
        for wavelengths in WAVELENGTHS:
            for collective in COLLECTIVES:
                for line in rows(nodes, wavelengths, collective):
                    table.append(line)
                    print(line, flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    table.append(
        f"\nF = 1, default optics (hop limit 80), one `synth` plan per (N, w, collective) with "
        f"its sizes (all-gather: each node's item). 'class bound': the reduce-then-broadcast "
        f"class's (all-reduce only). Peak RSS {peak:.0f} MB."
    )
    print(table[-1])
    if args.out:
        args.out.write_text(
            "# Synthesized schedules with few wavelengths\n\n"
            "`.venv/bin/python bench/few_channels.py`\n\n" + "\n".join(table) + "\n"
        )


if __name__ == "__main__":
    main()
