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


def is_out_of_memory(exc: BaseException) -> bool:
    """True for TensorFlow's out-of-memory error (``ResourceExhaustedError``)."""
    return isinstance(exc, tf.errors.ResourceExhaustedError)


def out_of_memory_error(message: str) -> Exception:
    """The error TensorFlow raises when a device runs out of memory (fault injection raises it)."""
    return tf.errors.ResourceExhaustedError(None, None, message)
