"""The JAX engine: Keras 3 on JAX, ``keras.distribution.DataParallel`` over JAX devices, NumPy input pipelines
(no ``tf.data``). Importing it imports JAX and Keras, never TensorFlow (see :mod:`bench.engines` for the
interface; the worker process has set ``KERAS_BACKEND=jax`` and the XLA flags before).
"""

from bench.engines.host_pipelines import autotune_mark, device_pipeline_autotune
from bench.engines.jax.device import (
    arithmetic,
    dispatch_probe,
    framework_env,
    gather_processes,
    is_out_of_memory,
    math_mode,
    matmul_chain,
    out_of_memory_error,
    peak_memory_bytes,
    reset_peak_memory,
    set_float32_matmul,
    stream_chain,
)
from bench.engines.jax.memory import step_memory
from bench.engines.jax.pipelines import Pipelines, make_pipelines
from bench.engines.jax.placement import activate, compiler, lost, placement
from bench.engines.jax.strategies import make_strategy

NAME = "jax"
__all__ = [
    "NAME",
    "Pipelines",
    "activate",
    "arithmetic",
    "autotune_mark",
    "compiler",
    "device_pipeline_autotune",
    "dispatch_probe",
    "framework_env",
    "gather_processes",
    "is_out_of_memory",
    "lost",
    "make_pipelines",
    "make_strategy",
    "math_mode",
    "matmul_chain",
    "out_of_memory_error",
    "peak_memory_bytes",
    "placement",
    "reset_peak_memory",
    "set_float32_matmul",
    "step_memory",
    "stream_chain",
]
