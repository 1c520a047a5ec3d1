"""What JAX says about its devices: the matmul peak probe, versions and accelerator, out-of-memory."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from bench.engines import StrategyInfo


def _device(name: str) -> Any:
    """The JAX device of a Keras device name (``cpu:0``, ``gpu:1``, ``tpu:3``: platform and device id). In a
    multi-process point a device of another process cannot be used here: this process's first device of that
    kind stands in for it (the matmul probe measures the host it runs on)."""
    kind, _, index = name.partition(":")
    devices = jax.devices(kind)
    named = next((d for d in devices if d.id == int(index or 0)), devices[0])
    return named if named.process_index == jax.process_index() else jax.local_devices(backend=kind)[0]


def matmul_chain(device: str, dtype: str = "float32", n: int = 1024, chained: int = 1) -> Callable[[], None]:
    """A compiled program on ``device`` (a Keras device name) that multiplies an n x n matrix into a running product
    ``chained`` times (each product needs the last: XLA can neither drop nor merge them) and waits for the result;
    calling it runs one dispatch. The matrix is scaled so the product's entries stay near 1 (no overflow, no
    denormals to slow a CPU)."""
    dev = _device(device)
    a = jax.device_put((2.0 * jax.random.uniform(jax.random.key(0), (n, n), dtype=jnp.float32) / n).astype(dtype), dev)
    step = jax.jit(lambda x: jnp.sum(jax.lax.fori_loop(0, chained, lambda _, y: y @ x, x).astype(jnp.float32)))
    return lambda: step(a).block_until_ready()


def stream_chain(device: str, n: int = 1 << 26, chained: int = 1) -> Callable[[], None]:
    """A compiled program on ``device`` that adds 1 to every element of an ``n``-element float32 vector ``chained``
    times (a loop: each pass needs the last), then sums it and waits: ``(8 chained + 4) n`` bytes read or written
    (bench.measure.probes.stream_bandwidth)."""
    a = jax.device_put(jnp.zeros((n,), jnp.float32), _device(device))
    step = jax.jit(lambda x: jnp.sum(jax.lax.fori_loop(0, chained, lambda _, y: y + 1.0, x)))
    return lambda: step(a).block_until_ready()


def dispatch_probe(device: str) -> Callable[[], None]:
    """A compiled program on ``device`` that does almost nothing: its round trip is the fixed cost of one call."""
    one = jax.device_put(jnp.ones((), jnp.float32), _device(device))
    tiny = jax.jit(lambda x: x + 1)
    return lambda: tiny(one).block_until_ready()


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def framework_env(info: StrategyInfo) -> dict[str, Any]:
    """The record's ``env`` fields this engine knows: jax, jaxlib, libtpu (where installed) and Keras
    versions, and the accelerator's name as JAX reports it (e.g. ``TPU v5 lite``, ``NVIDIA H100 80GB HBM3``)."""
    import keras

    accelerator = None
    if info.device_kind in ("gpu", "tpu"):
        accelerator = _device(info.devices[0]).device_kind
    return {"jax": jax.__version__, "jaxlib": _version("jaxlib"), "libtpu": _version("libtpu"),
            "keras": keras.__version__, "accelerator": accelerator}


def math_mode(info: StrategyInfo, precision: str) -> str:
    """The arithmetic the matrix units ran: ``fp16``/``bf16`` under a mixed policy; on a TPU ``bf16`` (XLA's
    default precision multiplies float32 in bfloat16 passes there); on an NVIDIA GPU of compute capability 8.0 or
    newer ``tf32`` unless ``jax_default_matmul_precision`` asks for full float32 (XLA's default uses
    TensorFloat-32); else ``fp32``. MFU is measured against this mode's peak."""
    if precision != "float32":
        return {"mixed_float16": "fp16", "mixed_bfloat16": "bf16"}[precision]
    asked = str(jax.config.jax_default_matmul_precision or "default").lower()
    if info.device_kind == "tpu":
        return "fp32" if asked in ("highest", "float32") else "bf16"
    if info.device_kind == "gpu" and asked not in ("highest", "float32"):
        capability = getattr(_device(info.devices[0]), "compute_capability", "0")
        if float(capability or 0) >= 8.0:
            return "tf32"
    return "fp32"


def arithmetic(info: StrategyInfo, precision: str) -> dict[str, str]:
    """The arithmetic per op class (``matmul``, ``conv``): XLA applies one default precision to both, so both are
    :func:`math_mode`'s."""
    mode = math_mode(info, precision)
    return {"matmul": mode, "conv": mode}


def set_float32_matmul(setting: str) -> None:
    """float32 matmuls and convolutions on a GPU at ``tf32`` (TensorFloat-32) or ``highest`` (full FP32) through
    ``jax_default_matmul_precision``; ``framework`` leaves XLA's default (TF32 on compute capability >= 8.0)."""
    if setting != "framework":
        jax.config.update("jax_default_matmul_precision", "tensorfloat32" if setting == "tf32" else "highest")


def reset_peak_memory(info: StrategyInfo) -> bool:
    """JAX cannot reset its peak-memory counters: always False (the peak read afterwards covers the worker
    process so far, recorded as such)."""
    return False


def peak_memory_bytes(info: StrategyInfo) -> list[int] | None:
    """``peak_bytes_in_use`` of each of the strategy's devices (``Device.memory_stats()``, GPU/TPU), or None
    where JAX does not report it (CPU)."""
    peaks = []
    for name in info.extra.get("local_devices", info.devices):  # a multi-process point: this process's own
        stats = _device(name).memory_stats()
        if not stats or "peak_bytes_in_use" not in stats:
            return None
        peaks.append(int(stats["peak_bytes_in_use"]))
    return peaks


def is_out_of_memory(exc: BaseException) -> bool:
    """True for XLA's out-of-memory error (a runtime error whose status is ``RESOURCE_EXHAUSTED``)."""
    return isinstance(exc, jax.errors.JaxRuntimeError) and "RESOURCE_EXHAUSTED" in str(exc)


def out_of_memory_error(message: str) -> Exception:
    """The error JAX raises when a device runs out of memory (fault injection raises it)."""
    return jax.errors.JaxRuntimeError(f"RESOURCE_EXHAUSTED: {message}")


def gather_processes(values: list[float]) -> list[list[float]]:
    """Every cooperating process's ``values`` (the same length in each), by process index: one all-gather across
    the processes of a multi-process point (``[values]`` in a single process). Gathered as float32 (JAX's default
    precision: 7 significant digits, exact for integers below 2**24)."""
    if jax.process_count() == 1:
        return [list(values)]
    from jax.experimental import multihost_utils

    gathered = multihost_utils.process_allgather(jnp.asarray(values, dtype=jnp.float32))  # seconds, rates, pids
    return [[float(v) for v in row] for row in gathered]
