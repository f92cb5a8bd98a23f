"""What report.md and report.html both say: the verdicts and their colours, the headline
sentences (linked to their rows, tables and figures), findings grouped by item, and each
paper's coverage (every table and figure, reproduced or why not, and which of its values the
paper prints)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.reproduction.base import Covered, Section
from models.findings import MISMATCHES, Finding, Verdict

VERDICTS: dict[Verdict, tuple[str, str]] = {  # verdict: (colour, meaning)
    Verdict.PRINTED_VS_FORMULA: ("#f6c7c3", "the paper's number is not its own formula's"),
    Verdict.PRINTED_OTHER_CASE: (
        "#f9d9b5",
        "the printed number is the case of a two-case formula the paper's own rule does not "
        "select here",
    ),
    Verdict.FORMULA_VS_TRUE: ("#fbe7a1", "the formula is not what the algorithm takes (true)"),
    Verdict.FORMULA_VS_MODEL: (
        "#f3ecc8",
        "the formula differs from a model-dependent value (simulated or cost model)",
    ),
    Verdict.TIE: ("#dce8f7", "the formula's choice is one of several tied true optima"),
    Verdict.AGREES_UNDER_MODEL: ("#e4eef0", "the formula equals a model-dependent value"),
    Verdict.AGREES: ("#d5efd5", "printed = formula = true"),
    Verdict.NOT_REPRODUCIBLE: ("#e6e7eb", "rwaopt has no value of its own here"),
}
RULES = (
    "Counts (steps, rounds, blocks, depths, hops, radices) are compared exactly. A printed "
    "decimal (a percentage) matches a computed value that rounds or truncates to it at its "
    "printed precision (tolerance column: one unit of its last digit); no other tolerance is "
    "used. Computed values (formula against rwaopt's) are compared exactly. A two-case formula "
    "is evaluated in the case the paper's own rule selects for the shape; a printed number "
    "matching only the other case is a finding. rwaopt's value is `true` when certified (true "
    "steps of a solved RWA, or a count on the schedule) and `simulated` (SimGrid) or "
    "`cost_model` (the paper's cost model at a stated parameter) when it depends on a model. "
    "A formula the paper states as a lower bound is met by any value at or above it."
)
FINDING_COLUMNS: dict[str, str] = {  # the quantity compared heads each group
    "parameters": "the parameters that vary within the item (the shared ones are in its heading)",
    "printed": "the number as the paper prints it (- : none printed)",
    "formula": "the paper's closed form evaluated as printed, in the case its rule selects",
    "rwaopt": "rwaopt's value",
    "kind": "true (certified), simulated (SimGrid) or cost_model",
    "tolerance": "printed against formula: 0 = exact; else one unit of the printed last digit",
    "verdict": "computed (models.findings.verdict)",
    "note": "the other case, tied optima, model, how a cell was read, and where the paper "
    "prints it",
}


def cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, dict):
        return ", ".join(f"{k}={cell(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + ", ".join(cell(v) for v in value) + "]"
    return str(value)


# Findings, grouped by item, with ids the headline sentences link to.


def anchor(section: Section, index: int) -> str:
    return f"{section.target}-f{index}"


def groups(section: Section) -> list[tuple[str, dict[str, Any], list[tuple[int, Finding]]]]:
    """Findings by (item, quantity), in order, with the parameters all of a group share."""
    groups: dict[tuple[str, str], list[tuple[int, Finding]]] = {}
    for i, f in enumerate(section.findings):
        groups.setdefault((f.item, f.quantity), []).append((i, f))
    out = []
    for (item, _), members in groups.items():
        first = members[0][1].parameters
        shared = {
            k: v
            for k, v in first.items()
            if len(members) > 1 and all(f.parameters.get(k) == v for _, f in members)
        }
        out.append((item, shared, members))
    return out


def rwaopt_value(f: Finding) -> tuple[float | None, str]:
    if f.true is not None:
        return f.true, "true"
    if f.model is not None:
        return f.model, str(f.model_kind)
    return None, "-"


def finding_row(f: Finding, shared: dict[str, Any]) -> list[str]:
    value, kind = rwaopt_value(f)
    varying = {k: v for k, v in f.parameters.items() if k not in shared}
    return [
        cell(varying) if varying else "",
        cell(f.printed),
        cell(f.formula),
        cell(value),
        kind,
        cell(f.tolerance) if f.tolerance else "0",
        f.verdict.value,
        "; ".join(x for x in (f.note, f"printed: {f.where}" if f.printed is not None else "") if x),
    ]


def headlines(sections: list[Section]) -> list[Headline]:
    """One sentence per (paper, item, verdict) with a mismatch, most severe first, with the
    anchor of its first row and the item's tables and figures."""
    order = list(VERDICTS)
    found = []
    for s in sections:
        grouped: dict[tuple[str, Verdict], list[tuple[int, Finding]]] = {}
        for i, f in enumerate(s.findings):
            if f.verdict in MISMATCHES or f.verdict == Verdict.TIE:
                grouped.setdefault((f.item, f.verdict), []).append((i, f))
        for (item, v), members in grouped.items():
            i, f = members[0]
            value, kind = rwaopt_value(f)
            shown = cell(short(f.parameters))
            example = (
                f"{shown + ': ' if shown else ''}printed {cell(f.printed)}, formula "
                f"{cell(f.formula)}, {kind} {cell(value)}"
            )
            total = sum(1 for g in s.findings if g.item == item)
            cells = f"{len(members)} of {total}" if total > 1 else "its one cell"
            text = f"{s.title.split(':')[0]}, {item}: {cells}: {VERDICTS[v][1]} (e.g. {example})."
            found.append((order.index(v), Headline(text, anchor(s, i), item_links(s, item))))
    found.sort(key=lambda x: x[0])
    return [h for _, h in found]


@dataclass(frozen=True)
class Headline:
    text: str
    anchor: str  # the first finding row it speaks of
    links: list[tuple[str, str]]  # (label, anchor) of the item's tables and figures


def item_links(section: Section, item: str) -> list[tuple[str, str]]:
    """The tables and figures the paper's coverage names for a finding item."""
    tables = {t.name for t in section.tables}
    charts = [c.name for c in section.charts]
    links: list[tuple[str, str]] = []
    for c in section.coverage:
        if item not in c.findings:
            continue
        links += [(f"table {t}", table_id(t)) for t in c.tables if t in tables]
        links += [(f"figure {n}", figure_id(n)) for n in matching(c.charts, charts)]
    return list(dict.fromkeys(links))


def matching(patterns: tuple[str, ...], names: list[str]) -> list[str]:
    return [
        n
        for pattern in patterns
        for n in names
        if n == pattern or (pattern.endswith("*") and n.startswith(pattern[:-1]))
    ]


def short(parameters: dict[str, Any]) -> dict[str, Any]:
    """The parameters a sentence shows: lists (grids, message sizes) and nested terms (a
    printed expression's) left to the rows."""
    return {k: v for k, v in parameters.items() if not isinstance(v, list | dict)}


def table_id(name: str) -> str:
    return f"t-{name}"


def figure_id(name: str) -> str:
    return f"fig-{name}"


COVERAGE_COLUMNS = ("item", "what the paper shows", "status", "where / why", "the paper's values")


@dataclass(frozen=True)
class CoverageRow:
    item: str
    content: str
    status: str  # reproduced, not reproducible, not built yet, full report only
    why: str  # why not, or what is missing
    where: list[tuple[str, str]]  # (label, anchor) of the tables, figures and finding groups
    paper_values: str


def coverage(section: Section) -> list[CoverageRow]:
    return [_covered(c, section) for c in section.coverage]


def _covered(c: Covered, section: Section) -> CoverageRow:
    def row(status: str, why: str = "", where: list[tuple[str, str]] | None = None) -> CoverageRow:
        return CoverageRow(c.item, c.content, status, why, where or [], c.paper_values)

    if c.not_reproducible:
        return row("not reproducible", c.not_reproducible)
    if c.pending:
        return row("not built yet", c.pending)
    tables = {t.name for t in section.tables}
    charts = [ch.name for ch in section.charts]
    first_row: dict[str, str] = {}
    for i, f in enumerate(section.findings):
        first_row.setdefault(f.item, anchor(section, i))
    where = [(f"table {t}", table_id(t)) for t in c.tables if t in tables]
    where += [(f"figure {n}", figure_id(n)) for n in matching(c.charts, charts)]
    where += [(f"findings '{i}'", first_row[i]) for i in c.findings if i in first_row]
    if not where:
        return row("full report only", "not run in this (quick) report")
    return row("reproduced", "", where)
