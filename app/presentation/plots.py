"""Plots of a stored plan or sweep (matplotlib, object API only: no pyplot state, safe in
threads).

- channel usage: per stage and directed link, lightpaths crossing the link / (slots F w) —
  how full each link is during the stage (1 = every channel of every slot busy);
- time vs message size: true time per algorithm, the closed form's time dashed, the
  hardware lower bound (dotted) and the achievable bound on every schedule (solid black);
- a sweep's true steps against N and true time against message size, per algorithm, with each
  grid point's achievable bound.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from app.persistence.codec import decode
from app.persistence.store import Solution
from app.schemas.results import ElectricalResult, ElectricalTimingResult, PlanResult
from app.schemas.sweeps import SweepRow
from models.closed_forms import Unit

KINDS = ("channel-usage", "time-vs-message")


def channel_usage(result: PlanResult, solutions: Iterable[Solution], algorithm: str) -> np.ndarray:
    """Usage array of shape (2 directions, stages, N links) for one algorithm of the plan."""
    entry = result.algorithm(algorithm)
    ring = result.ring.ring()
    stored = {s.stage_index: s.data for s in solutions if s.algorithm == algorithm}
    per_solution: dict[int, np.ndarray] = {}
    usage = np.zeros((2, len(entry.stages), ring.nodes))
    for row, stage in enumerate(entry.stages):
        key = stage.solution_stage
        if key not in per_solution:
            demands, assignment = decode(stored[key])
            per_solution[key] = assignment.link_loads(ring, demands).astype(float)
        slots = stage.steps * ring.channels_per_direction
        if slots:
            usage[:, row, :] = per_solution[key] / slots
    return usage


def channel_usage_figure(
    result: PlanResult, solutions: Iterable[Solution], algorithm: str
) -> Figure:
    usage = channel_usage(result, solutions, algorithm)
    stages, nodes = usage.shape[1], usage.shape[2]
    fig = Figure(figsize=(10, 4.5 if stages < 40 else 6), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    image = None
    for direction, ax in enumerate(axes):
        image = ax.imshow(
            usage[direction],
            aspect="auto",
            interpolation="nearest",
            vmin=0.0,
            vmax=1.0,
            cmap="viridis",
            origin="upper",
            extent=(-0.5, nodes - 0.5, stages - 0.5, -0.5),
        )
        ax.set_title(f"{'clockwise' if direction == 0 else 'counter-clockwise'} links")
        ax.set_xlabel("link i (between nodes i and i+1)")
    axes[0].set_ylabel("stage")
    assert image is not None
    fig.colorbar(image, ax=axes, label="channel usage (lightpaths / (slots x F w))")
    fig.suptitle(
        f"{result.collective} {algorithm}: channel usage per link and stage "
        f"(N={nodes}, F={result.ring.fibers_per_direction}, "
        f"w={result.ring.wavelengths_per_fiber})"
    )
    return fig


def time_figure(result: PlanResult) -> Figure:
    fig = Figure(figsize=(8, 5), layout="constrained")
    ax = fig.subplots()
    bound_x: list[float] = []
    bound_y: list[float] = []
    for i, entry in enumerate(result.algorithms):
        colour = f"C{i % 10}"
        timings = sorted(entry.timings, key=lambda t: t.message_bytes)
        x = [t.message_bytes for t in timings]
        ax.plot(
            x,
            [t.time_s for t in timings],
            "o-",
            color=colour,
            label=f"{entry.algorithm} ({entry.true_steps} steps)",
        )
        claimed = [t.claimed_time_s for t in timings if t.claimed_time_s is not None]
        if len(claimed) == len(timings):
            ax.plot(x, claimed, "x--", color=colour, alpha=0.6)
        # a search's winner may differ by size (the all-reduce at N = 1024: a swept top at
        # 4 MiB, rooted trees at 64 MiB); the row is the first size's shape, so each size's
        # fastest shape is drawn beside it where it is faster (the page showed only the row)
        search = entry.shapes.search
        fastest = sorted(search.best_by_message if search else [], key=lambda b: b.message_bytes)
        row = {t.message_bytes: t.time_s for t in timings}
        if any(b.time_s < row.get(b.message_bytes, float("inf")) for b in fastest):
            ax.plot(
                [b.message_bytes for b in fastest],
                [b.time_s for b in fastest],
                "s:",
                color=colour,
                alpha=0.8,
                label=f"{entry.algorithm}, its fastest shape at each size",
            )
        bound_x, bound_y = x, [t.hardware_bound_s for t in timings]
    ax.plot(bound_x, bound_y, "k:", label="hardware lower bound")
    if result.achievable:
        achievable = sorted(result.achievable, key=lambda a: a.message_bytes)
        ax.plot(
            [a.message_bytes for a in achievable],
            [a.bound_s for a in achievable],
            "k-",
            linewidth=2,
            label=f"achievable bound (no schedule is faster; hops <= {achievable[0].hop_limit})",
        )
    if result.electrical is not None:
        _electrical_curves(ax, result.electrical, len(result.algorithms))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("message size per node (bytes)")
    ax.set_ylabel("time (s)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", title="solid: true RWA, dashed: closed form")
    ax.set_title(
        f"{result.collective} on N={result.ring.nodes}, "
        f"F={result.ring.fibers_per_direction}, w={result.ring.wavelengths_per_fiber}"
    )
    return fig


def _electrical_curves(ax: Axes, electrical: ElectricalResult, first_colour: int) -> None:
    """E-Ring and E-RD on the fat-tree: Hockney (dash-dot) and SimGrid (dotted)."""
    for j, e in enumerate(a for a in electrical.algorithms if a.timings):
        points: list[ElectricalTimingResult] = sorted(e.timings, key=_by_size)
        x = [p.message_bytes for p in points]
        colour = f"C{(first_colour + j) % 10}"
        hockney = [p.hockney_s for p in points]
        ax.plot(x, hockney, "s-.", color=colour, label=f"{e.algorithm} (Hockney)")
        simulated = [p.simulated_s for p in points if p.simulated_s is not None]
        if len(simulated) == len(points):
            ax.plot(x, simulated, "^:", color=colour, label=f"{e.algorithm} (SimGrid)")


def _by_size(timing: ElectricalTimingResult) -> float:
    return timing.message_bytes


def render(fig: Figure, fmt: str) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, dpi=110)
    return buffer.getvalue()


def _series_label(row: SweepRow, *, with_nodes: bool) -> str:
    """What tells one curve of a sweep from another: the point's other coordinates."""
    parts = [row.collective.value] if row.collective else []
    if with_nodes:
        parts.append(f"N={row.nodes}")
    parts += [f"F={row.fibers_per_direction}", f"w={row.wavelengths_per_fiber}"]
    parts += [f"{k}={v}" for k, v in row.swept.items()]
    return f"{row.algorithm} ({', '.join(parts)})"


SERIES_MARKERS = "os^Dv<>ph*"


def _series_style(i: int) -> tuple[str, str]:
    """Series i's colour and marker: matplotlib's 10 colours, then the next marker, so up to
    100 curves differ in their legend (the steps plot's dashes mean 'claimed')."""
    return f"C{i % 10}", SERIES_MARKERS[(i // 10) % len(SERIES_MARKERS)]


def sweep_steps_figure(rows: Iterable[SweepRow]) -> Figure:
    """True steps (solid) and claimed steps (dashed, where the claim is in steps) against N,
    one curve per algorithm and every other coordinate of the grid."""
    curves: dict[str, dict[int, tuple[int, float | None]]] = {}
    for row in rows:
        if row.algorithm is None or row.true_steps is None:
            continue
        claimed = row.claimed if row.claimed_unit == Unit.STEPS else None
        label = _series_label(row, with_nodes=False)
        curves.setdefault(label, {})[row.nodes] = (row.true_steps, claimed)
    fig = Figure(figsize=(9, 5.5), layout="constrained")
    ax = fig.subplots()
    for i, (label, by_nodes) in enumerate(sorted(curves.items())):
        nodes = sorted(by_nodes)
        colour, marker = _series_style(i)
        ax.plot(nodes, [by_nodes[n][0] for n in nodes], marker + "-", color=colour, label=label)
        claims = [c for n in nodes if (c := by_nodes[n][1]) is not None]
        if len(claims) == len(nodes):
            ax.plot(nodes, claims, "x--", color=colour, alpha=0.6)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("ring size N")
    ax.set_ylabel("steps")
    ax.grid(True, which="both", alpha=0.3)
    if curves:
        _legend_below(fig, ax, "solid: true RWA, dashed: claimed")
    ax.set_title("true steps against N" + ("" if curves else " (no finished points yet)"))
    return fig


def sweep_time_figure(rows: Iterable[SweepRow]) -> Figure:
    """True time against message size, one curve per algorithm and grid point, and each
    point's achievable bound (black)."""
    curves: dict[str, dict[float, float]] = {}
    # per grid point, the achievable bound (SPEC 12): the largest achievable_s of its rows is
    # the plan's own bound (optically infeasible rows are measured against a lower one)
    bounds: dict[str, dict[float, float]] = {}
    for row in rows:
        if row.algorithm is None or row.time_s is None or row.message_bytes is None:
            continue
        label = _series_label(row, with_nodes=True)
        curves.setdefault(label, {})[row.message_bytes] = row.time_s
        if row.achievable_s:
            point = "achievable (" + label.split(" (", 1)[1]
            known = bounds.setdefault(point, {})
            known[row.message_bytes] = max(known.get(row.message_bytes, 0.0), row.achievable_s)
    fig = Figure(figsize=(9, 5.5), layout="constrained")
    ax = fig.subplots()
    for i, (label, by_size) in enumerate(sorted(curves.items())):
        sizes = sorted(by_size)
        colour, marker = _series_style(i)
        ax.plot(sizes, [by_size[s] for s in sizes], marker + "-", color=colour, label=label)
    for label, by_size in sorted(bounds.items()):
        sizes = sorted(by_size)
        ax.plot(sizes, [by_size[s] for s in sizes], "k-", linewidth=2, alpha=0.7, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("message size per node (bytes)")
    ax.set_ylabel("time (s)")
    ax.grid(True, which="both", alpha=0.3)
    if curves:
        _legend_below(fig, ax)
    ax.set_title("true time against message size" + ("" if curves else " (no points yet)"))
    return fig


def _legend_below(fig: Figure, ax: Axes, title: str | None = None) -> None:
    """The axes' legend under the plot, never over the curves: a sweep can have dozens of
    curves (one per algorithm and grid point), so the figure grows by the legend's rows."""
    handles, labels = ax.get_legend_handles_labels()
    columns = 1 if len(handles) <= 6 else 2 if len(handles) <= 20 else 3
    rows = -(-len(handles) // columns)
    width, height = fig.get_size_inches()
    fig.set_size_inches(width, height + 0.18 * rows + (0.3 if title else 0.1))
    fig.legend(
        handles, labels, loc="outside lower center", ncols=columns, fontsize="x-small",
        title=title, title_fontsize="x-small",
    )  # fmt: skip
