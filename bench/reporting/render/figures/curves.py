"""Line figures from the per-epoch frame (:func:`bench.reporting.frames.epochs.epochs_frame`, what ``bench.epochs``
gives a notebook): training time per epoch, training throughput and validation accuracy, one line per series with a
band. Never imports TensorFlow."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator

from bench.reporting.render.figures import layout
from bench.reporting.stats.sample import quantile_bands


def _samples(epochs: pd.DataFrame, column: str) -> pd.DataFrame:
    """One row per steady epoch of every ok point, ``value`` = that epoch's ``column``."""
    ok = epochs[(epochs["status"] == "ok") & epochs["steady"].astype(bool)].copy()
    if ok.empty:
        return ok
    ok["series"] = layout.series_labels(ok)
    ok["value"] = pd.to_numeric(ok[column], errors="coerce")
    finite: pd.Series[bool] = np.isfinite(ok["value"])  # typed: NumPy's stub gives a ufunc of a Series as Any
    return ok[finite]


DODGE = 0.05  # each series' x is moved by this many x units (log2 units on a log2 axis) times its offset


def _band_lines(ax: Any, d: pd.DataFrame, x: str, y: str, low_q: float, pal: dict[str, Any],
                mk: dict[str, str], log2: bool = True, join: bool = True) -> None:
    """Per series, the median of ``y`` at each ``x`` with its spread from quantile ``low_q`` to ``1 - low_q``
    (0.25: the IQR; 0: the range): joined by a line with a band where ``join`` (x = epochs of one configuration),
    else a marker with an error bar at each x and no line (x = a setting: the points of two batch sizes or two
    steps_per_execution are two configurations, often two runs, and a line between them would read as a trend).
    Series are dodged sideways a little (:data:`DODGE`), so two with the same values (``cpu`` under ``cpu_x2`` from
    one seed) show side by side, not as one. Aggregated by :func:`~bench.reporting.stats.sample.quantile_bands` and
    drawn with matplotlib, several times faster than seaborn's per-call estimator for the same picture."""
    labels, at, values = d["series"].to_numpy(), d[x].to_numpy(dtype=float), d[y].to_numpy(dtype=float)
    names = sorted(set(labels))
    bands, faces = [], []  # one collection of all bands, under every line (a fill_between each: 0.34 of 1.7 s)
    for i, name in enumerate(names):
        mine = labels == name
        xs, low, mid, high = quantile_bands(at[mine], values[mine], low_q)
        shift = (i - (len(names) - 1) / 2) * DODGE
        xs = xs * 2.0 ** shift if log2 else xs + shift
        if not join:
            ax.errorbar(xs, mid, yerr=[mid - low, high - mid], color=pal[name], marker=mk[name], label=name,
                        linestyle="none", markersize=6, capsize=3, elinewidth=1.2)
            continue
        ax.plot(xs, mid, color=pal[name], marker=mk[name], label=name, linewidth=1.5, markersize=6)
        if (low != high).any():
            keep = np.isfinite(xs) & np.isfinite(low) & np.isfinite(high)
            bx, bl, bh = xs[keep], low[keep], high[keep]
            bands.append(np.column_stack([np.concatenate([bx, bx[::-1]]), np.concatenate([bl, bh[::-1]])]))
            faces.append(pal[name])
    if bands:
        ax.add_collection(PolyCollection(bands, facecolors=faces, alpha=0.2, linewidths=0), autolim=True)
        ax.autoscale_view()


def line_data(epochs: pd.DataFrame, column: str, x: str) -> pd.DataFrame | None:
    """The steady epochs a line figure of ``column`` against ``x`` draws; None when there is no figure to draw (no
    steady epoch, or one x value: a dot per panel is no line figure, the tables say it)."""
    data = _samples(epochs, column)
    return None if data.empty or data[x].nunique() < 2 else data


def _median_lines(epochs: pd.DataFrame, column: str, x: str, panel: str, title: str, xlabel: str,
                  ylabel: str, panel_title: str) -> Figure | None:
    """Median (IQR bar) of the steady epochs' ``column`` vs ``x`` (log2), one marker per strategy and x (never
    joined: each x is another configuration), one panel per value of ``panel``."""
    data = line_data(epochs, column, x)
    if data is None:
        return None
    panels = sorted(data[panel].unique())
    fig, axes = layout.grid(len(panels), title)
    pal, mk = layout.palette(data["series"].tolist()), layout.markers(data["series"].tolist())
    for ax, value in zip(axes, panels, strict=True):
        _band_lines(ax, data[data[panel] == value], x, "value", 0.25, pal, mk, join=False)
        ax.set(title=panel_title.format(value))
    layout.log2_x(axes, sorted(data[x].unique()))
    layout.outer_labels(axes, xlabel, ylabel)
    layout.y_scale(axes, data["value"])
    layout.legend(fig, axes)
    return fig


def epoch_time_figure(epochs: pd.DataFrame, title: str) -> Figure | None:
    """Steady training time per epoch (s, validation excluded; median with IQR band) vs global batch
    (log2), one panel per spe."""
    return _median_lines(epochs, "train_s", "global_batch_size", "steps_per_execution",
                         f"{title}: steady training time per epoch vs global batch",
                         "global batch size (examples, log2)", "training time per epoch (s)",
                         "steps_per_execution = {}")


def throughput_figure(epochs: pd.DataFrame, title: str) -> Figure | None:
    """Training throughput (examples/s, median with IQR band) vs steps_per_execution, one panel per batch."""
    return _median_lines(epochs, "examples_per_s", "steps_per_execution", "global_batch_size",
                         f"{title}: training throughput vs steps_per_execution", "steps_per_execution (log2)",
                         "training throughput (examples/s)", "global batch = {}")


def val_accuracy_data(epochs: pd.DataFrame) -> pd.DataFrame | None:
    """The epochs the validation-accuracy figure draws (ok and diverged points with a finite accuracy); None
    without any."""
    data = epochs[epochs["status"].isin(["ok", "diverged"])].copy()
    data = data[np.isfinite(pd.to_numeric(data["val_accuracy"], errors="coerce"))]
    return None if data.empty else data


def val_accuracy_figure(epochs: pd.DataFrame, points: pd.DataFrame, title: str) -> Figure | None:
    """Validation accuracy per epoch, one line per configuration (strategy, and steps_per_execution where the
    workload ran several: epochs of one configuration are joined, two configurations never are; band = range over
    its seeds: each repeat is a training run from its own seed), one panel per global batch (from ``epochs``); the
    y axis of each panel fitted to its own data (:func:`accuracy_limits`: a diverged run falling to chance in one
    panel does not squash 0.70-0.87 in the others); dashed line = chance accuracy where it lies in view, dotted
    line = the workload's target accuracy (both from ``points``). Diverged points are drawn too."""
    data = val_accuracy_data(epochs)
    if data is None:
        return None
    data["series"] = layout.series_labels(data, spe=True)
    pts = points[points["status"].isin(["ok", "diverged"])]
    batches = sorted(data["global_batch_size"].unique())
    fig, axes = layout.grid(len(batches), f"{title}: validation accuracy per epoch", sharey=False, sharex=True)
    pal, mk = layout.palette(data["series"].tolist()), layout.markers(data["series"].tolist())
    chance = pts["chance_accuracy"].dropna()
    target = pts["target_accuracy"].dropna() if "target_accuracy" in pts else pd.Series(dtype=float)
    target = target[np.isfinite(target)]
    for ax, gb in zip(axes, batches, strict=True):
        d = data[data["global_batch_size"] == gb]
        low, high = accuracy_limits(d["val_accuracy"].astype(float), target)
        _band_lines(ax, d, "epoch", "val_accuracy", 0.0, pal, mk, log2=False)
        if len(chance) and low <= float(chance.iloc[0]) <= high:
            ax.axhline(float(chance.iloc[0]), color="0.4", linestyle="--", linewidth=1, label="chance")
        if len(target):
            ax.axhline(float(target.iloc[0]), color="0.2", linestyle=":", linewidth=1.2, label="target")
        ax.xaxis.set_major_locator(FixedLocator(sorted(d["epoch"].unique())))
        ax.set_ylim(low, high)
        ax.set(title=f"global batch = {gb}")
    layout.outer_labels(axes, "epoch (1 = warm-up)", "validation accuracy")
    for ax in axes:  # each panel's own y tick labels take their room
        ax.yaxis.set_in_layout(True)
    layout.legend(fig, axes, "configuration")
    return fig


MIN_ACCURACY_SPAN = 0.04  # a flat line stays flat: noise of a point or two is not stretched over the panel


def accuracy_limits(values: pd.Series, target: pd.Series) -> tuple[float, float]:
    """The accuracy axis fitted to the data (and the target): from the lowest to the highest value with a margin of
    8 % of their span, at least :data:`MIN_ACCURACY_SPAN` wide, within 0..1 (0.96-0.985 is not lost on a 0-1 axis)."""
    v = values[np.isfinite(values)]
    ends = [float(v.min()), float(v.max()), *([float(target.iloc[0])] if len(target) else [])]
    lo, hi = min(ends), max(ends)
    pad = max(0.08 * (hi - lo), (MIN_ACCURACY_SPAN - (hi - lo)) / 2, 0.0) or 0.005
    return max(0.0, lo - pad), min(1.0, hi + pad)
