"""Figures: the right axes, labels and series, PNGs that exist, and clean skips without data."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pandas as pd
import pytest

from bench.records import load_records
from bench.reporting.render.figures import files as plots
from tests.rows import analyzed

RECORDS = Path(__file__).parent / "data" / "records"
TITLE = "fashion_cnn on synthetic (reduced, n_train=12288)"


@pytest.fixture(scope="module")
def cnn():
    a = analyzed(load_records([RECORDS], warn=False).records)
    return (a.points[a.points["workload"] == "fashion_cnn"],
            a.summary[a.summary["workload"] == "fashion_cnn"],
            a.epochs[a.epochs["workload"] == "fashion_cnn"])  # the frame bench.epochs gives a notebook


def visible_axes(fig):
    return [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]


def legend_labels(fig):
    return [t.get_text() for leg in fig.legends for t in leg.get_texts()]


def test_epoch_time_figure(cnn):
    fig = plots.epoch_time_figure(cnn[2], TITLE)
    axes = visible_axes(fig)
    assert [ax.get_title() for ax in axes] == [f"steps_per_execution = {s}" for s in (1, 8, 32)]
    assert {ax.get_xlabel() for ax in axes} == {"global batch size (examples, log2)"}
    assert axes[0].get_ylabel() == "training time per epoch (s)"
    assert axes[0].get_xscale() == "log"
    assert fig.get_suptitle().startswith("fashion_cnn on synthetic")
    # Two precisions in this workload, so series carry the precision; diverged points have no steady time.
    assert legend_labels(fig) == ["cpu@hostA float32", "cpu@hostB float32", "cpu_onedevice float32",
                                  "cpu_x2 float32", "tpu float32", "tpu mixed_bfloat16"]


def test_a_figure_is_laid_out_once_and_saved_as_matplotlib_would_save_it(cnn, tmp_path):
    """plots.save runs the constrained layout itself and takes the engine off (savefig would draw the figure an
    extra time to run it): the PNG must be the one savefig writes with the engine on."""
    import io

    from bench.reporting.render.figures.layout import DPI, PNG_COMPRESS_LEVEL

    plain = io.BytesIO()
    plots.epoch_time_figure(cnn[2], TITLE).savefig(plain, dpi=DPI, metadata={"Software": None},
                                                   pil_kwargs={"compress_level": PNG_COMPRESS_LEVEL})
    fig = plots.epoch_time_figure(cnn[2], TITLE)
    assert fig.get_layout_engine() is not None
    path = plots.save(fig, tmp_path / "f.png")
    assert fig.get_layout_engine() is None and path.read_bytes() == plain.getvalue()


def test_throughput_figure(cnn):
    fig = plots.throughput_figure(cnn[2], TITLE)
    axes = visible_axes(fig)
    assert [ax.get_title() for ax in axes] == [f"global batch = {b}" for b in (64, 256, 1024)]
    assert axes[0].get_ylabel() == "training throughput (examples/s)"
    assert axes[0].get_xlabel() == "steps_per_execution (log2)"
    assert "tpu float32" in legend_labels(fig)


def test_tick_labels_are_written_as_the_tables_write_numbers():
    """Thousands separated and never an exponent (issue 53): ``:g`` wrote 50000 and 1e+06 on the H200's throughput
    axis, where the tables beside it say 134,680."""
    from bench.reporting.render.figures.layout import tick_text

    assert [tick_text(v) for v in (50000, 1e6, 0.0005, 1.025, 0.30000000000000004, 0)] == [
        "50,000", "1,000,000", "0.0005", "1.025", "0.3", "0"]
    a = analyzed(load_records([Path(__file__).parent / "data" / "gpu_h200_2026_11_27"], warn=False).records)
    full = a.epochs[(a.epochs["workload"] == "fashion_cnn") & a.epochs["dataset"].str.contains("n_train=60000")]
    fig = plots.throughput_figure(full, "fashion_cnn full")
    fig.canvas.draw()
    labels = [t.get_text() for ax in visible_axes(fig) for t in ax.get_yticklabels(which="both") if t.get_text()]
    assert "100,000" in labels and not [t for t in labels if "e" in t or (len(t) > 3 and "," not in t)], labels


def test_val_accuracy_figure_shows_diverged_and_chance(cnn):
    fig = plots.val_accuracy_figure(cnn[2], cnn[0], TITLE)
    axes = visible_axes(fig)
    assert [ax.get_title() for ax in axes] == [f"global batch = {b}" for b in (64, 256, 1024, 2048)]
    assert axes[0].get_ylabel() == "validation accuracy"
    labels = legend_labels(fig)
    assert "tpu mixed_bfloat16 spe32 (diverged)" in labels and labels[-1] in ("chance", "target")


def test_val_accuracy_bands_span_each_configurations_seeds(cnn):
    """The band under each configuration's line is the range of its seeds' accuracy at each epoch (one collection
    per panel holds them all, under the lines)."""
    import numpy as np
    from matplotlib.collections import PolyCollection

    from bench.reporting.render.figures import layout

    fig = plots.val_accuracy_figure(cnn[2], cnn[0], TITLE)
    drawn = 0
    for ax in visible_axes(fig):
        bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert len(bands) <= 1
        for path in bands[0].get_paths() if bands else []:
            ys = path.vertices[:, 1]
            assert np.isfinite(path.vertices).all() and ys.max() > ys.min()
            drawn += 1
    epochs = cnn[2][cnn[2]["status"].isin(["ok", "diverged"])].copy()
    epochs["series"] = layout.series_labels(epochs, spe=True)  # the figure's line: one configuration
    config = ["series", "global_batch_size"]
    spread = epochs.groupby([*config, "epoch"])["val_accuracy"].agg(lambda v: v.max() > v.min())
    assert drawn == spread.groupby(level=config).any().sum() >= 1  # a band for each configuration whose seeds differ


def test_speedup_heatmap(cnn):
    fig = plots.speedup_heatmap_figure(cnn[1], TITLE, "cpu")
    axes = visible_axes(fig)
    assert [ax.get_title() for ax in axes] == ["cpu_onedevice (vs cpu@hostA)", "cpu_x2 (vs cpu@hostA)",
                                               "tpu (vs cpu@hostB)"]
    texts = [t.get_text() for t in axes[1].texts]
    assert sorted(texts) == ["0.751x", "0.803x", "~0.982x", "~1.04x"]  # 3 repeats a side: ~ = not significant
    assert "~" not in "".join(t.get_text() for t in axes[2].texts)  # tpu: 2 vs 1 repeats, no claim
    assert "(n < 3 repeats: no claim)" in " ".join(fig.get_suptitle().split())
    assert axes[1].get_ylabel() == "global batch size" and axes[1].get_xlabel() == "steps_per_execution"
    colorbar = [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]
    assert colorbar and "speedup vs cpu" in colorbar[0].get_ylabel()


def workload_pngs(points, epochs, summary, out_dir, stem) -> dict:
    """Every figure of one workload saved as ``out_dir/<stem>-<figure>.png``, as the report's drawer saves them; the
    figures that had data."""
    figures = {"epoch_time": plots.epoch_time_figure(epochs, TITLE),
               "throughput": plots.throughput_figure(epochs, TITLE),
               "val_accuracy": plots.val_accuracy_figure(epochs, points, TITLE),
               "speedup": plots.speedup_heatmap_figure(summary, TITLE, "cpu"),
               "backends": plots.backend_figure(summary, TITLE)}
    paths = {k: plots.save(f, out_dir / f"{stem}-{k}.png") for k, f in figures.items()}
    return {k: p for k, p in paths.items() if p is not None}


def test_every_figure_of_a_workload_writes_a_png(cnn, tmp_path):
    paths = workload_pngs(cnn[0], cnn[2], cnn[1], tmp_path, "cnn")
    assert sorted(paths) == ["epoch_time", "speedup", "throughput", "val_accuracy"]
    for p in paths.values():
        assert p.parent == tmp_path and p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert p.stat().st_size > 20_000


def test_no_data_skips_cleanly(cnn, tmp_path):
    failed_points = cnn[0][cnn[0]["status"].isin(["failed", "skipped"])]
    failed_summary = cnn[1][cnn[1]["status"].isin(["failed", "skipped"])]
    failed_epochs = cnn[2][cnn[2]["status"].isin(["failed", "skipped"])]
    assert plots.epoch_time_figure(failed_epochs, TITLE) is None
    assert plots.val_accuracy_figure(failed_epochs, failed_points, TITLE) is None
    assert plots.speedup_heatmap_figure(failed_summary, TITLE, "cpu") is None
    assert workload_pngs(failed_points, failed_epochs, failed_summary, tmp_path, "x") == {}
    assert list(tmp_path.iterdir()) == []


def test_slug():
    assert plots.slug("fashion_cnn-synthetic (reduced, n_train=12288)") == \
        "fashion_cnn-synthetic-reduced-n_train-12288"


def test_a_line_figure_of_one_x_value_is_not_drawn(cnn):
    """Issue 39: with one spe value the throughput-vs-spe figure was one dot per panel."""
    eps = cnn[2]
    one_spe = eps[eps["steps_per_execution"] == 8]
    assert plots.throughput_figure(one_spe, TITLE) is None
    assert plots.epoch_time_figure(one_spe, TITLE) is not None  # several batch sizes: a line


def test_series_with_the_same_values_are_drawn_side_by_side(cnn):
    """Issue 39: cpu under cpu_x2 (the same seed, the same accuracy) hid one line under the other; each series is
    dodged sideways, so both show."""
    eps = cnn[2]
    one = eps[eps["strategy"] == "cpu_x2"]
    one = one[one["steps_per_execution"] == one["steps_per_execution"].min()]  # one configuration: one line
    twin = one.assign(strategy="cpu_twin")  # identical values under another name
    fig = plots.val_accuracy_figure(pd.concat([one, twin]), cnn[0], TITLE)
    lines = [ln for ln in visible_axes(fig)[0].get_lines() if ln.get_label() in ("cpu_x2", "cpu_twin")]
    assert len(lines) == 2
    (a, b) = (ln.get_xdata() for ln in lines)
    assert list(lines[0].get_ydata()) == list(lines[1].get_ydata()) and all(x != y for x, y in zip(a, b, strict=True))


def _fails(*_args):
    raise RuntimeError("this figure cannot be drawn")


def test_figures_drawn_in_other_processes_are_the_figures_drawn_here(cnn, tmp_path):
    """The report's figure stage (bench.reporting.render.figures.drawer): forked drawing processes write
    byte-identical PNGs, report the same figures in the order submitted, skip figures without data, and raise a
    figure's error."""
    from bench.reporting.analysis.cost import priced_summary
    from bench.reporting.load.prices import load_table
    from bench.reporting.render.figures import drawer as figures

    key, priced = ("fashion_cnn", "synthetic"), priced_summary(cnn[1], load_table())
    found = {}
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        drawer = figures.Drawer(workers)
        assert (drawer.pool is None) == (workers == 1)
        drawer.submit(*figures.epoch_tasks(key, cnn[2], out), *figures.accuracy_tasks(key, cnn[0], cnn[2], out))
        drawer.submit(*figures.summary_tasks(key, cnn[1], "cpu", out), *figures.cost_tasks(key, priced, out))
        found[workers] = drawer.collect()
    assert list(found[1][key]) == list(found[2][key]) == [
        "epoch_time", "throughput", "epoch_times", "val_accuracy", "time_to_accuracy", "speedup",
        "cost"]  # one backend: no backends figure
    for name, path in found[1][key].items():
        assert path.read_bytes() == found[2][key][name].read_bytes(), name
    drawer = figures.Drawer(2)
    drawer.submit(figures.Task(key, "broken", tmp_path / "broken.png", _fails, ()))
    with pytest.raises(RuntimeError, match="cannot be drawn"):
        drawer.collect()


def _noted(folder, name, parent=None):
    """A drawing that notes the process it ran in (a line a call); with ``parent``, it kills any other process."""
    if parent is not None and os.getpid() != parent:
        os._exit(1)  # a drawing process dying mid-figure: the pool is broken
    with (folder / name).open("a") as f:
        f.write(f"{os.getpid()}\n")


@pytest.mark.parametrize("workers", [1, 2])
def test_every_figure_with_data_is_drawn_once_and_one_without_data_not_at_all(tmp_path, workers):
    """In the pool's processes from the moment they are submitted, or in this one at collect: each task drawn once;
    a figure whose data function found no data is never drawn (it would only find that out)."""
    from bench.reporting.render.figures import drawer as figures

    tasks = [figures.Task(("w", "d"), f"f{i}", tmp_path / f"f{i}.png", _noted, (tmp_path, f"f{i}")) for i in range(4)]
    empty = figures.Task(("w", "d"), "speedup", tmp_path / "e.png", _noted, (tmp_path, "empty"), has_data=False)
    drawer = figures.Drawer(workers)
    drawer.submit(*tasks[:2], empty, *tasks[2:])
    if workers > 1:  # drawn before collect() is called
        deadline = time.monotonic() + 60
        while len(list(tmp_path.glob("f?"))) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(list(tmp_path.glob("f?"))) == 4
    assert drawer.collect() == {}  # _noted returns no figure
    assert sorted(p.name for p in tmp_path.iterdir() if not p.suffix) == ["f0", "f1", "f2", "f3"]
    lines = [(tmp_path / f"f{i}").read_text().split() for i in range(4)]
    assert all(len(x) == 1 for x in lines), lines  # once each
    pids = {int(x[0]) for x in lines}
    assert (pids == {os.getpid()}) if workers == 1 else (os.getpid() not in pids), pids


def test_a_figure_a_broken_pool_did_not_draw_is_drawn_here(tmp_path):
    """A drawing process that dies (killed for its memory, say) breaks the pool: the figures it and the others did
    not finish are drawn in the report's process, and the report goes on."""
    from bench.reporting.render.figures import drawer as figures

    killer = figures.Task(("w", "d"), "k", tmp_path / "k.png", _noted, (tmp_path, "k", os.getpid()))
    rest = [figures.Task(("w", "d"), f"f{i}", tmp_path / f"f{i}.png", _noted, (tmp_path, f"f{i}")) for i in range(3)]
    drawer = figures.Drawer(2)
    drawer.submit(killer, *rest)
    assert drawer.collect() == {}
    assert (tmp_path / "k").read_text().split() == [str(os.getpid())]  # drawn here, once
    assert all(len((tmp_path / f"f{i}").read_text().split()) >= 1 for i in range(3))


def test_drawing_processes_follow_the_environment_and_stay_home_with_threads(monkeypatch):
    import threading

    from bench.reporting.render.figures import drawer as figures

    monkeypatch.setenv(figures.PROCESSES_ENV, "1")
    assert figures.processes() == 1
    monkeypatch.setenv(figures.PROCESSES_ENV, "3")
    assert figures.processes() == 3
    monkeypatch.setattr(figures.sys, "platform", "win32")
    assert figures.processes() == 1  # no fork off Linux, whatever is asked
    monkeypatch.undo()
    monkeypatch.setenv(figures.PROCESSES_ENV, "two")
    with pytest.raises(ValueError, match="BENCH_REPORT_PROCESSES='two'; allowed: a whole number"):
        figures.processes()
    monkeypatch.delenv(figures.PROCESSES_ENV)
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        assert figures.processes() == 1  # a second thread (a Jupyter kernel has several): no fork
    finally:
        stop.set()
        worker.join()


def test_figures_drawn_here_are_freed_while_a_report_pauses_the_collector() -> None:
    """build_report pauses the cyclic collector; the figures its process draws (cycles of figure, canvas and axes)
    are still collected, over what was made since (the objects alive before are frozen out meanwhile), and the
    collector is as it was afterwards."""
    import gc
    import weakref

    from matplotlib.figure import Figure

    from bench.reporting.render.figures import drawer as figures

    was = gc.isenabled()
    gc.disable()
    try:
        with figures.collected_apart():
            assert gc.isenabled() and gc.get_freeze_count() > 0
            fig = Figure()
            fig.subplots()
            drawn = weakref.ref(fig)
            del fig
            gc.collect()
            assert drawn() is None
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        if was:
            gc.enable()


def test_the_backends_figure_names_each_backend_as_the_tables_do():
    """Its legend reads the engines' declared display names (TensorFlow, JAX), its bars their declared colours."""
    from matplotlib.colors import to_hex

    from bench.records.backends import SPECS

    a = analyzed(load_records([Path(__file__).parent / "data" / "records_backends"], warn=False).records)
    fig = plots.backend_figure(a.summary, TITLE)
    assert legend_labels(fig) == ["TensorFlow", "JAX"]
    handles = [h for leg in fig.legends for h in leg.legend_handles]
    assert [to_hex(h.get_facecolor()) for h in handles] == [SPECS["tensorflow"].colour, SPECS["jax"].colour]
