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
@pytest.mark.slow
def test_jax_cpu_and_cpu_x2_run_as_worker_processes(tmp_path: Path) -> None:
    proc = run_bench("suite=smoke", "backends=[jax]", "workloads=[fashion_cnn]", "steps_per_execution=[1,4]",
                     f"results_dir={tmp_path / 'r'}", f"reports_dir={tmp_path / 'p'}", "measure_peak=false")
    assert proc.returncode == 0, proc.stderr[-2000:]
    run_dir = next((tmp_path / "r").iterdir())
    recs = {p.stem: json.loads(p.read_text()) for p in run_dir.glob("*.json") if p.name != "run.json"}
    assert sorted(recs) == [f"fashion_cnn-jax-{s}-b64-spe{n}-fp32-r0" for s in ("cpu", "cpu_x2") for n in (1, 4)]
    for r in recs.values():
        assert r["status"] == "ok" and r["backend"] == "jax", r["error"]
        assert len(r["epochs"]) == 2 and all(e["steps"] == 512 // 64 for e in r["epochs"])
        assert r["teardown_s"] is not None and r["teardown_s"] >= 0
    x2 = recs["fashion_cnn-jax-cpu_x2-b64-spe4-fp32-r0"]["strategy"]
    assert x2["class"] == "DataParallel" and x2["num_replicas"] == 2 and x2["devices"] == ["cpu:0", "cpu:1"]
    assert sorted(p.name for p in (run_dir / "logs").iterdir()) == ["jax-cpu-worker1.log", "jax-cpu_x2-worker1.log"]
    report = next((tmp_path / "p").iterdir()) / "report.md"
    assert "| jax/cpu_x2 " in report.read_text()
