"""The input pipelines users write, as axes (issue 34): ``autotune`` (the seeds' ``tf.data.AUTOTUNE`` settings,
autotune on) and ``numpy`` (arrays straight into ``fit``) beside bench's fixed ``default``, under both backends,
from the same initial weights and examples; a pipeline a point cannot run is a ``skipped`` record with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.engines import KERAS_ORDER, TF_SHUFFLE
from bench.reporting.frame import summarize
from bench.reporting.tables import pipelines_section
from bench.runner.feeds import numpy_refusal
from bench.workloads import Workload
from tests.conftest import SMOKE_BACKENDS, run_records

AUGMENTING = '''
import numpy as np
from bench.workloads import Workload

def data():
    rng = np.random.default_rng(0)
    return (rng.integers(0, 256, (128, 8, 8, 1), dtype=np.uint8), rng.integers(0, 2, 128),
            rng.integers(0, 256, (64, 8, 8, 1), dtype=np.uint8), rng.integers(0, 2, 64))

def build():
    import keras
    return keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Flatten(),
                             keras.layers.Dense(2, activation="softmax")])

def make():
    return Workload(name="flips", build_model=build, compile_kwargs={"optimizer": "adam",
                    "loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]}, data=data, augment=("flip",))
'''


@pytest.fixture(scope="module")
def pipelines_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    tmp = tmp_path_factory.mktemp("pipelines")
    (tmp / "tp_flips.py").write_text(AUGMENTING)
    return tmp, run_records(tmp, "suite=cnn", "workloads=[fashion_cnn,tp_flips:make]", "strategies=[cpu_x2]",
                            f"backends=[{','.join(SMOKE_BACKENDS)}]", "input_pipelines=[default,autotune,numpy]",
                            "n_train=256", "n_val=64", "epochs=2", "batch_sizes=[64]", "steps_per_execution=[2]",
                            "~workload_axes", "measure_peak=false")


@pytest.mark.slow
def test_every_pipeline_trains_the_same_examples_from_the_same_weights(pipelines_run) -> None:
    _, recs = pipelines_run
    fashion = [r for r in recs if r["workload"] == "fashion_cnn"]
    assert len(fashion) == 3 * len(SMOKE_BACKENDS)
    assert {r["status"] for r in fashion} == {"ok"}, [(r["point_id"], r.get("error")) for r in fashion]
    assert len({r["initial_weights"]["sha256"] for r in fashion}) == 1
    assert {tuple((e["steps"], e["examples"]) for e in r["epochs"]) for r in fashion} == {((4, 256), (4, 256))}
    for r in fashion:
        pipe = r["dataset"]["pipeline"]
        tuned = pipe == "autotune" or (pipe == "numpy" and r["backend"] == "tensorflow")  # Keras' own tf.data
        assert r["input_autotune"] is tuned, r["point_id"]
        assert r["data_order"] == {"numpy": KERAS_ORDER, "autotune": TF_SHUFFLE}.get(pipe, "bench"), r["point_id"]
        assert r["teardown_s"] is not None and r["teardown_s"] >= 0  # recorded, not avoided
        assert r["input_examples_per_s"] > 0  # the input-only probe runs on every pipeline
        assert (r["input_threads"] is None) is (pipe != "default"), r["point_id"]  # tf.data or Keras decide
        if pipe == "numpy":
            assert any("Keras' order" in n for n in r["notes"]), r["notes"]
        if r["backend"] == "tensorflow":  # a strategy's per-device pipelines: autotune as the user's own script gets it
            assert r["strategy"]["device_pipeline_autotune"] == ("off" if pipe == "default" else "on"), r["point_id"]


def test_autotune_is_one_epoch_that_fit_iterates_afresh_and_tf_data_reshuffles() -> None:
    """The guide's structure: a finite dataset of one epoch, handed to ``fit`` without ``steps_per_epoch`` (so
    Keras starts a new iterator, and tf.data a new autotune model, every epoch: what the slow episodes need), whose
    examples tf.data reshuffles every iteration on the point's seed — the same order in every process, a new one
    every epoch, every example at most once an epoch; an augmenting workload's draws differ between epochs too."""
    pytest.importorskip("tensorflow")
    import dataclasses

    import numpy as np

    from bench.data.synthetic import generate
    from bench.engines.tensorflow.pipelines import make_pipelines
    from bench.workloads import get_workload

    wl = get_workload("fashion_cnn")
    arrays = generate("fashion", 100, 20, seed=3)
    a, b = (make_pipelines(wl, arrays, 16, seed=7, autotune=True) for _ in range(2))
    assert a.finite and a.data_order == TF_SHUFFLE and "steps_per_epoch" not in a.fit_inputs(a.train)
    assert int(a.train.cardinality()) == a.steps_per_epoch == 6  # whole batches: Keras knows the epoch's steps
    flat = {x.tobytes(): i for i, x in enumerate(arrays.x_train.astype(np.float32) / 255.0)}

    def epoch(p) -> list[int]:
        return [flat[x.numpy().tobytes()] for xs, _ in p.train for x in xs]

    one, two = epoch(a), epoch(a)
    assert len(one) == len(set(one)) == 96 and len(set(two)) == 96 and one != two
    assert epoch(b) == one  # the seed, not the process, decides the order
    fixed = make_pipelines(wl, arrays, 16, seed=7)
    assert not fixed.finite and fixed.data_order == "bench" and fixed.fit_inputs(fixed.train)["steps_per_epoch"] == 6
    flips = dataclasses.replace(wl, augment=("flip",))
    x1, x2 = (np.concatenate([x.numpy() for x, _ in make_pipelines(flips, arrays, 16, seed=7, autotune=True).train])
              for _ in range(2))
    assert np.array_equal(x1, x2)  # deterministic: a fresh pipeline's first epoch is the same
    tuned = make_pipelines(flips, arrays, 16, seed=7, autotune=True)
    e1, e2 = (np.sort(np.concatenate([x.numpy() for x, _ in tuned.train]).reshape(96, -1), axis=0) for _ in range(2))
    assert not np.array_equal(e1, e2)  # epoch 2 is not epoch 1's images reordered: new flips dealt


@pytest.mark.slow
def test_a_pipeline_a_point_cannot_run_is_skipped_with_the_reason(pipelines_run) -> None:
    _, recs = pipelines_run
    flips = [r for r in recs if r["workload"].startswith("flips")]
    numpy = [r for r in flips if r["dataset"]["pipeline"] == "numpy"]
    assert numpy and {r["status"] for r in numpy} == {"skipped"}
    for r in numpy:
        assert r["error"]["type"] == "PipelineUnavailable"
        assert "augments (flip)" in r["error"]["message"] and "input pipeline numpy" in r["error"]["message"]
    assert {r["status"] for r in flips if r["dataset"]["pipeline"] != "numpy"} == {"ok"}
    text = "\n".join(pipelines_section(summarize(recs)))  # the report's section, from these records
    assert "autotune examples/s" in text and "numpy examples/s" in text and "autotune vs default" in text


def test_numpy_refusal_names_what_stops_it() -> None:
    class Encoded:  # a file data source: no arrays
        pass

    class Arrays:
        x_train = None

    wl = Workload(name="w", shape=(8, 8, 1), classes=2)
    assert numpy_refusal(wl, Arrays(), 1) == ""
    assert "encoded files" in numpy_refusal(wl, Encoded(), 1)
    assert "augments (crop, flip)" in numpy_refusal(Workload(name="w", shape=(8, 8, 1), augment=("crop", "flip")),
                                                    Arrays(), 1)
    assert "runs 2 processes" in numpy_refusal(wl, Arrays(), 2)
