"""report.html: one self-contained page (figures inline as SVG, no request beyond it).

First screen: the verdict counts, a table of contents and what was found (one sentence per
paper item with a mismatch, linked to its first row, its tables and figures). Then the
verdicts and rules, each paper's coverage, and one section per paper: its platform, findings
grouped by item (groups with a mismatch open, the others folded), its data tables (folded)
and its figures. A link into a folded part opens it (a few lines of inline script)."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Iterable

from app.reproduction.base import Section, Table
from app.reproduction.page import (
    COVERAGE_COLUMNS,
    FINDING_COLUMNS,
    RULES,
    VERDICTS,
    anchor,
    cell,
    coverage,
    figure_id,
    finding_row,
    groups,
    headlines,
    short,
    table_id,
)
from models.findings import MISMATCHES, Verdict

STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:84em;margin:auto;padding:0 1em 4em;"
    "line-height:1.4;color:#1d2330}h1{margin-bottom:.2em}h2{margin-top:2em;border-bottom:2px "
    "solid #ccd}h3{margin:1.4em 0 .3em}summary{cursor:pointer;margin:.5em 0}"
    "summary.group{font-weight:600}.scroll{overflow-x:auto}"
    "table{border-collapse:collapse;margin:.4em 0 1em}td,th{border:1px solid #ccd;padding:2px "
    "6px;font-size:88%;vertical-align:top}th{background:#f1f2f6;text-align:left}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "td.note{min-width:16em;max-width:32em;color:#445}.chip{display:inline-block;"
    "padding:0 6px;margin:1px 2px;border-radius:3px;font-size:85%;font-weight:400}"
    "ol.headlines li{margin:.35em 0}.links{font-size:88%;color:#556}"
    "nav.toc{background:#f6f7fa;padding:.4em 1em;font-size:92%}"
    "nav.toc ul{margin:.2em 0;padding-left:0;list-style:none}nav.toc li{margin:.15em 0}"
    "dl.columns{font-size:88%;display:grid;grid-template-columns:max-content 1fr;gap:0 1em;"
    "margin:.2em 0 .6em}dl.columns dt{font-family:monospace}dl.columns dd{margin:0}"
    "figure{margin:1em 0}figure svg{max-width:100%;height:auto}figcaption{font-size:88%;"
    "color:#445}.platform{background:#f6f7fa;border-left:4px solid #99a;padding:.3em .8em}"
    ".figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(36em,100%),1fr));"
    "gap:1em}figure.wide{grid-column:1/-1}tr:target>td{outline:2px solid #b0413e}"
    ".top{font-size:88%}"
    + "".join(
        f"tr.v-{v.value}>td{{background:{colour}}}.v-{v.value}{{background:{colour}}}"
        for v, (colour, _) in VERDICTS.items()
    )
)
# Opens every folded part that holds the target of a link, on load and on each jump.
SCRIPT = (
    "function openTarget(){var id=decodeURIComponent(location.hash.slice(1));"
    "var e=id&&document.getElementById(id),t=e;while(e){if(e.tagName==='DETAILS')e.open=true;"
    "e=e.parentElement}if(t)t.scrollIntoView()}"
    "window.addEventListener('hashchange',openTarget);openTarget();"
)


def _e(text: object) -> str:
    return html.escape(str(text))


def _link(label: str, target: str) -> str:
    return f"<a href='#{_e(target)}'>{_e(label)}</a>"


def _chip(verdict: str, text: str) -> str:
    return f"<span class='chip v-{verdict}'>{_e(text)}</span>"


def _table(
    columns: Iterable[str],
    rows: list[list[str]],
    classes: list[str] | None = None,
    ids: list[str] | None = None,
    raw: frozenset[int] = frozenset(),
) -> str:
    """A table; cells escaped except the columns in `raw` (already HTML)."""
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = []
    for n, row in enumerate(rows):
        attributes = ""
        if classes is not None:
            attributes += f" class='{classes[n]}'"
        if ids is not None:
            attributes += f" id='{ids[n]}'"
        cells = "".join(
            f"<td>{v}</td>" if i in raw else f"<td class='{_cell_class(v)}'>{_e(v)}</td>"
            for i, v in enumerate(row)
        )
        body.append(f"<tr{attributes}>{cells}</tr>")
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    return f"<div class='scroll'>{table}</div>"


def _cell_class(value: str) -> str:
    try:
        float(value)
    except ValueError:
        return "note" if len(value) > 40 else ""
    return "num"


def _meanings(meanings: dict[str, str]) -> str:
    items = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in meanings.items())
    return f"<dl class='columns'>{items}</dl>"


def _paper(section: Section) -> str:
    return section.title.split(":")[0]


def _contents(sections: list[Section]) -> str:
    """One line per paper: its section, findings and mismatches (its tables and figures are
    listed at the head of its section)."""
    parts = ["<nav class='toc' aria-label='contents'><b>Contents</b><ul>"]
    parts.append(
        f"<li>{_link('What was found', 'found')} · {_link('Verdicts and rules', 'verdicts')}"
        f" · {_link('Coverage of every table and figure', 'coverage')}</li>"
    )
    for s in sections:
        mismatches = sum(1 for f in s.findings if f.verdict in MISMATCHES)
        counted = f": {len(s.findings)} findings, {mismatches} mismatches"
        parts.append(f"<li>{_link(s.title, s.target)}{_e(counted)}</li>")
    parts.append("</ul></nav>")
    return "".join(parts)


def _in_section(s: Section) -> str:
    """The head of a paper's section: links to its finding groups, tables and figures."""
    first: dict[str, str] = {}
    for i, f in enumerate(s.findings):
        first.setdefault(f.item, anchor(s, i))
    lines = ["findings: " + ", ".join(_link(item, a) for item, a in first.items())]
    if s.tables:
        lines.append("tables: " + ", ".join(_link(t.name, table_id(t.name)) for t in s.tables))
    if s.charts:
        lines.append("figures: " + ", ".join(_link(c.name, figure_id(c.name)) for c in s.charts))
    return "<nav class='toc'><ul>" + "".join(f"<li>{x}</li>" for x in lines) + "</ul></nav>"


def _found(sections: list[Section]) -> str:
    parts = ["<h2 id='found'>What was found</h2><ol class='headlines'>"]
    for h in headlines(sections):
        more = " ".join(_link(label, target) for label, target in h.links)
        parts.append(
            f"<li>{_link(h.text, h.anchor)}"
            + (f" <span class='links'>see {more}</span>" if more else "")
            + "</li>"
        )
    parts.append("</ol>")
    return "".join(parts)


def _coverage(sections: list[Section]) -> str:
    parts = ["<h2 id='coverage'>Coverage: every table and figure of the papers</h2>"]
    for s in sections:
        rows = coverage(s)
        if not rows:
            continue
        status = Counter(r.status for r in rows)
        counted = ", ".join(f"{n} {k}" for k, n in status.items())
        parts.append(f"<details open><summary>{_e(_paper(s))} ({_e(counted)})</summary>")
        cells = []
        for r in rows:
            where = ", ".join(_link(label, target) for label, target in r.where)
            why = _e(r.why) + ("; " if r.why and where else "") + where
            cells.append([_e(r.item), _e(r.content), _e(r.status), why, _e(r.paper_values)])
        parts.append(_table(COVERAGE_COLUMNS, cells, raw=frozenset(range(5))))
        parts.append("</details>")
    return "".join(parts)


def _findings(s: Section) -> str:
    parts = ["<h3>Findings</h3><details><summary>what the columns mean</summary>"]
    parts.append(_meanings(FINDING_COLUMNS) + "</details>")
    for item, shared, members in groups(s):
        heading = item + (f" ({cell(short(shared))})" if shared else "")
        verdicts = Counter(f.verdict.value for _, f in members)
        chips = "".join(_chip(v, f"{v}: {n}") for v, n in verdicts.items())
        mismatch = any(f.verdict in MISMATCHES or f.verdict == Verdict.TIE for _, f in members)
        parts.append(
            f"<details{' open' if mismatch else ''}><summary class='group'>{_e(heading)}: "
            f"{_e(members[0][1].quantity)} {chips}</summary>"
        )
        rows = [finding_row(f, shared) for _, f in members]
        classes = [f"v-{f.verdict.value}" for _, f in members]
        ids = [anchor(s, i) for i, _ in members]
        parts.append(_table(FINDING_COLUMNS, rows, classes, ids) + "</details>")
    return "".join(parts)


def _data_table(t: Table) -> str:
    coloured = None
    if "verdict" in t.columns:
        at = t.columns.index("verdict")
        coloured = [f"v-{row[at]}" for row in t.rows]
    cells = [[cell(v) for v in row] for row in t.rows]
    return (
        f"<details id='{table_id(t.name)}'><summary>{_e(t.title)} ({len(t.rows)} rows, "
        f"<code>tables/{_e(t.name)}.csv</code>)</summary>"
        + (_meanings(t.meanings) if t.meanings else "")
        + _table(t.columns, cells, coloured)
        + "</details>"
    )


def _figures(s: Section, svgs: dict[str, str]) -> str:
    parts = ["<h3>Figures</h3><div class='figures'>"]
    for c in s.charts:
        svg = svgs[c.name]
        caption = f"figures/{c.name}.svg" + (f": {c.note}" if c.note else "")
        wide = " class='wide'" if c.zoom_from_x is not None or c.paper_series else ""
        parts.append(
            f"<figure id='{figure_id(c.name)}'{wide}>{svg[svg.find('<svg') :]}"
            f"<figcaption>{_e(caption)}</figcaption></figure>"
        )
    parts.append("</div>")
    return "".join(parts)


def render_html(sections: list[Section], counts: Counter[str], svgs: dict[str, str]) -> str:
    legend = "".join(_chip(v.value, f"{v.value}: {counts[v.value]}") for v in VERDICTS)
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        "<title>rwaopt reproduction report</title>",
        f"<style>{STYLE}</style></head><body id='top'><h1>rwaopt reproduction report</h1>",
        "<p>Five papers' tables and figures rebuilt: each number as printed, beside the "
        "paper's closed form evaluated as printed and rwaopt's own value. Verdicts are "
        "computed (SPEC section 9); colours below.</p>",
        f"<p>{legend}</p>",
        _contents(sections),
        _found(sections),
        "<h2 id='verdicts'>Verdicts and rules</h2><dl class='columns'>",
    ]
    for v, (_, meaning) in VERDICTS.items():
        parts.append(f"<dt>{_chip(v.value, v.value)}</dt><dd>{_e(meaning)}</dd>")
    parts.append(f"</dl><p>{_e(RULES)}</p>")
    parts.append(_coverage(sections))
    for s in sections:
        parts += [f"<section id='{s.target}'><h2>{_e(s.title)}</h2>", f"<p>{_e(s.text)}</p>"]
        if s.platform:
            parts.append(f"<p class='platform'>Platform: {_e(s.platform)}</p>")
        parts.append(_in_section(s))
        parts.append(_findings(s))
        if s.tables:
            parts.append("<h3>Data tables</h3>" + "".join(_data_table(t) for t in s.tables))
        if s.charts:
            parts.append(_figures(s, svgs))
        parts.append(f"<p class='top'>{_link('back to the top', 'top')}</p></section>")
    parts.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(parts)
