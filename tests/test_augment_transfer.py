"""Tutorial 001's plant workloads that need a real run under both backends, in one shared run: transfer learning
in two stages (MobileNetV2) and augmentation layers inside the model. A module of its own, so that the parallel
test run starts it among the first (tests/conftest.py LONGEST_FIRST) beside the other long modules.

One run serves both tests (one worker process per backend instead of two, one main process instead of two:
the augmentation-layer test had its own run before 2026-11-23). JAX compiles with XLA's backend optimisation
off (``XLA_FLAGS``, recorded in each record's environment): these tests check what trains and what fails, never
a time, and the unoptimised compile of MobileNetV2's fine-tuning step is ~12 s shorter on the 2-core box while
the losses agree with the optimised build's to 1e-4 (measured 2026-11-23)."""

from __future__ import annotations

import importlib.util
import json
import math
import os

import pytest

from bench.records import parse
from tests.test_record_schema import undeclared

BACKENDS = ["tensorflow"] + (["jax"] if importlib.util.find_spec("jax") else [])


@pytest.fixture(scope="module")
def plant_run(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict]:
    """Records of the shared run by (workload, backend)."""
    from tests.conftest import run_bench

    tmp = tmp_path_factory.mktemp("plant")
    proc = run_bench("suite=smoke", "workloads=[plant_transfer,plant_cnn_layer_aug]", "strategies=[cpu]",
                     f"backends=[{','.join(BACKENDS)}]", "batch_sizes=[16]", "steps_per_execution=[2]", "n_train=32",
                     "n_val=16", "epochs=5", f"results_dir={tmp / 'r'}", "report=false", "measure_peak=false",
                     "measure_input=false", "second_batch=false",
                     env={"XLA_FLAGS": "--xla_backend_optimization_level=0"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    run_dir = next((tmp / "r").iterdir())
    recs = [json.loads(p.read_text()) for p in run_dir.glob("*.json")]
    return {(r["workload"], r["backend"]): r for r in recs if "point_id" in r}


@pytest.mark.slow
def test_plant_transfer_trains_in_two_stages_in_one_point_under_both_backends(plant_run) -> None:
    """Tutorial 001's transfer learning: the backbone frozen for half the epochs, then unfrozen and recompiled at
    the fine-tuning learning rate, in one point: both stages' epochs recorded (tagged), the trainable
    parameters of each stage, random weights offline; the frozen stage computes the same under both
    backends, and the steady state is the fine-tuning stage's after its first epoch."""
    recs = {b: r for (w, b), r in plant_run.items() if w == "plant_transfer"}
    assert sorted(recs) == sorted(BACKENDS)
    cache = os.environ["BENCH_CACHE_DIR"]
    for r in recs.values():
        assert r["status"] == "ok", r.get("error")
        assert [(s["name"], s["epochs"], s["trainable_params"]) for s in r["stages"]] == [
            ("frozen", 2, 5_124), ("fine_tune", 3, 401_252)]  # the head alone, then all but BatchNorm statistics
        assert [s["learning_rate"] for s in r["stages"]] == pytest.approx([1e-3, 1e-5])
        assert [(e["epoch"], e["stage"], e["steps"]) for e in r["epochs"]] == [
            (1, "frozen", 2), (2, "frozen", 2), (3, "fine_tune", 2), (4, "fine_tune", 2), (5, "fine_tune", 2)]
        assert [e.epoch for e in parse(r).steady_epochs()] == [4, 5]
        losses = [e["loss"] for e in r["epochs"]]
        assert all(math.isfinite(x) for x in losses) and len(set(losses)) == len(losses)  # both stages train
        assert r["pretrained_weights"] is None  # no ImageNet weights in this box's Keras cache
        assert "setup_s" in r["epochs"][0] and "setup_s" in r["epochs"][2]  # each fit's set-up, in its first epoch
        # the generated JPEGs' list, without this machine's cache folder (records are shared)
        assert r["dataset"]["files"].startswith("csv:<bench data cache>/") and cache not in json.dumps(r)
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
    assert recs["jax"]["status"] == "failed" and recs["jax"]["error"]["kind"] == "augmentation_layers_need_tensorflow"
    assert "augment in the input pipeline" in recs["jax"]["error"]["hint"]
