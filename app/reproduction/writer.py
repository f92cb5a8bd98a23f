"""A reproduction written out: report.md (`markdown`), report.html (`html`: self-contained,
figures inline as SVG), figures/*.svg and *.png, tables/*.csv and findings.json. What both
pages say is in `page`."""

from __future__ import annotations

import csv
import io
import json
import textwrap
from collections import Counter
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from app.presentation.plots import render
from app.reproduction.base import Chart, Section, Series, Table
from app.reproduction.html import render_html
from app.reproduction.markdown import render_markdown
from app.schemas.results import FindingResult
from models.findings import Finding


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
    (out / "report.md").write_text(render_markdown(sections, counts), "utf-8")
    (out / "report.html").write_text(render_html(sections, counts, svgs), "utf-8")
    return dict(counts)


def _finding_json(f: Finding) -> object:
    return FindingResult.of(f).model_dump(mode="json") | {"extra": f.extra}


def _csv(table: Table) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows(table.rows)
    return buffer.getvalue()


# Figures


def _label_points(ax: Axes, xs: list[float], in_bytes: bool) -> None:
    """A log x axis over a few points within three decades (Fig. 6's w = 8 .. 128, Fig. 8's
    P = 2048 .. 16384, message sizes 4 to 128 MiB) is labelled at the points themselves, not
    at powers of ten between or outside them; sizes in bytes as KiB / MiB / GiB."""
    if not (1 < len(xs) <= 12 and xs[0] > 0 and xs[-1] / xs[0] <= 1e3):
        return
    labels = [_point_label(x, in_bytes) for x in xs]
    if all(labels):
        ax.set_xticks(xs, labels)
        ax.xaxis.set_minor_formatter(NullFormatter())


def _point_label(x: float, in_bytes: bool) -> str:
    """"" when the value has no short label (the axis keeps matplotlib's ticks)."""
    if in_bytes and x >= 1024 and x == int(x):
        for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
            if int(x) % size == 0:
                return f"{int(x) // size} {unit}"
    text = f"{x:g}"
    return "" if "e" in text else text


def _figure(chart: Chart) -> Figure:
    """rwaopt's series (with the x values the paper prints as dotted lines); beside them, in
    a second panel, the paper's own series when transcribed."""
    panels = 1 + bool(chart.paper_series) + (chart.zoom_from_x is not None)
    fig = Figure(figsize=(7 * panels, 4.6), layout="constrained")
    axes = fig.subplots(1, panels, squeeze=False)[0]
    drawn = [(axes[0], chart.series, "rwaopt")]
    if chart.zoom_from_x is not None:
        start = chart.zoom_from_x
        zoomed = [
            Series(
                s.label,
                [x for x in s.x if x >= start],
                [y for x, y in zip(s.x, s.y, strict=True) if x >= start],
                s.style,
            )
            for s in chart.series
        ]
        drawn.append(
            (axes[len(drawn)], [s for s in zoomed if s.x], f"zoom: {chart.x_label} from {start:g}")
        )
    if chart.paper_series:
        drawn.append((axes[len(drawn)], chart.paper_series, "as printed in the paper"))
    for ax, series, label in drawn:
        for s in series:
            big = {"markersize": 13} if s.style == "*" else {}  # a marked point over a curve
            ax.plot(s.x, s.y, s.style, label=s.label, **big)
        if ax is not drawn[-1][0] or not chart.paper_series:
            for n, (x, mark) in enumerate(chart.paper_marks):
                ax.axvline(x, linestyle=":", color=f"C{7 + n % 3}", label=mark)
        if chart.log_x:
            ax.set_xscale("log")
            xs = sorted({x for s in series for x in s.x})
            _label_points(ax, xs, "bytes" in chart.x_label)
        if chart.log_y:
            ax.set_yscale("log")
        ax.set_xlabel(chart.x_label)
        ax.set_ylabel(chart.y_label)
        if panels > 1:
            ax.set_title(label, fontsize="medium")
        ax.grid(True, which="both", alpha=0.3)
        if not label.startswith("zoom"):
            ax.legend(fontsize="small", ncols=2 if len(ax.get_lines()) > 8 else 1)
    fig.suptitle("\n".join(textwrap.wrap(chart.title, 70 * panels)), fontsize="medium")
    return fig
