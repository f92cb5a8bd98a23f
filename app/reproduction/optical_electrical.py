"""Optical vs electrical all-reduce: Table 1 and Sec. 4.2's steps, time against message size
(Fig. 4, the crossover), the four DNNs across node counts (Fig. 5)."""

from __future__ import annotations

from app.reproduction.base import Chart, Section, Series, Table
from app.reproduction.common import claim_finding, printed_of
from app.reproduction.electrical import OPTICAL_ELECTRICAL_FAT_TREE, optical_against_electrical
from app.reproduction.plans import PlanCache
from models.algorithms.catalog import get_algorithm
from models.electrical import DNN_WORKLOADS, FatTree
from models.findings import finding
from models.ring import Ring
from solver.electrical import compare
from solver.plan import plan_algorithm

TITLE = "Optical vs electrical all-reduce: steps, crossover and DNN times"
TEXT = (
    "Ring and RD on the optical ring (true steps) and on the electrical fat-tree (Table 1, "
    "Hockney eqs. 8-9, SimGrid), across message sizes and node counts for the four DNNs."
)


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
    section = Section("optical-electrical", TITLE, TEXT)
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
        f"All-reduce time, N = {nodes[-1]}",
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
    dnn_nodes = [128, 256] if quick else [128, 256, 512, 1024]
    optical_against_electrical(
        cache, section, "optical-electrical", dnn_nodes, OPTICAL_ELECTRICAL_FAT_TREE
    )
    return section
