"""Sweep plots keep their legend off the curves: a sweep has a curve per algorithm and grid
point, dozens of them (the legend was drawn over the data)."""

from __future__ import annotations

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from app.presentation.plots import sweep_steps_figure, sweep_time_figure
from app.schemas.sweeps import SweepRow

ALGORITHMS = ("ring", "ne", "osm", "wrht", "optree", "synth")


def _rows(points: int) -> list[SweepRow]:
    rows = []
    for n in (64, 256, 1024)[:points]:
        for w in (16, 64):
            for k, name in enumerate(ALGORITHMS):
                for size in (4096.0, 1048576.0, 67108864.0):
                    rows.append(
                        SweepRow(
                            point=0, plan_id=None, status="done", cached=False,
                            collective="allgather", nodes=n, fibers_per_direction=1,
                            wavelengths_per_fiber=w, swept={}, algorithm=name,
                            message_bytes=size, time_s=(1 + k) * size / 4e6,
                            true_steps=(1 + k) * n, achievable_s=size / 8e6,
                        )
                    )  # fmt: skip
    return rows


@pytest.mark.parametrize("figure", [sweep_time_figure, sweep_steps_figure])
@pytest.mark.parametrize("points", [1, 3])
def test_the_legend_sits_below_the_axes_and_lists_every_curve(figure, points: int) -> None:
    fig = figure(_rows(points))
    FigureCanvasAgg(fig).draw()
    (ax,) = fig.axes
    (legend,) = fig.legends
    renderer = fig.canvas.get_renderer()
    axes_box = ax.get_tightbbox(renderer)
    legend_box = legend.get_window_extent(renderer)
    assert legend_box.y1 <= axes_box.y0  # display coordinates: y grows upwards
    assert legend_box.x0 >= 0 and legend_box.x1 <= fig.bbox.x1  # inside the figure
    curves = len(ax.get_legend_handles_labels()[0])
    assert len(legend.get_texts()) == curves
    assert not ax.get_legend()  # no second legend over the curves


@pytest.mark.parametrize(
    ("value", "in_bytes", "label"),
    [
        (4 * 2**20, True, "4 MiB"),
        (128 * 2**20, True, "128 MiB"),
        (3 * 2**10, True, "3 KiB"),
        (2**30, True, "1 GiB"),
        (1000.0, True, "1000"),  # not a whole KiB: plain
        (2048.0, False, "2048"),  # processes, not bytes
        (8.0, False, "8"),
        (1e-5, False, ""),  # no short label: the axis keeps matplotlib's ticks
    ],
)
def test_reproduction_axes_label_their_points(value: float, in_bytes: bool, label: str) -> None:
    """The reproduction report's log x axes (Fig. 6's w, Fig. 8's P, message sizes) are
    labelled at their points, byte sizes in binary units."""
    from app.reproduction.writer import _point_label

    assert _point_label(value, in_bytes) == label


@pytest.mark.parametrize("figure", [sweep_time_figure, sweep_steps_figure])
def test_every_curve_of_a_sweep_looks_different_in_the_legend(figure) -> None:
    """More curves than matplotlib's 10 colours (the steps plot: 2 channel counts x 6
    algorithms; the time plot: 3 rings more): no two share both colour and marker (12 series
    on the 10 colours drew two pairs alike)."""
    fig = figure(_rows(3))
    (ax,) = fig.axes
    handles, labels = ax.get_legend_handles_labels()
    looks = {(h.get_color(), h.get_marker()) for h, label in zip(handles, labels, strict=True)
             if not label.startswith("achievable")}  # fmt: skip
    curves = sum(not label.startswith("achievable") for label in labels)
    assert curves > 10 and len(looks) == curves


def test_the_time_plot_draws_each_sizes_fastest_shape_where_the_row_is_slower() -> None:
    """Review A (session 34): the time plot drew each algorithm's row, the first size's
    shape, so at the other sizes it showed a time the plan does not recommend (all-reduce
    on N = 64, w = 64: 8 x 8 at 4 MiB, the 5-slot tree at 64 MiB). Each size's fastest
    shape is drawn beside it, with the search's times; a plan of one size draws none."""
    from app.planning import prepare
    from app.presentation.plots import time_figure
    from app.schemas.requests import PlanRequest
    from app.service import answer

    def lines(sizes: list[int]) -> tuple[dict[str, list[float]], list[float]]:
        body = {"ring": {"nodes": 64, "wavelengths_per_fiber": 64}, "collective": "allreduce",
                "algorithms": ["synth"], "message_sizes_bytes": sizes}  # fmt: skip
        result = answer(prepare(PlanRequest.model_validate(body)))
        drawn = {str(line.get_label()): [float(y) for y in line.get_ydata()]
                 for line in time_figure(result).axes[0].get_lines()}
        fastest = result.algorithms[0].shapes.search.best_by_message
        return drawn, [b.time_s for b in sorted(fastest, key=lambda b: b.message_bytes)]

    drawn, fastest = lines([4 * 2**20, 64 * 2**20])
    assert drawn["synth, its fastest shape at each size"] == fastest
    row = next(times for label, times in drawn.items() if label.startswith("synth ("))
    assert fastest[0] == row[0] and fastest[1] < row[1]  # the row is 4 MiB's winner
    drawn, _ = lines([4 * 2**20])
    assert "synth, its fastest shape at each size" not in drawn
