"""The JAX backend: refusals before anything runs, and JAX workers (``cpu``, ``cpu_x2`` on forced host devices)
that run the same workloads in their own processes without TensorFlow."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cli import parse_config
from bench.config import ConfigError
from bench.engines import process_env
from bench.runner.plan import plan
from tests.conftest import REPO

jax_installed = pytest.mark.skipif(
    __import__("importlib").util.find_spec("jax") is None, reason="needs JAX (pip install 'bench[jax]')")


def _err(*overrides: str) -> str:
    with pytest.raises(ConfigError) as e:
        parse_config(["suite=smoke", *overrides])
    return str(e.value)


def test_an_unknown_backend_is_refused_by_name() -> None:
    assert _err("backends=[mxnet]") == ("backends[0]='mxnet' is not a Keras backend bench runs; "
                                        "allowed: tensorflow, jax, torch")
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
from bench.job.point import Point, WorkerJob
from bench.worker.main import Worker
point = Point(workload="fashion_cnn", strategy="cpu", global_batch_size=64, steps_per_execution=2,
              precision="float32", repeat=0, seed=0, epochs=2, n_train=256, n_val=128, data_scale="reduced",
              backend="jax")
Worker(WorkerJob("r", sys.argv[1], "t", "cpu", (point,), backend="jax", measure_peak=False, float32_matmul="highest"),
       io.StringIO()).run()
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
    # float32_matmul is a GPU setting: asked on a CPU, the record says so and the arithmetic is the CPU's
    assert rec["float32_matmul"] == "highest" and rec["arithmetic"] == {"matmul": "fp32", "conv": "fp32"}
    assert "float32_matmul=highest applies on a GPU: cpu arithmetic left as it is" in rec["notes"]


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
        for i, (x, y) in enumerate(tfp.val):
            jx, jy = jxp.val[i]  # indexed (a PyDataset: the same batches every epoch, issue 39)
            assert np.array_equal(x.numpy(), jx) and np.array_equal(y.numpy(), jy)
        # the 70 - 2 x 32 = 6 examples whole batches leave out, padded to one batch, alike under both engines
        (tx, ty, tn), (jx, jy, jn) = tfp.val_rest, jxp.val_rest
        assert tn == jn == 6 and np.array_equal(tx, jx) and np.array_equal(ty, jy) and len(ty) == 32


@jax_installed
@pytest.mark.slow
def test_every_point_of_a_jax_worker_is_data_parallel_and_a_lost_distribution_fails_the_point(tmp_path: Path) -> None:
    """Issue 38: Keras' clear_session after a point dropped the global distribution, so every later point of a
    ``cpu_x2`` worker ran each batch on one device (1.9x slower, nothing recorded). Three points in one worker:
    the first two are sharded over both devices (the second only because the worker puts the distribution back),
    and the third, with that step left out (``unplaced``, the old behaviour), fails its placement check before
    anything is timed."""
    from tests.conftest import run_bench

    proc = run_bench("workloads=[fashion_cnn]", "backends=[jax]", "strategies=[cpu_x2]", "batch_sizes=[32,64,128]",
                     "steps_per_execution=[1]", "epochs=2", "n_train=512", "n_val=128", "report=false",
                     "measure_peak=false", "measure_input=false", "second_batch=false", f"results_dir={tmp_path}",
                     env={"BENCH_FAULT": "unplaced:b128"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    (run_dir,) = tmp_path.iterdir()
    recs = {r["global_batch_size"]: r for r in (json.loads(f.read_text()) for f in run_dir.glob("*-r0.json"))}
    assert sorted(recs) == [32, 64, 128]
    assert len({r["process"]["pid"] for r in recs.values()}) == 1  # one worker process ran all three
    for gb in (32, 64):
        r = recs[gb]
        assert r["status"] == "ok", r["error"]
        assert r["placement"] == {"mesh": "batch: 2", "variables": r["placement"]["variables"],
                                  "batch": f"{gb} rows sharded over 2 devices, {gb // 2} each"}
        assert r["placement"]["variables"].endswith("replicated on 2 devices")
        assert r["compiler"] == "XLA (jax.jit)"
    lost = recs[128]
    assert lost["status"] == "failed" and lost["epochs"] == []
    assert lost["error"]["type"] == "PlacementError"
    assert lost["error"]["message"].startswith("the Keras distribution in force is none, not the worker's "
                                               "DataParallel")


@jax_installed
def test_a_gpu_whose_plugin_failed_to_initialise_is_skipped_with_the_plugins_own_error(monkeypatch) -> None:
    """Issue 38: JAX answers ``jax.devices('gpu')`` with "Unknown backend" once the CUDA plugin failed to start and
    keeps the plugin's real error to itself (``xla_bridge._backend_errors``); the skipped record must carry it."""
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")  # importing keras here must not switch the suite's
    from jax._src import xla_bridge

    from bench.engines import StrategyUnavailable
    from bench.engines.jax import strategies

    real = "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: system has unsupported display driver / cuda driver combination"
    monkeypatch.setattr(xla_bridge, "_backend_errors", {"cuda": real})
    with pytest.raises(StrategyUnavailable) as e:
        strategies.make_strategy("gpu")
    assert str(e.value).startswith(f"JAX's GPU backend failed to initialise (cuda: {real}); jax.devices() = [")
    monkeypatch.setattr(xla_bridge, "_backend_errors", {})
    with pytest.raises(StrategyUnavailable, match=r"^no GPU visible to JAX \(jax.devices\('gpu'\): Unknown backend"):
        strategies.make_strategy("gpu")
