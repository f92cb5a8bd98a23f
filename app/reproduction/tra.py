"""TRA (tunable-radix all-to-all): K and D (Propositions 1-4) at the paper's (P, r) points, the
sqrt(P) radix rule, and what Sec. V states of its measurements."""

from __future__ import annotations

from app.reproduction.base import Chart, Covered, Section, Series, Table
from app.reproduction.common import BEST_SHAPE_BUDGET_S, printed_of
from app.reproduction.plans import PlanCache, true_time_s
from models.algorithms.catalog import get_algorithm
from models.closed_forms import Unit, tra_blocks, tra_optimal_radix, tra_rounds
from models.dataflow import count_messages
from models.findings import Printed, finding
from models.ring import Ring

TITLE = "TRA: K and D (Propositions 1-4) at the paper's (P, r) points"
TEXT = (
    "K (rounds) and D (blocks a process sends) as printed, by Propositions 1-4, and counted "
    "on the schedule's rounds (each round a uniform shift; equal to block-by-block counts "
    "on simulated schedules, tests/models/test_shapes.py)."
)


PLATFORM = (
    "K and D are counts (no platform); the radix rule under the paper's cost model alpha K + "
    "beta S D at stated beta S / alpha; Theta and Polaris measurements are not repeatable here"
)
THETA = "measured on Theta (Cray XC40, MPI): rwaopt models optical rings, not that machine"
COVERAGE = [
    Covered(
        "Fig. 1-3",
        "TRA's rounds for (r, P) = (3, 8), (3, 9), (3, 11)",
        not_reproducible="drawings of the schedule; its K and D are counted in the table",
    ),
    Covered(
        "Sec. III-B",
        "K and D at P = 16384 and the sqrt(P) rule",
        tables=("tra_k_d",),
        findings=("Sec. III-B",),
    ),
    Covered(
        "Fig. 4",
        "K and D against the radix r (mathematical simulation)",
        tables=("tra_k_d_against_r",),
        charts=("tra_fig4",),
        paper_values="none: the curves carry no labelled values (no P is stated)",
    ),
    Covered(
        "Fig. 5-7",
        "TRA2's intra- and inter-node patterns",
        not_reproducible="drawings of the schedule",
    ),
    Covered(
        "Fig. 8",
        "TRA's time against r on Theta; the best r marked",
        tables=("tra_radix",),
        findings=("Fig. 8", "Fig. 8 (b)"),
        paper_values="the marked best radices (46, 64, 91, 128) and the text's times: "
        "findings; measured curves not repeatable",
    ),
    Covered(
        "Fig. 9",
        "TRA2's time against r1, r2 on Theta",
        tables=("tra_measured",),
        findings=("Fig. 9 (c)", "Fig. 9 (l)"),
        paper_values="the text's stated values: findings; measured curves not repeatable",
    ),
    Covered("Fig. 10", "TRA, TRA2 and MPI_Alltoall on Theta", not_reproducible=THETA),
    Covered(
        "Fig. 11, 12",
        "the same on Polaris",
        not_reproducible="measured on Polaris: not repeatable here",
    ),
    Covered(
        "Fig. 13",
        "a complex DFT's all-to-all and compute time",
        not_reproducible="an application measurement (compute time): no model of it here",
    ),
]


def k_d_table() -> Table:
    return Table.of(
        "tra_k_d",
        "K and D: printed (P = 16384), Propositions 1-4, and counted on the schedule",
        {
            "quantity": "rounds (K) or blocks_sent_per_process (D)",
            "processes": "P",
            "radix": "r",
            "printed": "as printed",
            "formula": "Propositions 1-4",
            "counted": "counted on TRA's schedule",
            "counted_on": "block-by-block schedule, or its rounds (P^2 > 2^24 blocks)",
            "verdict": "computed",
        },
    )


def radix_table() -> Table:
    return Table.of(
        "tra_radix",
        "TRA: the sqrt(P) rule against the best radix",
        {
            "model": "the paper's cost model alpha K + beta S D, or rwaopt's optical time",
            "processes": "P",
            "beta_s_over_alpha": "beta S / alpha of the cost model",
            "printed": "the best radix Fig. 8 marks",
            "rule": "the sqrt(P) rule of Sec. III-B",
            "best": "the best radix under that model",
            "verdict": "computed",
        },
    )


def measured_table() -> Table:
    return Table.of(
        "tra_measured",
        "TRA and TRA2: the measurements Sec. V states in its text (Theta, MPI)",
        {
            "item": "the figure",
            "quantity": "what is stated",
            "processes": "P",
            "printed": "as stated",
            "formula": "the paper's rule, where it has one",
            "optical": "the same comparison on the optical ring (true RWA, %)",
            "verdict": "computed",
        },
    )


SIMULATED_TRA_BLOCKS = 2**24  # P^2 blocks up to which K and D are counted block by block


def _tra_counts(processes: int, radix: int) -> tuple[int, int, str]:
    """K and D of TRA, counted on its block-by-block schedule (models.dataflow) while P^2 <=
    SIMULATED_TRA_BLOCKS (more than a plan counts that way), else as the algorithm counts them
    for plans: on its rounds beyond that (the two agree wherever both run:
    tests/models/test_shapes.py); and which of the two."""
    algorithm = get_algorithm("alltoall", "tra")
    ring = Ring(processes)
    params = algorithm.resolve(ring, {"radix": radix})
    if processes * processes <= SIMULATED_TRA_BLOCKS:
        counted, where = count_messages(algorithm.schedule(ring, params)), "schedule"
    else:
        found = algorithm.message_counts(ring, params)
        assert found is not None  # TRA counts its messages
        counted, where = found
    return counted.rounds, counted.data_sent_per_process, where


def _tra_points(quick: bool) -> list[tuple[int, int]]:
    """(P, r) of Fig. 8 with the radices Sec. III-B discusses (2, the sqrt(P) rule, P): the
    points K and D are counted at besides the printed ones (quick: P = 2048 only)."""
    points = []
    for p in printed_of("tra"):
        if p.quantity == "best_radix" and p.item == "Fig. 8":
            processes = int(p.parameters["processes"])
            if quick and processes != 2048:
                continue
            points += [(processes, r) for r in (2, tra_optimal_radix(processes), processes)]
    return points


def tra(cache: PlanCache, quick: bool) -> Section:
    section = Section("tra", TITLE, TEXT, PLATFORM, coverage=COVERAGE)
    table = k_d_table()
    printed = [p for p in printed_of("tra") if p.quantity in ("rounds", "blocks_sent_per_process")]
    stated = {(p.quantity, p.parameters["processes"], p.parameters["radix"]) for p in printed}
    for processes, radix in _tra_points(quick):
        for quantity in ("rounds", "blocks_sent_per_process"):
            if (quantity, processes, radix) not in stated:
                printed.append(
                    Printed(
                        "TRA",
                        "Fig. 8",
                        quantity,
                        {"algorithm": "tra", "processes": processes, "radix": radix},
                        Unit.ROUNDS if quantity == "rounds" else Unit.BLOCKS,
                        None,
                        "not printed: a (P, r) point of Fig. 8, counted here",
                    )
                )
    for p in printed:
        processes, radix = int(p.parameters["processes"]), int(p.parameters["radix"])
        k, d, counted_on = _tra_counts(processes, radix)
        if p.quantity == "rounds":
            formula, counted = tra_rounds(processes, radix), k
        else:
            formula, counted = tra_blocks(processes, radix), d
        note = f"counted on the {counted_on}" + (
            "" if counted_on == "schedule" else f" (P^2 > {SIMULATED_TRA_BLOCKS} blocks)"
        )
        f = finding(p, formula, counted, note)
        section.findings.append(f)
        table.rows.append(
            [p.quantity, processes, radix, p.value, formula, counted, counted_on, f.verdict.value]
        )
    section.tables.append(table)
    _fig4(section)
    _tra_radix(cache, section, quick)
    _tra_measured(cache, section, quick)
    return section


def _tra_measured(cache: PlanCache, section: Section, quick: bool) -> None:
    """What Sec. V states of Figs. 8 and 9 in its text: measurements on Theta, which rwaopt
    cannot repeat (not_reproducible), beside the paper's own rule where it has one (TRA2's
    inter-node radix r2 = P / Q, which the text prints as 34 for 2048 / 64 = 32) and, for
    TRA's r = 46 against r = 2, the same two radices on the optical ring (N = P = 2048,
    w = 64, P S bytes per node; full reports only)."""
    table = measured_table()
    for p in printed_of("tra"):
        if p.quantity not in ("time_reduction", "best_radix_inter"):
            continue
        processes = int(p.parameters["processes"])
        formula, optical, note = None, None, "measured on Theta: rwaopt cannot repeat it"
        if p.quantity == "best_radix_inter":
            formula = processes // int(p.parameters["processes_per_node"])
            note += "; formula: the paper's rule r2 = N = P / Q"
        elif not quick:
            ring = Ring(processes, 1, 64)
            size = processes * float(p.parameters["block_bytes"])
            times = [
                true_time_s(cache.plan("alltoall", "tra", ring, {"radix": r}), size)
                for r in (p.parameters["radix"], p.parameters["against_radix"])
            ]
            optical = round(100 * (1 - times[0] / times[1]), 2)
            note += f"; on the optical ring (true RWA, {size:g} B per node): {optical:g} %"
        f = finding(p, formula, None, note, optical_percent=optical)
        section.findings.append(f)
        table.rows.append(
            [p.item, p.quantity, processes, p.value, formula, optical, f.verdict.value]
        )
    section.tables.append(table)


def _tra_radix(cache: PlanCache, section: Section, quick: bool) -> None:
    """The sqrt(P) radix rule (Sec. III-B; Fig. 8 prints 46, 64, 91, 128) against the best
    radix under the paper's own cost model alpha K + beta S D (for a stated beta S / alpha)
    and under rwaopt's optical time (best shape searched on true RWA, 4 MiB per node)."""
    table = radix_table()
    algorithm = get_algorithm("alltoall", "tra")
    for p in printed_of("tra"):
        if p.quantity != "best_radix":
            continue
        processes = p.parameters["processes"]
        if quick and processes not in (4096, 16384):
            continue
        ring = Ring(processes)
        rule = tra_optimal_radix(processes)
        costs = {}
        for r in [*range(2, min(processes, 4 * rule) + 1), processes]:
            rounds = algorithm.shift_rounds(ring, algorithm.resolve(ring, {"radix": r})) or []
            costs[r] = (len([x for x in rounds if x[1] > 0]), sum(c for _, c in rounds))
        for ratio in COST_RATIOS:
            least = min(costs[r][0] + ratio * costs[r][1] for r in costs)
            tied = [r for r in costs if costs[r][0] + ratio * costs[r][1] == least]
            best = tied[0]
            note = f"paper's cost model with beta S / alpha = {ratio:g}: K + {ratio:g} D"
            f = finding(p, rule, None, note, model=best, model_kind="cost_model", tied=tied)
            section.findings.append(f)
            table.rows.append(
                ["cost model", processes, ratio, p.value, rule, best, f.verdict.value]
            )
    nodes = 64 if quick else 1024
    best = cache.best("alltoall", "tra", Ring(nodes, 1, 64), BEST_SHAPE_BUDGET_S)
    optical = Printed(
        "TRA",
        "Sec. III-B",
        "best_radix",
        {"processes": nodes, "wavelengths": 64},
        Unit.NODES,
        None,
        "the sqrt(P) rule applied on the optical ring",
    )
    rule = tra_optimal_radix(nodes)
    note = "true: least true optical time at 4 MiB per node, searched on certified RWA"
    radix = best["shape"]["radix"]
    assert isinstance(radix, int)
    f = finding(optical, rule, radix, note)
    section.findings.append(f)
    table.rows.append(["optical time", nodes, None, None, rule, f.true, f.verdict.value])
    section.tables.append(table)


COST_RATIOS = (0.01, 1.0, 100.0)  # beta S / alpha: latency-bound to bandwidth-bound blocks


FIG4_PROCESSES = (64, 1024)  # Fig. 4 prints no P; two sizes show the trade-off


def _fig4(section: Section) -> None:
    """Fig. 4: K and D against the radix r, by Propositions 1-4 and counted on TRA's rounds
    (K: rounds that send; D: blocks a process sends over them), every r from 2 to P."""
    algorithm = get_algorithm("alltoall", "tra")
    table = Table.of(
        "tra_k_d_against_r",
        "Fig. 4: K and D against the radix r (powers of two and sqrt(P) shown; the figure "
        "has every r)",
        {
            "processes": "P",
            "radix": "r",
            "k_formula": "K by Propositions 1 and 3 (rounds)",
            "k_counted": "K counted on TRA's rounds",
            "d_formula": "D by Propositions 2 and 4 (blocks a process sends)",
            "d_counted": "D counted on TRA's rounds",
        },
    )
    chart = Chart(
        "tra_fig4",
        "TRA Fig. 4: K (rounds) and D (blocks sent per process) against the radix r",
        "radix r",
        "count",
        [],
        log_x=True,
        log_y=True,
        note="lines: Propositions 1-4; markers: counted on the rounds. The paper's figure "
        "has no labelled values to transcribe.",
    )
    for processes in FIG4_PROCESSES:
        ring = Ring(processes)
        radices = list(range(2, processes + 1))
        ks, ds, kf, df = [], [], [], []
        for r in radices:
            rounds = algorithm.shift_rounds(ring, algorithm.resolve(ring, {"radix": r})) or []
            ks.append(float(len([x for x in rounds if x[1] > 0])))
            ds.append(float(sum(c for _, c in rounds)))
            kf.append(float(tra_rounds(processes, r)))
            df.append(float(tra_blocks(processes, r)))
            if r & (r - 1) == 0 or r == tra_optimal_radix(processes):
                table.rows.append([processes, r, kf[-1], ks[-1], df[-1], ds[-1]])
        xs = [float(r) for r in radices]
        chart.series += [
            Series(f"K, P = {processes}", xs, kf, "-"),
            Series(f"K counted, P = {processes}", xs[::7], ks[::7], "o"),
            Series(f"D, P = {processes}", xs, df, "--"),
            Series(f"D counted, P = {processes}", xs[::7], ds[::7], "x"),
        ]
    section.tables.append(table)
    section.charts.append(chart)
