"""What TensorFlow says about its devices: the matmul peak probe, versions and accelerator, out-of-memory."""

from __future__ import annotations

import os
from functools import cache
from typing import Any

import tensorflow as tf

from bench.engines import StrategyInfo, matmul_flops_per_s


@cache
def matmul_peak_flops(device: str, dtype: str = "float32", n: int = 2048, reps: int = 6) -> float:
    """Best-of-``reps`` FLOP/s of an n x n matmul on ``device`` (cached per process)."""
    with tf.device(device):
        a = tf.random.uniform((n, n), dtype=tf.float32)
        a = tf.cast(a, dtype)
        matmul = tf.function(lambda x: tf.reduce_sum(tf.cast(tf.linalg.matmul(x, x), tf.float32)))
        return matmul_flops_per_s(lambda: matmul(a).numpy(), n, reps)


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


def _memory_name(device: str) -> str:
    """``GPU:0`` from ``/job:localhost/replica:0/task:0/device:GPU:0`` (what ``get_memory_info`` takes)."""
    return device.rsplit("device:", 1)[-1].lstrip("/").upper()


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
