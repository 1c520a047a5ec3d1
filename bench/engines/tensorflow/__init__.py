"""The TensorFlow engine: Keras 3 on TensorFlow, ``tf.distribute`` strategies, ``tf.data`` input pipelines.

Importing it imports TensorFlow; only a worker process does (see :mod:`bench.engines` for the interface).
"""

from bench.engines.tensorflow.device import (
    arithmetic,
    autotune_mark,
    device_pipeline_autotune,
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
    step_memory,
    stream_chain,
)
from bench.engines.tensorflow.options import no_autotune
from bench.engines.tensorflow.pipelines import Pipelines, make_pipelines
from bench.engines.tensorflow.placement import activate, compiler, lost, placement
from bench.engines.tensorflow.strategies import make_strategy

NAME = "tensorflow"
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
    "no_autotune",
    "out_of_memory_error",
    "peak_memory_bytes",
    "placement",
    "reset_peak_memory",
    "set_float32_matmul",
    "step_memory",
    "stream_chain",
]
