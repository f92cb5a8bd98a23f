"""report.md: the same report as report.html, as Markdown (anchors as inline <a id> tags)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from app.reproduction.base import Section
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


def _table(columns: Iterable[str], rows: list[list[str]]) -> str:
    columns = list(columns)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(r.replace("|", "/") for r in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _links(links: list[tuple[str, str]]) -> str:
    return ", ".join(f"[{label}](#{target})" for label, target in links)


def render_markdown(sections: list[Section], counts: Counter[str]) -> str:
    summary = ", ".join(f"{v.value}: {counts[v.value]}" for v in VERDICTS if counts[v.value])
    parts = [
        "# rwaopt reproduction report\n",
        "Each finding: the number as printed, the paper's closed form evaluated as printed, and "
        f"rwaopt's value. Verdicts are computed (SPEC section 9). Findings: {summary}.\n",
        "Contents: [what was found](#found), [verdicts and rules](#verdicts), "
        "[coverage](#coverage), "
        + ", ".join(f"[{s.title.split(':')[0]}](#{s.target})" for s in sections)
        + ".\n",
        "<a id='found'></a>\n\n## What was found\n",
    ]
    for n, h in enumerate(headlines(sections), 1):
        more = f" (see {_links(h.links)})" if h.links else ""
        parts.append(f"{n}. [{h.text}](#{h.anchor}){more}")
    parts.append("\n<a id='verdicts'></a>\n\n## Verdicts and rules\n")
    parts.append(_table(("verdict", "meaning"), [[v.value, m] for v, (_, m) in VERDICTS.items()]))
    parts.append(RULES + "\n")
    parts.append("<a id='coverage'></a>\n\n## Coverage: every table and figure of the papers\n")
    for s in sections:
        rows = [
            [
                r.item,
                r.content,
                r.status,
                r.why + ("; " if r.why and r.where else "") + _links(r.where),
                r.paper_values,
            ]
            for r in coverage(s)
        ]
        if rows:
            parts.append(f"**{s.title.split(':')[0]}**\n")
            parts.append(_table(COVERAGE_COLUMNS, rows))
    for s in sections:
        parts += [f"<a id='{s.target}'></a>\n\n## {s.title}\n", s.text + "\n"]
        if s.platform:
            parts.append(f"Platform: {s.platform}\n")
        parts.append("### Findings\n")
        parts.append(_table(("column", "meaning"), [[k, v] for k, v in FINDING_COLUMNS.items()]))
        for item, shared, members in groups(s):
            heading = item + (f" ({cell(short(shared))})" if shared else "")
            parts.append(f"#### {heading}: {members[0][1].quantity}\n")
            rows = []
            for i, f in members:
                row = finding_row(f, shared)
                row[0] = f"<a id='{anchor(s, i)}'></a>{row[0]}"
                rows.append(row)
            parts.append(_table(FINDING_COLUMNS, rows))
        for t in s.tables:
            parts += [
                f"<a id='{table_id(t.name)}'></a>\n\n### {t.title}\n",
                f"`tables/{t.name}.csv`\n",
            ]
            if t.meanings:
                parts += [f"- `{k}`: {v}" for k, v in t.meanings.items()]
                parts.append("")
            parts.append(_table(t.columns, [[cell(v) for v in row] for row in t.rows]))
        for c in s.charts:
            parts.append(
                f"<a id='{figure_id(c.name)}'></a>\n\n![{c.title}](figures/{c.name}.svg)\n"
            )
            if c.note:
                parts.append(c.note + "\n")
    return "\n".join(parts)
