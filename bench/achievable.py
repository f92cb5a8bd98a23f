"""The papers' algorithms and rwaopt's synthesized schedules against the achievable bound
(SPEC 12, docs/achievable.md): README "Beyond the papers".

For N = 64, 256, 1024, 4096 (w = 64, F = 1, default optics and hardware) and each collective,
one default plan per message size (4 MiB, 64 MiB; `rwaopt plan`, best shapes, 30 s search per
algorithm): the fastest optically feasible paper algorithm, the synthesized schedule (`synth`),
the achievable bound, and the ratios. Also how long one bound takes at that N (best of 20).

    .venv/bin/python bench/achievable.py [--nodes 64 --nodes 256] [--out docs/bench-achievable.md]
    .venv/bin/python bench/achievable.py --readme docs/bench-achievable.md  # README's table

`--readme FILE` prints README "Beyond the papers"'s table from a file this script wrote
(nothing is planned), so the README carries exactly the measured numbers.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path
from typing import Any

from app.planning import prepare
from app.schemas.requests import PlanRequest
from app.schemas.results import AlgorithmResult
from app.service import answer
from models.achievable import (
    achievable_bound,
    gossip_trees,
    reduce_then_broadcast_slots,
    split_trees,
    tree_hops,
)
from models.ring import Hardware, Ring
from models.synthesis import SynthAllReduce, centred, holding
from solver.catalog import algorithms

SIZES = (4 * 2**20, 64 * 2**20)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, action="append", default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--readme", type=Path, default=None)
    args = parser.parse_args()
    if args.readme:
        print("\n".join(readme_table(args.readme.read_text())))
        return
    rows = [
        "| N | collective | message | fastest feasible paper algorithm | its time (s) | "
        "synth (shape) | synth time (s) | achievable (s) | paper / synth | "
        "synth / achievable | paper / achievable | plan (s) | bound (ms): first / then |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(rows), flush=True)
    family = [
        "",
        "All-reduce against the bound of the reduce-then-broadcast class (the plan's "
        "`reduce_then_broadcast_s`): every such schedule (synth without a swept top, Ring, BT, "
        "H-Ring, WRHT with one representative left; `Algorithm.reduces_then_broadcasts`, "
        "checked on the data flow) needs 2 ceil(floor(N/2) / H) slots "
        "(`models.achievable.reduce_then_broadcast_slots`, docs/achievable.md); synth with its "
        "top level swept is outside the class and may beat that bound:",
        "",
        "| N | message | slots | reduce-then-broadcast bound (s) | achievable (s) | synth (s) "
        "| synth's top | synth / class bound |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n in args.nodes or [64, 256, 1024, 4096]:
        for collective in ("allgather", "reducescatter", "allreduce", "alltoall"):
            for size in SIZES:
                line, synth_s, inside, within = row(n, collective, size)
                rows.append(line)
                print(rows[-1], flush=True)
                if within is not None:
                    family.append(class_row(n, size, synth_s, inside, within))
    rows += family
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows.append(
        f"\nw = 64, F = 1, default optics (hop limit 80), one plan per message size. Peak RSS "
        f"{peak:.0f} MB. 'bound (ms)': one achievable_bound call, the first (building the "
        "tree tables of N and the hop limit) and the best of 20 after it. A paper "
        "algorithm 'none': no shape of any paper algorithm of the collective is optically "
        "feasible; 'none proposed': the papers have no algorithm of the collective "
        "(reduce-scatter: chunk i of every node's vector ends summed at node i). Each "
        "algorithm is counted by its fastest optically feasible shape (the search's, "
        "routed within a hop limit where that made it feasible), as the "
        "recommendation counts it."
    )
    print(rows[-1])
    if args.out:
        args.out.write_text(
            "# Beyond the papers: synthesized schedules against the achievable bound\n\n"
            "`.venv/bin/python bench/achievable.py`\n\n" + "\n".join(rows) + "\n"
        )


def readme_table(measured: str) -> list[str]:
    """The README's table from this script's output: per row the fastest feasible paper
    algorithm and synth with time and share of the achievable (bound / time), the bound,
    and how many times faster synth is."""
    out = [
        "| N | collective | message | fastest feasible paper algorithm: time, of the "
        "achievable | synth: shape, time, of the achievable | achievable | synth vs paper |",
        "|---|---|---|---|---|---|---|",
    ]
    for line in measured.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 13 or not cells[0].isdigit():
            continue
        n, collective, message, paper, p_time, shape, s_time, bound = cells[:8]
        achievable = float(bound)
        synth = f"{shape}: {s_time} s, {100 * achievable / float(s_time):.3g} %"
        if paper == "none proposed":
            paper_cell, versus = "none proposed by the papers", "-"
        elif paper == "none":
            paper_cell, versus = "none feasible", "only feasible"
        else:
            paper_cell = (
                f"{paper.replace(' ()', '')}: {p_time} s, "
                f"{100 * achievable / float(p_time):.3g} %"
            )
            versus = f"{cells[8]} faster"
        out.append(
            f"| {n} | {collective} | {message} | {paper_cell} | {synth} | {bound} s | {versus} |"
        )
    return out


def class_row(n: int, size: int, synth_s: float, inside: bool | None, bound: float) -> str:
    ring, slots = Ring(n, 1, 64), reduce_then_broadcast_slots(n, 80)
    plain = achievable_bound("allreduce", ring, size, Hardware(), 80).bound_s
    return (
        f"| {n} | {size // 2**20} MiB | {slots} | {bound:.4g} | {plain:.4g} | {synth_s:.4g} | "
        f"{'reduce-scatter + all-gather' if inside else 'swept (outside the class)'} | "
        f"{synth_s / bound:.3g}x |"
    )


def row(n: int, collective: str, size: int) -> tuple[str, float, bool | None, float | None]:
    """The table's row, synth's time, whether synth's fastest feasible shape reduces then
    broadcasts (all-reduce; None otherwise), and that class's bound (all-reduce)."""
    request = PlanRequest.model_validate(
        {
            "ring": {"nodes": n, "wavelengths_per_fiber": 64},
            "collective": collective,
            "message_sizes_bytes": [size],
        }
    )
    started = time.monotonic()
    result = answer(prepare(request))
    plan_s = time.monotonic() - started
    papers = {a.name for a in algorithms(collective) if a.from_paper}
    feasible = [
        (found, a)
        for a in result.algorithms
        if a.algorithm in papers and (found := feasible_shape(a)) is not None
    ]
    paper = min(feasible, key=lambda pair: pair[0][0], default=None)
    synth = next(a for a in result.algorithms if a.algorithm == "synth")
    bound = result.achievable[0].bound_s
    synth_found = feasible_shape(synth)
    if synth_found is None:
        raise SystemExit(f"synth has no feasible shape at N = {n}, {collective}: a bug")
    s_time, s_params, _ = synth_found
    shape = "x".join(map(str, s_params["radices"]))
    notes = []
    if s_params.get("roots"):  # the whole ring's least tree, one per part of the vector
        notes.append(f"{s_params['tree']}-slot trees from {s_params['roots']} roots"
                     + (", every other mirrored" if s_params.get("mirror") else ""))
    elif s_params.get("tree"):
        notes.append(f"{s_params['tree']}-slot tree")  # the lowest window along a least tree
    if s_params.get("direct"):
        notes.append(f"{s_params['direct']} direct")  # the lowest levels exchanged in one slot
    if s_params.get("sweep"):
        notes.append("top swept")  # all-reduce's top level by running sums both ways
    centres = centred(s_params)  # the sweep's sums formed at fewer members (all-reduce)
    if centres is not None:
        notes.append(f"sums at {centres[0]} of {centres[1]}")
    held = holding(s_params)  # idle residues (all-reduce)
    if held is not None:
        notes.append(f"{held[0]} of {held[1]} holding")
    if notes:
        shape += f" ({', '.join(notes)})"
    if not papers:
        paper_cells = "none proposed | - | "
        ratio = "-"
        paper_bound = "-"
    elif paper is None:
        paper_cells = "none | - | "
        ratio = "-"
        paper_bound = "-"
    else:
        (p_time, p_params, hops), p = paper
        named = ", ".join(f"{k}={v}" for k, v in p_params.items() if k != "relay_hops")
        within = "" if hops is None else f", within {hops} hops"
        paper_cells = f"{p.algorithm} ({named}{within}) | {p_time:.4g} | "
        ratio = f"{p_time / s_time:.3g}x"
        paper_bound = f"{p_time / bound:.3g}x"
    line = (
        f"| {n} | {collective} | {size // 2**20} MiB | {paper_cells}{shape} | "
        f"{s_time:.4g} | {bound:.4g} | {ratio} | {s_time / bound:.3g}x | {paper_bound} | "
        f"{plan_s:.1f} | {bound_ms(collective, n, size)} |"
    )
    inside = None
    if collective == "allreduce":
        inside = SynthAllReduce().reduces_then_broadcasts(Ring(n, 1, 64), s_params)
    return line, s_time, inside, result.achievable[0].reduce_then_broadcast_s


def feasible_shape(a: AlgorithmResult) -> tuple[float, dict[str, Any], int | None] | None:
    """The algorithm's fastest optically feasible shape at the plan's one message size, as
    the recommendation counts it: its search's feasible winner, or without a search its
    reported shape when feasible. (time, parameters, hop limit it was routed within)."""
    search = a.shapes.search
    if search is not None and search.best_feasible_by_message:
        found = search.best_feasible_by_message[0]
        if found is None:
            return None
        best = a.shapes.best_feasible
        return found.time_s, dict(found.parameters), None if best is None else best.hop_limit
    if not a.feasibility.feasible:
        return None
    return a.timings[0].time_s, dict(a.parameters), None


def bound_ms(collective: str, nodes: int, size: int) -> str:
    """One achievable_bound call: the first, which builds the tree tables of (N, H) (and,
    all-reduce, Fact 3g's of (N, H, fan) and Fact 3h's ascents), and the best of 20 after it
    (the tables kept)."""
    ring, hw = Ring(nodes, 1, 64), Hardware()
    tree_hops.cache_clear()
    gossip_trees.cache_clear()
    split_trees.cache_clear()
    times = []
    for _ in range(21):
        started = time.perf_counter()
        achievable_bound(collective, ring, size, hw, 80)
        times.append(time.perf_counter() - started)
    return f"{times[0] * 1e3:.1f} / {min(times[1:]) * 1e3:.3f}"


if __name__ == "__main__":
    main()
