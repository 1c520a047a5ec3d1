"""Measurements beside training: the devices' matmul peak (for MFU) and the input pipeline's own rate
(for the input-bound diagnosis). Framework work goes through the engine."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from types import ModuleType

from bench.engines import StrategyInfo

PEAK_DTYPES = {"float32": "float32", "mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}


@dataclass
class Peaks:
    """Matmul peak FLOP/s per precision policy, what the probe covered, and how long it took (seconds)."""

    flops_per_s: dict[str, float] = field(default_factory=dict)
    scope: str = ""
    measure_s: float = 0.0


def measure_peaks(engine: ModuleType, info: StrategyInfo, precisions: list[str]) -> Peaks:
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
