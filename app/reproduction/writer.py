"""A reproduction written out: report.md, report.html (self-contained, figures inline as SVG),
figures/*.svg and *.png, tables/*.csv and findings.json.

The page opens with what was found (one sentence per paper item with a mismatch, linked to its
rows) and each paper's coverage (every table and figure, reproduced or why not); then one
section per paper: its platform, its findings grouped by item with the shared parameters said
once, rows coloured by verdict, each table with what its columns mean, and the figures."""

from __future__ import annotations

import csv
import html
import io
import json
import textwrap
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from app.presentation.plots import render
from app.reproduction.base import Chart, Covered, Section, Table
from app.schemas.results import FindingResult
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
    "`cost_model` (the paper's cost model at a stated parameter) when it depends on a model."
)
FINDING_COLUMNS: dict[str, str] = {
    "quantity": "what is compared",
    "parameters": "the parameters that vary within the item (the shared ones are in its heading)",
    "printed": "the number as the paper prints it (- : none printed)",
    "formula": "the paper's closed form evaluated as printed, in the case its rule selects",
    "rwaopt": "rwaopt's value",
    "kind": "true (certified), simulated (SimGrid) or cost_model",
    "tolerance": "printed against formula: 0 = exact; else one unit of the printed last digit",
    "verdict": "computed (models.findings.verdict)",
    "note": "the other case, tied optima, model, and how a cell was read",
}


def write_report(sections: list[Section], out: Path) -> dict[str, int]:
    """Write every file; returns the count of findings per verdict."""
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    findings = [f for s in sections for f in s.findings]
    (out / "findings.json").write_text(
        json.dumps([_finding_json(f) for f in findings], indent=2), "utf-8"
    )
    svgs: dict[str, str] = {}
    for section in sections:
        for table in section.tables:
            (out / "tables" / f"{table.name}.csv").write_text(_csv(table), "utf-8")
        for chart in section.charts:
            fig = _figure(chart)
            svg = render(fig, "svg")
            (out / "figures" / f"{chart.name}.svg").write_bytes(svg)
            (out / "figures" / f"{chart.name}.png").write_bytes(render(fig, "png"))
            svgs[chart.name] = svg.decode("utf-8")
    counts = Counter(f.verdict.value for f in findings)
    (out / "report.md").write_text(_markdown(sections, counts), "utf-8")
    (out / "report.html").write_text(_html(sections, counts, svgs), "utf-8")
    return dict(counts)


def _finding_json(f: Finding) -> object:
    return FindingResult.of(f).model_dump(mode="json") | {
        "model": f.model,
        "model_kind": f.model_kind,
        "alternative": f.alternative,
        "tied": list(f.tied),
        "extra": f.extra,
    }


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_cell(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + ", ".join(_cell(v) for v in value) + "]"
    return str(value)


def _csv(table: Table) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows(table.rows)
    return buffer.getvalue()


# Findings, grouped by item, with ids the headline sentences link to.


def _anchor(section: Section, index: int) -> str:
    return f"{section.target}-f{index}"


def _groups(section: Section) -> list[tuple[str, dict[str, Any], list[tuple[int, Finding]]]]:
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


def _rwaopt(f: Finding) -> tuple[float | None, str]:
    if f.true is not None:
        return f.true, "true"
    if f.model is not None:
        return f.model, str(f.model_kind)
    return None, "-"


def _finding_row(f: Finding, shared: dict[str, Any]) -> list[str]:
    value, kind = _rwaopt(f)
    varying = {k: v for k, v in f.parameters.items() if k not in shared}
    return [
        f.quantity,
        _cell(varying) if varying else "",
        _cell(f.printed),
        _cell(f.formula),
        _cell(value),
        kind,
        _cell(f.tolerance) if f.tolerance else "0",
        f.verdict.value,
        f.note,
    ]


def _headlines(sections: list[Section]) -> list[tuple[str, str]]:
    """One sentence per (paper, item, verdict) with a mismatch, most severe first: (text, the
    anchor of its first row)."""
    order = list(VERDICTS)
    found = []
    for s in sections:
        grouped: dict[tuple[str, Verdict], list[tuple[int, Finding]]] = {}
        for i, f in enumerate(s.findings):
            if f.verdict in MISMATCHES or f.verdict == Verdict.TIE:
                grouped.setdefault((f.item, f.verdict), []).append((i, f))
        for (item, v), members in grouped.items():
            i, f = members[0]
            value, kind = _rwaopt(f)
            example = (
                f"{_cell(_short(f.parameters))}: printed {_cell(f.printed)}, formula "
                f"{_cell(f.formula)}, rwaopt ({kind}) {_cell(value)}"
            )
            total = sum(1 for g in s.findings if g.item == item)
            text = (
                f"{s.title.split(':')[0]}, {item}: {len(members)} of {total} cells "
                f"{VERDICTS[v][1]} (e.g. {example})."
            )
            found.append((order.index(v), text, _anchor(s, i), v))
    found.sort(key=lambda x: x[0])
    return [(text, anchor) for _, text, anchor, _ in found]


def _short(parameters: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in parameters.items() if k != "message_mib"}


def _coverage_status(c: Covered, section: Section) -> tuple[str, str]:
    """(status, where) of one covered item in this report."""
    if c.not_reproducible:
        return "not reproducible", c.not_reproducible
    if c.pending:
        return "not built yet", c.pending
    tables = {t.name for t in section.tables}
    charts = [ch.name for ch in section.charts]
    items = {f.item for f in section.findings}
    where = [f"table {t}" for t in c.tables if t in tables]
    for pattern in c.charts:
        hits = [
            n
            for n in charts
            if n == pattern or (pattern.endswith("*") and n.startswith(pattern[:-1]))
        ]
        where += [f"figure {n}" for n in hits]
    where += [f"findings '{i}'" for i in c.findings if i in items]
    if not where:
        return "full report only", "not run in this (quick) report"
    return "reproduced", ", ".join(where)


# HTML


STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:84em;margin:auto;padding:0 1em;"
    "line-height:1.4;color:#1d2330}h1{margin-bottom:.2em}h2{margin-top:2em;border-bottom:2px "
    "solid #ccd}h3{margin:1.4em 0 .3em}h4{margin:1em 0 .2em;font-size:100%}"
    "table{border-collapse:collapse;margin:.4em 0 1em}td,th{border:1px solid #ccd;padding:2px "
    "6px;font-size:88%;vertical-align:top}th{background:#f1f2f6;text-align:left}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "td.note{max-width:32em;color:#445}.legend span{display:inline-block;padding:1px 6px;"
    "margin:2px;border-radius:3px;font-size:88%}ol.headlines li{margin:.3em 0}"
    "dl.columns{font-size:88%;display:grid;grid-template-columns:max-content 1fr;gap:0 1em;"
    "margin:.2em 0 .6em}dl.columns dt{font-family:monospace}dl.columns dd{margin:0}"
    "figure{margin:1em 0}figure svg{max-width:100%;height:auto}figcaption{font-size:88%;"
    "color:#445}.platform{background:#f6f7fa;border-left:4px solid #99a;padding:.3em .8em}"
    ".figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(36em,1fr));gap:1em}"
    + "".join(
        f"tr.v-{v.value}>td{{background:{colour}}}.legend .v-{v.value}{{background:{colour}}}"
        for v, (colour, _) in VERDICTS.items()
    )
)


def _e(text: object) -> str:
    return html.escape(str(text))


def _html_table(
    columns: Iterable[str],
    rows: list[list[str]],
    classes: list[str] | None = None,
    ids: list[str] | None = None,
) -> str:
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = []
    for n, row in enumerate(rows):
        attributes = ""
        if classes is not None:
            attributes += f" class='{classes[n]}'"
        if ids is not None:
            attributes += f" id='{ids[n]}'"
        cells = "".join(f"<td class='{_cell_class(v)}'>{_e(v)}</td>" for v in row)
        body.append(f"<tr{attributes}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _cell_class(value: str) -> str:
    try:
        float(value)
    except ValueError:
        return "note" if len(value) > 40 else ""
    return "num"


def _meanings(meanings: dict[str, str]) -> str:
    items = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in meanings.items())
    return f"<dl class='columns'>{items}</dl>"


def _html(sections: list[Section], counts: Counter[str], svgs: dict[str, str]) -> str:
    legend = "".join(
        f"<span class='v-{v.value}' title='{_e(meaning)}'>{_e(v.value)}: {counts[v.value]}</span>"
        for v, (_, meaning) in VERDICTS.items()
    )
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>rwaopt reproduction report</title>",
        f"<style>{STYLE}</style></head><body><h1>rwaopt reproduction report</h1>",
        "<p>Five papers' tables and figures rebuilt: each number as printed, beside the "
        "paper's closed form evaluated as printed and rwaopt's own value. Verdicts are "
        "computed (SPEC section 9).</p>",
        f"<p class='legend'>{legend}</p>",
        "<h2 id='found'>What was found</h2><ol class='headlines'>",
    ]
    for text, anchor in _headlines(sections):
        parts.append(f"<li><a href='#{anchor}'>{_e(text)}</a></li>")
    parts.append("</ol>")
    parts.append("<h3>Verdicts</h3><dl class='columns'>")
    for v, (_, meaning) in VERDICTS.items():
        parts.append(f"<dt class='legend'><span class='v-{v.value}'>{v.value}</span></dt>")
        parts.append(f"<dd>{_e(meaning)}</dd>")
    parts.append(f"</dl><p>{_e(RULES)}</p>")
    parts.append("<h2 id='coverage'>Coverage: every table and figure of the papers</h2>")
    for s in sections:
        rows = [[c.item, c.content, *_coverage_status(c, s)] for c in s.coverage]
        if rows:
            parts.append(f"<h4><a href='#{s.target}'>{_e(s.title.split(':')[0])}</a></h4>")
            parts.append(
                _html_table(("item", "what the paper shows", "status", "where / why"), rows)
            )
    for s in sections:
        parts += [f"<h2 id='{s.target}'>{_e(s.title)}</h2>", f"<p>{_e(s.text)}</p>"]
        if s.platform:
            parts.append(f"<p class='platform'>Platform: {_e(s.platform)}</p>")
        parts.append("<h3>Findings</h3>")
        parts.append("<details><summary>what the columns mean</summary>")
        parts.append(_meanings(FINDING_COLUMNS) + "</details>")
        for item, shared, members in _groups(s):
            heading = item + (f" ({_cell(_short(shared))})" if shared else "")
            parts.append(f"<h4>{_e(heading)}</h4>")
            rows = [_finding_row(f, shared) for _, f in members]
            classes = [f"v-{f.verdict.value}" for _, f in members]
            ids = [_anchor(s, i) for i, _ in members]
            parts.append(_html_table(FINDING_COLUMNS, rows, classes, ids))
        for t in s.tables:
            parts.append(f"<h3 id='{t.name}'>{_e(t.title)}</h3>")
            parts.append(f"<p><code>tables/{t.name}.csv</code></p>")
            if t.meanings:
                parts.append(_meanings(t.meanings))
            coloured = None
            if "verdict" in t.columns:
                at = t.columns.index("verdict")
                coloured = [f"v-{row[at]}" for row in t.rows]
            cells = [[_cell(v) for v in row] for row in t.rows]
            parts.append(_html_table(t.columns, cells, coloured))
        if s.charts:
            parts.append("<h3>Figures</h3><div class='figures'>")
            for c in s.charts:
                svg = svgs[c.name]
                caption = f"figures/{c.name}.svg" + (f": {c.note}" if c.note else "")
                parts.append(
                    f"<figure id='{c.name}'>{svg[svg.find('<svg') :]}"
                    f"<figcaption>{_e(caption)}</figcaption></figure>"
                )
            parts.append("</div>")
    parts.append("</body></html>")
    return "\n".join(parts)


# Markdown


def _md_table(columns: Iterable[str], rows: list[list[str]]) -> str:
    columns = list(columns)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(r.replace("|", "/") for r in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _markdown(sections: list[Section], counts: Counter[str]) -> str:
    summary = ", ".join(f"{v.value}: {counts[v.value]}" for v in VERDICTS if counts[v.value])
    parts = [
        "# rwaopt reproduction report\n",
        "Each finding: the number as printed, the paper's closed form evaluated as printed, and "
        f"rwaopt's value. Verdicts are computed (SPEC section 9). Findings: {summary}.\n",
        RULES + "\n",
        "## What was found\n",
    ]
    parts += [
        f"{n}. [{text}](#{anchor})" for n, (text, anchor) in enumerate(_headlines(sections), 1)
    ]
    parts.append("\n## Verdicts\n")
    parts.append(
        _md_table(("verdict", "meaning"), [[v.value, m] for v, (_, m) in VERDICTS.items()])
    )
    parts.append("## Coverage: every table and figure of the papers\n")
    for s in sections:
        rows = [[c.item, c.content, *_coverage_status(c, s)] for c in s.coverage]
        if rows:
            parts.append(f"**{s.title.split(':')[0]}**\n")
            parts.append(_md_table(("item", "what the paper shows", "status", "where / why"), rows))
    for s in sections:
        parts += [f"## {s.title}\n", s.text + "\n"]
        if s.platform:
            parts.append(f"Platform: {s.platform}\n")
        parts.append("### Findings\n")
        parts.append(_md_table(("column", "meaning"), [[k, v] for k, v in FINDING_COLUMNS.items()]))
        for item, shared, members in _groups(s):
            heading = item + (f" ({_cell(_short(shared))})" if shared else "")
            parts.append(f"#### {heading}\n")
            rows = []
            for i, f in members:
                row = _finding_row(f, shared)
                row[0] = f"<a id='{_anchor(s, i)}'></a>{row[0]}"
                rows.append(row)
            parts.append(_md_table(FINDING_COLUMNS, rows))
        for t in s.tables:
            parts += [f"### {t.title}\n", f"`tables/{t.name}.csv`\n"]
            if t.meanings:
                parts += [f"- `{k}`: {v}" for k, v in t.meanings.items()]
                parts.append("")
            parts.append(_md_table(t.columns, [[_cell(v) for v in row] for row in t.rows]))
        for c in s.charts:
            parts.append(f"![{c.title}](figures/{c.name}.svg)\n")
            if c.note:
                parts.append(c.note + "\n")
    return "\n".join(parts)


# Figures


def _figure(chart: Chart) -> Figure:
    """rwaopt's series; beside them, in a second panel, the paper's own when transcribed."""
    panels = 2 if chart.paper_series else 1
    fig = Figure(figsize=(7 * panels, 4.6), layout="constrained")
    axes = fig.subplots(1, panels, squeeze=False)[0]
    drawn = [(axes[0], chart.series, "rwaopt")]
    if chart.paper_series:
        drawn.append((axes[1], chart.paper_series, "as printed in the paper"))
    for ax, series, label in drawn:
        for s in series:
            ax.plot(s.x, s.y, s.style, label=s.label)
        if chart.log_x:
            ax.set_xscale("log")
        if chart.log_y:
            ax.set_yscale("log")
        ax.set_xlabel(chart.x_label)
        ax.set_ylabel(chart.y_label)
        if panels > 1:
            ax.set_title(label, fontsize="medium")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    fig.suptitle("\n".join(textwrap.wrap(chart.title, 70 * panels)), fontsize="medium")
    return fig
