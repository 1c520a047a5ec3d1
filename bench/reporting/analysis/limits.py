"""What limits a configuration's speed: input-, compute-, memory-, overhead-, kernel- or host-bound, mixed or
undetermined, from measurements alone, with the numbers behind the label (:func:`fixed_share`, :func:`classify`).
Pure functions of numbers: no sentence. The lines, the rules (the first that fires) and why each sits where it does:
docs/reports.md, *What limits it*; false labels: docs/statistics.md, *What limits it: false labels*.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from bench.reporting.analysis.levers import LEVER_COLUMNS, lever_facts
from bench.reporting.frames.keys import CONFIG_KEY, plain_rows
from bench.reporting.frames.summary import INPUT_BOUND_FRACTION
from bench.reporting.stats.trend import EPOCH_CV

INPUT_SHARE = INPUT_BOUND_FRACTION  # training at >= 80 % of the input pipeline's own rate: input-bound (one line)
ROOF_SHARE = 0.4  # a floor explaining 40 % of the step or more: near that roof (docs/reports.md: why 40 %)
HOST_SHARE = 0.02  # the device floors explaining under 2 % of the step: the time is not the device's (why: same)
FIXED_SHARE = 0.5  # a step at least half fixed cost (doubling the batch adds <= 50 %): overhead, unless ...
DEVICE_SHARE = 0.25  # ... the device floors explain a quarter of the step or more (then: mixed)
NEIGHBOUR_SHARE = 0.25  # other processes using a quarter of the machine's CPUs during the fit: floors measured
# on a quiet machine do not hold (docs/statistics.md: quiet runs stay under ~5 %, a one-core spinner on 2 cores ~50 %)
AGREE = 0.8  # with 3 processes or more, the share of them whose own label is the pooled one (else: undetermined)
# Between-process spread of a step time where a configuration has fewer than 3 processes: the coefficient of
# variation of steady epoch time across five processes on the 2-core CPU box (docs/statistics.md: 16 %)
PROCESS_CV = 0.16
# The spread of a step time within one process (the same docs/statistics.md measurement: five repeats inside one
# process, 5.5 %): what an extra stage's ratio to its own point's step carries, the process's speed cancelling out
IN_PROCESS_CV = EPOCH_CV  # 0.055
Z95 = 1.959964

INPUT, OVERHEAD, COMPUTE, MEMORY, KERNEL, HOST, MIXED, UNDETERMINED = (
    "input-bound", "overhead-bound", "compute-bound", "memory-bound", "kernel-bound", "host-bound", "mixed",
    "undetermined")
SAID_LIMITS = (OVERHEAD, COMPUTE, MEMORY, KERNEL, HOST, MIXED)  # the labels a results table flags (input: its own)
# Why a configuration is undetermined (codes; render words them)
ONE_BATCH, STRADDLES, NO_FLOORS, PROCESSES_DIFFER, NEIGHBOUR, PARTIAL_COUNT, MISSING_FLOOR = (
    "one_batch", "straddles", "no_floors", "processes_differ", "neighbour", "partial_count", "missing_floor")
# What would make a configuration with each label faster is render's to say (bench.reporting.render.levers)


@dataclass(frozen=True)
class Evidence:
    """What a configuration's label is read from (seconds per training step, examples, shares as fractions).

    ``step_s``: the steady step at ``batch``; ``step2_s`` at the second batch ``batch2`` (0 / NaN: none);
    ``log_sd``: the standard deviation of log(step2_s / step_s) between processes (NaN: take :data:`PROCESS_CV`);
    ``input_share``: training examples/s over the input pipeline's own (NaN: not measured); ``compute_floor_s`` and
    ``memory_floor_s``: the step's FLOPs over the measured peak, its bytes over a measured bandwidth (NaN: unknown);
    ``call_s``: the fixed cost of one compiled call over the steps it runs (NaN: unknown); ``others_busy``: the
    share of the machine's CPUs other processes used during the fit (NaN: not recorded); ``uncounted``: layers with
    weights the FLOP and byte counts do not see into (their floors are then lower bounds only)."""

    batch: int
    step_s: float
    batch2: int = 0
    step2_s: float = math.nan
    log_sd: float = math.nan
    input_share: float = math.nan
    compute_floor_s: float = math.nan
    memory_floor_s: float = math.nan
    call_s: float = math.nan
    others_busy: float = math.nan
    uncounted: tuple[str, ...] = ()

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
    """A configuration's label, the evidence read for it (``fixed``: φ and its interval, NaN without a second
    batch) and, for undetermined, why (``reason``: :data:`ONE_BATCH`, :data:`STRADDLES`, :data:`NO_FLOORS`,
    :data:`MISSING_FLOOR`, :data:`PROCESSES_DIFFER`, :data:`NEIGHBOUR` or :data:`PARTIAL_COUNT`)."""

    label: str
    evidence: Evidence
    fixed: float = math.nan
    fixed_low: float = math.nan
    fixed_high: float = math.nan
    reason: str = ""


def _roof(ev: Evidence) -> str:
    """The roof nearer the step: memory when its floor is the larger, else compute."""
    c, m = ev.compute_floor_s, ev.memory_floor_s
    return MEMORY if math.isfinite(m) and not (math.isfinite(c) and c >= m) else COMPUTE


def classify(ev: Evidence) -> Limit:
    """The label of one configuration (module docstring's rules, the first that fires)."""
    if math.isfinite(ev.input_share) and ev.input_share >= INPUT_SHARE:
        return Limit(INPUT, ev)
    limit = _classify(ev)
    if limit.label in (COMPUTE, MEMORY, KERNEL, MIXED) and ev.others_busy >= NEIGHBOUR_SHARE:  # NaN: never
        return replace(limit, label=UNDETERMINED, reason=NEIGHBOUR)  # floors read against a quiet machine's roofs
    if limit.label in (KERNEL, HOST) and ev.uncounted:  # "far from the roofs" needs whole floors, not lower bounds
        return replace(limit, label=UNDETERMINED, reason=PARTIAL_COUNT)
    return limit


def _classify(ev: Evidence) -> Limit:
    """:func:`classify` before the neighbour's check."""
    two = bool(ev.batch2 and ev.batch2 != ev.batch and ev.step_s > 0 and ev.step2_s > 0)
    phi, (low, high) = (fixed_share(ev.batch, ev.step_s, ev.batch2, ev.step2_s), fixed_share_interval(ev)) if two \
        else (math.nan, (math.nan, math.nan))
    device = ev.device_share
    # "far from the roofs" needs both floors: a step far from the one known may sit on the one missing
    whole = math.isfinite(ev.compute_floor_s) and math.isfinite(ev.memory_floor_s)
    near, far = math.isfinite(device) and device >= ROOF_SHARE, math.isfinite(device) and device < HOST_SHARE
    missing = far and not whole  # host-bound on the floors it has, but one is missing: it decides nothing
    if near:
        return Limit(_roof(ev), ev, phi, low, high)
    if not two:
        return Limit(HOST, ev) if far and whole else Limit(UNDETERMINED, ev,
                                                           reason=MISSING_FLOOR if missing else ONE_BATCH)
    if high < FIXED_SHARE:  # the step surely grows with the batch, and no roof is near
        lacking = "" if whole else MISSING_FLOOR if math.isfinite(device) else NO_FLOORS
        return Limit(KERNEL if whole else UNDETERMINED, ev, phi, low, high, lacking)
    if far and whole:  # host-bound whatever the fixed share says above 50 %: one rule between host and overhead
        return Limit(HOST, ev, phi, low, high)
    if low >= FIXED_SHARE:
        return Limit(MIXED if math.isfinite(device) and device >= DEVICE_SHARE else OVERHEAD, ev, phi, low, high)
    return Limit(UNDETERMINED, ev, phi, low, high, MISSING_FLOOR if missing else STRADDLES)


FROM_SWEEP, FROM_STAGE = "sweep", "extra_stage"  # where a label's second batch came from (LIMIT_COLUMNS' batch2_from)
# The partner of a configuration: the same workload, data set, strategy (backend included), spe and precision on the
# same host, at another global batch
PARTNER_KEY = [k for k in CONFIG_KEY if k != "global_batch_size"]
LIMIT_COLUMNS = [*CONFIG_KEY, "section", "strategy_id", "limit", "reason", "n_processes",
                 "process_labels", "fixed_share", "fixed_low", "fixed_high", "batch2", "batch2_from", "step_ms",
                 "step2_ms", "input_share", "compute_floor_ms", "memory_floor_ms", "device_share", "call_ms",
                 "others_busy", "uncounted", *(c for c in LEVER_COLUMNS if c not in CONFIG_KEY)]


def log_step_se(rates: Sequence[float], rates2: Sequence[float]) -> float:
    """Standard error of log(step2 / step) from the two configurations' per-process rates (examples/s): their
    sample spreads when both have 3 processes or more, else :data:`PROCESS_CV` for each process."""
    n1, n2 = len(rates), len(rates2)
    if n1 >= 3 and n2 >= 3:
        return math.sqrt(float(np.var(np.log(rates), ddof=1)) / n1 + float(np.var(np.log(rates2), ddof=1)) / n2)
    sd = math.log1p(PROCESS_CV)
    return math.sqrt(sd**2 / max(n1, 1) + sd**2 / max(n2, 1))


def step_bytes(row: Mapping[str, Any] | pd.Series, batch: float, replicas: float) -> float:
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
              "call_s": row.get("dispatch_s", math.nan) / int(row["steps_per_execution"]),
              "others_busy": row.get("others_busy_median", math.nan),
              "uncounted": tuple(row.get("flops_uncounted") or ())}
    if partner is None or not partner["examples_per_s"] > 0:
        size, step2 = int(row.get("second_batch") or 0), row.get("second_step_s", math.nan)
        if not (size and step2 > 0):
            return Evidence(batch, step, **common)
        pairs = max(1, len(row["second_rates"]))  # each process timed both: its own speed cancels in the ratio
        return Evidence(batch, step, size, step2, math.sqrt(2 / pairs) * math.log1p(IN_PROCESS_CV), **common)
    batch2 = int(partner["global_batch_size"])
    return Evidence(batch, step, batch2, batch2 / partner["examples_per_s"],
                    log_step_se(row["repeat_rates"], partner["repeat_rates"]), **common)


def process_evidence(row: Mapping[str, Any], partner: Mapping[str, Any] | None, pooled: Evidence
                     ) -> list[Evidence]:
    """Each process's own :class:`Evidence`, one process a side (its step at each batch, the floors and input share
    pooled), in the processes' order; [] with fewer than 3 processes, where no share of them can reach
    :data:`AGREE` but all."""
    rates, batch = row["repeat_rates"], pooled.batch
    if pooled.batch2 and partner is not None:
        rates2, sd = partner["repeat_rates"], math.nan  # NaN: PROCESS_CV for each side
    elif pooled.batch2:
        rates2, sd = row["second_rates"], math.sqrt(2) * math.log1p(IN_PROCESS_CV)  # each process timed both
    else:
        rates2, sd = rates, math.nan
    n = min(len(rates), len(rates2))
    if n < 3:
        return []
    busy = row.get("others_busy") or ()
    busy = busy[:n] if len(busy) >= n else (pooled.others_busy,) * n  # each process's own where all recorded one
    return [replace(pooled, step_s=batch / r, step2_s=pooled.batch2 / r2 if pooled.batch2 else math.nan, log_sd=sd,
                    others_busy=b) for r, r2, b in zip(rates[:n], rates2[:n], busy, strict=True)]


def agrees(own: str, pooled: str) -> bool:
    """A process's own label agrees with the pooled one: the same, or host-bound beside overhead-bound (the same
    verdict, the time is the host's, where one process a side cannot tell fixed from per-example cost)."""
    return own == pooled or {own, pooled} == {HOST, OVERHEAD}


def label_of(row: Mapping[str, Any], partner: Mapping[str, Any] | None) -> tuple[Limit, int, tuple[str, ...]]:
    """(the pooled label, undetermined with :data:`PROCESSES_DIFFER` when under :data:`AGREE` of the processes'
    own labels agree with it (:func:`agrees`); the processes a side it rests on; each process's own label, () under
    3 processes)."""
    limit = classify(evidence_of(row, partner))
    ev = limit.evidence
    own = tuple(classify(e).label for e in process_evidence(row, partner, ev))
    if ev.batch2 and partner is not None:
        n = min(len(row["repeat_rates"]), len(partner["repeat_rates"]))
    else:
        n = len(row["second_rates"]) if ev.batch2 else len(row["repeat_rates"])
    if own and limit.label != UNDETERMINED and sum(agrees(label, limit.label) for label in own) < AGREE * len(own):
        limit = replace(limit, label=UNDETERMINED, reason=PROCESSES_DIFFER)
    return limit, max(1, n), own


def limits_frame(summary: pd.DataFrame) -> pd.DataFrame:
    """One row per finished configuration: its label and evidence (:data:`LIMIT_COLUMNS`; milliseconds per step).
    The partner batch is the one farthest from the row's, in ratio, of the same configuration on the same host (the
    widest span separates fixed from per-example cost best)."""
    ok = summary[(summary["status"] == "ok") & (summary["examples_per_s"] > 0)] if len(summary) else summary
    ok = ok.reset_index(drop=True)  # the index: row positions in ``plain``
    plain = plain_rows(ok)  # once: a mask per row cost ~1 s over 1,000 records, a Series a row 0.1 s
    levers = lever_facts(ok, plain)
    rows = []
    for _, g in ok.groupby(PARTNER_KEY, sort=True, dropna=False):
        for i in g.index:
            row, b = plain[i], plain[i]["global_batch_size"]
            others = [plain[j] for j in g.index if plain[j]["global_batch_size"] != b]
            partner = max(others, key=lambda o: abs(math.log(o["global_batch_size"] / b))) if others else None
            limit, n, own = label_of(row, partner)
            ev = limit.evidence
            rows.append({**{k: row[k] for k in (*PARTNER_KEY, "section", "strategy_id")}, "global_batch_size": ev.batch,
                         "limit": limit.label,
                         "reason": limit.reason, "n_processes": n, "process_labels": own,
                         "fixed_share": limit.fixed, "fixed_low": limit.fixed_low, "fixed_high": limit.fixed_high,
                         "batch2": ev.batch2, "batch2_from": "" if not ev.batch2 else FROM_SWEEP if partner is not None
                         else FROM_STAGE, "step_ms": 1e3 * ev.step_s, "step2_ms": 1e3 * ev.step2_s,
                         "input_share": ev.input_share, "compute_floor_ms": 1e3 * ev.compute_floor_s,
                         "memory_floor_ms": 1e3 * ev.memory_floor_s,
                         "device_share": ev.device_share, "call_ms": 1e3 * ev.call_s,
                         "others_busy": ev.others_busy, "uncounted": ev.uncounted, **levers[i]})
    return pd.DataFrame(rows, columns=LIMIT_COLUMNS)
