"""Strategies, each in its own process (TensorFlow allows one strategy configuration per process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import REPO


def in_process(code: str, env: dict[str, str] | None = None, timeout: float = 240) -> dict:
    """Run ``code`` in a fresh interpreter; it must print one JSON line last."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO), "TF_CPP_MIN_LOG_LEVEL": "3", **(env or {})})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_mirrored_over_two_logical_cpus_trains_with_spe_above_one() -> None:
    out = in_process("""
        import json, numpy as np, keras
        from bench.engines.tensorflow.strategies import make_strategy
        strategy, info = make_strategy("cpu_x2")
        with strategy.scope():
            m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
            m.compile("adam", "sparse_categorical_crossentropy", steps_per_execution=4)
        x = np.random.default_rng(0).random((64, 4)).astype("float32"); y = np.arange(64) % 3
        m.fit(x, y, batch_size=8, epochs=1, verbose=0)
        print(json.dumps({**info.as_record(), "iterations": int(m.optimizer.iterations.numpy())}))
    """)
    assert out["class"] == "MirroredStrategy" and out["num_replicas"] == 2
    assert out["devices"] == ["/device:CPU:0", "/device:CPU:1"]
    # the default collective all-reduce fails with steps_per_execution > 1 (keras#19246)
    assert out["cross_device_ops"] == "HierarchicalCopyAllReduce"
    assert out["iterations"] == 8


def test_cpu_is_plain_keras_with_no_strategy_scope() -> None:
    """`cpu` is the baseline a notebook has: no strategy scope, GPUs hidden; the wrapper has its own name."""
    out = in_process("""
        import json
        import tensorflow as tf
        from bench.engines.tensorflow.strategies import make_strategy
        s, cpu = make_strategy("cpu")
        print(json.dumps({"cpu": cpu.as_record(), "scope": s is not None,
                          "current": type(tf.distribute.get_strategy()).__name__,
                          "gpus": len(tf.config.get_visible_devices("GPU"))}))
    """)
    assert not out["scope"] and out["current"] == "_DefaultDistributionStrategy" and out["gpus"] == 0
    assert out["cpu"]["class"] == "none (no strategy scope)" and out["cpu"]["scope"] is False
    assert out["cpu"]["devices"] == ["/cpu:0"] and out["cpu"]["num_replicas"] == 1
    out = in_process("""
        import json
        from bench.engines.tensorflow.strategies import make_strategy
        s, info = make_strategy("cpu_onedevice")
        print(json.dumps({**info.as_record(), "scope": s is not None}))
    """)
    assert out["class"] == "OneDeviceStrategy" and out["scope"] and out["devices"] == ["/cpu:0"]
    assert out["device_pipeline_autotune_hook"] == "installed"  # each record then says what its pipelines got


def test_the_autotune_state_recorded_is_the_one_observed() -> None:
    """The record's ``device_pipeline_autotune`` is read off the per-device pipelines the hook saw built during
    the point, never assumed from the hook's installation: none seen is ``not observed``, one left on is ``on``."""
    from bench.engines.tensorflow import strategies

    seen = strategies.OBSERVED_DEVICE_AUTOTUNE
    mark = len(seen)
    assert strategies.observed_device_autotune(mark) == "not observed"
    seen.extend([False, False])
    assert strategies.observed_device_autotune(mark) == "off"
    seen.append(True)
    assert strategies.observed_device_autotune(mark) == "on"
    del seen[mark:]


def test_default_and_auto() -> None:
    out = in_process("""
        import json
        from bench.engines.tensorflow.strategies import make_strategy
        s, info = make_strategy("default")
        print(json.dumps({**info.as_record(), "scope": s is not None}))
    """)
    # "default" is what a plain notebook does: no strategy scope at all
    assert not out["scope"] and out["class"] == "none (no strategy scope)" and out["num_replicas"] == 1
    out = in_process("""
        import json
        import tensorflow as tf
        from bench.engines.tensorflow.strategies import looks_like_tpu_vm, make_strategy
        s, info = make_strategy("auto")
        print(json.dumps({**info.as_record(), "gpus": len(tf.config.list_physical_devices("GPU")),
                          "tpu_vm": looks_like_tpu_vm()}))
    """, env={"CUDA_VISIBLE_DEVICES": ""})
    if out["tpu_vm"]:
        pytest.skip("a TPU VM: auto resolves to tpu")
    # the seeds' fallback with no TPU and no (visible) GPU: the CPU, and the record says so
    assert out["requested"] == "auto" and out["name"] == "cpu" and out["class"] == "none (no strategy scope)"


@pytest.mark.parametrize(("name", "env", "expected"), [
    ("gpu", {"CUDA_VISIBLE_DEVICES": ""}, "no GPU visible to TensorFlow"),
    ("gpus", {"CUDA_VISIBLE_DEVICES": ""}, "no GPU visible to TensorFlow"),
    # no TPU: 'local' resolves, then initialisation fails with TF's own error (there is no TPU to initialise)
    ("tpu", {}, "initialize_tpu_system(TPUClusterResolver(tpu='local')) failed: NotFoundError: TPUs not found"),
])
def test_absent_hardware_is_unavailable_with_the_exact_reason(name, env, expected) -> None:
    from bench.engines.tensorflow.strategies import looks_like_tpu_vm

    if name == "tpu" and looks_like_tpu_vm():
        pytest.skip("a TPU is attached")
    out = in_process(f"""
        import json
        from bench.engines import StrategyUnavailable
        from bench.engines.tensorflow.strategies import make_strategy
        try:
            make_strategy({name!r}); print(json.dumps({{"error": None}}))
        except StrategyUnavailable as e:
            print(json.dumps({{"error": str(e)}}))
    """, env=env)
    if name.startswith("gpu") and out["error"] is None:
        pytest.skip("a GPU is visible")
    assert expected in out["error"]


def test_unanswered_grpc_tpu_address_gives_up_after_the_time_limit() -> None:
    out = in_process("""
        import json, time
        from bench.engines import StrategyUnavailable
        from bench.engines.tensorflow.strategies import make_strategy
        t = time.time()
        try:
            make_strategy("tpu", tpu="grpc://127.0.0.1:9", tpu_connect_timeout_s=2)
            print(json.dumps({"error": None}))
        except StrategyUnavailable as e:
            print(json.dumps({"error": str(e), "s": time.time() - t}))
    """)
    # the limit, not TF, ended the attempt (a connect nobody answers blocks forever inside TF)
    assert "did not finish within tpu_connect_timeout_s=2" in out["error"], out["error"]


@pytest.mark.tpu
def test_tpu_strategy_on_real_hardware() -> None:
    out = in_process("""
        import json
        from bench.engines.tensorflow.strategies import make_strategy
        s, info = make_strategy("tpu")
        print(json.dumps(info.as_record()))
    """)
    assert out["class"] == "TPUStrategy" and out["num_replicas"] >= 1 and out["device_kind"] == "tpu"


@pytest.mark.gpu
def test_gpu_strategy_on_real_hardware() -> None:
    out = in_process("""
        import json
        from bench.engines.tensorflow.strategies import make_strategy
        s, info = make_strategy("gpu")
        print(json.dumps(info.as_record()))
    """)
    assert out["class"] == "none (no strategy scope)" and out["device_kind"] == "gpu"
