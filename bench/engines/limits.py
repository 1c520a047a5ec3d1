"""What a Keras backend cannot run at all, known from a point's settings alone (no framework imported): the plan
records such points ``skipped`` before the run (:mod:`bench.runner.unsupported`), and the doctor answers a backend
without a TPU path with it."""

from __future__ import annotations

from bench.config import logical_cpus

TORCH_STRATEGIES = ("cpu", "gpu", "auto")


def unsupported(backend: str, strategy: str, steps_per_execution: int, processes: int = 1,
                jit_compile: bool | str = False) -> str:
    """Why ``backend`` cannot run a point of these settings ('' when it can): what the plan records as ``skipped``
    before the run starts, so a sweep over every backend and compiler runs what each can. Keras 3.15's PyTorch
    backend: its trainer raises for ``steps_per_execution`` > 1, it trains on one device (Keras' distribution API is
    JAX's; PyTorch's DDP and FSDP are not Keras' ``fit``), and it has no TPU path (torch_xla is not a Keras backend).
    TensorFlow: XLA (``jit_compile`` True) fails under MirroredStrategy (``cpu_xN``, ``gpus``)."""
    if backend == "tensorflow" and jit_compile is True and (strategy == "gpus" or logical_cpus(strategy)):
        return (f"jit_compile=true under TensorFlow's MirroredStrategy ({strategy}) fails: 'Trying to access resource "
                "... located in device CPU:1 from device CPU:0' (keras-team/keras#19005); XLA runs with cpu, gpu, "
                "*_onedevice, tpu or backends=[jax]")
    if backend != "torch":
        return ""
    if strategy not in TORCH_STRATEGIES:
        what = ("a TPU (PyTorch reaches TPUs through torch_xla, which is not a Keras backend)" if strategy == "tpu"
                else "several replicas or a tf.distribute wrapper (Keras' PyTorch backend trains on one device: "
                     "keras.distribution is JAX's)")
        return f"strategy {strategy} needs {what}; under backends=torch bench runs cpu, gpu and auto"
    if steps_per_execution > 1:
        return (f"steps_per_execution={steps_per_execution}: Keras' PyTorch backend runs one step per call (its "
                "trainer raises 'steps_per_execution must be 1 with the PyTorch backend'); beside a requested 1 it "
                "would repeat that point (a sweep without 1 runs it as 1)")
    if processes > 1:
        return "one process: Keras' PyTorch backend has no multi-process data parallelism"
    return ""
