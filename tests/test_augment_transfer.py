"""Tutorial 001's two lessons that need a real run under both backends, in one shared run: transfer learning in two
stages, and augmentation layers inside the model (plant_cnn_layer_aug). A module of its own, so that the parallel test
run starts it among the first (tests/conftest.py LONGEST_FIRST) beside the other long modules.

The two stages run on a small transfer model of the built-in's form (:data:`TRANSFER`: a nested ``backbone`` with a
BatchNormalization in inference mode, a pooled Dense head), through the same ``Workload.frozen`` path the built-in
takes. The built-in's own MobileNetV2 costs 55 s a backend here, nearly all of it TensorFlow tracing and XLA compiling
the fine-tuning step (2026-12-02), for no behaviour of bench's; its stages (the layer it freezes, the trainable
parameters of each, a two-step fit of the frozen one) are checked in-process by tests/test_workloads.py. JAX compiles
with XLA's backend optimisation off (``XLA_FLAGS``, recorded in each record's environment): these tests check what
trains and what fails, never a time."""

from __future__ import annotations

import importlib.util
import json
import math
import os

import pytest

from bench.records import parse
from tests.test_record_schema import undeclared

BACKENDS = ["tensorflow"] + (["jax"] if importlib.util.find_spec("jax") else [])

TRANSFER = '''
import numpy as np
from bench.workloads import Workload

def data():
    rng = np.random.default_rng(0)
    x = rng.random((48, 16, 16, 3), dtype=np.float32)
    y = rng.integers(0, 4, 48)
    return x[:32], y[:32], x[32:], y[32:]

def build():
    import keras
    backbone = keras.Sequential([keras.Input((16, 16, 3)), keras.layers.Conv2D(8, 3),
                                 keras.layers.BatchNormalization(), keras.layers.ReLU()], name="backbone")
    inputs = keras.Input((16, 16, 3))
    x = keras.layers.GlobalAveragePooling2D()(backbone(inputs, training=False))
    return keras.Model(inputs, keras.layers.Dense(4)(x))

def compile_kwargs():
    import keras
    return {"optimizer": keras.optimizers.Adam(1e-3),
            "loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True), "metrics": ["accuracy"]}

def make():
    return Workload(name="tiny_transfer", build_model=build, compile_kwargs=compile_kwargs, data=data,
                    frozen=("backbone",))
'''


@pytest.fixture(scope="module")
def plant_run(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict]:
    """Records of the shared run by (workload, backend)."""
    from tests.conftest import REPO, run_bench

    tmp = tmp_path_factory.mktemp("plant")
    (tmp / "tt_transfer.py").write_text(TRANSFER)
    proc = run_bench("suite=smoke", "workloads=[tt_transfer:make,plant_cnn_layer_aug]", "strategies=[cpu]",
                     f"backends=[{','.join(BACKENDS)}]", "batch_sizes=[16]", "steps_per_execution=[2]", "n_train=32",
                     "n_val=16", "epochs=5", f"results_dir={tmp / 'r'}", "report=false", "measure_peak=false",
                     "measure_input=false", "second_batch=false", cwd=tmp,
                     env={"XLA_FLAGS": "--xla_backend_optimization_level=0", "PYTHONPATH": f"{tmp}:{REPO}"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    run_dir = next((tmp / "r").iterdir())
    recs = [json.loads(p.read_text()) for p in run_dir.glob("*.json")]
    return {(r["workload"], r["backend"]): r for r in recs if "point_id" in r}


@pytest.mark.slow
def test_transfer_learning_trains_in_two_stages_in_one_point_under_both_backends(plant_run) -> None:
    """Tutorial 001's transfer learning: the backbone frozen for half the epochs, then unfrozen and recompiled at
    the fine-tuning learning rate, in one point: both stages' epochs recorded (tagged), the trainable
    parameters of each stage; the frozen stage computes the same under both backends, and the steady state is the
    fine-tuning stage's after its first epoch."""
    recs = {b: r for (w, b), r in plant_run.items() if w == "tiny_transfer"}
    assert sorted(recs) == sorted(BACKENDS)
    for r in recs.values():
        assert r["status"] == "ok", r.get("error")
        # the head alone (Dense 8*4+4), then all but BatchNorm's statistics (Conv2D 3*3*3*8+8, gamma and beta 16)
        assert [(s["name"], s["epochs"], s["trainable_params"]) for s in r["stages"]] == [
            ("frozen", 2, 36), ("fine_tune", 3, 36 + 224 + 16)]
        assert [s["learning_rate"] for s in r["stages"]] == pytest.approx([1e-3, 1e-5])
        assert [(e["epoch"], e["stage"], e["steps"]) for e in r["epochs"]] == [
            (1, "frozen", 2), (2, "frozen", 2), (3, "fine_tune", 2), (4, "fine_tune", 2), (5, "fine_tune", 2)]
        assert [e.epoch for e in parse(r).steady_epochs()] == [4, 5]
        losses = [e["loss"] for e in r["epochs"]]
        assert all(math.isfinite(x) for x in losses) and len(set(losses)) == len(losses)  # both stages train
        assert "setup_s" in r["epochs"][0] and "setup_s" in r["epochs"][2]  # each fit's set-up, in its first epoch
    if len(recs) == 2:
        assert recs["jax"]["env"]["env_vars"]["XLA_FLAGS"] == "--xla_backend_optimization_level=0"  # what ran
        for a, b in zip(recs["tensorflow"]["epochs"][:2], recs["jax"]["epochs"][:2], strict=True):
            assert a["loss"] == pytest.approx(b["loss"], rel=1e-3)


@pytest.mark.slow
@pytest.mark.skipif(len(BACKENDS) < 2, reason="needs jax")
def test_augmentation_layers_in_the_model_are_reported_as_such_under_jax(plant_run) -> None:
    """Tutorial 001's first attempt (augmentation as model layers) runs under TensorFlow on a CPU, but Keras
    3.15's augmentation layers need TensorFlow even under the JAX backend: a JAX worker (no TensorFlow, as
    on a JAX-only TPU image) records the point as failed with that kind and the advice, not a bare error, and
    goes on with its next point (the transfer test's)."""
    recs = {b: r for (w, b), r in plant_run.items() if w == "plant_cnn_layer_aug"}
    assert recs["tensorflow"]["status"] == "ok"
    assert [undeclared(parse(r)) for r in recs.values()] == [[], []]  # a failure's error fields are declared too
    assert recs["tensorflow"]["augmentation_layers"] == ["RandomFlip", "RandomRotation", "RandomContrast"]
    # the generated plant JPEGs' list, without this machine's cache folder (records are shared)
    cache = os.environ["BENCH_CACHE_DIR"]
    assert recs["tensorflow"]["dataset"]["files"].startswith("csv:<bench data cache>/")
    assert cache not in json.dumps(recs["tensorflow"])
    assert recs["jax"]["status"] == "failed" and recs["jax"]["error"]["kind"] == "augmentation_layers_need_tensorflow"
    assert "augment in the input pipeline" in recs["jax"]["error"]["hint"]
