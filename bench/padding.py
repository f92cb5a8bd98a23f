"""Padded shapes (`models.synthesis.Padding`) against the same search without them, in the
same run: for N that are prime or not smooth (1000, 1021; 4093 for the all-reduce), w = 64,
default optics, one plan of `synth` alone per collective and message size (4 MiB, 64 MiB),
once with the search limited to N's own factorisations (the baseline: what `synth` did before
padding) and once with the padded sizes too. Prints synth's fastest feasible time each way, the
ratio baseline / padded, the achievable bound and each one's multiple of it, and the plan's
seconds; peak RSS at the end.

    PYTHONPATH=. .venv/bin/python bench/padding.py [--out docs/bench-padding.md]
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import models.synthesis as synthesis
from app.planning import prepare
from app.schemas.requests import PlanRequest
from app.service import answer

CASES = [(1000, "allgather"), (1000, "allreduce"), (1000, "alltoall"),
         (1021, "allgather"), (1021, "allreduce"), (1021, "alltoall"), (4093, "allreduce")]
SIZES = (4 * 2**20, 64 * 2**20)


def synth_time(nodes: int, collective: str, size: int) -> tuple[float, str, float, float]:
    """synth's fastest feasible time, its shape, the achievable bound, the plan's seconds."""
    request = PlanRequest.model_validate(
        {
            "ring": {"nodes": nodes, "wavelengths_per_fiber": 64},
            "collective": collective,
            "algorithms": ["synth"],
            "message_sizes_bytes": [size],
        }
    )
    started = time.monotonic()
    result = answer(prepare(request))
    seconds = time.monotonic() - started
    (synth,) = result.algorithms
    search = synth.shapes.search
    assert search is not None and search.best_feasible_by_message
    found = search.best_feasible_by_message[0]
    assert found is not None, f"synth has no feasible shape at N = {nodes}"
    shape = "x".join(map(str, found.parameters["radices"]))
    extra = [f"{k} {v}" for k, v in found.parameters.items() if k in ("direct", "sweep", "tree") and v]
    held = synthesis.holding(found.parameters)  # idle residues (all-reduce)
    if held is not None:
        extra.append(f"{held[0]} of {held[1]} holding")
    centres = synthesis.centred(found.parameters)  # the sweep's sums at fewer members
    if centres is not None:
        extra.append(f"sums at {centres[0]} of {centres[1]}")
    if extra:
        shape += f" ({', '.join(extra)})"
    return found.time_s, shape, result.achievable[0].bound_s, seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    rows = [
        "| N | collective | message | unpadded synth (shape) | s | padded synth (shape) | s | "
        "unpadded / padded | achievable (s) | unpadded / achievable | padded / achievable | "
        "plan s (unpadded / padded) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    allows = synthesis.padding_allows
    for nodes, collective in CASES:
        for size in SIZES:
            synthesis.padding_allows = lambda n, positions: positions == n  # type: ignore[assignment]
            base, base_shape, bound, base_s = synth_time(nodes, collective, size)
            synthesis.padding_allows = allows
            pad, pad_shape, _, pad_s = synth_time(nodes, collective, size)
            rows.append(
                f"| {nodes} | {collective} | {size // 2**20} MiB | {base_shape} | {base:.4g} | "
                f"{pad_shape} | {pad:.4g} | {base / pad:.3g}x | {bound:.4g} | "
                f"{base / bound:.3g}x | {pad / bound:.3g}x | {base_s:.1f} / {pad_s:.1f} |"
            )
            print(rows[-1], flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows.append(f"\nw = 64, F = 1, default optics (hop limit 80). Peak RSS {peak:.0f} MB.")
    if args.out:
        args.out.write_text(
            "# Padded shapes against the unpadded search\n\n"
            "`PYTHONPATH=. .venv/bin/python bench/padding.py`\n\n" + "\n".join(rows) + "\n"
        )


if __name__ == "__main__":
    main()
