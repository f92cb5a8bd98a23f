"""An optical algorithm against an electrical one on the fat-tree (WRHT Fig. 5, the
optical-vs-electrical paper's Fig. 5): shared by both papers' modules."""

from __future__ import annotations

from app.reproduction.base import Section, Table
from app.reproduction.common import (
    normalized_charts,
    printed_of,
    reduction_of_formulas,
)
from app.reproduction.plans import PlanCache, claimed_time_s, true_time_s
from models.electrical import DNN_WORKLOADS, FatTree
from models.findings import Printed, finding
from models.ring import Ring
from solver.electrical import compare


def reduction_table(name: str) -> Table:
    """The table of one paper's optical-against-electrical reductions: `name` is the paper's
    own (WRHT's and the optical-vs-electrical paper's shared one name, so one paper's CSV
    overwrote the other's and the report had one anchor twice: review, session 34)."""
    return Table.of(
        name,
        "Optical against electrical, per DNN and node count",
        {
            "algorithm": "the optical algorithm",
            "against": "the electrical algorithm on the fat-tree",
            "nodes": "N",
            "workload": "the DNN whose float32 gradients are all-reduced",
            "optical_true_s": "optical time with true steps (s)",
            "optical_formula_s": "optical time with the closed form's steps (s)",
            "electrical_simulated_s": "electrical time simulated by SimGrid (s)",
            "electrical_hockney_s": "electrical time by Hockney as printed (s)",
        },
    )


def optical_against_electrical(
    cache: PlanCache, section: Section, paper: str, nodes: list[int], network: FatTree,
    table_name: str,
) -> None:
    """A paper's average reductions of an optical algorithm against an electrical one (E-Ring
    or E-RD on the fat-tree), over the four DNNs and `nodes`. Formula: the optical closed form
    (eqs. 6-7) against Hockney as printed (eqs. 8-9); true: true optical steps against the
    SimGrid simulation."""
    table = reduction_table(table_name)
    sizes = [w.gradient_bytes for w in DNN_WORKLOADS.values()]
    wanted = [
        p
        for p in printed_of(paper)
        if p.quantity == "average_time_reduction"
        and p.parameters["against"] in ("electrical", "e-ring", "e-rd")
    ]
    pairs = {(p.parameters["algorithm"], _electrical_name(p)) for p in wanted}
    series: dict[tuple[str, str], list[list[float | None]]] = {
        pair: [[], [], [], []] for pair in pairs
    }
    for n in nodes:
        electrical = {e.name: e for e in compare([], n, sizes, network).algorithms}
        for optical, against in sorted(pairs):
            summary = cache.plan("allreduce", optical, Ring(n, 1, 64))
            for i, workload in enumerate(DNN_WORKLOADS):
                t = electrical[against].timings[i]
                row = [
                    true_time_s(summary, sizes[i]),
                    claimed_time_s(summary, sizes[i]),
                    None if t.simulated is None else t.simulated.time_s,
                    t.hockney_s,
                ]
                for column, value in zip(series[(optical, against)], row, strict=True):
                    column.append(value)
                table.rows.append([optical, against, n, workload, *row])
    section.tables.append(table)
    curves = Table("curves", "", ["series", "nodes", "workload", "time_s"])
    points: dict[tuple[str, int, str], float | None] = {}
    for optical, against, n, workload, optical_s, _, simulated_s, _ in table.rows:
        points[(f"O-{optical}", n, workload)] = optical_s
        points[(f"{against} (SimGrid)", n, workload)] = simulated_s
    curves.rows = [[series, n, workload, t] for (series, n, workload), t in points.items()]
    optical_names = sorted({optical for optical, _ in pairs})
    first = "O-wrht" if "wrht" in optical_names else f"O-{optical_names[0]}"  # WRHT Fig. 5
    section.charts += normalized_charts(
        curves,
        f"{paper}_vs_electrical",
        f"{section.title.split(':')[0]}",
        (first, "googlenet"),
        "series",
        "time_s",
    )
    for p in wanted:
        optical_true, optical_formula, simulated, hockney = series[
            (p.parameters["algorithm"], _electrical_name(p))
        ]
        simulated_pct = reduction_of_formulas(optical_true, simulated)
        formula = reduction_of_formulas(optical_formula, hockney)
        note = (
            f"N = {nodes}; rwaopt's value: true optical steps against SimGrid's electrical "
            "times (the platform above)"
        )
        section.findings.append(
            finding(
                p,
                formula,
                None,
                note,
                model=simulated_pct,
                model_kind=None if simulated_pct is None else "simulated",
            )
        )


def platform(network: FatTree) -> str:
    """The electrical platform as a sentence."""
    return (
        f"fat-tree of {network.hosts_per_leaf + network.spines}-port switches, "
        f"{network.link_gbps:g} Gbps links, {network.link_latency_us:g} us router delay, "
        f"{network.packet_bytes} B packets; SimGrid's default network model"
    )


# WRHT Table II: two-level cluster of 32-port routers, 25 Gbps, 50 us, 64-byte packets.
WRHT_FAT_TREE = FatTree(hosts_per_leaf=16, spines=16, link_latency_us=50.0, packet_bytes=64)
# Optical-vs-electrical Table 2 (36-port switches in Sec. 3): 25 Gbps, 25 us, 128-byte packets.
OPTICAL_ELECTRICAL_FAT_TREE = FatTree()


def _electrical_name(p: Printed) -> str:
    """'electrical' means the same algorithm on the fat-tree; else e-ring / e-rd by name."""
    against = str(p.parameters["against"])
    return f"e-{p.parameters['algorithm']}" if against == "electrical" else against
