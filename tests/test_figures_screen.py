"""Issue 53, item 4: figures that cannot mislead, checked on the figure objects drawn from the H200 run's records
(the ones the issue looked at as PNGs): no legend over the title or a panel, no line between two settings, accuracy
axes fitted to the data, n and a spread on every bar, a colour scale per panel where panels differ tenfold, and the
two new figures (every epoch of every run; accuracy against training time)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.container import ErrorbarContainer

from bench.records import load_records
from bench.reporting.render.figures import files as plots
from bench.reporting.render.figures.runs import epoch_times_figure, time_to_accuracy_figure
from tests.rows import analyzed, rows_named

H200 = Path(__file__).parent / "data" / "gpu_h200_2026_11_27"
FULL = ("fashion_cnn", "synthetic (full, n_train=60000)")
REDUCED = ("fashion_cnn", "synthetic (reduced, n_train=4096)")


@pytest.fixture(scope="module")
def a():
    return analyzed(load_records([H200 / d for d in ("r1", "r2", "r3", "b")], warn=False).records)


def _drawn(fig):
    FigureCanvasAgg(fig).draw()
    return fig.canvas.get_renderer()


def _panels(fig):
    return [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]


def _clear_of_title_and_panels(fig) -> None:
    renderer = _drawn(fig)
    title = fig._suptitle.get_window_extent(renderer)
    for legend in fig.legends:
        box = legend.get_window_extent(renderer)
        assert not box.overlaps(title), "legend over the title"
        for ax in _panels(fig):
            assert not box.overlaps(ax.get_window_extent(renderer)), "legend over a panel"


def test_no_legend_covers_the_title_or_a_panel(a) -> None:
    key = FULL
    epochs, points, summary = rows_named(a.epochs, *key), rows_named(a.points, *key), rows_named(a.summary, *key)
    for fig in (plots.throughput_figure(epochs, key[0]), plots.val_accuracy_figure(epochs, points, key[0]),
                plots.backend_figure(summary, key[0]), epoch_times_figure(epochs, key[0]),
                time_to_accuracy_figure(epochs, points, key[0])):
        assert fig is not None
        _clear_of_title_and_panels(fig)


def test_points_at_two_settings_are_never_joined(a) -> None:
    """The issue's throughput figure drew a line from spe1 (one run) to spe6 (another)."""
    fig = plots.throughput_figure(rows_named(a.epochs, *FULL), FULL[0])
    lines = [ln for ax in _panels(fig) for ln in ax.get_lines() if len(ln.get_xdata()) > 1]
    assert lines and all(ln.get_linestyle() == "None" for ln in lines)  # markers with their IQR bars only
    fig = epoch_times_figure(rows_named(a.epochs, *FULL), FULL[0])
    ok = rows_named(a.points, *FULL)
    ok = ok[(ok["status"] == "ok") & (ok["n_epochs"] >= 2)]
    segments = [seg for coll in _panels(fig)[0].collections if isinstance(coll, LineCollection)
                for seg in coll.get_segments()]
    assert len(segments) == len(ok)  # one line per run's point: 6 points of 3 and 5 epochs


def test_accuracy_axes_are_fitted_to_the_data(a) -> None:
    """0.96-0.985 was lost on a 0-1 axis."""
    epochs, points = rows_named(a.epochs, *FULL), rows_named(a.points, *FULL)
    for fig in (plots.val_accuracy_figure(epochs, points, FULL[0]), time_to_accuracy_figure(epochs, points, FULL[0])):
        low, high = _panels(fig)[0].get_ylim()
        values = epochs["val_accuracy"].astype(float)
        assert values.min() - 0.01 <= low and high <= values.max() + 0.01 and high - low < 0.1, (low, high)


def test_every_bar_carries_n_and_its_spread(a) -> None:
    fig = plots.backend_figure(rows_named(a.summary, *FULL), FULL[0])
    ax = _panels(fig)[0]
    assert any(isinstance(c, ErrorbarContainer) for c in ax.containers)
    texts = [t.get_text() for t in ax.texts]
    assert any("n=3" in t for t in texts) and any("n=1" in t for t in texts), texts


def test_panels_a_decade_apart_get_a_colour_scale_each(a) -> None:
    """cpu_x2 at 1.5-2.8x beside the GPU at 10-45x: one scale washed the CPU panel out."""
    fig = plots.speedup_heatmap_figure(rows_named(a.summary, *REDUCED), REDUCED[0], "cpu")
    bars = [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]
    assert len(bars) == 2
    tops = sorted(max(ax.get_ylim()) for ax in bars)
    assert tops[0] < 5 < 40 < tops[1]


def test_the_new_figures_show_warm_up_and_time_to_the_target(a) -> None:
    epochs, points = rows_named(a.epochs, *REDUCED), rows_named(a.points, *REDUCED)
    fig = epoch_times_figure(epochs, REDUCED[0])
    assert [ax.get_xlabel() for ax in _panels(fig)][-1] == "epoch (1 = warm-up)"
    fig = time_to_accuracy_figure(epochs, points, REDUCED[0])
    ax = _panels(fig)[0]
    assert ax.get_xlabel() == "training time so far (s, warm-up included)"
    target = [ln for ln in ax.get_lines() if ln.get_label() == "target"]
    assert target and np.allclose(target[0].get_ydata(), 0.85)
    # the GPU's b128 spe8 line crosses the target first: its first epoch at or above 0.85 comes at 0.808 s
    gpu = next(c for c in ax.collections if isinstance(c, LineCollection) and c.get_gid() == "jax/gpu b128 spe8")
    ((xs, ys),) = [seg.T for seg in gpu.get_segments()]  # one run
    assert xs[np.argmax(ys >= 0.85)] == pytest.approx(0.808, abs=0.001)


def test_a_sweep_of_more_runs_than_a_figure_can_show_gets_no_per_run_figure(a) -> None:
    """~500 lines a workload (the 1,000-record benchmark) read as a texture and cost a second each to draw."""
    import pandas as pd

    from bench.reporting.render.figures.runs import MAX_RUNS, runs_data

    epochs = rows_named(a.epochs, *FULL)  # 6 points
    copies = [epochs.assign(run_id=epochs["run_id"] + f"-{i}") for i in range(MAX_RUNS // 6)]
    assert runs_data(pd.concat(copies), "train_s") is not None  # 120 runs: drawn
    assert runs_data(pd.concat([*copies, epochs.assign(run_id="more")]), "train_s") is None
