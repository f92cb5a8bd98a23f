"""How close rooted trees can pack the all-reduce at N = 1024, w = 64, 64 MiB (README "Known
limits"): the least trees and trees of other shapes, each slot counted as `rooted_trees`
counts it.

A rooted all-reduce runs a tree's slots twice (reduce, then broadcast), every slot costing
`slot_time_s` of its pieces per lightpath. Per slot `models.rooted_trees.slot_payload` gives
the whole lightpaths' pieces (what a schedule carries) and the fractional floor (the busiest
link's pieces over the channels: only the K translates' unevenness counted, no rounding).
Trees: the least tree within S slots (Fact 3c), and `least_tree(..., scales)`, the least of
sum_t scale_t x hops, with the scales annealed (seeded) to the least time, whole or
fractional. Prints the two phases' time against 1.5x the achievable bound (the issue's
target); nothing here is a catalog algorithm (an anneal takes one to two minutes a
configuration, the plan's search 30 s in all).

    .venv/bin/python bench/rooted_packing.py [--iterations 1500] [--out docs/bench-rooted-packing.md]
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from models.achievable import achievable_bound, least_tree_edges
from models.ring import Hardware, Ring
from models.rooted_trees import slot_payload
from models.timing import slot_time_s

NODES, HOPS, CHANNELS, MESSAGE = 1024, 80, 64, 64 * 2**20
PIECES = 16  # per chunk
CHUNK = MESSAGE / NODES
HW = Hardware()
LEAST = [(s, k, m) for s in (9, 10) for k in (256, 341) for m in (False, True)]
ANNEALED = [(10, 256, False, "whole"), (10, 341, False, "whole"), (9, 256, False, "floor"),
            (10, 256, False, "floor")]


def allreduce_s(pieces_per_slot: list[float]) -> float:
    """Both phases of a rooted all-reduce whose slots carry these pieces a lightpath (inf
    when a slot cannot be built)."""
    if not all(math.isfinite(p) for p in pieces_per_slot):
        return math.inf
    return 2 * sum(slot_time_s(p / PIECES * CHUNK, HW) for p in pieces_per_slot)


def measure(slots: int, parts: int, mirror: bool,
            scales: tuple[float, ...] | None) -> tuple[float, float, list[float], list[int]]:
    """All-reduce seconds with whole lightpaths (inf when a slot cannot fit one lightpath a
    pair) and at the fractional floor, the whole pieces per slot and the hops per slot."""
    whole, floor, hops = [], [], []
    for parents, shifts in least_tree_edges(NODES, HOPS, slots, scales):
        per, busiest = slot_payload(NODES, parents, shifts, parts, PIECES, CHANNELS, mirror,
                                    whole_chunks=False)  # the all-reduce's parts
        whole.append(math.inf if per is None else float(per))
        floor.append(busiest)
        hops.append(int(np.abs(shifts).sum()))
    return allreduce_s(whole), allreduce_s(floor), whole, hops


def anneal(slots: int, parts: int, mirror: bool, kind: str, iterations: int,
           seed: int) -> tuple[float, tuple[float, ...]]:
    """Simulated annealing over the per-slot scales (log-normal steps on about a third of
    the slots, temperature 3 us falling by 0.3 % a step): the least all-reduce time found,
    whole or at the floor, and its scales."""
    rng = np.random.default_rng(seed)
    pick = 0 if kind == "whole" else 1
    scales = np.ones(slots)
    current = measure(slots, parts, mirror, None)[pick]
    best = (current, tuple(scales))
    temperature = 3e-6
    for _ in range(iterations):
        step = rng.normal(0, 0.2, slots) * (rng.random(slots) < 0.3)
        trial = scales * np.exp(step)
        try:
            value = measure(slots, parts, mirror, tuple(trial))[pick]
        except ValueError:  # the far node out of reach
            continue
        if value <= current or rng.random() < math.exp(-(value - current) / temperature):
            scales, current = trial, value
            if value < best[0]:
                best = (value, tuple(float(x) for x in trial))
        temperature = max(5e-8, temperature * 0.997)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("docs/bench-rooted-packing.md"))
    args = parser.parse_args()
    bound = achievable_bound("allreduce", Ring(NODES, 1, CHANNELS), MESSAGE, HW,
                             hop_limit=HOPS).bound_s
    target = 1.5 * bound
    lines = [
        "# Rooted trees at N = 1024, w = 64, 64 MiB: whole lightpaths and the floor",
        "",
        f"`.venv/bin/python bench/rooted_packing.py --iterations {args.iterations}` "
        f"(seed {args.seed}). Achievable {bound * 1e3:.4f} ms; the target 1.5x is "
        f"{target * 1e3:.4f} ms. Times are the two phases of a rooted all-reduce "
        f"(`slot_time_s` per slot, {PIECES} pieces a chunk); 'floor' leaves the pieces per "
        "lightpath fractional (the busiest link's pieces over the channels).",
        "",
        "| tree | S | K | mirror | hops | whole (ms) | floor (ms) | whole / target "
        "| pieces a lightpath per slot (whole) | scales |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]

    def row(name: str, slots: int, parts: int, mirror: bool,
            scales: tuple[float, ...] | None) -> str:
        whole, floor, per, hops = measure(slots, parts, mirror, scales)
        shown = "-" if scales is None else ", ".join(f"{x:.2f}" for x in scales)
        return (f"| {name} | {slots} | {parts} | {int(mirror)} | {sum(hops)} | "
                f"{whole * 1e3:.4f} | {floor * 1e3:.4f} | {whole / target:.3f} | "
                f"{', '.join(str(int(p)) if math.isfinite(p) else 'x' for p in per)} | "
                f"{shown} |")

    for slots, parts, mirror in LEAST:
        lines.append(row("least", slots, parts, mirror, None))
    for slots, parts, mirror, kind in ANNEALED:
        started = time.monotonic()
        _, scales = anneal(slots, parts, mirror, kind, args.iterations, args.seed)
        lines.append(row(f"annealed ({kind}, {time.monotonic() - started:.0f} s)", slots,
                         parts, mirror, scales))
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
