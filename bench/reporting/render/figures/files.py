"""One figure to one PNG file, for notebooks and tests (the report draws through :mod:`.drawer`): each ``plot_*`` saves
a ``*_figure`` from frames filtered to one workload and dataset and returns the PNG path, or None without data.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from bench.reporting.render.figures.comparisons import backend_figure, speedup_heatmap_figure
from bench.reporting.render.figures.curves import epoch_time_figure, throughput_figure, val_accuracy_figure
from bench.reporting.render.figures.layout import save, slug

__all__ = [
    "backend_figure",
    "epoch_time_figure",
    "plot_backends",
    "plot_epoch_time",
    "plot_speedup_heatmap",
    "plot_throughput",
    "plot_val_accuracy",
    "plot_workload",
    "save",
    "slug",
    "speedup_heatmap_figure",
    "throughput_figure",
    "val_accuracy_figure",
]


def plot_epoch_time(epochs: pd.DataFrame, title: str, path: Path) -> Path | None:
    """Save :func:`epoch_time_figure` as PNG at ``path``; None (nothing written) without data."""
    return save(epoch_time_figure(epochs, title), Path(path))


def plot_throughput(epochs: pd.DataFrame, title: str, path: Path) -> Path | None:
    """Save :func:`throughput_figure` as PNG at ``path``; None (nothing written) without data."""
    return save(throughput_figure(epochs, title), Path(path))


def plot_val_accuracy(epochs: pd.DataFrame, points: pd.DataFrame, title: str, path: Path) -> Path | None:
    """Save :func:`val_accuracy_figure` as PNG at ``path``; None (nothing written) without data."""
    return save(val_accuracy_figure(epochs, points, title), Path(path))


def plot_speedup_heatmap(summary: pd.DataFrame, title: str, baseline: str, path: Path) -> Path | None:
    """Save :func:`speedup_heatmap_figure` as PNG at ``path``; None (nothing written) without data."""
    return save(speedup_heatmap_figure(summary, title, baseline), Path(path))


def plot_backends(summary: pd.DataFrame, title: str, path: Path) -> Path | None:
    """Save :func:`backend_figure` as PNG at ``path``; None (nothing written) with fewer than two backends."""
    return save(backend_figure(summary, title), Path(path))


def plot_workload(points: pd.DataFrame, epochs: pd.DataFrame, summary: pd.DataFrame, title: str, baseline: str,
                  out_dir: Path, stem: str) -> dict[str, Path]:
    """Write every figure of one workload as ``out_dir/<stem>-<figure>.png`` (the per-epoch figures from
    ``epochs``, the frame ``bench.epochs`` gives a notebook); returns figure -> path for the figures that had
    data (figures without data are skipped, never an error)."""
    out_dir = Path(out_dir)
    paths = {
        "epoch_time": plot_epoch_time(epochs, title, out_dir / f"{stem}-epoch_time.png"),
        "throughput": plot_throughput(epochs, title, out_dir / f"{stem}-throughput.png"),
        "val_accuracy": plot_val_accuracy(epochs, points, title, out_dir / f"{stem}-val_accuracy.png"),
        "speedup": plot_speedup_heatmap(summary, title, baseline, out_dir / f"{stem}-speedup.png"),
        "backends": plot_backends(summary, title, out_dir / f"{stem}-backends.png"),
    }
    return {k: v for k, v in paths.items() if v is not None}
