"""The JAX backend: refusals before anything runs, and JAX workers (``cpu``, ``cpu_x2`` on forced host devices)
that run the same workloads in their own processes without TensorFlow."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cli import parse_config
from bench.config import ConfigError
from bench.engines import process_env
from bench.runner.plan import plan
from tests.conftest import REPO, run_bench

jax_installed = pytest.mark.skipif(
    __import__("importlib").util.find_spec("jax") is None, reason="needs JAX (pip install 'bench[jax]')")


def _err(*overrides: str) -> str:
    with pytest.raises(ConfigError) as e:
        parse_config(["suite=smoke", *overrides])
    return str(e.value)


def test_an_unknown_backend_is_refused_by_name() -> None:
    assert _err("backends=[torch]") == ("backends[0]='torch' is not a Keras backend bench runs; "
                                        "allowed: tensorflow, jax")
    assert _err("backends=[]").startswith("backends: must not be empty")


def test_jax_without_jax_installed_is_refused_with_the_install_command(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "jax", None)  # find_spec now says: not installed
    msg = _err("backends=[tensorflow,jax]")
    assert msg.startswith("backends: jax is not installed in this environment; install it with "
                          "pip install 'bench[jax]'")


def test_tensorflow_without_tensorflow_installed_is_refused_with_the_install_command(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "tensorflow", None)  # find_spec now says: not installed
    assert _err() == ("backends: tensorflow is not installed in this environment; install it with "
                      "pip install 'bench[tensorflow]' (or run backends=[jax])")
    if __import__("importlib").util.find_spec("jax") is not None:
        parse_config(["suite=smoke", "backends=[jax]"])  # a JAX-only environment runs backends=[jax]


@jax_installed
def test_tf_distribute_wrappers_are_refused_under_jax() -> None:
    assert _err("backends=[jax]", "strategies=[cpu,cpu_onedevice]") == (
        "strategies[1]='cpu_onedevice' is a tf.distribute wrapper with no meaning under backends=jax; "
        "allowed with jax: cpu, cpu_xN, gpu, gpus, tpu, auto")


@jax_installed
def test_points_of_each_backend_have_their_own_ids_and_groups() -> None:
    points = plan(parse_config(["suite=smoke", "backends=[tensorflow,jax]", "workloads=[fashion_cnn]"]))
    ids = [p.point_id for p in points]
    assert "fashion_cnn-cpu-b64-spe1-fp32-r0" in ids and "fashion_cnn-jax-cpu-b64-spe1-fp32-r0" in ids
    assert len(set(ids)) == len(ids) == 2 * 2 * 2  # backends x strategies x spe
    tf_point = next(p for p in points if p.backend == "tensorflow")
    assert "backend" not in tf_point.to_record()  # a tensorflow point hashes as it always did


def test_worker_environment_is_set_before_the_framework_starts() -> None:
    assert process_env("tensorflow", "cpu_x2", {}) == {"KERAS_BACKEND": "tensorflow"}
    assert process_env("jax", "cpu", {}) == {"KERAS_BACKEND": "jax", "JAX_PLATFORMS": "cpu"}
    env = process_env("jax", "cpu_x4", {"XLA_FLAGS": "--xla_dump_to=/tmp/x --xla_force_host_platform_device_count=2"})
    assert env["XLA_FLAGS"] == "--xla_dump_to=/tmp/x --xla_force_host_platform_device_count=4"
    assert process_env("jax", "gpu", {}) == {"KERAS_BACKEND": "jax"}


NO_TF_WORKER = r"""
import io, json, os, sys
from bench.engines import prepare_process
prepare_process("jax")
os.environ.update(KERAS_BACKEND="jax", JAX_PLATFORMS="cpu")
from bench.runner.plan import Point, WorkerJob
from bench.runner.worker import Worker
point = Point(workload="fashion_cnn", strategy="cpu", global_batch_size=64, steps_per_execution=2,
              precision="float32", repeat=0, seed=0, epochs=2, n_train=256, n_val=128, data_scale="reduced",
              backend="jax")
Worker(WorkerJob("r", sys.argv[1], "t", "cpu", (point,), backend="jax", measure_peak=False), io.StringIO()).run()
loaded = sorted(m for m, mod in sys.modules.items() if m.split(".")[0] == "tensorflow" and mod is not None)
print("TF:", json.dumps(loaded))
"""


@jax_installed
@pytest.mark.slow
def test_a_jax_worker_runs_without_tensorflow(tmp_path: Path) -> None:
    """TensorFlow is installed here, but a JAX worker must run where it is not: with it unimportable, the
    point still runs to an ok record and no TensorFlow module was loaded."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", NO_TF_WORKER, str(tmp_path)], capture_output=True, text=True,
                          env=env, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert 'TF: []' in proc.stdout
    rec = json.loads((tmp_path / "fashion_cnn-jax-cpu-b64-spe2-fp32-r0.json").read_text())
    assert rec["status"] == "ok", rec["error"]
    assert rec["backend"] == "jax" and rec["env"]["jax"] and rec["env"].get("tensorflow") is None
    assert [e["epoch"] for e in rec["epochs"]] == [1, 2] and rec["epochs"][-1]["steps"] == 4


@jax_installed
def test_both_backends_get_the_same_batches_in_the_same_order() -> None:
    """tf.data under TensorFlow and the NumPy pipeline under JAX yield identical batches (order, flips,
    conversion), epoch after epoch, for an augmented image workload and an unaugmented one."""
    import numpy as np

    from bench.data import synthetic
    from bench.engines.jax.pipelines import make_pipelines as jax_pipelines
    from bench.engines.tensorflow.pipelines import make_pipelines as tf_pipelines
    from bench.workloads import get_workload

    for name in ("catsdogs_cnn", "fashion_cnn"):
        workload = get_workload(name)
        arrays = synthetic.load(workload.dataset, 200, 70, 3)
        tfp, jxp = tf_pipelines(workload, arrays, 32, 3, epochs=2), jax_pipelines(workload, arrays, 32, 3, epochs=2)
        assert (tfp.steps_per_epoch, tfp.validation_steps) == (jxp.steps_per_epoch, jxp.validation_steps) == (6, 2)
        tf_train = iter(tfp.train)
        epochs = [[next(tf_train) for _ in range(6)] for _ in range(2)]
        for epoch in epochs:
            for x, y in epoch:
                jx, jy = next(jxp.train)
                assert np.array_equal(x.numpy(), jx) and np.array_equal(y.numpy(), jy)
        assert not np.array_equal(epochs[0][0][1].numpy(), epochs[1][0][1].numpy())  # reshuffled per epoch
        for x, y in tfp.val:
            jx, jy = next(jxp.val)
            assert np.array_equal(x.numpy(), jx) and np.array_equal(y.numpy(), jy)


@jax_installed
@pytest.mark.slow
def test_both_backends_run_the_smoke_suite_from_the_same_weights_to_the_same_accuracy(tmp_path: Path) -> None:
    """jax ``cpu`` and ``cpu_x2`` (forced host devices) run as worker processes beside TensorFlow's, every
    point starts from the run's one set of initial weights and sees the same batches, and fashion_cnn ends
    within 2 pp validation accuracy across backends (here it agrees far closer: same data, same weights)."""
    proc = run_bench("suite=smoke", "backends=[tensorflow,jax]", "workloads=[fashion_cnn]",
                     "steps_per_execution=[1,4]", f"results_dir={tmp_path / 'r'}", f"reports_dir={tmp_path / 'p'}",
                     "measure_peak=false")
    assert proc.returncode == 0, proc.stderr[-2000:]
    run_dir = next((tmp_path / "r").iterdir())
    recs = {p.stem: json.loads(p.read_text()) for p in run_dir.glob("*.json") if p.name != "run.json"}
    jax_ids = [f"fashion_cnn-jax-{s}-b64-spe{n}-fp32-r0" for s in ("cpu", "cpu_x2") for n in (1, 4)]
    tf_ids = [f"fashion_cnn-{s}-b64-spe{n}-fp32-r0" for s in ("cpu", "cpu_x2") for n in (1, 4)]
    assert sorted(recs) == sorted(jax_ids + tf_ids)
    for r in recs.values():
        assert r["status"] == "ok", r["error"]
        assert len(r["epochs"]) == 2 and all(e["steps"] == 512 // 64 for e in r["epochs"])
        assert r["teardown_s"] is not None and r["teardown_s"] >= 0
        assert r["memory"]["peak_rss_bytes"] > 0 and r["memory"]["device_peak_bytes"] is None  # CPU: no device memory
    assert {recs[i]["backend"] for i in jax_ids} == {"jax"} and {recs[i]["backend"] for i in tf_ids} == {"tensorflow"}
    x2 = recs["fashion_cnn-jax-cpu_x2-b64-spe4-fp32-r0"]["strategy"]
    assert x2["class"] == "DataParallel" and x2["num_replicas"] == 2 and x2["devices"] == ["cpu:0", "cpu:1"]
    assert sorted(p.name for p in (run_dir / "logs").iterdir()) == [
        "cpu-worker1.log", "cpu_x2-worker1.log", "jax-cpu-worker1.log", "jax-cpu_x2-worker1.log"]

    # parity: one weights file, created by the first point and loaded by all; same losses, same accuracy
    assert [p.name for p in (run_dir / "init").iterdir()] == ["fashion_cnn-s0.npz"]
    assert len({r["initial_weights"]["sha256"] for r in recs.values()}) == 1
    assert sum(r["initial_weights"]["created"] for r in recs.values()) == 1
    for tf_id, jax_id in zip(tf_ids, jax_ids, strict=True):
        tf_e, jax_e = recs[tf_id]["epochs"], recs[jax_id]["epochs"]
        assert abs(tf_e[-1]["val_accuracy"] - jax_e[-1]["val_accuracy"]) <= 0.02
        assert jax_e[0]["loss"] == pytest.approx(tf_e[0]["loss"], rel=1e-3)  # same batches from the same start
    report = next((tmp_path / "p").iterdir()) / "report.md"
    assert re.search(r"\| jax +\| cpu_x2 +\| cpu x2 ", report.read_text())  # a backend column beside strategy
