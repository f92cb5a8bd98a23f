"""WRHT: Table I, Fig. 2's 15-node example, Fig. 4 (against Ring, H-Ring and BT) and Fig. 5
(against the electrical fat-tree)."""

from __future__ import annotations

from typing import Any

from app.reproduction.base import Covered, Section, Table
from app.reproduction.common import (
    BEST_SHAPE_BUDGET_S,
    average_reduction_pct,
    normalized_charts,
    printed_of,
    printed_steps,
    reduction_of_formulas,
)
from app.reproduction.electrical import WRHT_FAT_TREE, optical_against_electrical, platform
from app.reproduction.optree_journal import STEP_COLUMNS
from app.reproduction.plans import PlanCache, Summary, claimed_time_s, stage_channels, true_time_s
from models.closed_forms import (
    Unit,
    wrht_allreduce_lower_bound_steps,
    wrht_allreduce_steps,
    wrht_group_wavelengths,
    wrht_last_step_wavelengths,
)
from models.electrical import DNN_WORKLOADS
from models.findings import Finding, Printed, finding
from models.ring import Ring

TITLE = "WRHT: Table I, Fig. 2, Figs. 4 and 5, Lemma 1 and Sec. III-C.2"
TEXT = (
    "Printed steps of Table I and Fig. 2, the formula as printed, and the true steps at the "
    "paper's shape (H-Ring with g = 5 as printed); the average reductions of Figs. 4 and 5; "
    "Lemma 1's lower bound and Sec. III-C.2's wavelength counts against the schedule."
)


PLATFORM = (
    "Table II: optical double ring, 64 wavelengths, 40 Gbps per wavelength, 25 us MRR "
    "reconfiguration; electrical (Fig. 5): " + platform(WRHT_FAT_TREE)
)
WRHT_ELECTRICAL_TABLE = "wrht_electrical_reduction"  # Fig. 5
COVERAGE = [
    Covered("Fig. 1", "the optical interconnect", not_reproducible="an architecture diagram"),
    Covered(
        "Fig. 2",
        "BT (8 steps) and WRHT (3 steps) on 15 nodes, w = 2",
        tables=("wrht_fig2",),
        findings=("Fig. 2", "Sec. III-C.2"),
        paper_values="the captions' 8 and 3 steps and the text's wavelengths: findings",
    ),
    Covered("Fig. 3", "WRHT's working principle", not_reproducible="a drawing of the algorithm"),
    Covered(
        "Table I",
        "steps of Ring, H-Ring, BT and WRHT at N = 1000, w = 64",
        tables=("wrht_table1",),
        findings=("Table I",),
    ),
    Covered(
        "Table II",
        "the simulated platforms",
        not_reproducible="parameters: used as stated (the platform line above)",
    ),
    Covered(
        "Fig. 4",
        "time per DNN against N, against Ring, H-Ring and BT",
        tables=("wrht_fig4",),
        charts=("wrht_fig4_*",),
        findings=("Fig. 4",),
        paper_values="none: the bars carry no labelled values; the text's averages are "
        "findings 'Fig. 4'",
    ),
    Covered(
        "Lemma 1",
        "the lower bound 2 ceil(log_(2w+1) N) on WRHT's steps",
        tables=("wrht_lemmas",),
        findings=("Lemma 1",),
    ),
    Covered(
        "Sec. III-C.2",
        "wavelengths of a group (ceil(m/2)) and of the representatives' all-to-all",
        tables=("wrht_lemmas",),
        findings=("Sec. III-C.2",),
    ),
    Covered(
        "Fig. 5",
        "time per DNN against N, optical against the electrical fat-tree",
        tables=(WRHT_ELECTRICAL_TABLE,),
        charts=("wrht_vs_electrical_*",),
        findings=("Fig. 5",),
        paper_values="none: the bars carry no labelled values; the text's averages are "
        "findings 'Fig. 5'",
    ),
]


def fig4_table() -> Table:
    return Table.of(
        "wrht_fig4",
        "Fig. 4: all-reduce time per DNN (float32 gradients), paper shapes",
        {
            "algorithm": "optical all-reduce algorithm, at the paper's shape",
            "nodes": "N (w = 64)",
            "workload": "the DNN whose float32 gradients are all-reduced",
            "true_time_s": "true steps x slot time (s)",
            "closed_form_time_s": "the closed form's steps x slot time (s)",
        },
    )


def wrht(cache: PlanCache, quick: bool) -> Section:
    section = Section("wrht", TITLE, TEXT, PLATFORM, coverage=COVERAGE)
    budget = None if quick else BEST_SHAPE_BUDGET_S
    printed_steps(
        cache,
        section,
        Table.of("wrht_table1", "Table I (N = 1000, w = 64)", STEP_COLUMNS),
        "wrht",
        "Table I",
        "allreduce",
        budget,
    )
    printed_steps(
        cache,
        section,
        Table.of("wrht_fig2", "Fig. 2: BT and WRHT on 15 nodes, w = 2", STEP_COLUMNS),
        "wrht",
        "Fig. 2",
        "allreduce",
        None,
    )
    nodes = [1024] if quick else [1024, 2048, 3072, 4096]
    sizes = [w.gradient_bytes for w in DNN_WORKLOADS.values()]
    table = fig4_table()
    times: dict[str, tuple[list[float], list[float | None]]] = {}
    for name in ("wrht", "ring", "hring", "bt"):
        true_s: list[float] = []
        formula_s: list[float | None] = []
        for n in nodes:
            summary = cache.plan("allreduce", name, Ring(n, 1, 64))
            for workload, size in zip(DNN_WORKLOADS, sizes, strict=True):
                true_s.append(true_time_s(summary, size))
                formula_s.append(claimed_time_s(summary, size))
                table.rows.append([name, n, workload, true_s[-1], formula_s[-1]])
        times[name] = (true_s, formula_s)
    section.tables.append(table)
    section.charts += normalized_charts(
        table, "wrht_fig4", "WRHT Fig. 4", ("wrht", "googlenet"), "algorithm", "true_time_s"
    )
    for p in printed_of("wrht"):
        if p.quantity != "average_time_reduction" or p.item != "Fig. 4":
            continue
        other = p.parameters["against"]
        true = average_reduction_pct(times["wrht"][0], times[other][0])
        formula = reduction_of_formulas(times["wrht"][1], times[other][1])
        note = "" if not quick else f"quick: N = {nodes} only"
        section.findings.append(finding(p, formula, true, note))
    optical_against_electrical(
        cache, section, "wrht", [128, 256] if quick else [128, 256, 512, 1024], WRHT_FAT_TREE,
        WRHT_ELECTRICAL_TABLE,
    )
    lemmas_against_schedule(cache, section, [(15, 2), (1000, 64)] + [(n, 64) for n in nodes])
    return section


LEMMA_COLUMNS = {
    "check": "Lemma 1 (steps), ceil(m/2) (a group's wavelengths) or ceil(m*^2/8) (the "
    "representatives' all-to-all)",
    "nodes": "N",
    "wavelengths": "w",
    "group": "m (the paper's 2w + 1, or an even m for contrast)",
    "printed": "as printed (Sec. III-B's example), else -",
    "formula": "the paper's expression",
    "true": "rwaopt: true steps of the schedule, or chi of that stage (channels per direction)",
    "verdict": "computed (Lemma 1 is a lower bound: met by any value at or above it)",
}
# (N, w, m): even groups, where the middle node has m/2 senders on one side, for contrast.
EVEN_GROUPS = ((16, 2, 4), (64, 4, 8))
LEVEL1 = "reduce level 1"
ALL_TO_ALL = "all-to-all among representatives"


def lemmas_against_schedule(
    cache: PlanCache, section: Section, points: list[tuple[int, int]]
) -> None:
    """WRHT's own bounds against its schedule: Lemma 1's lower bound 2 ceil(log_(2w+1) N)
    against the true steps at m = 2w + 1 (its case 2, 2 ceil(log_m N) - 1, is below it);
    Sec. III-C.2's ceil(m/2) wavelengths for a group gathering at its middle node (for odd m
    the middle has (m - 1)/2 senders on each side) and ceil(m*^2/8) for the representatives'
    all-to-all (odd m*: (m*^2 - 1)/8 suffice), against chi of those stages."""
    table = Table.of("wrht_lemmas", "Lemma 1 and Sec. III-C.2 against the schedule", LEMMA_COLUMNS)
    printed = {
        (p.quantity, p.parameters["nodes"]): p
        for p in printed_of("wrht")
        if p.item == "Sec. III-C.2"
    }
    shapes = [(n, w, 2 * w + 1) for n, w in points] + list(EVEN_GROUPS)
    for n, w, m in shapes:
        ring = Ring(n, 1, w)
        summary = cache.plan("allreduce", "wrht", ring, {"group": m})
        params: dict[str, Any] = {"algorithm": "wrht", "nodes": n, "wavelengths": w, "group": m}
        rows = []
        if m == 2 * w + 1:
            with_all_to_all, without = wrht_allreduce_steps(n, m)
            p = Printed(
                "WRHT",
                "Lemma 1",
                "steps_lower_bound",
                params,
                Unit.STEPS,
                None,
                "Lemma 1 (line 115): 2 ceil(log_(2w+1) N), a lower bound on WRHT's steps",
            )
            note = (
                f"true: WRHT at m = 2w + 1 by the paper's rule; its two cases: {with_all_to_all}"
                f" and {without}"
            )
            rows.append(
                finding(
                    p,
                    wrht_allreduce_lower_bound_steps(n, w),
                    summary["true_steps"],
                    note,
                    lower_bound=True,
                )
            )
        rows.append(_stage_finding(printed, "group_wavelengths", params, summary, LEVEL1))
        if any(stage[0] == ALL_TO_ALL for stage in summary["channels"]):
            rows.append(_stage_finding(printed, "last_step_wavelengths", params, summary))
        for f in rows:
            section.findings.append(f)
            check = {"steps_lower_bound": "Lemma 1"}.get(f.quantity, f.quantity)
            table.rows.append([check, n, w, m, f.printed, f.formula, f.true, f.verdict.value])
    section.tables.append(table)


def _stage_finding(
    printed: dict[tuple[str, int], Printed],
    quantity: str,
    params: dict[str, Any],
    summary: Summary,
    label: str = ALL_TO_ALL,
) -> Finding:
    n, m = params["nodes"], params["group"]
    p = printed.get((quantity, n)) or Printed(
        "WRHT",
        "Sec. III-C.2",
        quantity,
        params,
        Unit.WAVELENGTHS,
        None,
        "Sec. III-C.2 (line 85); not printed at this shape",
    )
    if quantity == "group_wavelengths":
        formula = wrht_group_wavelengths(m)
    else:
        formula = wrht_last_step_wavelengths(n, m)
    chi, proven = stage_channels(summary, label)
    note = f"chi of '{label}'" + ("" if proven else " (not proven optimal)")
    return finding(p, formula, chi, note)
