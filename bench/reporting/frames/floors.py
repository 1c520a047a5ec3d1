"""The probes' figures a point's row carries (what the floors are read from): the matmul peak, the fixed cost of a
compiled call, the memory bandwidth, the step's analytic byte count and the extra stage's second batch."""

from __future__ import annotations

import math
from typing import Any

from bench.records import Record
from bench.reporting.stats.sample import as_float


def peak_for(peak: Any, precision: str) -> float:
    """Look up a peak FLOP/s (dict keyed by dtype, or a plain number) for a Keras precision policy."""
    if isinstance(peak, dict):
        for key in (precision, precision.removeprefix("mixed_")):
            if key in peak:
                return as_float(peak[key])
        return math.nan
    return as_float(peak)


def probe_columns(r: Record) -> dict[str, Any]:
    """The probes' figures at the point's precision: peak FLOP/s, the datasheet's, the probe's scope, the fixed
    cost of one compiled call (s), the measured bandwidth (bytes/s) and the step's byte count (bytes per example,
    weight bytes per step), the extra stage's batch and seconds per step (0, NaN: none): NaN where the record has
    none."""
    return {"peak_flops_per_s": peak_for(r.peak_flops_per_s, r.precision),
            "datasheet_peak_flops_per_s": peak_for(r.datasheet_peak_flops_per_s, r.precision),
            "peak_scope": r.peak_scope or "", "peak_devices": r.peak_devices or 1,
            "dispatch_s": peak_for({k: v.get("dispatch_s") for k, v in (r.peak_probe or {}).items()}, r.precision),
            "peak_bytes_per_s": as_float(r.peak_bytes_per_s), "bytes_per_example": as_float(r.bytes_per_example),
            "weight_bytes_per_step": as_float(r.weight_bytes_per_step),
            "second_batch": r.second_batch.global_batch_size if r.second_batch else 0,
            "second_step_s": r.second_batch.step_s if r.second_batch else math.nan}
