"""What PyTorch says about its devices: the matmul peak probe, versions and accelerator, memory, out-of-memory."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from bench.engines import StrategyInfo

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def torch_device(name: str) -> torch.device:
    """The PyTorch device of a Keras device name (``cpu:0`` -> cpu, ``gpu:1`` -> cuda:1)."""
    kind, _, index = name.partition(":")
    return torch.device("cpu") if kind == "cpu" else torch.device("cuda", int(index or 0))


def matmul_chain(device: str, dtype: str = "float32", n: int = 1024, chained: int = 1) -> Callable[[], None]:
    """A call on ``device`` (a Keras device name) that multiplies an n x n matrix into a running product ``chained``
    times (each product needs the last) and waits for the result. PyTorch runs it eagerly, one kernel per product, as
    Keras' PyTorch backend runs a train step without ``jit_compile``. The matrix is scaled so the product's entries
    stay near 1 (no overflow, no denormals to slow a CPU)."""
    dev = torch_device(device)
    gen = torch.Generator(device="cpu").manual_seed(0)
    a = (2.0 * torch.rand((n, n), generator=gen) / n).to(dev, DTYPES[dtype])

    def run() -> None:
        with torch.no_grad():
            y = a
            for _ in range(chained):
                y = y @ a
            float(y.float().sum())  # waits for the device, as the other engines' probes fetch their result

    return run


def stream_chain(device: str, n: int = 1 << 26, chained: int = 1) -> Callable[[], None]:
    """A call on ``device`` that adds 1 to every element of an ``n``-element float32 vector ``chained`` times (one
    kernel a pass, eagerly, each needing the last; in place, as the other engines' compilers reuse the buffer: a
    fresh allocation per pass would time the allocator), then sums it and waits: ``(8 chained + 4) n`` bytes read or
    written (bench.measure.probes.stream_bandwidth)."""
    a = torch.zeros((n,), dtype=torch.float32, device=torch_device(device))

    def run() -> None:
        with torch.no_grad():
            for _ in range(chained):
                a.add_(1.0)
            float(a.sum())

    return run


def dispatch_probe(device: str) -> Callable[[], None]:
    """A call on ``device`` that does almost nothing: its round trip is the fixed cost of one call."""
    dev = torch_device(device)
    one = torch.ones((), device=dev)

    def run() -> None:
        (one + 1).item()

    return run


def framework_env(info: StrategyInfo) -> dict[str, Any]:
    """The record's ``env`` fields this engine knows: PyTorch's version and the CUDA it was built with, Keras'
    version, and the accelerator's name as PyTorch reports it (``torch.cuda.get_device_name``)."""
    import keras

    accelerator = None
    if info.device_kind == "gpu":
        accelerator = torch.cuda.get_device_name(torch_device(info.devices[0]))
    return {"torch": torch.__version__, "torch_cuda": torch.version.cuda, "keras": keras.__version__,
            "accelerator": accelerator}


def math_mode(info: StrategyInfo, precision: str) -> str:
    """The arithmetic the matrix units ran: ``fp16``/``bf16`` under a mixed policy; on an NVIDIA GPU of compute
    capability 8.0 or newer ``tf32`` when PyTorch lets cuDNN convolutions use TensorFloat-32
    (``torch.backends.cudnn.allow_tf32``, on by default) or matmuls (``torch.get_float32_matmul_precision()`` not
    ``highest``, which is the default: PyTorch multiplies float32 matrices in full float32 unless asked); else
    ``fp32``. MFU is measured against this mode's peak."""
    if precision != "float32":
        return {"mixed_float16": "fp16", "mixed_bfloat16": "bf16"}[precision]
    if info.device_kind == "gpu":
        major, _ = torch.cuda.get_device_capability(torch_device(info.devices[0]))
        relaxed = torch.backends.cudnn.allow_tf32 or torch.get_float32_matmul_precision() != "highest"
        if major >= 8 and relaxed:
            return "tf32"
    return "fp32"


def arithmetic(info: StrategyInfo, precision: str) -> dict[str, str]:
    """The arithmetic per op class: PyTorch sets them apart. float32 matmuls run in TF32 only when
    ``torch.get_float32_matmul_precision()`` is not ``highest`` (its default is ``highest``: full FP32), cuDNN
    convolutions when ``torch.backends.cudnn.allow_tf32`` (its default: on), on a GPU of compute capability 8.0 or
    newer; a mixed policy's fp16/bf16 for both; fp32 elsewhere."""
    if precision != "float32":
        mode = {"mixed_float16": "fp16", "mixed_bfloat16": "bf16"}[precision]
        return {"matmul": mode, "conv": mode}
    if info.device_kind != "gpu" or torch.cuda.get_device_capability(torch_device(info.devices[0]))[0] < 8:
        return {"matmul": "fp32", "conv": "fp32"}
    return {"matmul": "fp32" if torch.get_float32_matmul_precision() == "highest" else "tf32",
            "conv": "tf32" if torch.backends.cudnn.allow_tf32 else "fp32"}


def set_float32_matmul(setting: str) -> None:
    """float32 matmuls (``torch.set_float32_matmul_precision``: ``high`` allows TF32, ``highest`` is FP32) and cuDNN
    convolutions (``torch.backends.cudnn.allow_tf32``) at ``tf32`` or ``highest``; ``framework`` leaves PyTorch's
    defaults (FP32 matmuls, TF32 convolutions)."""
    if setting != "framework":
        torch.set_float32_matmul_precision("high" if setting == "tf32" else "highest")
        torch.backends.cudnn.allow_tf32 = setting == "tf32"


def reset_peak_memory(info: StrategyInfo) -> bool:
    """Reset PyTorch's CUDA peak counters of the point's GPU (True), or False on the CPU (no device counters)."""
    if info.device_kind != "gpu":
        return False
    torch.cuda.reset_peak_memory_stats(torch_device(info.devices[0]))
    return True


def peak_memory_bytes(info: StrategyInfo) -> list[int] | None:
    """``torch.cuda.max_memory_allocated`` of the point's GPU (bytes, since the last reset), or None on the CPU."""
    if info.device_kind != "gpu":
        return None
    return [int(torch.cuda.max_memory_allocated(torch_device(d))) for d in info.devices]


def is_out_of_memory(exc: BaseException) -> bool:
    """True for PyTorch's out-of-memory error (``torch.OutOfMemoryError``, CUDA's)."""
    return isinstance(exc, torch.OutOfMemoryError)


def out_of_memory_error(message: str) -> Exception:
    """The error PyTorch raises when a device runs out of memory (fault injection raises it)."""
    return torch.OutOfMemoryError(f"CUDA out of memory. {message}")


def gather_processes(values: list[float]) -> list[list[float]]:
    """One process under PyTorch (no multi-process points): ``[values]``."""
    return [list(values)]


def step_memory(model: Any, batch: Any, global_batch_size: int) -> dict[str, float] | None:
    """None: this framework's allocator peak is reset before every point (:func:`reset_peak_memory`), so the
    point's own peak already is the model's; only JAX needs its compiled step's analysis."""
    return None
