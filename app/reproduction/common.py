"""What several papers' reproductions share: step tables against the plan cache, average
reductions, and charts normalized as the papers draw them."""

from __future__ import annotations

from collections.abc import Iterator

from app.reproduction.base import Chart, Section, Series, Table
from app.reproduction.plans import PlanCache, Summary
from app.schemas.results import ParameterValues
from models.algorithms.base import Algorithm
from models.algorithms.catalog import get_algorithm
from models.findings import Finding, Printed, finding, load_printed, matches_printed
from models.ring import Hardware, Ring
from models.timing import item_bytes, slot_time_s

BEST_SHAPE_BUDGET_S = 30.0  # per algorithm, full reports only (quick: paper shapes)
ONE_STAGE_LIMIT = 1024  # the one-stage model (N(N - 1) lightpaths) is solved up to this N


def average_reduction_pct(faster: list[float], slower: list[float]) -> float:
    """Mean over the cases of (T_slower - T_faster) / T_slower, in percent."""
    return 100 * sum((s - f) / s for f, s in zip(faster, slower, strict=True)) / len(faster)


def reduction_of_formulas(faster: list[float | None], slower: list[float | None]) -> float | None:
    pairs = [(f, s) for f, s in zip(faster, slower, strict=True) if f is not None and s]
    if len(pairs) != len(faster):
        return None
    return average_reduction_pct([f for f, _ in pairs], [s for _, s in pairs])


def claim_finding(printed: Printed, summary: Summary) -> Finding:
    """The printed number against the plan's headline closed form (either of its cases) and
    its true steps."""
    return finding(
        printed,
        summary.get("claimed"),
        summary["true_steps"],
        alternative=summary.get("alternative"),
    )


def printed_of(paper: str) -> Iterator[Printed]:
    yield from load_printed(paper)


def printed_steps(
    cache: PlanCache,
    section: Section,
    rows: Table,
    paper: str,
    item: str,
    collective: str,
    best_budget_s: float | None,
) -> None:
    """A paper's step table (`item`): every printed step count beside its closed form and true
    steps at the paper's shape on its ring (a parameter the paper prints, e.g. g = 5, is
    used)."""
    for p in printed_of(paper):
        if p.quantity != "steps" or p.item != item:
            continue
        name = p.parameters["algorithm"]
        ring = Ring(p.parameters["nodes"], 1, p.parameters["wavelengths"])
        params = {
            k: v for k, v in p.parameters.items() if k not in ("algorithm", "nodes", "wavelengths")
        }
        summary = cache.plan(collective, name, ring, params)
        f = claim_finding(p, summary)
        best: Summary = {}
        if best_budget_s is not None and not params:  # the family's best beside the paper's
            best = cache.best(collective, name, ring, best_budget_s)
            f.extra.update(best_true=best["true_steps"], best_shape=best["shape"])
        section.findings.append(f)
        rows.rows.append(
            [
                name,
                p.value,
                f.formula,
                f.true,
                summary["steps_lower_bound"],
                f.verdict.value,
                best.get("true_steps"),
                shape_text(best.get("shape")),
            ]
        )
    section.tables.append(rows)


def shape_text(shape: ParameterValues | None) -> str | None:
    if shape is None:
        return None
    return ",".join(
        f"{k}={'x'.join(map(str, v)) if isinstance(v, list) else v}" for k, v in shape.items()
    )


def normalized_charts(
    table: Table,
    name: str,
    title: str,
    reference: tuple[str, str],
    series_column: str,
    value_column: str,
) -> list[Chart]:
    """One chart per workload of `table` (rows: series, nodes, workload, ...): the value
    against N per series, normalized as the papers do by the first value of the reference
    (series, workload) pair."""
    columns = table.columns
    at = {c: columns.index(c) for c in (series_column, "nodes", "workload", value_column)}
    rows = [r for r in table.rows if r[at[value_column]] is not None]
    base = next(
        r[at[value_column]] for r in rows if (r[at[series_column]], r[at["workload"]]) == reference
    )
    charts = []
    for workload in dict.fromkeys(r[at["workload"]] for r in rows):
        chart = Chart(
            f"{name}_{workload}",
            f"{title}: {workload} (true time / {reference[0]} on {reference[1]} at the smallest N)",
            "nodes",
            "normalized time",
            [],
            log_y=True,
        )
        for series in dict.fromkeys(r[at[series_column]] for r in rows):
            points = [
                r for r in rows if (r[at[series_column]], r[at["workload"]]) == (series, workload)
            ]
            chart.series.append(
                Series(
                    str(series),
                    [float(r[at["nodes"]]) for r in points],
                    [float(r[at[value_column]]) / base for r in points],
                )
            )
        charts.append(chart)
    return charts


def formula_time(
    algorithm: Algorithm, ring: Ring, message_bytes: float, other_case: bool = False
) -> float | None:
    """The closed form's steps x slot time, without solving (for shapes too large to solve);
    `other_case`: the case of a two-case formula the paper's rule does not select."""
    params = algorithm.paper_shape(ring)
    claim = algorithm.closed_forms(ring, params)[0]
    steps = claim.alternative if other_case else claim.value
    if steps is None:
        return None
    pieces = algorithm.data_per_message(ring, params)
    return float(steps) * slot_time_s(item_bytes(message_bytes, pieces), Hardware())


def other_readings(printed: Printed, against: str, ring: Ring, sizes: list[float]) -> list[str]:
    """For a printed average reduction of OpTree that its closed forms do not give: the
    wavelength counts near the column's at which the same closed forms do give it, each
    computed here; none when none does."""
    if printed.value is None:
        return []
    found = []
    w = ring.wavelengths_per_fiber
    for w2 in (w // 4, w // 2, 2 * w, 4 * w):
        value = None if w2 < 1 else formula_reduction(against, Ring(ring.nodes, 1, w2), sizes)
        if value is not None and matches_printed(printed.value, value, printed.tolerance):
            found.append(f"the printed value is the closed forms at w = {w2} ({value:.4g} %)")
    return found


def formula_reduction(
    against: str, ring: Ring, sizes: list[float], other_case: bool = False
) -> float | None:
    """OpTree's average reduction over `against` by the closed forms at the paper's shapes
    (`other_case`: with the other case of `against`'s two-case formula; None without one)."""
    optree, other = get_algorithm("allgather", "optree"), get_algorithm("allgather", against)
    return reduction_of_formulas(
        [formula_time(optree, ring, m) for m in sizes],
        [formula_time(other, ring, m, other_case) for m in sizes],
    )
