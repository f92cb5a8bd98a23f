"""Optical vs electrical all-reduce: Table 1 and Sec. 4.2's steps, time against message size
(Fig. 4, the crossover), the four DNNs across node counts (Fig. 5)."""

from __future__ import annotations

from app.reproduction.base import Chart, Covered, Section, Series, Table
from app.reproduction.common import claim_finding, formula_time, printed_of
from app.reproduction.electrical import (
    OPTICAL_ELECTRICAL_FAT_TREE,
    optical_against_electrical,
    platform,
)
from app.reproduction.plans import PlanCache, true_time_s
from models.algorithms.catalog import get_algorithm
from models.closed_forms import Unit
from models.electrical import DNN_WORKLOADS, FatTree
from models.findings import Printed, finding
from models.ring import Ring
from solver.electrical import compare
from solver.plan import plan_algorithm

TITLE = "Optical vs electrical all-reduce: steps, crossover, DNN times and wavelengths"
TEXT = (
    "Ring and RD on the optical ring (true steps) and on the electrical fat-tree (Table 1, "
    "Hockney eqs. 8-9, SimGrid), across message sizes and node counts for the four DNNs, "
    "and against the number of wavelengths (Fig. 6)."
)


PLATFORM = (
    "Table 2: optical ring, 64 wavelengths, 40 Gbps per wavelength, 25 us MRR "
    "reconfiguration; electrical: " + platform(OPTICAL_ELECTRICAL_FAT_TREE)
)
ELECTRICAL_TABLE = "optical_electrical_reduction"  # Fig. 5
COVERAGE = [
    Covered(
        "Fig. 1, 2",
        "the electrical and optical architectures",
        not_reproducible="architecture diagrams",
    ),
    Covered("Fig. 3", "Ring and RD on 4 nodes", not_reproducible="a drawing of the schedules"),
    Covered(
        "Table 1",
        "steps of Ring and RD, optical and electrical",
        tables=("optical_electrical_steps",),
        findings=("Table 1", "Sec. 4.2"),
    ),
    Covered(
        "Table 2",
        "the simulated platforms",
        not_reproducible="parameters: used as stated (the platform line above)",
    ),
    Covered(
        "Fig. 4",
        "time against message size at N = 1024; the crossover sizes",
        tables=("optical_electrical_sizes",),
        charts=("optical_electrical_sizes",),
        findings=("Fig. 4",),
        paper_values="the crossover sizes of Sec. 5.2 (64 MB optical, 1024 MB electrical): "
        "dotted lines; the curves carry no labelled values",
    ),
    Covered(
        "Fig. 5",
        "time per DNN against N, optical against electrical; the averages",
        tables=(ELECTRICAL_TABLE,),
        charts=("optical-electrical_vs_electrical_*",),
        findings=("Sec. 5, Fig. 5",),
        paper_values="none: the bars carry no labelled values; the text's averages are findings",
    ),
    Covered(
        "Fig. 6",
        "Ring and RD against the number of wavelengths (N = 1024, four DNNs)",
        tables=("optical_electrical_wavelengths",),
        charts=("optical_electrical_wavelengths",),
        findings=("Fig. 6",),
        paper_values="none: the bars carry no labelled values; the text states only that RD "
        "falls with w and Ring does not",
    ),
]


def steps_table() -> Table:
    return Table.of(
        "optical_electrical_steps",
        "Table 1 and Sec. 4.2: steps (w = 64)",
        {
            "algorithm": "all-reduce algorithm",
            "network": "optical ring or electrical fat-tree",
            "nodes": "N",
            "printed": "steps as printed",
            "formula": "the paper's closed form as printed",
            "true": "true steps (optical: certified RWA); electrical: none (a schedule count)",
            "verdict": "computed",
        },
    )


def sizes_table() -> Table:
    return Table.of(
        "optical_electrical_sizes",
        "Time against message size",
        {
            "nodes": "N",
            "message_bytes": "bytes all-reduced per node",
            "o_ring_s": "optical Ring, true steps x slot time (s)",
            "o_rd_s": "optical RD, true steps x slot time (s)",
            "e_ring_hockney_s": "electrical Ring, Hockney eq. (8) (s)",
            "e_rd_hockney_s": "electrical RD, Hockney eq. (9) (s)",
            "e_ring_simulated_s": "electrical Ring simulated by SimGrid (s)",
            "e_rd_simulated_s": "electrical RD simulated by SimGrid (s)",
            "crossover_bytes": "the size from which optical Ring beats optical RD (bytes)",
        },
    )


def dnn_table() -> Table:
    return Table.of(
        "optical_electrical_dnn",
        "DNN gradients (float32), N = 128 .. 1024",
        {
            "workload": "the DNN",
            "nodes": "N",
            "message_bytes": "its float32 gradients (bytes)",
            "o_ring_s": "optical Ring, true (s)",
            "o_rd_s": "optical RD, true (s)",
            "e_ring_hockney_s": "electrical Ring, Hockney (s)",
            "e_rd_hockney_s": "electrical RD, Hockney (s)",
        },
    )


def optical_electrical(cache: PlanCache, quick: bool) -> Section:
    section = Section("optical-electrical", TITLE, TEXT, PLATFORM, coverage=COVERAGE)
    steps = steps_table()
    for p in printed_of("optical-electrical"):
        if p.quantity != "steps":
            continue
        name, network, n = p.parameters["algorithm"], p.parameters["network"], p.parameters["nodes"]
        if network == "optical":
            summary = cache.plan("allreduce", name, Ring(n, 1, 64))
            f = claim_finding(p, summary)
        else:
            formula = 2 * (n - 1) if name == "ring" else (n - 1).bit_length()
            f = finding(p, formula, None, "electrical steps are a count of the schedule")
        section.findings.append(f)
        steps.rows.append([name, network, n, p.value, f.formula, f.true, f.verdict.value])
    section.tables.append(steps)
    nodes = (128,) if quick else (128, 1024)
    sizes = [16e6, 256e6] if quick else [16e6, 64e6, 256e6, 1024e6, 4096e6, 16384e6]
    crossing = sizes_table()
    chart = Chart(
        "optical_electrical_sizes",
        f"Optical vs electrical Fig. 4: all-reduce time against message size (N = {nodes[-1]})",
        "message size (bytes)",
        "time (s)",
        [],
        log_x=True,
        log_y=True,
    )
    for n in nodes:
        ring = Ring(n, 1, 64)
        plans = [
            plan_algorithm(
                get_algorithm("allreduce", a),
                ring,
                get_algorithm("allreduce", a).paper_shape(ring),
                sizes,
            )
            for a in ("ring", "rd")
        ]
        result = compare(plans, n, sizes, FatTree())
        e_ring, e_rd = result.algorithms
        for i, size in enumerate(sizes):
            crossing.rows.append(
                [
                    n,
                    size,
                    plans[0].timings[i].time_s,
                    plans[1].timings[i].time_s,
                    e_ring.timings[i].hockney_s,
                    e_rd.timings[i].hockney_s,
                    e_ring.simulated_s(i),
                    e_rd.simulated_s(i),
                    result.crossover_bytes,
                ]
            )
        if n == nodes[-1]:
            for label, ys in (
                ("O-Ring", [p.time_s for p in plans[0].timings]),
                ("O-RD", [p.time_s for p in plans[1].timings]),
                ("E-Ring (Hockney)", [t.hockney_s for t in e_ring.timings]),
                ("E-RD (Hockney)", [t.hockney_s for t in e_rd.timings]),
            ):
                chart.series.append(Series(label, list(sizes), ys))
    section.tables.append(crossing)
    if 1024 in nodes:
        _crossovers(section, crossing, sizes)
        chart.paper_marks = [
            (size, f"paper: Ring beats RD above {size / 1e6:g} MB ({network})")
            for network, size in PRINTED_CROSSOVER_BYTES.items()
        ]
    section.charts.append(chart)
    dnn = dnn_table()
    for workload in DNN_WORKLOADS.values():
        for n in (128,) if quick else (128, 256, 512, 1024):
            ring = Ring(n, 1, 64)
            size = workload.gradient_bytes
            o = [
                plan_algorithm(
                    get_algorithm("allreduce", a),
                    ring,
                    get_algorithm("allreduce", a).paper_shape(ring),
                    [size],
                )
                for a in ("ring", "rd")
            ]
            e = compare(o, n, [size], FatTree(), simulate=False).algorithms
            dnn.rows.append(
                [
                    workload.name,
                    n,
                    size,
                    o[0].timings[0].time_s,
                    o[1].timings[0].time_s,
                    e[0].timings[0].hockney_s,
                    e[1].timings[0].hockney_s,
                ]
            )
    section.tables.append(dnn)
    _wavelengths(cache, section, 128 if quick else 1024)
    dnn_nodes = [128, 256] if quick else [128, 256, 512, 1024]
    optical_against_electrical(
        cache, section, "optical-electrical", dnn_nodes, OPTICAL_ELECTRICAL_FAT_TREE,
        ELECTRICAL_TABLE,
    )
    return section


# Sec. 5.2 (Fig. 4): "Ring all-reduce outperforms RD when the data transfer size exceeds 64MB
# and 1024MB" (optical, electrical; N = 1024, sizes 16 MB to 16 GB).
PRINTED_CROSSOVER_BYTES = {"optical": 64e6, "electrical": 1024e6}


def _last_rd_win(
    sizes: list[float], ring_s: list[float | None], rd_s: list[float | None]
) -> float | None:
    """The largest size of the grid at which RD is not slower than Ring, if Ring wins at every
    larger one (the paper's "Ring outperforms RD when the size exceeds it")."""
    if any(t is None for t in [*ring_s, *rd_s]):
        return None
    last = None
    for size, ring, rd in zip(sizes, ring_s, rd_s, strict=True):
        assert ring is not None and rd is not None
        if rd <= ring:
            last = size
    return last


def _crossovers(section: Section, table: Table, sizes: list[float]) -> None:
    """Fig. 4's crossover sizes at N = 1024: optical by the closed forms (eqs. 6-7) and by true
    steps; electrical by Hockney (eqs. 8-9) and by SimGrid (a model value)."""
    rows = [r for r in table.rows if r[0] == 1024]
    at = {c: table.columns.index(c) for c in table.columns}
    ring = Ring(1024, 1, 64)
    formula_ring = [formula_time(get_algorithm("allreduce", "ring"), ring, s) for s in sizes]
    formula_rd = [formula_time(get_algorithm("allreduce", "rd"), ring, s) for s in sizes]
    column = {c: [r[at[c]] for r in rows] for c in at}
    values = {
        "optical": (
            _last_rd_win(sizes, formula_ring, formula_rd),
            _last_rd_win(sizes, column["o_ring_s"], column["o_rd_s"]),
            None,
        ),
        "electrical": (
            _last_rd_win(sizes, column["e_ring_hockney_s"], column["e_rd_hockney_s"]),
            None,
            _last_rd_win(sizes, column["e_ring_simulated_s"], column["e_rd_simulated_s"]),
        ),
    }
    for network, printed_bytes in PRINTED_CROSSOVER_BYTES.items():
        formula, true, simulated = values[network]
        p = Printed(
            "Optical vs electrical all-reduce",
            "Fig. 4",
            "crossover_bytes",
            {"network": network, "nodes": 1024, "wavelengths": 64},
            Unit.BYTES,
            printed_bytes,
            "Sec. 5.2 and conclusion 1 (text after Fig. 5): Ring outperforms RD above it",
        )
        note = "the largest size of the grid (16 MB to 16 GB) at which RD is not slower"
        section.findings.append(
            finding(
                p,
                formula,
                true,
                note,
                model=simulated,
                model_kind=None if simulated is None else "simulated",
            )
        )


FIG6_WAVELENGTHS = (8, 16, 32, 64, 128)


def _wavelengths(cache: PlanCache, section: Section, nodes: int) -> None:
    """Fig. 6: Ring and RD at N = 1024 for w = 8 to 128: steps by Table 1 (eqs. 6 and 7) and
    true, and the true time of each DNN's all-reduce (the paper draws times per DNN)."""
    workloads = list(DNN_WORKLOADS.values())
    table = Table.of(
        "optical_electrical_wavelengths",
        f"Fig. 6: Ring and RD against the number of wavelengths (N = {nodes})",
        {
            "algorithm": "optical all-reduce",
            "wavelengths": "w",
            "formula": "steps by Table 1 (Ring 2(N - 1); RD 2 ceil(log2 N) - ceil(log2 2w) "
            "above N = 2w)",
            "true": "true steps (certified RWA per stage)",
            "verdict": "computed",
        }
        | {f"{w.name}_s": f"true time of {w.name}'s float32 gradients (s)" for w in workloads},
    )
    chart = Chart(
        "optical_electrical_wavelengths",
        f"Optical vs electrical Fig. 6: steps against w (N = {nodes})",
        "wavelengths w",
        "steps",
        [],
        log_x=True,
        log_y=True,
        note="solid: true steps; dashed: Table 1's formula. A DNN's time is steps x its slot "
        "(Ring moves d/N per step, RD d): the table has each DNN's true time.",
    )
    for name in ("ring", "rd"):
        trues, formulas = [], []
        for w in FIG6_WAVELENGTHS:
            summary = cache.plan("allreduce", name, Ring(nodes, 1, w))
            p = Printed(
                "Optical vs electrical all-reduce",
                "Fig. 6",
                "steps",
                {"algorithm": name, "nodes": nodes, "wavelengths": w},
                Unit.STEPS,
                None,
                "Fig. 6 (line 202): N = 1024, w = 8 to 128; no values printed",
            )
            f = claim_finding(p, summary)
            section.findings.append(f)
            times = [true_time_s(summary, x.gradient_bytes) for x in workloads]
            table.rows.append([name, w, f.formula, f.true, f.verdict.value, *times])
            trues.append(float(summary["true_steps"]))
            formulas.append(float(f.formula or 0))
        xs = [float(w) for w in FIG6_WAVELENGTHS]
        label = {"ring": "Ring", "rd": "RD"}[name]
        chart.series += [
            Series(f"{label}: true", xs, trues),
            Series(f"{label}: Table 1", xs, formulas, "--"),
        ]
    section.tables.append(table)
    section.charts.append(chart)
