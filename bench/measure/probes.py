"""Measurements beside training: the devices' matmul peak (for MFU), the input pipeline's own rate
(for the input-bound diagnosis) and the memory a point used. Framework work goes through the engine."""

from __future__ import annotations

import contextlib
import math
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.engines import Engine, StrategyInfo
from bench.measure.peak_cache import BANDWIDTH
from bench.records import Memory

PEAK_DTYPES = {"float32": "float32", "mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}


@dataclass
class Peaks:
    """Matmul peak FLOP/s per precision policy, what the probe covered, how long it took (seconds), and how each
    precision's probe was sized (``probe``: :func:`matmul_peak`'s figures, kept in the record)."""

    flops_per_s: dict[str, float] = field(default_factory=dict)
    scope: str = ""
    devices: int = 1  # the devices the per-device probe was multiplied by (GPUs; logical CPUs share the host's)
    measure_s: float = 0.0
    probe: dict[str, dict[str, float]] = field(default_factory=dict)
    measured_at: str = ""  # when the probe ran (UTC, ISO 8601): the oldest of the precisions' entries
    cached: bool = False  # read from this host's cache (bench.measure.peak_cache): this worker measured nothing
    bytes_per_s: float | None = None  # the devices' memory bandwidth (:func:`stream_bandwidth`), bytes/s
    bandwidth_probe: dict[str, float] | None = None  # how the bandwidth probe was sized (n, chained, region_s)


def scaled_peaks(found: dict[str, Any], info: StrategyInfo) -> Peaks:
    """The worker's :class:`Peaks` from :func:`bench.measure.peak_cache.start_peaks`' per-device figures:
    logical CPUs share the host's cores (one device's probe is the whole host's peak); GPUs are separate devices
    (one's probe times their number), as for the bandwidth (:data:`BANDWIDTH`'s entry: logical CPUs share the
    host's memory). Empty for a TPU (datasheet peak only: no TPU-side probe)."""
    if info.device_kind == "tpu" or not found.get("peaks"):
        return Peaks()
    scale = info.num_replicas if info.device_kind == "gpu" else 1
    entries = {p: e for p, e in found["peaks"].items() if p != BANDWIDTH}
    stream = found["peaks"].get(BANDWIDTH)
    return Peaks(flops_per_s={p: scale * e["flops_per_s"] for p, e in entries.items()},
                 scope=f"{scale} x {info.devices[0]}", devices=scale, measure_s=float(found["measure_s"]),
                 probe={p: e["probe"] for p, e in entries.items()},
                 measured_at=min(e["measured_at"] for e in found["peaks"].values()), cached=bool(found["cached"]),
                 bytes_per_s=scale * stream["bytes_per_s"] if stream else None,
                 bandwidth_probe=stream["probe"] if stream else None)


# The probe sizes itself (docs/statistics.md, "The matmul peak probe"): the matrix grows until one product takes
# MIN_PRODUCT_S (or reaches the largest size), then enough products are chained inside one compiled call for the
# timed region to last REGION_S, far above the fixed cost of a call (measured beside it as ``dispatch_s``).
SIZES = (1024, 2048, 4096, 8192)  # n of the n x n matrices tried, in order (8192: 256 MiB in float32)
MIN_PRODUCT_S = 0.005  # seconds one product must take before the size stops growing
REGION_S = 0.2  # seconds each timed call should last
REPS = 3  # timed calls; the fastest counts (a peak: the least disturbed call)


def _seconds(run: Callable[[], None]) -> float:
    t = time.perf_counter()
    run()
    return time.perf_counter() - t


def matmul_peak(engine: Engine, device: str, dtype: str) -> tuple[float, dict[str, float]]:
    """FLOP/s of chained n x n matmuls in ``dtype`` on ``device``, and how the probe was sized: ``n``, ``chained``
    products per call, the fastest call's ``region_s`` and the fixed cost of one call ``dispatch_s`` (seconds).
    Every compiled call runs once untimed first (compilation, warm-up)."""
    for n in SIZES:
        one = engine.matmul_chain(device, dtype, n, 1)
        one()
        product_s = _seconds(one)
        if product_s >= MIN_PRODUCT_S:
            break
    chained = max(1, math.ceil(REGION_S / max(product_s, 1e-9)))
    run = engine.matmul_chain(device, dtype, n, chained)
    run()
    region = min(_seconds(run) for _ in range(REPS))
    tiny = engine.dispatch_probe(device)
    tiny()
    dispatch = min(_seconds(tiny) for _ in range(REPS))
    return 2 * n**3 * chained / region, {"n": n, "chained": chained, "region_s": region, "dispatch_s": dispatch}


# The bandwidth probe (docs/statistics.md, "The bandwidth probe"), sized like the matmul probe: a vector four times
# the largest last-level cache bench expects (256 MiB of float32: an H100's or H200's L2 is 50 MiB, a server CPU's
# L3 up to ~100s of MiB), passes chained inside one compiled call until it lasts REGION_S.
STREAM_N = 1 << 26  # elements (float32)


def stream_bandwidth(engine: Engine, device: str, n: int = STREAM_N) -> tuple[float, dict[str, float]]:
    """Bytes/s of chained elementwise passes over an ``n``-element float32 vector on ``device`` (each pass reads and
    writes every element once, 8 bytes an element, as STREAM counts; the final sum reads it once more), and how the
    probe was sized: ``n``, ``chained`` passes per call and the fastest call's ``region_s`` (seconds). Every compiled
    call runs once untimed first."""
    one = engine.stream_chain(device, n, 1)
    one()
    pass_s = _seconds(one)
    chained = max(1, math.ceil(REGION_S / max(pass_s, 1e-9)))
    run = engine.stream_chain(device, n, chained)
    run()
    region = min(_seconds(run) for _ in range(REPS))
    return (8 * chained + 4) * n / region, {"n": n, "chained": chained, "region_s": region}


# The input-only probe reads epochs of batches (passes) from one endless pipeline: one pass when it lasts INPUT_MIN_S,
# else passes until there are INPUT_PASSES and they last INPUT_MIN_S in all, at most INPUT_MAX_PASSES; the median
# pass counts. A pass of a small epoch lasts microseconds, and one stall of the process (a neighbour, the scheduler)
# made a single timed pass read a fast pipeline as slow (docs/reports.md).
INPUT_MIN_S = 0.25
INPUT_PASSES = 3
INPUT_MAX_PASSES = 7


def input_only_rate(ds: Iterable, steps: int, global_batch_size: int) -> float:
    """Examples/s of the input pipeline alone, no model: the median of timed passes of ``steps`` batches each
    (:data:`INPUT_MIN_S`) from ``ds``, which must be endless. A few batches are drawn first (pipeline start-up,
    function tracing), as the warm-up epoch does."""
    it = iter(ds)
    for _ in range(min(3, steps)):
        next(it)
    passes: list[float] = []
    started = time.perf_counter()
    while len(passes) < INPUT_MAX_PASSES:
        t = time.perf_counter()
        for _ in range(steps):
            next(it)
        passes.append(time.perf_counter() - t)
        if time.perf_counter() - started >= INPUT_MIN_S and (len(passes) == 1 or len(passes) >= INPUT_PASSES):
            break
    if hasattr(it, "close"):  # a generator (JAX engine): stop its threads now
        it.close()
    return steps * global_batch_size / sorted(passes)[len(passes) // 2]


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


def memory_record(rss_reset: bool, device_reset: bool, device_peaks: list[int] | None,
                  step: Memory | None = None) -> Memory:
    """The record's ``memory`` object: peak resident memory of the worker process (``peak_rss_bytes``) and
    peak device memory (``device_peak_bytes``: the largest over the strategy's devices; ``per_device``),
    each with its scope: ``point`` when its counter was reset before the point (or never raised before it: a JAX
    worker's first point), else ``process`` (the worker's peak so far: JAX cannot reset its counters); with the
    compiled step's own figures from ``step`` (the ``step_*`` fields the fit recorded, where the engine gives
    them). bench's matmul probe never runs in a worker (``probe_in_process`` False): its matrices are in no figure."""
    kept = {k: v for k, v in (step.model_dump() if step is not None else {}).items() if k.startswith("step_")}
    return Memory.model_validate({
        "peak_rss_bytes": peak_rss_bytes(), "rss_scope": "point" if rss_reset else "process",
        "device_peak_bytes": max(device_peaks) if device_peaks else None, "per_device": device_peaks,
        "device_scope": None if device_peaks is None else ("point" if device_reset else "process"),
        "probe_in_process": False, **kept,
    }, strict=False)
