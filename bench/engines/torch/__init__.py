"""The PyTorch engine: Keras 3 on PyTorch, one device, bench's NumPy input pipelines; importing it imports PyTorch and
Keras, never TensorFlow or JAX. What it cannot run is planned ``skipped`` (:func:`bench.engines.limits.unsupported`;
docs/strategies.md, *Backends*).
"""

from bench.engines.host_pipelines import autotune_mark, device_pipeline_autotune, make_pipelines
from bench.engines.torch.device import (
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
    step_memory,
    stream_chain,
)
from bench.engines.torch.strategies import activate, compiler, lost, make_strategy, placement

NAME = "torch"
__all__ = [
    "NAME",
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
