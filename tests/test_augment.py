"""Augmentation in the input pipeline (tutorial 001): the TensorFlow engine's ops compute what NumPy computes
from the same draws, both engines feed identical augmented batches (arrays and decoded files, decoded
every epoch or cached), and a cached pipeline still augments differently in every epoch."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from bench.data import augment, sources
from bench.data.order import epoch_plan
from tests import sourcedata

ALL = augment.KINDS


def test_draws_depend_on_seed_and_epoch_only_and_flips_are_unchanged() -> None:
    a = augment.draw(3, 0, 5, 8, ALL, height=32)
    b = augment.draw(3, 0, 5, 8, ALL, height=32)
    c = augment.draw(3, 1, 5, 8, ALL, height=32)
    assert all(np.array_equal(x, y) for x, y in zip(a.arrays().values(), b.arrays().values(), strict=True))
    assert not np.array_equal(a.brightness, c.brightness)
    flips = np.random.default_rng((3, 0, 1)).random((5, 8)) < 0.5  # drawn from (seed, epoch), apart from the order
    assert np.array_equal(a.flip, flips)  # a flip-only workload sees the flips it always saw
    assert a.crop.min() >= 0 and a.crop.max() <= 2 * augment.crop_pad(32)
    _, none = epoch_plan(40, 8, None, 0, ALL, 32)
    assert none is None  # validation: never augmented


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown kind"):
        augment.kinds(("flip", "zoom"))


def test_tensorflow_ops_match_numpy() -> None:
    tf = pytest.importorskip("tensorflow")
    from bench.engines.tensorflow.pipelines import augment as tf_augment

    x = np.random.default_rng(0).random((6, 32, 32, 3), dtype=np.float32)
    for which in [ALL, ("crop",), ("rot90",), ("contrast",), ("flip", "brightness")]:
        p = augment.draw(1, 2, 1, 6, which, height=32).row(0)
        ours = augment.apply(x, p)
        theirs = tf_augment(tf.constant(x), {k: tf.constant(v) for k, v in p.arrays().items()}).numpy()
        assert np.abs(ours - theirs).max() < 1e-6, which
    assert not np.allclose(augment.apply(x, augment.draw(1, 2, 1, 6, ALL, 32).row(0)), x)


@pytest.mark.parametrize("cached", [False, True])
def test_both_engines_feed_the_same_augmented_batches(tmp_path: Path, cached: bool) -> None:
    pytest.importorskip("tensorflow")
    pytest.importorskip("jax")
    from bench.engines.jax.pipelines import make_pipelines as jax_pipelines
    from bench.engines.tensorflow.pipelines import make_pipelines as tf_pipelines
    from bench.workloads import get_workload

    path = sourcedata.write_csv(tmp_path / "plants")
    spec = f"csv:{path}"
    wl = dataclasses.replace(get_workload("plant_cnn", spec), shape=(32, 32, 3))
    data = sources.load(spec, 48, 8)
    a = tf_pipelines(wl, data, 8, seed=5, epochs=2, cached=cached)
    b = jax_pipelines(wl, data, 8, seed=5, epochs=2, cached=cached)
    it = iter(a.train)
    first = None
    for _ in range(2 * a.steps_per_epoch - 1):
        (xa, ya), (xb, yb) = next(it), next(b.train)
        first = xb if first is None else first
        assert xa.shape == xb.shape == (8, 32, 32, 3)
        assert np.abs(xa.numpy() - xb).max() < 1e-5 and np.array_equal(ya.numpy(), yb)
    # a transfer-learning point's second fit: both engines start again from the first epoch's first batch
    (xa, _), (xb, _) = next(iter(a.rewind())), next(b.rewind())
    assert np.abs(xa.numpy() - first).max() < 1e-5 and np.abs(xb - first).max() < 1e-5


def test_a_cached_pipeline_still_augments_differently_every_epoch(tmp_path: Path) -> None:
    """Tutorial 001: cache() before augmentation, or the augmentation is applied once. With one batch per
    epoch, epoch 2's images are a permutation of epoch 1's without augmentation, and none of them with it."""
    pytest.importorskip("tensorflow")
    from bench.engines.tensorflow.pipelines import make_pipelines
    from bench.workloads import get_workload

    path = sourcedata.write_csv(tmp_path / "plants", counts=(4, 3, 4, 3))  # 10 train, 4 val
    spec = f"csv:{path}"
    data = sources.load(spec, 8, 2)
    for which, same in [((), True), (ALL, False)]:
        wl = dataclasses.replace(get_workload("plant_cnn", spec), shape=(32, 32, 3), augment=which)
        it = iter(make_pipelines(wl, data, 8, seed=0, epochs=2, cached=True).train)
        first, second = next(it)[0].numpy(), next(it)[0].numpy()
        matches = sum(any(np.allclose(img, other) for other in first) for img in second)
        assert (matches == 8) if same else (matches == 0)


@pytest.mark.slow
def test_plant_suite_shape_default_and_cached_pipelines_train_the_same_model(tmp_path) -> None:
    """The plant suite's two pipelines in one worker: both points finish, train on the same augmented batches
    (equal losses and accuracies every epoch: caching changes where the decoding happens, not the data), get
    their own ids, and the report compares them in its Input pipelines section."""
    import json

    from tests.conftest import run_bench

    proc = run_bench("suite=plant", "strategies=[cpu]", "batch_sizes=[16]", "steps_per_execution=[2]",
                     "n_train=64", "n_val=32", "epochs=2", f"results_dir={tmp_path / 'r'}",
                     f"reports_dir={tmp_path / 'rep'}", "measure_peak=false",
                     "second_batch=false")  # no check here reads the extra stage
    assert proc.returncode == 0, proc.stderr[-2000:]
    run_dir = next((tmp_path / "r").iterdir())
    recs = {r["point_id"]: r for r in (json.loads(p.read_text()) for p in run_dir.glob("*.json")) if "point_id" in r}
    default, cached = recs["plant_cnn-cpu-b16-spe2-fp32-r0"], recs["plant_cnn-cpu-b16-spe2-fp32-cached-r0"]
    assert default["status"] == cached["status"] == "ok"
    assert (default["dataset"]["pipeline"], cached["dataset"]["pipeline"]) == ("default", "cached")
    for a, b in zip(default["epochs"], cached["epochs"], strict=True):
        assert a["loss"] == pytest.approx(b["loss"], rel=1e-4) and a["val_accuracy"] == b["val_accuracy"]
    report = next((tmp_path / "rep").iterdir()) / "report.md"
    assert "## Input pipelines" in report.read_text()
    assert "pipeline" in proc.stdout.split("records:")[0]  # the console table's pipeline column
