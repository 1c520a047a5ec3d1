"""The JAX engine: Keras 3 on JAX, ``keras.distribution.DataParallel`` over JAX devices, NumPy input pipelines
(no ``tf.data``). Importing it imports JAX and Keras, never TensorFlow (see :mod:`bench.engines` for the
interface; the worker process has set ``KERAS_BACKEND=jax`` and the XLA flags before).
"""

from bench.engines.jax.device import (
    framework_env,
    is_out_of_memory,
    matmul_peak_flops,
    out_of_memory_error,
    peak_memory_bytes,
    reset_peak_memory,
)
from bench.engines.jax.pipelines import Pipelines, make_pipelines
from bench.engines.jax.strategies import make_strategy

NAME = "jax"
__all__ = ["NAME", "Pipelines", "framework_env", "is_out_of_memory", "make_pipelines", "make_strategy",
           "matmul_peak_flops", "out_of_memory_error", "peak_memory_bytes", "reset_peak_memory"]
