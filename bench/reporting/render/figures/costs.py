"""Time against cost per configuration, the Pareto front marked (:mod:`bench.reporting.analysis.cost`). Never imports
TensorFlow."""

from __future__ import annotations

import itertools
from typing import Any

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from bench.reporting.frames.keys import plain_rows
from bench.reporting.render.figures import layout
from bench.reporting.render.text import config_name, sig

LABEL_PT = 7  # the front's labels' font size (points)
# where a front label may go, in turn (offset in points from its point, horizontal alignment): right and up first
PLACES = ((6, 3, "left"), (6, 12, "left"), (-6, 3, "right"), (6, -11, "left"), (-6, -11, "right"), (0, 8, "center"),
          (0, -15, "center"), (6, 21, "left"))

AXES = {"time_to_target_s": "seconds to target (training, warm-up included)",
        "usd_to_target": "USD to target",
        "epoch_s_median": "steady seconds per epoch",
        "usd_per_epoch": "USD per steady epoch"}


def cost_figure(pts: pd.DataFrame, time_col: str, cost_col: str, title: str) -> Figure | None:
    """One marker per configuration (colour and marker by strategy, ``@host`` when two machines ran it); the Pareto
    front joined by a step line, its configurations labelled with machine, batch, spe and precision. None without
    points."""
    if pts.empty:
        return None
    pts = pts.assign(series=layout.series_labels(pts))
    labels = sorted(pts["series"].unique())
    colours, marks = layout.palette(labels), layout.markers(labels)
    fig, (ax,) = layout.grid(1, f"{title}: time and cost", sharey=False)
    for lab in labels:
        s = pts[pts["series"] == lab]
        ax.scatter(s[time_col], s[cost_col], color=colours[lab], marker=marks[lab], s=46, label=lab, zorder=3)
    xmax, ymax = float(pts[time_col].max()), float(pts[cost_col].max())
    xlim, ylim = (0.0, xmax * 1.25 if xmax > 0 else 1.0), (0.0, ymax * 1.25 if ymax > 0 else 1.0)
    front = pts[pts["on_front"]].sort_values(time_col)
    if len(front):
        ax.step(front[time_col], front[cost_col], where="post", color="#222222", linewidth=1.0, linestyle="--",
                label="Pareto front", zorder=2)
    _label_front(fig, ax, pts, front.sort_values([time_col, cost_col]), (time_col, cost_col), (xlim[1], ylim[1]))
    ax.set_xlabel(AXES[time_col])
    ax.set_ylabel(AXES[cost_col])
    # round ticks as they are ($0.007, $0.00005, $1,500): never a 1e-5 offset, never "$0.00700"
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: "$" + sig(y, trim=True)))
    ax.set_xlim(*xlim)  # from zero: a cheap, fast point sits near the corner
    ax.set_ylim(*ylim)
    layout.legend(fig, [ax])
    return fig


Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in points


def _label_front(fig: Figure, ax: Any, pts: pd.DataFrame, front: pd.DataFrame, cols: tuple[str, str],
                 top: tuple[float, float]) -> None:
    """Label the front's configurations with machine, batch, spe and precision (only the front: a sweep has dozens
    of configurations, and the front is what the figure is for), each where it covers no marker, no other label and
    not the front's line (:func:`_label_place`); ``top``: the axes' upper x and y limits (they start at 0)."""
    box = ax.get_position()  # the axes in points, before the layout shrinks it a little (estimates, not measures)
    size = (box.width * fig.get_figwidth() * 72, box.height * fig.get_figheight() * 72)

    def to_pt(x: float, y: float) -> tuple[float, float]:
        return float(x) / top[0] * size[0], float(y) / top[1] * size[1]

    markers = [to_pt(x, y) for x, y in zip(pts[cols[0]], pts[cols[1]], strict=True)]
    corners = [to_pt(x, y) for x, y in zip(front[cols[0]], front[cols[1]], strict=True)]
    taken: list[Box] = []  # the front's step line (a horizontal, then a vertical piece a step), then the labels
    for (x0, y0), (x1, y1) in itertools.pairwise(corners):
        taken += [(x0, y0 - 1, x1, y0 + 1), (x1 - 1, min(y0, y1), x1 + 1, max(y0, y1))]
    for r in plain_rows(front):
        text = f"{r['host']}: {config_name(r)}"
        (dx, dy, ha), label = _label_place(to_pt(r[cols[0]], r[cols[1]]), len(text), markers, taken, size)
        taken.append(label)
        ax.annotate(text, (r[cols[0]], r[cols[1]]), textcoords="offset points", xytext=(dx, dy), ha=ha,
                    fontsize=LABEL_PT, color="#444444")


def _label_place(at: tuple[float, float], chars: int, markers: list[tuple[float, float]], taken: list[Box],
                 size: tuple[float, float]) -> tuple[tuple[int, int, str], Box]:
    """The first of :data:`PLACES` where a label of ``chars`` characters at point ``at`` (points from the axes' lower
    left) covers no marker (but its own), nothing ``taken`` (lines, labels) and stays inside the axes (``size``);
    else the place that covers least. A text is estimated at 0.6 of its font size a character, its font size high,
    a marker a 9-point square: overlaps are judged with that margin, not measured."""
    w, h, m = 0.6 * LABEL_PT * chars, LABEL_PT + 1.0, 4.5
    others = [(mx - m, my - m, mx + m, my + m) for mx, my in markers if abs(mx - at[0]) + abs(my - at[1]) > 0.5]
    best: tuple[float, tuple[int, int, str], Box] | None = None
    for dx, dy, ha in PLACES:
        x0 = at[0] + dx - (w if ha == "right" else w / 2 if ha == "center" else 0.0)
        label = (x0, at[1] + dy, x0 + w, at[1] + dy + h)
        outside = (max(0.0, -label[0]) + max(0.0, label[2] - size[0]) + max(0.0, -label[1])
                   + max(0.0, label[3] - size[1]))
        cost = sum(_overlap(label, o) for o in [*others, *taken]) + outside * h
        if best is None or cost < best[0]:
            best = (cost, (dx, dy, ha), label)
        if cost == 0:
            break
    assert best is not None
    return best[1], best[2]


def _overlap(a: Box, b: Box) -> float:
    """The area two boxes share (points²)."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
