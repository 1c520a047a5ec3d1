"""What TensorFlow says about its devices: the matmul peak probe, versions and accelerator, out-of-memory."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import tensorflow as tf

from bench.engines import StrategyInfo


def matmul_chain(device: str, dtype: str = "float32", n: int = 1024, chained: int = 1) -> Callable[[], None]:
    """A ``tf.function`` on ``device`` that multiplies an n x n matrix into a running product ``chained`` times
    (a ``while_loop``: each product needs the last) and fetches the result; calling it runs one dispatch. The
    matrix is scaled so the product's entries stay near 1 (no overflow, no denormals to slow a CPU)."""
    with tf.device(device):
        a = tf.cast(2.0 * tf.random.uniform((n, n), dtype=tf.float32) / n, dtype)

    @tf.function
    def step(x: tf.Tensor) -> tf.Tensor:
        _, y = tf.while_loop(lambda i, _: i < chained, lambda i, y: (i + 1, tf.linalg.matmul(y, x)),
                             (tf.constant(0), x))
        return tf.reduce_sum(tf.cast(y, tf.float32))

    def run() -> None:
        with tf.device(device):
            step(a).numpy()

    return run


def stream_chain(device: str, n: int = 1 << 26, chained: int = 1) -> Callable[[], None]:
    """A ``tf.function`` on ``device`` that adds 1 to every element of an ``n``-element float32 vector ``chained``
    times (a ``while_loop``: each pass needs the last), then sums it and fetches the sum: ``(8 chained + 4) n`` bytes
    read or written (bench.measure.probes.stream_bandwidth)."""
    with tf.device(device):
        a = tf.zeros((n,), tf.float32)

    @tf.function
    def step(x: tf.Tensor) -> tf.Tensor:
        _, y = tf.while_loop(lambda i, _: i < chained, lambda i, y: (i + 1, y + 1.0), (tf.constant(0), x))
        return tf.reduce_sum(y)

    def run() -> None:
        with tf.device(device):
            step(a).numpy()

    return run


def dispatch_probe(device: str) -> Callable[[], None]:
    """A ``tf.function`` on ``device`` that does almost nothing: its round trip is the fixed cost of one call."""
    with tf.device(device):
        one = tf.ones(())
    tiny = tf.function(lambda x: x + 1)

    def run() -> None:
        with tf.device(device):
            tiny(one).numpy()

    return run


def framework_env(info: StrategyInfo) -> dict[str, Any]:
    """The record's ``env`` fields this engine knows: TensorFlow and Keras versions, the accelerator's name."""
    import keras

    accelerator = None
    if info.device_kind == "gpu":
        gpus = tf.config.list_physical_devices("GPU")
        details = tf.config.experimental.get_device_details(gpus[0]) if gpus else {}
        accelerator = details.get("device_name", "GPU")
    elif info.device_kind == "tpu":
        accelerator = os.environ.get("TPU_ACCELERATOR_TYPE") or "TPU"
    return {"tensorflow": tf.__version__, "keras": keras.__version__, "accelerator": accelerator}


def math_mode(info: StrategyInfo, precision: str) -> str:
    """The arithmetic the matrix units ran: ``fp16``/``bf16`` under a mixed policy; on a TPU ``bf16`` (its matrix
    units multiply in bfloat16); on an NVIDIA GPU of compute capability 8.0 or newer ``tf32`` when TensorFlow's
    TensorFloat-32 execution is enabled (its default); else ``fp32``. MFU is measured against this mode's peak."""
    if precision != "float32":
        return {"mixed_float16": "fp16", "mixed_bfloat16": "bf16"}[precision]
    if info.device_kind == "tpu":
        return "bf16"
    if info.device_kind == "gpu" and tf.config.experimental.tensor_float_32_execution_enabled():
        gpus = tf.config.list_physical_devices("GPU")
        details = tf.config.experimental.get_device_details(gpus[0]) if gpus else {}
        if tuple(details.get("compute_capability") or (0, 0)) >= (8, 0):
            return "tf32"
    return "fp32"


def autotune_mark() -> int:
    """A mark before a point: :func:`device_pipeline_autotune` then reports the per-device pipelines built after it."""
    from bench.engines.tensorflow.strategies import OBSERVED_DEVICE_AUTOTUNE

    return len(OBSERVED_DEVICE_AUTOTUNE)


def device_pipeline_autotune(mark: int) -> str:
    """The observed autotune state of the strategy's per-device pipelines built since ``mark``."""
    from bench.engines.tensorflow.strategies import observed_device_autotune

    return observed_device_autotune(mark)


def _memory_name(device: str) -> str:
    """``GPU:0`` from ``/job:localhost/replica:0/task:0/device:GPU:0`` (what ``get_memory_info`` takes)."""
    return device.rsplit("device:", 1)[-1].lstrip("/").upper()


def arithmetic(info: StrategyInfo, precision: str) -> dict[str, str]:
    """The arithmetic per op class (``matmul``, ``conv``): TensorFlow's TensorFloat-32 switch covers both, so both
    are :func:`math_mode`'s."""
    mode = math_mode(info, precision)
    return {"matmul": mode, "conv": mode}


def set_float32_matmul(setting: str) -> None:
    """float32 matmuls and convolutions on a GPU at ``tf32`` or ``highest`` through TensorFlow's TensorFloat-32
    switch (one for both op classes); ``framework`` leaves its default (on)."""
    if setting != "framework":
        tf.config.experimental.enable_tensor_float_32_execution(setting == "tf32")


def reset_peak_memory(info: StrategyInfo) -> bool:
    """Reset the devices' peak-memory counters before a point; True when they could be (GPU/TPU), so the
    peak read afterwards is the point's own."""
    if info.device_kind == "cpu":
        return False
    try:
        for d in info.devices:
            tf.config.experimental.reset_memory_stats(_memory_name(d))
    except (ValueError, tf.errors.OpError):
        return False
    return True


def peak_memory_bytes(info: StrategyInfo) -> list[int] | None:
    """Peak bytes allocated on each of the strategy's devices (``get_memory_info``), or None where TensorFlow
    does not report it (CPU)."""
    if info.device_kind == "cpu":
        return None
    try:
        return [int(tf.config.experimental.get_memory_info(_memory_name(d))["peak"]) for d in info.devices]
    except (ValueError, tf.errors.OpError):
        return None


def is_out_of_memory(exc: BaseException) -> bool:
    """True for TensorFlow's out-of-memory error (``ResourceExhaustedError``)."""
    return isinstance(exc, tf.errors.ResourceExhaustedError)


def out_of_memory_error(message: str) -> Exception:
    """The error TensorFlow raises when a device runs out of memory (fault injection raises it)."""
    return tf.errors.ResourceExhaustedError(None, None, message)


def gather_processes(values: list[float]) -> list[list[float]]:
    """``[values]``: a TensorFlow point runs in one process (multi-process points are JAX's)."""
    return [list(values)]


def step_memory(model: Any, batch: Any, global_batch_size: int) -> dict[str, float] | None:
    """None: this framework's allocator peak is reset before every point (:func:`reset_peak_memory`), so the
    point's own peak already is the model's; only JAX needs its compiled step's analysis."""
    return None
