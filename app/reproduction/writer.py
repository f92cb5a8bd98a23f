"""A reproduction written out: report.md, report.html (self-contained, figures inline as SVG),
figures/*.svg and *.png, tables/*.csv and findings.json."""

from __future__ import annotations

import csv
import html
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from app.presentation.plots import render
from app.reproduction.base import Chart, Section, Table
from app.schemas.results import FindingResult
from models.findings import Finding

FINDING_COLUMNS = (
    "paper",
    "item",
    "quantity",
    "parameters",
    "unit",
    "printed",
    "formula",
    "true",
    "verdict",
    "note",
)


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
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def _csv(table: Table) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows(table.rows)
    return buffer.getvalue()


def _finding_rows(findings: list[Finding]) -> list[list[str]]:
    return [[_cell(getattr(f, c)) for c in FINDING_COLUMNS] for f in findings]


def _md_table(columns: list[str] | tuple[str, ...], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(r.replace("|", "/") for r in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _summary(counts: Counter[str]) -> str:
    return ", ".join(f"{v}: {counts[v]}" for v in sorted(counts)) or "no findings"


def _markdown(sections: list[Section], counts: Counter[str]) -> str:
    parts = [
        "# rwaopt reproduction report\n",
        "Each finding: the number as printed, the paper's closed form evaluated as printed, and "
        "rwaopt's certified value (true steps: certified RWA per stage). Verdicts are computed "
        f"(SPEC section 9). Findings: {_summary(counts)}.\n",
    ]
    for s in sections:
        parts += [f"## {s.title}\n", s.text + "\n", "### Findings\n"]
        parts.append(_md_table(FINDING_COLUMNS, _finding_rows(s.findings)))
        for t in s.tables:
            parts += [f"### {t.title}\n", f"`tables/{t.name}.csv`\n"]
            parts.append(_md_table(t.columns, [[_cell(v) for v in row] for row in t.rows]))
        for c in s.charts:
            parts.append(f"![{c.title}](figures/{c.name}.svg)\n")
    return "\n".join(parts)


def _html_table(columns: list[str] | tuple[str, ...], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _html(sections: list[Section], counts: Counter[str], svgs: dict[str, str]) -> str:
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>rwaopt reproduction</title>",
        "<style>body{font-family:sans-serif;max-width:70em;margin:auto}table{border-collapse:"
        "collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:90%}"
        "</style></head><body><h1>rwaopt reproduction report</h1>",
        f"<p>Verdicts are computed (SPEC section 9). Findings: {html.escape(_summary(counts))}"
        ".</p>",
    ]
    for s in sections:
        parts += [f"<h2>{html.escape(s.title)}</h2>", f"<p>{html.escape(s.text)}</p>"]
        parts += ["<h3>Findings</h3>", _html_table(FINDING_COLUMNS, _finding_rows(s.findings))]
        for t in s.tables:
            rows = [[_cell(v) for v in row] for row in t.rows]
            parts += [f"<h3>{html.escape(t.title)}</h3>", _html_table(t.columns, rows)]
        for c in s.charts:
            svg = svgs[c.name]
            parts.append(svg[svg.find("<svg") :])  # inline, without the XML prologue
    parts.append("</body></html>")
    return "\n".join(parts)


def _figure(chart: Chart) -> Figure:
    fig = Figure(figsize=(7, 4.5), layout="constrained")
    ax = fig.subplots()
    for series in chart.series:
        ax.plot(series.x, series.y, series.style, label=series.label)
    if chart.log_x:
        ax.set_xscale("log")
    if chart.log_y:
        ax.set_yscale("log")
    ax.set_xlabel(chart.x_label)
    ax.set_ylabel(chart.y_label)
    ax.set_title(chart.title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    return fig
