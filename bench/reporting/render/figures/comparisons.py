"""Figures from the per-configuration frame (:func:`bench.reporting.frames.summary.summarize`) that set strategies
against each other: the speedup heatmap and throughput by backend. Never imports TensorFlow."""

from __future__ import annotations

import matplotlib.patches
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from bench.records.backends import SPECS
from bench.reporting.render.figures import layout
from bench.reporting.render.text import sig

BACKEND_COLOURS = {name: b.colour for name, b in SPECS.items()}  # each engine's declaration (records.backends)


def speedup_data(summary: pd.DataFrame) -> pd.DataFrame | None:
    """The configurations the speedup heatmap draws (ok, learning, with a speedup, not the baseline itself); None
    without, or when they hold one batch and spe alone (one cell a panel: the results table's column says it)."""
    ok = summary[(summary["status"] == "ok") & np.isfinite(summary["speedup"]) & ~summary["not_learning"].map(bool)
                 & ~summary["is_baseline"].astype(bool)].copy()
    cells = ok[["global_batch_size", "steps_per_execution"]].drop_duplicates()
    return None if len(cells) < 2 else ok


def speedup_heatmap_figure(summary: pd.DataFrame, title: str, baseline: str) -> Figure | None:
    """Speedup in training throughput vs the baseline (x), global batch x spe, one panel per strategy.

    Cells read ``1.85x``; ``~`` marks a speedup whose 95 % interval contains 1 (not significant); with
    fewer than 3 repeats a side there is no interval and no mark (the title says ``n < 3: no claim``).
    """
    ok = speedup_data(summary)
    if ok is None:
        return None
    ok["series"] = layout.series_labels(ok)
    series = sorted(ok["series"].unique())
    own = per_panel_scale(ok)
    claim = "" if np.isfinite(ok["speedup_low"]).all() else " (n < 3 repeats: no claim)"
    fig, axes = layout.grid(len(series), f"{title}: training throughput vs {baseline}, same batch and spe{claim}",
                            sharey=False, extra_w=1.0)
    for i, (ax, name) in enumerate(zip(axes, series, strict=True)):
        d = ok[ok["series"] == name]
        value = d.pivot_table(index="global_batch_size", columns="steps_per_execution", values="speedup")
        marks = ["~" if np.isfinite(lo) and not sig else "" for lo, sig in zip(d["speedup_low"],
                                                                                d["speedup_significant"], strict=True)]
        text = d.assign(t=[f"{m}{sig(v)}x" for m, v in zip(marks, d["speedup"], strict=True)])
        annot = text.pivot_table(index="global_batch_size", columns="steps_per_execution", values="t",
                                 aggfunc="first").reindex_like(value).fillna("")
        sns.heatmap(value, annot=annot.to_numpy(), fmt="", cmap="RdBu", norm=_norm(d if own else ok), ax=ax,
                    cbar=own or i == len(series) - 1,
                    cbar_kws={"label": f"speedup vs {baseline} (x, > 1 = faster)"}, linewidths=0.5,
                    annot_kws={"fontsize": 10})
        base = ", ".join(sorted(set(d["baseline"])))
        ax.set(title=f"{name} (vs {base})", xlabel="steps_per_execution", ylabel="global batch size")
        ax.tick_params(axis="y", rotation=0)
    return fig


PANEL_SPREAD = 10.0  # panels whose largest departures from 1x differ by this factor get a colour scale each


def _norm(d: pd.DataFrame) -> TwoSlopeNorm:
    """Colours symmetric in ratio terms around 1 (x2 faster and x2 slower equally strong) over ``d``'s speedups."""
    lo, hi = float(d["speedup"].min()), float(d["speedup"].max())
    return TwoSlopeNorm(vcenter=1.0, vmin=min(lo, 1 / max(hi, 1.05), 0.95), vmax=max(hi, 1 / min(lo, 0.95), 1.05))


def per_panel_scale(ok: pd.DataFrame) -> bool:
    """Whether each panel (series) gets its own colour scale: where the panels' largest departures from 1x (as a
    factor either way) differ by :data:`PANEL_SPREAD` or more, one scale would wash the smaller ones out."""
    far = ok.groupby("series")["speedup"].agg(lambda v: float(np.max(np.maximum(v, 1 / v))))
    return len(far) > 1 and far.max() / far.min() >= PANEL_SPREAD


def backend_data(summary: pd.DataFrame) -> pd.DataFrame | None:
    """The configurations the backends figure draws (ok, with a throughput); None unless two backends ran."""
    ok = summary[(summary["status"] == "ok") & np.isfinite(summary["examples_per_s"])].copy()
    return None if ok.empty or ok["backend"].nunique() < 2 else ok


def backend_figure(summary: pd.DataFrame, title: str) -> Figure | None:
    """Training throughput (examples/s) per strategy, one bar per backend, one panel per global batch size:
    each bar is the strategy's best ok configuration at that batch (over spe, precision and compiler: ``cpu`` and
    ``cpu (XLA)`` are one strategy here, its resolved name), with its range over processes as an error bar and
    ``n=`` processes above it (a bar of one process has no bar to show). None unless two backends ran."""
    ok = backend_data(summary)
    if ok is None:
        return None
    ok["strategy_only"] = ok["strategy_name"]
    ok = ok.sort_values("examples_per_s", ascending=False, kind="mergesort")
    best = ok.drop_duplicates(["global_batch_size", "strategy_only", "backend"])
    batches = sorted(best["global_batch_size"].unique())
    order = sorted(best["strategy_only"].unique())
    backends = [b for b in BACKEND_COLOURS if b in set(best["backend"])]
    fig, axes = layout.grid(len(batches),
                            f"{title}: throughput by backend and strategy (error bar: range over processes)")
    width = 0.8 / len(backends)
    for ax, gb in zip(axes, batches, strict=True):
        d = best[best["global_batch_size"] == gb]
        for j, backend in enumerate(backends):
            mine = d[d["backend"] == backend].set_index("strategy_only").reindex(order)
            xs = np.arange(len(order)) + (j - (len(backends) - 1) / 2) * width
            rates = mine["examples_per_s"].to_numpy(dtype=float)
            low = np.nan_to_num(rates - mine["repeat_rates_low"].to_numpy(dtype=float), nan=0.0).clip(0)
            high = np.nan_to_num(mine["repeat_rates_high"].to_numpy(dtype=float) - rates, nan=0.0).clip(0)
            bars = ax.bar(xs, rates, width, color=BACKEND_COLOURS[backend], label=SPECS[backend].display,
                          yerr=[low, high], capsize=3, error_kw={"elinewidth": 1})
            labels = [f"{r:,.0f}\nn={int(n)}" if np.isfinite(r) else "" for r, n in
                      zip(rates, mine["n_repeats"].fillna(0), strict=True)]
            ax.bar_label(bars, labels=labels, fontsize=8, label_type="center", color="white")  # clear of the bars
        ax.set_xticks(np.arange(len(order)), order)
        ax.set(title=f"global batch = {gb} (best spe, compiler)", xlabel="strategy", ylabel="training examples/s")
    layout.y_scale(axes, best["examples_per_s"])
    for ax in axes:
        ax.margins(y=0.2)
    names = [SPECS[b].display for b in backends]  # as the tables name them
    handles = [matplotlib.patches.Patch(color=BACKEND_COLOURS[b], label=n)
               for b, n in zip(backends, names, strict=True)]
    layout.below(fig, handles, names, "backend")
    return fig
