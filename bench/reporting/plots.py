"""Seaborn figures for one workload (PNG, Agg backend, no pyplot state). Never imports TensorFlow.

Each figure has a ``*_figure`` function that returns the matplotlib ``Figure`` (or None when there is
no data for it, e.g. only failed points) and a ``plot_*`` function that saves it and returns the PNG path
(or None). Inputs are the frames of :mod:`bench.reporting.frame` filtered to one workload and dataset.
Series are labelled with the strategy labels of the analysis (the names the user typed, ``@host`` only
when two machines ran the same strategy), plus the precision when a workload ran more than one.
"""

from __future__ import annotations

import math
import re
import textwrap
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.patches

matplotlib.use("Agg")  # before anything touches a backend: reports run headless

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from bench.reporting.frame import split_label

PANEL_W, PANEL_H, MAX_COLS = 4.0, 3.2, 3
DPI = 100


def slug(text: str) -> str:
    """File-name-safe ``text``: ``"fashion_cnn synthetic (reduced)"`` -> ``fashion_cnn-synthetic-reduced``."""
    return re.sub(r"[^A-Za-z0-9_.]+", "-", text).strip("-").lower()


def _series(frame: pd.DataFrame) -> pd.Series:
    """Series label: strategy, plus precision when the frame holds more than one precision, plus
    ``(diverged)`` for diverged points."""
    label = frame["strategy"].astype(str)
    if frame["precision"].nunique() > 1:
        label = label + " " + frame["precision"]
    return label.where(frame["status"] != "diverged", label + " (diverged)")


MARKERS = ("o", "X", "s", "P", "D", "^", "v", "<", ">", "p", "*", "h")


def _palette(labels: list[str]) -> dict[str, Any]:
    """Colour per series, fixed by sorted label so every panel and figure agrees."""
    labels = sorted(set(labels))
    return dict(zip(labels, sns.color_palette("tab10", max(len(labels), 1)), strict=False))


def _markers(labels: list[str]) -> dict[str, str]:
    """Marker per series (a second cue where lines overlap), fixed by sorted label like the colours."""
    labels = sorted(set(labels))
    return {lab: MARKERS[i % len(MARKERS)] for i, lab in enumerate(labels)}


def _grid(n: int, title: str, sharey: bool = True, extra_w: float = 1.6) -> tuple[Figure, list[Any]]:
    cols = min(n, MAX_COLS)
    rows = math.ceil(n / cols)
    panels_w = max(PANEL_W * cols, 6.0)  # a lone panel still gets room for its title
    fig = Figure(figsize=(panels_w + extra_w, PANEL_H * rows + 0.6), layout="constrained", dpi=DPI)
    with sns.axes_style("whitegrid"):
        axes = fig.subplots(rows, cols, sharex=sharey, sharey=sharey, squeeze=False).ravel().tolist()
    for ax in axes[n:]:
        ax.set_visible(False)
    # Wrap long titles so a one-panel figure never clips them (~0.1 inch per character at 12 pt).
    fig.suptitle(textwrap.fill(title, width=int(panels_w * 8)))
    return fig, axes[:n]


def _log2_x(ax: Any, values: list[int]) -> None:
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sorted(values)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([str(v) for v in sorted(values)], rotation=0 if len(values) < 6 else 45)
    if len(values) == 1:
        ax.set_xlim(values[0] / 1.6, values[0] * 1.6)


def _y_scale(axes: list[Any], values: pd.Series) -> None:
    """After plotting: log y (plain-number labels) when the values span more than a factor of 8, else a
    linear axis from zero, so that a 2 % difference does not look like a factor of two."""
    v = values[np.isfinite(values) & (values > 0)]
    if not (len(v) and v.max() / v.min() > 8):
        for ax in axes:
            ax.set_ylim(0, max(ax.get_ylim()[1], float(v.max()) * 1.08 if len(v) else 1.0))
        return
    for ax in axes:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
        ax.yaxis.set_minor_formatter(FuncFormatter(_label_2_5))
        ax.grid(which="minor", axis="y", linewidth=0.4, alpha=0.6)


def _label_2_5(y: float, _pos: Any) -> str:
    """Label the 2x and 5x minor ticks of a log axis (0.2, 0.5, 2, 5, 20, ...), leave the rest blank."""
    if y <= 0:
        return ""
    mantissa = round(y / 10 ** math.floor(math.log10(y)), 6)
    return f"{y:g}" if mantissa in (2.0, 5.0) else ""


def _legend(fig: Figure, axes: list[Any], title: str = "strategy") -> None:
    handles, labels = {}, []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    labels.sort(key=lambda lab: (lab == "chance", lab))  # same order in every figure; reference line last
    if handles:
        fig.legend([handles[lab] for lab in labels], labels, title=title, loc="outside right upper")


def _samples(points: pd.DataFrame, column: str) -> pd.DataFrame:
    """Long frame: one row per steady epoch of every ok point, ``value`` = that epoch's ``column``."""
    ok = points[points["status"] == "ok"].copy()
    if ok.empty:
        return ok
    ok["series"] = _series(ok)
    ok = ok.explode(column)
    ok["value"] = pd.to_numeric(ok[column], errors="coerce")
    return ok[np.isfinite(ok["value"])]


def _band_lines(ax: Any, d: pd.DataFrame, x: str, y: str, low_q: float, pal: dict[str, Any],
                mk: dict[str, str]) -> None:
    """One line per series: the median of ``y`` at each ``x`` with a band from quantile ``low_q`` to
    ``1 - low_q`` (0.25: the IQR; 0: the range). Aggregated once with pandas and drawn with matplotlib,
    which is several times faster than seaborn's per-call estimator for the same picture."""
    agg = d.groupby(["series", x], sort=True)[y].quantile([low_q, 0.5, 1 - low_q]).unstack()
    for name in sorted(d["series"].unique()):
        g = agg.loc[name]
        xs = g.index.to_numpy(dtype=float)
        ax.plot(xs, g[0.5].to_numpy(), color=pal[name], marker=mk[name], label=name, linewidth=1.5,
                markersize=6)
        if (g[low_q] != g[1 - low_q]).any():
            ax.fill_between(xs, g[low_q].to_numpy(), g[1 - low_q].to_numpy(), color=pal[name], alpha=0.2,
                            linewidth=0)


def _median_lines(points: pd.DataFrame, column: str, x: str, panel: str, title: str, xlabel: str,
                  ylabel: str, panel_title: str) -> Figure | None:
    """Median (IQR band) of a per-epoch sample ``column`` vs ``x`` (log2), one line per strategy and one
    panel per value of ``panel``."""
    data = _samples(points, column)
    if data.empty:
        return None
    panels = sorted(data[panel].unique())
    fig, axes = _grid(len(panels), title)
    pal, mk = _palette(data["series"].tolist()), _markers(data["series"].tolist())
    for ax, value in zip(axes, panels, strict=True):
        _band_lines(ax, data[data[panel] == value], x, "value", 0.25, pal, mk)
        _log2_x(ax, sorted(data[x].unique()))
        ax.set(title=panel_title.format(value), xlabel=xlabel, ylabel=ylabel)
    _y_scale(axes, data["value"])
    _legend(fig, axes)
    return fig


def epoch_time_figure(points: pd.DataFrame, title: str) -> Figure | None:
    """Steady training time per epoch (s, validation excluded; median with IQR band) vs global batch
    (log2), one panel per spe."""
    return _median_lines(points, "steady_train_s", "global_batch_size", "steps_per_execution",
                         f"{title}: steady training time per epoch vs global batch",
                         "global batch size (examples, log2)", "training time per epoch (s)",
                         "steps_per_execution = {}")


def throughput_figure(points: pd.DataFrame, title: str) -> Figure | None:
    """Training throughput (examples/s, median with IQR band) vs steps_per_execution, one panel per batch."""
    return _median_lines(points, "steady_examples_per_s", "steps_per_execution", "global_batch_size",
                         f"{title}: training throughput vs steps_per_execution", "steps_per_execution (log2)",
                         "training throughput (examples/s)", "global batch = {}")


def val_accuracy_figure(points: pd.DataFrame, title: str) -> Figure | None:
    """Validation accuracy per epoch, one line per strategy (band = range over spe and repeats), one panel
    per global batch; dashed line = chance accuracy, dotted line = the workload's target accuracy (when it has
    one). Diverged points are drawn too."""
    pts = points[points["status"].isin(["ok", "diverged"])].copy()
    if pts.empty:
        return None
    pts["series"] = _series(pts)
    rows = [{"series": r.series, "global_batch_size": r.global_batch_size, "epoch": ep, "val_accuracy": acc}
            for r in pts.itertuples() for ep, acc in r.val_accuracy_curve if math.isfinite(acc)]
    data = pd.DataFrame(rows)
    if data.empty:
        return None
    batches = sorted(data["global_batch_size"].unique())
    fig, axes = _grid(len(batches), f"{title}: validation accuracy per epoch")
    pal, mk = _palette(data["series"].tolist()), _markers(data["series"].tolist())
    chance = pts["chance_accuracy"].dropna()
    target = pts["target_accuracy"].dropna() if "target_accuracy" in pts else pd.Series(dtype=float)
    for ax, gb in zip(axes, batches, strict=True):
        d = data[data["global_batch_size"] == gb]
        _band_lines(ax, d, "epoch", "val_accuracy", 0.0, pal, mk)
        if len(chance):
            ax.axhline(float(chance.iloc[0]), color="0.4", linestyle="--", linewidth=1, label="chance")
        if len(target):
            ax.axhline(float(target.iloc[0]), color="0.2", linestyle=":", linewidth=1.2, label="target")
        ax.xaxis.set_major_locator(FixedLocator(sorted(d["epoch"].unique())))
        # Span at least 0.2 and include chance, so a flat line at chance looks flat, not like learning.
        top = max(float(data["val_accuracy"].max()), float(chance.max()) + 0.2 if len(chance) else 0.0,
                  float(target.max()) if len(target) else 0.0)
        bottom = min(float(data["val_accuracy"].min()), float(chance.min()) if len(chance) else 1.0)
        ax.set_ylim(max(0.0, bottom - 0.02), min(1.0, top + 0.02))
        ax.set(title=f"global batch = {gb}", xlabel="epoch (1 = warm-up)", ylabel="validation accuracy")
    _legend(fig, axes)
    return fig


def speedup_heatmap_figure(summary: pd.DataFrame, title: str, baseline: str) -> Figure | None:
    """Speedup in training throughput vs the baseline (x), global batch x spe, one panel per strategy.

    Cells read ``1.85x``; ``~`` marks a speedup whose 95 % interval contains 1 (not significant); with
    fewer than 3 repeats a side there is no interval and no mark (the title says ``n < 3: no claim``).
    """
    ok = summary[(summary["status"] == "ok") & np.isfinite(summary["speedup"])
                 & (summary["strategy"] != summary["baseline"])].copy()
    if ok.empty:
        return None
    ok["series"] = _series(ok)
    series = sorted(ok["series"].unique())
    lo, hi = float(ok["speedup"].min()), float(ok["speedup"].max())
    # Symmetric in ratio terms around 1 (x2 faster and x2 slower get equally strong colours).
    norm = TwoSlopeNorm(vcenter=1.0, vmin=min(lo, 1 / max(hi, 1.05), 0.95),
                        vmax=max(hi, 1 / min(lo, 0.95), 1.05))
    claim = "" if np.isfinite(ok["speedup_low"]).all() else " (n < 3 repeats: no claim)"
    fig, axes = _grid(len(series), f"{title}: speedup in training throughput vs {baseline}{claim}", sharey=False,
                      extra_w=1.0)
    for i, (ax, name) in enumerate(zip(axes, series, strict=True)):
        d = ok[ok["series"] == name]
        value = d.pivot_table(index="global_batch_size", columns="steps_per_execution", values="speedup")
        marks = ["~" if np.isfinite(lo) and not sig else "" for lo, sig in zip(d["speedup_low"],
                                                                                d["speedup_significant"], strict=True)]
        text = d.assign(t=[f"{m}{v:.2f}x" for m, v in zip(marks, d["speedup"], strict=True)])
        annot = text.pivot_table(index="global_batch_size", columns="steps_per_execution", values="t",
                                 aggfunc="first").reindex_like(value).fillna("")
        sns.heatmap(value, annot=annot.to_numpy(), fmt="", cmap="RdBu", norm=norm, ax=ax,
                    cbar=i == len(series) - 1,
                    cbar_kws={"label": f"speedup vs {baseline} (x, > 1 = faster)"}, linewidths=0.5,
                    annot_kws={"fontsize": 10})
        base = ", ".join(sorted(set(d["baseline"])))
        ax.set(title=f"{name} (vs {base})", xlabel="steps_per_execution", ylabel="global batch size")
        ax.tick_params(axis="y", rotation=0)
    return fig


BACKEND_COLOURS = {"tensorflow": "#ff8f00", "jax": "#5e35b1"}


def backend_figure(summary: pd.DataFrame, title: str) -> Figure | None:
    """Training throughput (examples/s) per strategy, one bar per backend, one panel per global batch size:
    each bar is the strategy's best ok configuration at that batch (over spe and precision). None unless
    two backends ran."""
    ok = summary[(summary["status"] == "ok") & np.isfinite(summary["examples_per_s"])].copy()
    if ok.empty or ok["backend"].nunique() < 2:
        return None
    ok["strategy_only"] = [split_label(str(v))[1] for v in ok["strategy"]]
    best = (ok.groupby(["global_batch_size", "strategy_only", "backend"], sort=True)["examples_per_s"].max()
            .reset_index())
    batches = sorted(best["global_batch_size"].unique())
    order = sorted(best["strategy_only"].unique())
    backends = [b for b in BACKEND_COLOURS if b in set(best["backend"])]
    fig, axes = _grid(len(batches), f"{title}: throughput by backend and strategy", extra_w=1.2)
    for ax, gb in zip(axes, batches, strict=True):
        d = best[best["global_batch_size"] == gb]
        sns.barplot(d, x="strategy_only", y="examples_per_s", hue="backend", order=order, hue_order=backends,
                    palette=BACKEND_COLOURS, ax=ax, legend=False)
        for container in ax.containers:
            ax.bar_label(container, fmt="{:,.0f}", fontsize=8, padding=2)
        ax.set(title=f"global batch = {gb} (best spe)", xlabel="strategy", ylabel="training examples/s")
    _y_scale(axes, best["examples_per_s"])
    for ax in axes:
        ax.margins(y=0.15)
    handles = [matplotlib.patches.Patch(color=BACKEND_COLOURS[b], label=b) for b in backends]
    fig.legend(handles=handles, title="backend", loc="outside right upper")
    return fig


def _save(fig: Figure | None, path: Path) -> Path | None:
    if fig is None:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    return path


def plot_epoch_time(points: pd.DataFrame, title: str, path: Path) -> Path | None:
    """Save :func:`epoch_time_figure` as PNG at ``path``; None (nothing written) without data."""
    return _save(epoch_time_figure(points, title), Path(path))


def plot_throughput(points: pd.DataFrame, title: str, path: Path) -> Path | None:
    """Save :func:`throughput_figure` as PNG at ``path``; None (nothing written) without data."""
    return _save(throughput_figure(points, title), Path(path))


def plot_val_accuracy(points: pd.DataFrame, title: str, path: Path) -> Path | None:
    """Save :func:`val_accuracy_figure` as PNG at ``path``; None (nothing written) without data."""
    return _save(val_accuracy_figure(points, title), Path(path))


def plot_speedup_heatmap(summary: pd.DataFrame, title: str, baseline: str, path: Path) -> Path | None:
    """Save :func:`speedup_heatmap_figure` as PNG at ``path``; None (nothing written) without data."""
    return _save(speedup_heatmap_figure(summary, title, baseline), Path(path))


def plot_backends(summary: pd.DataFrame, title: str, path: Path) -> Path | None:
    """Save :func:`backend_figure` as PNG at ``path``; None (nothing written) with fewer than two backends."""
    return _save(backend_figure(summary, title), Path(path))


def plot_workload(points: pd.DataFrame, summary: pd.DataFrame, title: str, baseline: str, out_dir: Path,
                  stem: str) -> dict[str, Path]:
    """Write every figure of one workload as ``out_dir/<stem>-<figure>.png``; returns figure -> path for
    the figures that had data (figures without data are skipped, never an error)."""
    out_dir = Path(out_dir)
    paths = {
        "epoch_time": plot_epoch_time(points, title, out_dir / f"{stem}-epoch_time.png"),
        "throughput": plot_throughput(points, title, out_dir / f"{stem}-throughput.png"),
        "val_accuracy": plot_val_accuracy(points, title, out_dir / f"{stem}-val_accuracy.png"),
        "speedup": plot_speedup_heatmap(summary, title, baseline, out_dir / f"{stem}-speedup.png"),
        "backends": plot_backends(summary, title, out_dir / f"{stem}-backends.png"),
    }
    return {k: v for k, v in paths.items() if v is not None}
