"""What limits a configuration's speed (issue 52): input-bound, overhead-bound, compute-bound, memory-bound, mixed or
undetermined, from measurements alone, with the numbers behind the label and the lever that would help.

The method (docs/reports.md, *What limits it*; Horace He's compute / memory / overhead regimes, the roofline of
Williams, Waterman and Patterson): a step of ``t(B)`` seconds at batch ``B`` is split into a fixed
part and a part that grows with the batch from a second batch ``B2`` of the same configuration (the sweep's):
``t = a + b·B`` gives the **fixed share** ``φ = a / t(B)`` (doubling the batch adds 10 % to the step: φ = 0.9). The
**input share** ``ι`` is the training rate over the input pipeline's own; the **compute floor** ``t_c`` is the step's
training FLOPs over the measured matmul peak at the arithmetic that ran; the **memory floor** ``t_m`` the step's bytes
(:mod:`bench.measure.traffic`'s count) over the measured bandwidth (:func:`bench.measure.probes.stream_bandwidth`);
the **device share** ``δ = max(t_c, t_m) / t(B)``.

Rules, the first that fires (:func:`classify`): input-bound when ``ι ≥ 0.8`` (the report's existing line); with a
second batch, overhead-bound when ``φ ≥ 0.5`` and ``δ < 0.25`` (mixed when the floors explain more); else the step
grows with the batch: compute-bound when ``t_c ≥ 2 t_m``, memory-bound when ``t_m ≥ 2 t_c``, mixed between, and
undetermined without a memory floor unless the compute floor alone explains half the step. **Undetermined** too when
there is no second batch, or when ``φ``'s interval (the step times' spread between processes) straddles 0.5: a label
is never forced. Pure functions of numbers: no frame, no text for a reader beyond the evidence.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bench.reporting.frames.keys import plain_rows
from bench.reporting.frames.summary import INPUT_BOUND_FRACTION
from bench.reporting.stats.trend import EPOCH_CV

INPUT_SHARE = INPUT_BOUND_FRACTION  # training at >= 80 % of the input pipeline's own rate: input-bound (one line)
FIXED_SHARE = 0.5  # a step at least half fixed cost (doubling the batch adds <= 50 %): overhead, unless ...
DEVICE_SHARE = 0.25  # ... the device floors explain a quarter of the step or more (then: mixed)
NEAR_ROOF = 0.5  # the compute floor alone explains half the step: compute-bound without a memory floor
ROOF_MARGIN = 2.0  # compute- or memory-bound only when its floor is twice the other's
# Between-process spread of a step time where a configuration has fewer than 3 processes: the coefficient of
# variation of steady epoch time across five processes on the 2-core CPU box (docs/statistics.md: 16 %)
PROCESS_CV = 0.16
# The spread of a step time within one process (the same docs/statistics.md measurement: five repeats inside one
# process, 5.5 %): what an extra stage's ratio to its own point's step carries, the process's speed cancelling out
IN_PROCESS_CV = EPOCH_CV  # 0.055
Z95 = 1.959964

INPUT, OVERHEAD, COMPUTE, MEMORY, MIXED, UNDETERMINED = (
    "input-bound", "overhead-bound", "compute-bound", "memory-bound", "mixed", "undetermined")
SAID_LIMITS = (OVERHEAD, COMPUTE, MEMORY, MIXED)  # the labels a results table flags (input-bound: its own flag)
# What would make a configuration with each label faster is render's to say (bench.reporting.render.words.LEVERS)


@dataclass(frozen=True)
class Evidence:
    """What a configuration's label is read from (seconds per training step, examples, shares as fractions).

    ``step_s``: the steady step at ``batch``; ``step2_s`` at the second batch ``batch2`` (0 / NaN: none);
    ``log_sd``: the standard deviation of log(step2_s / step_s) between processes (NaN: take :data:`PROCESS_CV`);
    ``input_share``: training examples/s over the input pipeline's own (NaN: not measured); ``compute_floor_s`` and
    ``memory_floor_s``: the step's FLOPs over the measured peak, its bytes over a measured bandwidth (NaN: unknown);
    ``call_s``: the fixed cost of one compiled call over the steps it runs (NaN: unknown)."""

    batch: int
    step_s: float
    batch2: int = 0
    step2_s: float = math.nan
    log_sd: float = math.nan
    input_share: float = math.nan
    compute_floor_s: float = math.nan
    memory_floor_s: float = math.nan
    call_s: float = math.nan

    @property
    def device_share(self) -> float:
        """max(compute floor, memory floor) over the step (NaN when neither is known)."""
        floors = [f for f in (self.compute_floor_s, self.memory_floor_s) if math.isfinite(f)]
        return max(floors) / self.step_s if floors and self.step_s > 0 else math.nan


def fixed_share(batch: int, step_s: float, batch2: int, step2_s: float) -> float:
    """φ = a / t(B) of the line ``t = a + b·B`` through (``batch``, ``step_s``) and (``batch2``, ``step2_s``): the
    share of the step at ``batch`` that does not grow with the batch (1: flat, 0: proportional; below 0 when the step
    grows faster than the batch, above 1 when it shrinks)."""
    slope = (step2_s - step_s) / (batch2 - batch)
    return (step_s - slope * batch) / step_s


def fixed_share_interval(ev: Evidence) -> tuple[float, float]:
    """95 % interval of φ from the spread of log(step2 / step) between processes (``ev.log_sd``, else
    :data:`PROCESS_CV` for each of the two step times)."""
    sd = ev.log_sd if math.isfinite(ev.log_sd) else math.sqrt(2) * math.log1p(PROCESS_CV)
    ratio = ev.step2_s / ev.step_s
    ends = [fixed_share(ev.batch, ev.step_s, ev.batch2, ev.step_s * ratio * math.exp(k * Z95 * sd)) for k in (-1, 1)]
    return min(ends), max(ends)


@dataclass(frozen=True)
class Limit:
    """A configuration's label and the evidence read for it (``fixed``: φ and its interval, NaN without a second
    batch)."""

    label: str
    evidence: Evidence
    fixed: float = math.nan
    fixed_low: float = math.nan
    fixed_high: float = math.nan


def classify(ev: Evidence) -> Limit:
    """The label of one configuration (module docstring's rules, the first that fires)."""
    if math.isfinite(ev.input_share) and ev.input_share >= INPUT_SHARE:
        return Limit(INPUT, ev)
    if not (ev.batch2 and ev.batch2 != ev.batch and ev.step_s > 0 and ev.step2_s > 0):
        return Limit(UNDETERMINED, ev)
    phi = fixed_share(ev.batch, ev.step_s, ev.batch2, ev.step2_s)
    low, high = fixed_share_interval(ev)
    device = ev.device_share
    if low < FIXED_SHARE <= high:  # within the noise of the two step times
        return Limit(UNDETERMINED, ev, phi, low, high)
    if phi >= FIXED_SHARE:
        label = MIXED if math.isfinite(device) and device >= DEVICE_SHARE else OVERHEAD
        return Limit(label, ev, phi, low, high)
    c, m = ev.compute_floor_s, ev.memory_floor_s
    if math.isfinite(c) and math.isfinite(m):
        label = COMPUTE if c >= ROOF_MARGIN * m else MEMORY if m >= ROOF_MARGIN * c else MIXED
    else:
        label = COMPUTE if math.isfinite(c) and c >= NEAR_ROOF * ev.step_s else UNDETERMINED
    return Limit(label, ev, phi, low, high)


# The partner of a configuration: the same workload, data set, strategy (backend included), spe and precision on the
# same host, at another global batch
PARTNER_KEY = ["workload", "dataset", "strategy", "steps_per_execution", "precision", "host"]
LIMIT_COLUMNS = [*PARTNER_KEY[:3], "global_batch_size", *PARTNER_KEY[3:5], "limit", "fixed_share", "fixed_low",
                 "fixed_high", "batch2", "batch2_from", "step_ms", "step2_ms", "input_share", "compute_floor_ms",
                 "memory_floor_ms", "device_share", "call_ms"]


def log_step_se(rates: Sequence[float], rates2: Sequence[float]) -> float:
    """Standard error of log(step2 / step) from the two configurations' per-process rates (examples/s): their
    sample spreads when both have 3 processes or more, else :data:`PROCESS_CV` for each process."""
    n1, n2 = len(rates), len(rates2)
    if n1 >= 3 and n2 >= 3:
        return math.sqrt(float(np.var(np.log(rates), ddof=1)) / n1 + float(np.var(np.log(rates2), ddof=1)) / n2)
    sd = math.log1p(PROCESS_CV)
    return math.sqrt(sd**2 / max(n1, 1) + sd**2 / max(n2, 1))


def step_bytes(row: Mapping[str, Any], batch: float, replicas: float) -> float:
    """Bytes one step moves: ``batch`` examples' activation bytes plus ``replicas`` times the weight bytes (each
    replica holds and updates all weights); NaN without a byte count."""
    per_example, weights = row.get("bytes_per_example", math.nan), row.get("weight_bytes_per_step", math.nan)
    return float(batch * per_example + replicas * weights)


def memory_floor_s(row: Mapping[str, Any], batch: int) -> float:
    """Seconds the step's bytes (:func:`step_bytes`, the row's replicas) take at the devices' measured bandwidth
    (all replicas'; logical CPUs share the host's); NaN without a bandwidth or a byte count."""
    bandwidth = row.get("peak_bytes_per_s", math.nan)
    replicas = row.get("num_replicas", 1)
    replicas = int(replicas) if isinstance(replicas, int | float) and replicas == replicas and replicas > 0 else 1
    moved = step_bytes(row, batch, replicas)
    return moved / bandwidth if bandwidth > 0 and math.isfinite(moved) else math.nan


def evidence_of(row: Mapping[str, Any], partner: Mapping[str, Any] | None) -> Evidence:
    """A summary row's :class:`Evidence` (seconds per training step), with ``partner``, the same configuration at
    another batch, when there is one; else the row's extra stage at a second batch (``second_batch``) when it ran."""
    batch = int(row["global_batch_size"])
    step = batch / row["examples_per_s"] if row["examples_per_s"] > 0 else math.nan
    peak, flops = row.get("peak_flops_per_s", math.nan), row.get("flops_per_example", math.nan)
    common = {"input_share": row["examples_per_s"] / row["input_examples_per_s"]
              if row.get("input_examples_per_s", 0) > 0 else math.nan,
              "compute_floor_s": flops * batch / peak if peak > 0 else math.nan,
              "memory_floor_s": memory_floor_s(row, batch),
              "call_s": row.get("dispatch_s", math.nan) / int(row["steps_per_execution"])}
    if partner is None or not partner["examples_per_s"] > 0:
        size, step2 = int(row.get("second_batch") or 0), row.get("second_step_s", math.nan)
        if not (size and step2 > 0):
            return Evidence(batch, step, **common)
        pairs = max(1, len(row["second_rates"]))  # each process timed both: its own speed cancels in the ratio
        return Evidence(batch, step, size, step2, math.sqrt(2 / pairs) * math.log1p(IN_PROCESS_CV), **common)
    batch2 = int(partner["global_batch_size"])
    return Evidence(batch, step, batch2, batch2 / partner["examples_per_s"],
                    log_step_se(row["repeat_rates"], partner["repeat_rates"]), **common)


def limits_frame(summary: pd.DataFrame) -> pd.DataFrame:
    """One row per finished configuration: its label and evidence (:data:`LIMIT_COLUMNS`; milliseconds per step).
    The partner batch is the one farthest from the row's, in ratio, of the same configuration on the same host (the
    widest span separates fixed from per-example cost best)."""
    ok = summary[(summary["status"] == "ok") & (summary["examples_per_s"] > 0)] if len(summary) else summary
    ok = ok.reset_index(drop=True)  # the index: row positions in ``plain``
    plain = plain_rows(ok)  # once: a mask per row cost ~1 s over 1,000 records, a Series a row 0.1 s
    rows = []
    for _, g in ok.groupby(PARTNER_KEY, sort=True, dropna=False):
        members = [plain[i] for i in g.index]
        for row in members:
            b = row["global_batch_size"]
            others = [o for o in members if o["global_batch_size"] != b]
            partner = max(others, key=lambda o: abs(math.log(o["global_batch_size"] / b))) if others else None
            limit = classify(evidence_of(row, partner))
            ev = limit.evidence
            rows.append({**{k: row[k] for k in PARTNER_KEY}, "global_batch_size": ev.batch, "limit": limit.label,
                         "fixed_share": limit.fixed, "fixed_low": limit.fixed_low, "fixed_high": limit.fixed_high,
                         "batch2": ev.batch2, "batch2_from": "" if not ev.batch2 else "sweep" if partner is not None
                         else "extra stage", "step_ms": 1e3 * ev.step_s, "step2_ms": 1e3 * ev.step2_s,
                         "input_share": ev.input_share, "compute_floor_ms": 1e3 * ev.compute_floor_s,
                         "memory_floor_ms": 1e3 * ev.memory_floor_s,
                         "device_share": ev.device_share, "call_ms": 1e3 * ev.call_s})
    return pd.DataFrame(rows, columns=LIMIT_COLUMNS)
