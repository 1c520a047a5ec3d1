"""The figure builders and :func:`save` in one import, for the report's drawer and for tests: a ``*_figure`` takes
frames filtered to one workload and dataset and returns a figure (None without data); ``save`` writes it as a PNG.
"""

from __future__ import annotations

from bench.reporting.render.figures.comparisons import backend_figure, speedup_heatmap_figure
from bench.reporting.render.figures.curves import epoch_time_figure, throughput_figure, val_accuracy_figure
from bench.reporting.render.figures.layout import save, slug

__all__ = [
    "backend_figure",
    "epoch_time_figure",
    "save",
    "slug",
    "speedup_heatmap_figure",
    "throughput_figure",
    "val_accuracy_figure",
]
