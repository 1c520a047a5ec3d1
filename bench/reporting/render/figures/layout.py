"""What every figure shares: panel grid, series labels, colours and markers, axes, legend, saving to PNG.

Colours and markers are fixed by sorted series label, so every panel and figure agrees. Never imports
TensorFlow.
"""

from __future__ import annotations

import math
import re
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FixedFormatter, FixedLocator, FuncFormatter, LogLocator, NullLocator

from bench.reporting.render.text import sig

PANEL_W, PANEL_H, MAX_COLS = 4.0, 3.2, 3
DPI = 100
PNG_COMPRESS_LEVEL = 3  # zlib's 6 (PIL's default) spent 0.15 s more of a 1,000-record report's 4.5 s CPU on
# its ten figures, for files 5 % smaller
LEGEND_ROOM, LEGEND_ROW_H = 0.6, 0.21  # inches: under the panels for a legend; a legend row
MARKERS = ("o", "X", "s", "P", "D", "^", "v", "<", ">", "p", "*", "h")


def slug(text: str) -> str:
    """File-name-safe ``text``: ``"fashion_cnn synthetic (reduced)"`` -> ``fashion_cnn-synthetic-reduced``."""
    return re.sub(r"[^A-Za-z0-9_.]+", "-", text).strip("-").lower()


def series_labels(frame: pd.DataFrame, spe: bool = False) -> pd.Series:
    """Series label: strategy, plus precision when the frame holds more than one precision, plus ``spe<n>`` when
    ``spe`` and it holds more than one steps_per_execution, plus ``(diverged)`` for diverged points."""
    label = frame["strategy"].astype(str)
    if frame["precision"].nunique() > 1:
        label = label + " " + frame["precision"]
    if spe and frame["steps_per_execution"].nunique() > 1:
        label = label + " spe" + frame["steps_per_execution"].astype(str)
    return label.where(frame["status"] != "diverged", label + " (diverged)")


def palette(labels: list[str]) -> dict[str, Any]:
    """Colour per series, fixed by sorted label so every panel and figure agrees: tab10, or tab20 (its dark and
    light pairs) beyond ten series, where tab10 would give two series one colour."""
    labels = sorted(set(labels))
    colours = sns.color_palette("tab10" if len(labels) <= 10 else "tab20", max(len(labels), 1))
    return dict(zip(labels, colours, strict=False))


def markers(labels: list[str]) -> dict[str, str]:
    """Marker per series (a second cue where lines overlap), fixed by sorted label like the colours."""
    labels = sorted(set(labels))
    return {lab: MARKERS[i % len(MARKERS)] for i, lab in enumerate(labels)}


def grid(n: int, title: str, sharey: bool = True, extra_w: float = 0.3,
         sharex: bool | None = None) -> tuple[Figure, list[Any]]:
    """A figure of ``n`` panels, at most MAX_COLS a row, with ``title`` wrapped above them; returns the
    figure and its ``n`` visible axes (``extra_w`` inches are kept for the colour bar). The panels share their x
    axis as ``sharex`` says, by default as their y axis."""
    cols = min(n, MAX_COLS)
    rows = math.ceil(n / cols)
    panels_w = max(PANEL_W * cols, 6.0)  # a lone panel still gets room for its title
    fig = Figure(figsize=(panels_w + extra_w, PANEL_H * rows + 0.6 + LEGEND_ROOM), layout="constrained", dpi=DPI)
    # A fixed title height: matplotlib would otherwise move each title above any top-side decoration, measuring
    # every panel's tick labels at each layout pass (there are none at the top; 10 % of a figure's drawing).
    sharex = sharey if sharex is None else sharex
    cells = fig.add_gridspec(rows, cols)
    axes: list[Any] = []
    with sns.axes_style("whitegrid"), rc_context({"axes.titley": 1.0}):
        for i in range(n):  # what fig.subplots makes, without the axes of the empty cells it would make and hide
            axes.append(fig.add_subplot(cells[i // cols, i % cols], sharex=axes[0] if sharex and axes else None,
                                        sharey=axes[0] if sharey and axes else None))
    for ax in axes:  # a shared axis's inner tick labels off, as fig.subplots turns them off
        cell = ax.get_subplotspec()
        if sharex and not cell.is_last_row():
            ax.xaxis.set_tick_params(which="both", labelbottom=False)
            ax.xaxis.offsetText.set_visible(False)
        if sharey and not cell.is_first_col():
            ax.yaxis.set_tick_params(which="both", labelleft=False)
            ax.yaxis.offsetText.set_visible(False)
        for spine in ax.spines.values():  # the frame lies on the panel's edge: nothing for the layout to measure
            spine.set_in_layout(False)
    # Wrap long titles so a one-panel figure never clips them (~0.1 inch per character at 12 pt).
    fig.suptitle(textwrap.fill(title, width=int(panels_w * 8)))
    return fig, axes


def outer_labels(axes: list[Any], xlabel: str, ylabel: str) -> None:
    """Axis labels on the outer panels of a :func:`grid` only (the panels share their axes): the y label on the
    first column, the x label and x tick labels on the lowest panel of each column (also above an empty slot of
    the last row, where matplotlib's shared axes would leave a column without them). Fewer texts to lay out, and
    the figure reads like seaborn's facet grids."""
    cols = min(len(axes), MAX_COLS)
    for i, ax in enumerate(axes):
        ax.set_ylabel(ylabel if i % cols == 0 else "")
        lowest = i + cols >= len(axes)
        ax.set_xlabel(xlabel if lowest else "")
        if lowest:
            ax.tick_params(axis="x", labelbottom=True)
        ax.xaxis.set_in_layout(lowest)  # an axis without labels takes no room: the layout need not measure it
        ax.yaxis.set_in_layout(i % cols == 0)


def log2_x(axes: list[Any], values: list[int]) -> None:
    """A log2 x axis with one plain tick per value (rotated when there are many) on panels that share their x axis:
    the scale, ticks and labels are set once (on the first: a shared axis takes them all), the rotation on each."""
    ax = axes[0]
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sorted(values)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FixedFormatter([str(v) for v in sorted(values)]))
    if len(values) >= 6:
        for each in axes:
            each.tick_params(axis="x", labelrotation=45)
    if len(values) == 1:
        ax.set_xlim(values[0] / 1.6, values[0] * 1.6)


def _distinct_y(axes: list[Any]) -> list[Any]:
    """One of each group of panels that share a y axis (its scale, limits and ticks are theirs)."""
    return [ax for i, ax in enumerate(axes) if not any(ax.get_shared_y_axes().joined(ax, o) for o in axes[:i])]


def y_scale(axes: list[Any], values: pd.Series) -> None:
    """After plotting: log y (plain-number labels) when the values span more than a factor of 8, else a
    linear axis from zero, so that a 2 % difference does not look like a factor of two."""
    v = values[np.isfinite(values) & (values > 0)]
    distinct = _distinct_y(axes)
    if not (len(v) and v.max() / v.min() > 8):
        for ax in distinct:
            ax.set_ylim(0, max(ax.get_ylim()[1], float(v.max()) * 1.08 if len(v) else 1.0))
            ax.yaxis.set_major_formatter(FuncFormatter(tick_text))
        return
    for ax in distinct:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(tick_text))
        ax.yaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))  # only the minor ticks that are labelled
        ax.yaxis.set_minor_formatter(FuncFormatter(_label_2_5))
    for ax in axes:  # grid lines are each panel's own
        ax.grid(which="minor", axis="y", linewidth=0.4, alpha=0.6)
    for ax in distinct:  # the ticks of the final limits, computed once: the layout asks for them again
        lo, hi = ax.get_ylim()
        for which, locator in (("major", ax.yaxis.get_major_locator()), ("minor", ax.yaxis.get_minor_locator())):
            fixed = FixedLocator(locator.tick_values(lo, hi))
            (ax.yaxis.set_major_locator if which == "major" else ax.yaxis.set_minor_locator)(fixed)


def tick_text(y: float, _pos: Any = None) -> str:
    """A tick's label written as the report's tables write numbers: thousands separated, never an exponent
    (``50,000``, ``1,000,000``, ``0.0005``; ``:g`` gave ``50000`` and ``1e+06``)."""
    return sig(float(y), digits=6, trim=True)


def _label_2_5(y: float, _pos: Any) -> str:
    """Label the 2x and 5x minor ticks of a log axis (0.2, 0.5, 2, 5, 20, ...), leave the rest blank."""
    if y <= 0:
        return ""
    mantissa = round(y / 10 ** math.floor(math.log10(y)), 6)
    return tick_text(y) if mantissa in (2.0, 5.0) else ""


def legend(fig: Figure, axes: list[Any], title: str = "strategy") -> None:
    """One legend for the whole figure, below the panels (never over the title or the data): each series once,
    sorted, reference lines (``chance``, ``target``) last."""
    handles, labels = {}, []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    labels.sort(key=lambda lab: (lab in ("chance", "target"), lab))  # same order everywhere; reference lines last
    if handles:
        below(fig, [handles[lab] for lab in labels], labels, title)


def below(fig: Figure, handles: list[Any], labels: list[str], title: str) -> None:
    """A figure legend under the panels, in up to three columns: the constrained layout makes room for it there,
    so it covers neither the title nor a panel (a legend at the upper right covered long titles)."""
    width = fig.get_size_inches()[0]
    column = 0.6 + 0.075 * max(map(len, labels), default=1)  # inches: the handle and ~0.075 inch a character
    ncols = max(1, min(3, len(labels), int(width // column)))
    fig.legend(handles, labels, title=title, loc="outside lower center", frameon=False, ncols=ncols)
    # :func:`grid` keeps LEGEND_ROOM inches for a short legend; a longer one (18 configurations: ten rows) is given
    # its height too, rather than taking it from the panels, which it squashed flat
    rows = math.ceil(len(labels) / ncols) + 1  # and its title
    fig.set_figheight(fig.get_figheight() + max(0.0, LEGEND_ROW_H * rows - LEGEND_ROOM))


def save(fig: Figure | None, path: Path) -> Path | None:
    """Write ``fig`` as PNG at ``path`` (folders made as needed; :func:`save_to`) and return the path; None when
    ``fig`` is."""
    if fig is None:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    save_to(fig, path)
    return path


def save_to(fig: Figure, target: Any) -> None:
    """``fig`` laid out once (its constrained layout run, then taken off: with a layout engine on it, savefig first
    draws the whole figure without output only to run the layout; the PNG is byte-identical either way) and written
    as PNG to ``target`` (a path or a binary file)."""
    FigureCanvasAgg(fig)  # its renderer is kept: the layout's text measures are the drawing's (a cache per renderer)
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
        fig.set_layout_engine(None)  # None, not "none": a placeholder engine still costs that extra draw
    fig.savefig(target, dpi=DPI, metadata={"Software": None}, pil_kwargs={"compress_level": PNG_COMPRESS_LEVEL})
