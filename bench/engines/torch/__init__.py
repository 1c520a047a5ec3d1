"""The PyTorch engine: Keras 3 on PyTorch, one device (``cpu``, or one CUDA GPU), bench's NumPy input pipelines.
Importing it imports PyTorch and Keras, never TensorFlow or JAX (see :mod:`bench.engines` for the interface; the
worker process has set ``KERAS_BACKEND=torch`` and ``KERAS_TORCH_DEVICE`` before).

What Keras 3.15's PyTorch backend cannot run, bench plans as ``skipped`` before the run starts
(:func:`bench.engines.limits.unsupported`): ``steps_per_execution`` > 1 (its trainer raises), several replicas (Keras'
distribution API is JAX's; PyTorch's own DDP/FSDP are not Keras' ``fit``), TPUs (torch_xla is not a Keras backend).
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
