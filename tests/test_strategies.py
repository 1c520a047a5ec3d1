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


# Every strategy that configures no logical devices, asked in turn in one process with GPUs hidden, in the order
# that keeps each answer what a fresh process gives: the no-scope ones first, then the absent hardware, the TPU
# attempt last (a failed initialisation leaves state behind). One TensorFlow start instead of seven; each test
# below reads its own answer. The unanswered grpc:// address needs a process of its own: once TensorFlow's
# context is up, the connect blocks the thread that starts it, and the time limit never gets to act.
NO_LOGICAL_DEVICES = """
    import json
    import tensorflow as tf
    from bench.engines import StrategyUnavailable
    from bench.engines.tensorflow.strategies import looks_like_tpu_vm, make_strategy
    out = {"tpu_vm": looks_like_tpu_vm()}
    for name in ["default", "auto", "cpu", "cpu_onedevice", "gpu", "gpus", "tpu"]:
        try:
            s, info = make_strategy(name)
            out[name] = {**info.as_record(), "scope": s is not None, "error": None,
                         "current": type(tf.distribute.get_strategy()).__name__}
        except StrategyUnavailable as e:
            out[name] = {"error": str(e)}
    out["gpus_visible"] = len(tf.config.get_visible_devices("GPU"))
    print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def no_logical_devices() -> dict:
    return in_process(NO_LOGICAL_DEVICES, env={"CUDA_VISIBLE_DEVICES": ""})


def test_cpu_is_plain_keras_with_no_strategy_scope(no_logical_devices) -> None:
    """`cpu` is the baseline a notebook has: no strategy scope, GPUs hidden; the wrapper has its own name."""
    cpu = no_logical_devices["cpu"]
    assert not cpu["scope"] and cpu["current"] == "_DefaultDistributionStrategy"
    assert no_logical_devices["gpus_visible"] == 0
    assert cpu["class"] == "none (no strategy scope)" and cpu["scope"] is False
    assert cpu["devices"] == ["/cpu:0"] and cpu["num_replicas"] == 1
    out = no_logical_devices["cpu_onedevice"]
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


def test_default_and_auto(no_logical_devices) -> None:
    out = no_logical_devices["default"]
    # "default" is what a plain notebook does: no strategy scope at all
    assert not out["scope"] and out["class"] == "none (no strategy scope)" and out["num_replicas"] == 1
    if no_logical_devices["tpu_vm"]:
        pytest.skip("a TPU VM: auto resolves to tpu")
    out = no_logical_devices["auto"]
    # the tutorials' fallback with no TPU and no (visible) GPU: the CPU, and the record says so
    assert out["requested"] == "auto" and out["name"] == "cpu" and out["class"] == "none (no strategy scope)"


@pytest.mark.parametrize(("name", "expected"), [
    ("gpu", "no GPU visible to TensorFlow"),
    ("gpus", "no GPU visible to TensorFlow"),
    # no TPU: 'local' resolves, then initialisation fails with TF's own error (there is no TPU to initialise)
    ("tpu", "initialize_tpu_system(TPUClusterResolver(tpu='local')) failed: NotFoundError: TPUs not found"),
])
def test_absent_hardware_is_unavailable_with_the_exact_reason(no_logical_devices, name, expected) -> None:
    if name == "tpu" and no_logical_devices["tpu_vm"]:
        pytest.skip("a TPU is attached")
    assert expected in no_logical_devices[name]["error"]


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
