"""WRHT: Table I, Fig. 2's 15-node example, Fig. 4 (against Ring, H-Ring and BT) and Fig. 5
(against the electrical fat-tree)."""

from __future__ import annotations

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
from app.reproduction.plans import PlanCache, claimed_time_s, true_time_s
from models.electrical import DNN_WORKLOADS
from models.findings import finding
from models.ring import Ring

TITLE = "WRHT: Table I (N = 1000, w = 64)"
TEXT = (
    "Printed steps of Table I, the formula as printed, and the true steps at the paper's "
    "shape (H-Ring with g = 5 as printed)."
)


PLATFORM = (
    "Table II: optical double ring, 64 wavelengths, 40 Gbps per wavelength, 25 us MRR "
    "reconfiguration; electrical (Fig. 5): " + platform(WRHT_FAT_TREE)
)
COVERAGE = [
    Covered("Fig. 1", "the optical interconnect", not_reproducible="an architecture diagram"),
    Covered(
        "Fig. 2",
        "BT (8 steps) and WRHT (3 steps) on 15 nodes, w = 2",
        tables=("wrht_fig2",),
        findings=("Fig. 2",),
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
    ),
    Covered(
        "Fig. 5",
        "time per DNN against N, optical against the electrical fat-tree",
        tables=("optical_electrical_reduction",),
        charts=("wrht_vs_electrical_*",),
        findings=("Fig. 5",),
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
        cache, section, "wrht", [128, 256] if quick else [128, 256, 512, 1024], WRHT_FAT_TREE
    )
    return section
