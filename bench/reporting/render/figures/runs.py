"""Figures that follow each training run epoch by epoch (:func:`bench.reporting.frames.epochs.epochs_frame`): the
training time of every epoch, and validation accuracy against training time. One line per point: points of two
runs or configurations are never joined."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter

from bench.reporting.render.figures import layout
from bench.reporting.render.figures.curves import accuracy_limits

POINT = ["run_id", "point_id"]  # one training run: the epochs of one point of one run
MAX_RUNS = 120  # more lines than this in one figure read as a texture, not as runs: no figure (the epochs are data)


def runs_data(epochs: pd.DataFrame, column: str) -> pd.DataFrame | None:
    """The epochs of finished points with a finite ``column``, labelled by configuration; None without two epochs
    of one point (a line needs two), or with more than :data:`MAX_RUNS` points (a 1,000-record sweep: ~500 lines a
    workload, unreadable, and a second each to draw)."""
    data = epochs[epochs["status"] == "ok"].copy()
    data["value"] = pd.to_numeric(data[column], errors="coerce")
    finite: pd.Series[bool] = np.isfinite(data["value"])  # typed: NumPy's stub gives a ufunc of a Series as Any
    data = data[finite]
    counts = data.groupby(POINT)["epoch"].count()
    if data.empty or counts.max() < 2 or len(counts) > MAX_RUNS:
        return None
    data["series"] = (layout.series_labels(data) + " b" + data["global_batch_size"].astype(str) + " spe"
                      + data["steps_per_execution"].astype(str))
    return data


def _lines(ax: Any, data: pd.DataFrame, x: str, pal: dict[str, Any], mk: dict[str, str]) -> None:
    """One line per point, coloured by its configuration: one LineCollection of its points' lines (gid: its label)
    and one marker-only line per configuration, and an empty line carrying the label for the legend (a plot call per
    point cost ~1 s a figure over 1,000 records)."""
    ordered = data.sort_values([*POINT, "epoch"])
    for series, d in ordered.groupby("series", sort=True):
        name = str(series)  # a str column's group key, which pandas types as any scalar
        xy = np.column_stack([d[x].to_numpy(dtype=float), d["value"].to_numpy(dtype=float)])
        run = (d["run_id"].astype(str) + "/" + d["point_id"].astype(str)).to_numpy()
        starts = np.flatnonzero(np.r_[True, run[1:] != run[:-1]])  # where each point's epochs begin (sorted)
        segments = np.split(xy, starts[1:])
        ax.add_collection(LineCollection(segments, colors=[pal[name]], linewidths=1.3, alpha=0.85, gid=str(name),
                                         label=f"_{name}"), autolim=False)
        ax.update_datalim(xy)  # once per configuration, not per collection's path
        ax.plot(xy[:, 0], xy[:, 1], linestyle="none", color=pal[name], marker=mk[name], markersize=4.5, alpha=0.85,
                label=f"_{name}")  # the markers of all its points: one Line2D, cheaper than a scatter
        ax.plot([], [], color=pal[name], marker=mk[name], label=str(name), linewidth=1.3, markersize=5)
    ax.autoscale_view()


def epoch_times_figure(epochs: pd.DataFrame, title: str) -> Figure | None:
    """The training seconds of every epoch (validation excluded) against the epoch, one line per point, one panel per
    global batch: epoch 1's warm-up, a steady state that still falls or drifts, and where a compiled variant's longer
    first epoch is paid back are read off it. Log y where the times span more than a factor of 8."""
    data = runs_data(epochs, "train_s")
    if data is None:
        return None
    batches = sorted(data["global_batch_size"].unique())
    fig, axes = layout.grid(len(batches), f"{title}: training time of each epoch, one line per run")
    pal, mk = layout.palette(data["series"].tolist()), layout.markers(data["series"].tolist())
    for ax, gb in zip(axes, batches, strict=True):
        d = data[data["global_batch_size"] == gb]
        _lines(ax, d, "epoch", pal, mk)
        ax.xaxis.set_major_locator(FixedLocator(sorted(d["epoch"].unique())))
        ax.set(title=f"global batch = {gb}")
    layout.outer_labels(axes, "epoch (1 = warm-up)", "training time of the epoch (s)")
    layout.y_scale(axes, data["value"])
    layout.legend(fig, axes, "configuration")
    return fig


def time_to_accuracy_data(epochs: pd.DataFrame) -> pd.DataFrame | None:
    """Per point and epoch, the training seconds so far (warm-up included, as the report's time to target) and the
    validation accuracy after it; None without a point of two epochs."""
    data = runs_data(epochs, "val_accuracy")
    if data is None:
        return None
    data = data.sort_values([*POINT, "epoch"])
    data["elapsed_s"] = data.groupby(POINT)["train_s"].cumsum()
    finite: pd.Series[bool] = np.isfinite(data["elapsed_s"])  # typed, as in runs_data
    return data[finite]


def time_to_accuracy_figure(epochs: pd.DataFrame, points: pd.DataFrame, title: str) -> Figure | None:
    """Validation accuracy against training seconds so far (warm-up included), one line per point, one panel; the
    workload's target as a dotted line (from ``points``): the configuration whose line crosses it first is the
    fastest to the target, whatever its throughput. Log x where the times span more than a factor of 20; the
    accuracy axis fitted to the data."""
    data = time_to_accuracy_data(epochs)
    if data is None:
        return None
    fig, axes = layout.grid(1, f"{title}: validation accuracy against training time (warm-up included)")
    ax = axes[0]
    pal, mk = layout.palette(data["series"].tolist()), layout.markers(data["series"].tolist())
    _lines(ax, data, "elapsed_s", pal, mk)
    target = points["target_accuracy"].dropna() if "target_accuracy" in points else pd.Series(dtype=float)
    target = target[np.isfinite(target)]
    if len(target):
        ax.axhline(float(target.iloc[0]), color="0.2", linestyle=":", linewidth=1.2, label="target")
    t = data["elapsed_s"][data["elapsed_s"] > 0]
    if len(t) and t.max() / t.min() > 20:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(layout.tick_text))
    ax.set_ylim(*accuracy_limits(data["value"].astype(float), target))
    layout.outer_labels(axes, "training time so far (s, warm-up included)", "validation accuracy")
    layout.legend(fig, axes, "configuration")
    return fig
