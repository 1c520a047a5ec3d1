"""Measurements beside training: the devices' matmul peak (for MFU), the input pipeline's own rate
(for the input-bound diagnosis) and the memory a point used. Framework work goes through the engine."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bench.engines import Engine, StrategyInfo
from bench.records import Memory

PEAK_DTYPES = {"float32": "float32", "mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}


@dataclass
class Peaks:
    """Matmul peak FLOP/s per precision policy, what the probe covered, and how long it took (seconds)."""

    flops_per_s: dict[str, float] = field(default_factory=dict)
    scope: str = ""
    measure_s: float = 0.0


def measure_peaks(engine: Engine, info: StrategyInfo, precisions: list[str]) -> Peaks:
    """Matmul peak FLOP/s of the strategy's devices, once per worker, before any point's clock starts.

    Logical CPUs share the host's cores: the probe on one of them is the whole host's peak. GPUs are
    separate devices: the probe on one, times their number, is the strategy's peak. TPUs: datasheet
    peak only (a TPU-side probe is not implemented), so nothing is measured.
    """
    if info.device_kind == "tpu":
        return Peaks()
    t = time.perf_counter()
    scale = info.num_replicas if info.device_kind == "gpu" else 1
    flops = {p: scale * engine.matmul_peak_flops(info.devices[0], PEAK_DTYPES[p]) for p in precisions}
    return Peaks(flops, f"{scale} x {info.devices[0]}", time.perf_counter() - t)


def input_only_rate(ds: Iterable, steps: int, global_batch_size: int) -> float:
    """Examples/s of the input pipeline alone: ``steps`` batches of the same pipeline, no model.

    A few batches are drawn first (pipeline start-up, function tracing), as the warm-up epoch does.
    """
    it = iter(ds)
    for _ in range(min(3, steps)):
        next(it)
    t = time.perf_counter()
    for _ in range(steps):
        next(it)
    rate = steps * global_batch_size / (time.perf_counter() - t)
    if hasattr(it, "close"):  # a generator (JAX engine): stop its threads now
        it.close()
    return rate


def reset_peak_rss() -> bool:
    """Reset this process's peak resident memory (Linux: ``5`` into ``/proc/self/clear_refs`` resets VmHWM);
    True when it was, so the peak read afterwards is the current point's own."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def peak_rss_bytes() -> int | None:
    """This process's peak resident memory in bytes: VmHWM (Linux), else ``ru_maxrss`` (the process's
    lifetime peak; KiB on Linux, bytes on macOS); None where neither exists."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def memory_record(rss_reset: bool, device_reset: bool, device_peaks: list[int] | None) -> Memory:
    """The record's ``memory`` object: peak resident memory of the worker process (``peak_rss_bytes``) and
    peak device memory (``device_peak_bytes``: the largest over the strategy's devices; ``per_device``),
    each with its scope: ``point`` when its counter was reset before the point, else ``process`` (the
    worker's peak so far: JAX cannot reset its counters)."""
    return Memory.model_validate({
        "peak_rss_bytes": peak_rss_bytes(), "rss_scope": "point" if rss_reset else "process",
        "device_peak_bytes": max(device_peaks) if device_peaks else None, "per_device": device_peaks,
        "device_scope": None if device_peaks is None else ("point" if device_reset else "process"),
    }, strict=False)
