"""Issue 53, item 4, on the records fixture (18 configurations of fashion_cnn, one of them diverged): a long legend
takes its own room, not the panel's; more than ten series never share a colour; each validation-accuracy panel is
fitted to its own data; every line of the per-run figures is one run's point; the per-run figures are
deterministic; panels within a factor of ten share one colour scale."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import seaborn as sns
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection

from bench.records import load_records
from bench.reporting.render.figures import files as plots
from bench.reporting.render.figures import layout
from bench.reporting.render.figures.runs import POINT, epoch_times_figure, time_to_accuracy_figure
from tests.rows import analyzed, rows_named

RECORDS = Path(__file__).parent / "data" / "records"
KEY = ("fashion_cnn", "synthetic (reduced, n_train=12288)")


@pytest.fixture(scope="module")
def cnn():
    a = analyzed(load_records([RECORDS], warn=False).records)
    return rows_named(a.points, *KEY), rows_named(a.summary, *KEY), rows_named(a.epochs, *KEY)


def _panels(fig):
    return [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]


def test_a_long_legend_leaves_the_panel_its_height(cnn) -> None:
    """18 configurations in the legend squashed the one time-to-accuracy panel to a strip ~0.7 inch high."""
    fig = time_to_accuracy_figure(cnn[2], cnn[0], KEY[0])
    assert len(fig.legends[0].get_texts()) >= 18
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    panel = _panels(fig)[0].get_window_extent(renderer)
    assert panel.height / fig.dpi >= 2.0, panel.height / fig.dpi
    legend = fig.legends[0].get_window_extent(renderer)
    assert not legend.overlaps(panel) and not legend.overlaps(fig._suptitle.get_window_extent(renderer))
    assert legend.y0 >= 0 and legend.y1 <= fig.bbox.height  # the whole legend is on the figure


def test_more_than_ten_series_never_share_a_colour() -> None:
    labels = [f"series {i}" for i in range(18)]
    colours = layout.palette(labels)
    assert len(set(colours.values())) == 18
    few = layout.palette(["b", "a", "c"])  # ten or fewer: tab10, in sorted label order
    assert list(few) == ["a", "b", "c"] and list(few.values()) == sns.color_palette("tab10", 3)


def test_each_accuracy_panel_is_fitted_to_its_own_data(cnn) -> None:
    """A run diverging to chance at batch 2048 stretched every panel to 0.1-0.9; 0.70-0.87 was squashed."""
    fig = plots.val_accuracy_figure(cnn[2], cnn[0], KEY[0])
    epochs = cnn[2][cnn[2]["status"].isin(["ok", "diverged"])]
    for ax in _panels(fig):
        batch = int(ax.get_title().rsplit("= ", 1)[1])
        acc = epochs.loc[epochs["global_batch_size"] == batch, "val_accuracy"].astype(float)
        low, high = ax.get_ylim()
        ends = [acc.min(), max(acc.max(), 0.85)]  # 0.85: the workload's target, drawn in every panel
        assert low <= ends[0] and ends[1] <= high
        assert high - low <= 1.2 * (ends[1] - ends[0]) + 0.01, (batch, low, high)
    assert _panels(fig)[0].get_ylim()[0] > 0.6  # batch 64: 0.70-0.87, not from chance
    assert _panels(fig)[-1].get_ylim()[0] < 0.1  # batch 2048: the diverged run at chance stays in view


@pytest.mark.parametrize("draw", ["epoch_times", "time_to_accuracy"])
def test_every_line_is_the_epochs_of_one_run(cnn, draw) -> None:
    """Points of two runs or two configurations are never joined: each line's values are, in epoch order, those of
    one point of one run (and every such point has its line)."""
    epochs = cnn[2][cnn[2]["status"] == "ok"].sort_values([*POINT, "epoch"])
    if draw == "epoch_times":
        fig = epoch_times_figure(cnn[2], KEY[0])
        runs = {k: (list(g["epoch"]), list(g["train_s"])) for k, g in epochs.groupby(POINT)}
    else:
        fig = time_to_accuracy_figure(cnn[2], cnn[0], KEY[0])
        runs = {k: (list(g["train_s"].cumsum()), list(g["val_accuracy"])) for k, g in epochs.groupby(POINT)}
    lines = [(coll.get_gid(), seg) for ax in _panels(fig) for coll in ax.collections
             if isinstance(coll, LineCollection) for seg in coll.get_segments()]  # a collection per configuration
    assert lines
    unmatched = dict(runs)
    for label, seg in lines:
        xs, ys = list(seg[:, 0]), list(seg[:, 1])
        match = [k for k, (rx, ry) in unmatched.items()
                 if len(rx) == len(xs) and np.allclose(rx, xs) and np.allclose(ry, ys)]
        assert match, f"a line of {label!r} is no single run's epochs"
        point = epochs[(epochs["run_id"] == match[0][0]) & (epochs["point_id"] == match[0][1])]
        assert f"b{int(point['global_batch_size'].iloc[0])}" in label  # labelled by its configuration
        del unmatched[match[0]]
    assert not unmatched, sorted(unmatched)


def test_the_per_run_figures_are_byte_identical_for_equal_input(cnn, tmp_path) -> None:
    for name, draw, args in (("epoch_times", epoch_times_figure, (cnn[2], KEY[0])),
                             ("time_to_accuracy", time_to_accuracy_figure, (cnn[2], cnn[0], KEY[0]))):
        a, b = (plots.save(draw(*args), tmp_path / f"{name}-{i}.png") for i in (1, 2))
        assert a is not None and b is not None and a.read_bytes() == b.read_bytes(), name


def test_panels_within_a_factor_of_ten_share_one_colour_scale(cnn) -> None:
    """cpu_onedevice at 0.6x, cpu_x2 at 0.75-1.04x and tpu at 1.8-2.8x: one scale, comparable across panels."""
    fig = plots.speedup_heatmap_figure(cnn[1], KEY[0], "cpu")
    assert len([ax for ax in fig.axes if ax.get_label() == "<colorbar>"]) == 1
