"""Time against cost per configuration, the Pareto front marked (:mod:`bench.reporting.analysis.cost`). Never imports
TensorFlow."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from bench.reporting.frames.labels import config_name
from bench.reporting.render.figures import layout
from bench.reporting.render.text import sig

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
    xspan = float(pts[time_col].max()) or 1.0
    yspan = float(pts[cost_col].max()) or 1.0
    placed: list[tuple[float, float]] = []
    # only the front is labelled: a sweep has dozens of configurations, and the front is what the figure is for
    for _, r in pts[pts["on_front"]].sort_values([time_col, cost_col]).iterrows():
        x, y = float(r[time_col]), float(r[cost_col])
        # labels of configurations that sit on top of each other are stacked, not printed over one another
        k = sum(abs(x - px) < 0.04 * xspan and abs(y - py) < 0.04 * yspan for px, py in placed)
        placed.append((x, y))
        ax.annotate(f"{r['host']}: {config_name(r)}", (x, y), textcoords="offset points", xytext=(6, 3 - 10 * k),
                    fontsize=7, color="#444444")
    front = pts[pts["on_front"]].sort_values(time_col)
    if len(front):
        ax.step(front[time_col], front[cost_col], where="post", color="#222222", linewidth=1.0, linestyle="--",
                label="Pareto front", zorder=2)
    ax.set_xlabel(AXES[time_col])
    ax.set_ylabel(AXES[cost_col])
    # round ticks as they are ($0.007, $0.00005, $1,500): never a 1e-5 offset, never "$0.00700"
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: "$" + sig(y, trim=True)))
    xmax, ymax = float(pts[time_col].max()), float(pts[cost_col].max())
    ax.set_xlim(0, xmax * 1.25 if xmax > 0 else 1.0)  # from zero: a cheap, fast point sits near the corner
    ax.set_ylim(0, ymax * 1.25 if ymax > 0 else 1.0)
    layout.legend(fig, [ax])
    return fig
