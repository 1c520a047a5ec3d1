"""Predicted steady training time an epoch on the GPUs a workload's records did not run on, with an interval from
the method's measured error: a step's fixed part (its intercept against batch size) fitted on the workload's own
configurations on the GPU that ran and carried over; the part that grows with the batch scaled by the datasheets in
proportion to the workload's own FLOP and byte counts (:mod:`bench.reporting.analysis.transfer`). Where nothing
validates a case, a reason code and no number. Method and its error: docs/predict.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bench.measure.datasheets import CHIPS, Chip, chip_of
from bench.reporting.analysis.cost import BOUND_DEVICES
from bench.reporting.analysis.limits import step_bytes
from bench.reporting.analysis.reference import Reference, backend_key, load_reference, step_s
from bench.reporting.analysis.transfer import Device, StepModel, device, fit_steps, steps_left_out
from bench.reporting.analysis.validate import TIME_MODEL
from bench.reporting.frames.keys import plain_rows, rows_of, sections
from bench.reporting.load.prices import Price
from bench.reporting.stats.sample import as_float

# why a device has no predicted figure (or that it has one)
MEASURED, PREDICTED = "measured", "predicted"
REFERENCED = "predicted_from_reference"  # no GPU record: host part and efficiency from the shipped reference records
NO_ACCELERATOR = "no_accelerator_record"  # nothing of this workload learned on a GPU: no per-step cost to carry over
TOO_FEW = "too_few_configurations"  # under MIN_CONFIGURATIONS on that GPU: the step's fixed part not validated
TPU = "tpu_not_validated"  # no TPU record validates a prediction for a TPU
NO_DATASHEET = "no_datasheet"  # the GPU that ran, or the one predicted, lacks a peak or a bandwidth in bench's table
NO_COUNT = "no_count"  # the records carry no FLOP or no byte count: the batch's part cannot be split
MIN_CONFIGURATIONS = 4  # a step model's three coefficients, and one left out to measure its error
STEP_KEYS = ("backend", "accelerator", "precision", "compiler_mark")  # what one step model covers


@dataclass(frozen=True)
class DevicePrediction:
    """One device for one workload: ``basis`` (:data:`MEASURED`, :data:`PREDICTED` or why not). Predicted: steady
    training seconds an epoch with its interval (s), examples/s, the step's fixed part as a share of the step, what
    would bound it there (``host``: the fixed part is half the step or more, else ``compute`` or ``memory`` by the
    counts), the interval's error (a fraction: the larger of the fixed part's leave-one-out and the scaling's 90th
    percentile), USD an epoch and to the target (NaN without a price), and the measured configuration it scales
    from (``source``) with the number of configurations its fixed part was fitted on."""

    device: str
    kind: str
    model: str
    basis: str
    train_s: float = math.nan
    low_s: float = math.nan
    high_s: float = math.nan
    examples_per_s: float = math.nan
    fixed_share: float = math.nan
    limit: str = ""
    error: float = math.nan
    usd_per_epoch: float = math.nan
    usd_to_target: float = math.nan
    source: dict[str, Any] = field(default_factory=dict)


def _arithmetic(r: Mapping[str, Any]) -> str:
    return "fp32" if str(r.get("precision")) == "float32" else "fp16"


def _learns(g: pd.DataFrame) -> pd.DataFrame:
    ok = g[(g["status"] == "ok") & g["train_s_median"].map(lambda v: math.isfinite(as_float(v))).astype(bool)]
    return ok[~ok["not_learning"].map(bool).astype(bool)] if "not_learning" in ok else ok


def _source(g: pd.DataFrame, pool: pd.DataFrame) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The data set's fastest GPU configuration that learns, and the finished configurations of the workload on any
    data set with its backend, GPU, precision and compiler (a step's fixed part does not depend on the data set)."""
    gpu = _learns(g[g["device_kind"] == "gpu"])
    if gpu.empty:
        return None, []
    best = plain_rows(gpu.sort_values("examples_per_s", ascending=False, kind="stable"))[0]
    ok = pool[pool["status"] == "ok"]
    same = ok[np.logical_and.reduce([ok[k].astype(str) == str(best.get(k)) for k in STEP_KEYS if k in ok])]
    return best, [r for r in plain_rows(same) if math.isfinite(as_float(r["train_s_median"]))]


def _step_fit(best: dict[str, Any] | None, group: list[dict[str, Any]]) -> tuple[StepModel | None, float, str]:
    """The step model of the source's group, the 90th percentile of its leave-one-out error, and why not."""
    if best is None:
        return None, math.nan, NO_ACCELERATOR
    flops, moved = as_float(best.get("flops_per_example")), step_bytes(best, 1.0, 0.0)
    if not (flops > 0 and moved > 0) or best.get("flops_uncounted"):  # no count, or one that misses layers
        return None, math.nan, NO_COUNT
    points = [(float(r["global_batch_size"]), float(r["steps_per_execution"]), step_s(r)) for r in group]
    if len(points) < MIN_CONFIGURATIONS:
        return None, math.nan, TOO_FEW
    left = [abs(p / m - 1) for _, _, m, p in steps_left_out(points) if math.isfinite(p)]
    model = fit_steps(points)
    if model is None or len(left) < MIN_CONFIGURATIONS:
        return None, math.nan, TOO_FEW
    return model, float(np.quantile(left, 0.9)), ""


def predict_workload(g: pd.DataFrame, pool: pd.DataFrame, errors: Mapping[str, Any],
                     prices: Mapping[str, Price] | None = None,
                     reference: Reference | None = None) -> list[DevicePrediction]:
    """A row per device of :data:`BOUND_DEVICES` for one workload and data set's summary rows ``g``; ``pool`` is the
    workload's rows on every data set; ``errors`` the scaling's measured error
    (:func:`bench.reporting.load.throughput.measured_error`); ``reference``: what a workload with no GPU record is
    predicted from (:mod:`bench.reporting.analysis.reference`)."""
    best, group = _source(g, pool)
    if best is None and reference is not None and not _learns(g[g["device_kind"] == "cpu"]).empty:
        cpu = _cpu_source(g)  # a CPU run is predicted from the reference records, given its counts
        return [_referenced(name, kind, model, key, cpu, reference, errors, prices) if cpu is not None
                else DevicePrediction(name, kind, model, TPU if kind == "tpu" else NO_COUNT)
                for name, kind, model, key in BOUND_DEVICES]
    ran = {(c.kind, c.model) for c in (chip_of(str(r.get("device_kind")), str(r.get("accelerator") or ""))
                                       for r in _learns(g).to_dict("records")) if c is not None}
    model, own_error, reason = _step_fit(best, group)
    here_chip = chip_of("gpu", str(best.get("accelerator") or "")) if best is not None else None
    here = device(here_chip, _arithmetic(best)) if here_chip is not None and best is not None else None
    out = []
    for name, kind, chip_model, key in BOUND_DEVICES:
        chip = next(c for c in CHIPS if (c.kind, c.model) == (kind, chip_model))
        there = device(chip, _arithmetic(best)) if best is not None else None
        why = (MEASURED if (kind, chip_model) in ran else TPU if kind == "tpu" else reason
               or (NO_DATASHEET if here is None or there is None else ""))
        if why or best is None or model is None or here is None or there is None:
            out.append(DevicePrediction(name, kind, chip_model, why or NO_ACCELERATOR))
            continue
        e = max(own_error, float(errors[TIME_MODEL]["p90"]))
        out.append(_predicted(name, chip, best, model, e, here, there, _usd_per_s(prices, key), len(group)))
    return out


def _usd_per_s(prices: Mapping[str, Price] | None, key: str) -> float:
    entry = prices.get(key) if prices is not None else None
    return entry.usd_per_hour / 3600 if entry is not None and entry.usd_per_hour is not None else math.nan


def _cpu_source(g: pd.DataFrame) -> dict[str, Any] | None:
    """The data set's fastest configuration that learns on a CPU with a whole FLOP and a byte count (None: none)."""
    cpu = _learns(g[g["device_kind"] == "cpu"])
    rows = [r for r in plain_rows(cpu.sort_values("examples_per_s", ascending=False, kind="stable"))
            if as_float(r.get("flops_per_example")) > 0 and step_bytes(r, 1.0, 0.0) > 0
            and not r.get("flops_uncounted")]
    return rows[0] if rows else None


def _referenced(name: str, kind: str, chip_model: str, key: str, best: Mapping[str, Any], ref: Reference,
                errors: Mapping[str, Any], prices: Mapping[str, Price] | None) -> DevicePrediction:
    """One device predicted for a workload that ran on no GPU: the reference's fixed part of a step for the run's
    backend and steps_per_execution and its per-example part, plus the device part: the workload's FLOPs at the
    device's datasheet peak over the reference's efficiency, or its bytes at the bandwidth where longer. Interval:
    the fixed part's range (its leave-one-out error; for a backend with no GPU record, every measured backend's
    ratio), the device part between its floor and its value times one plus the larger of the efficiency's and the
    scaling's errors; ``error``: the interval's larger relative distance from the prediction."""
    chip = next(c for c in CHIPS if (c.kind, c.model) == (kind, chip_model))
    there = device(chip, _arithmetic(best)) if kind == "gpu" else None
    if there is None:
        return DevicePrediction(name, kind, chip_model, TPU if kind == "tpu" else NO_DATASHEET)
    batch, spe, steps = (float(best[k]) for k in ("global_batch_size", "steps_per_execution", "steps_per_epoch"))
    flops, moved = float(best["flops_per_example"]), step_bytes(best, batch, 1.0) / batch
    floor = batch * max(flops / there.peak, moved / there.bandwidth)
    low_h, host, high_h, how = ref.host_range(backend_key(best), spe)
    per_example = batch * ref.step.example_s
    # compute at the reference's efficiency (what it was measured on), memory traffic no faster than its floor
    grows = batch * max(flops / there.peak / ref.efficiency, moved / there.bandwidth)
    e = max(ref.efficiency_error, float(errors[TIME_MODEL]["p90"]))
    step = host + per_example + grows
    low, high = low_h + per_example + max(floor, grows / (1 + e)), high_h + per_example + grows * (1 + e)
    to_target = as_float(best.get("time_to_target_s")) * step / step_s(best) if best.get(
        "reached_target") else math.nan
    usd_per_s = _usd_per_s(prices, key)
    bound = "compute" if flops / there.peak / ref.efficiency >= moved / there.bandwidth else "memory"  # as predicted
    source = {k: _plain(best.get(k)) for k in ("backend", "strategy_id", "global_batch_size", "steps_per_execution",
                                               "precision", "compiler_mark")}
    return DevicePrediction(
        name, kind, chip_model, REFERENCED, train_s=steps * step, low_s=steps * low, high_s=steps * high,
        examples_per_s=batch / step, fixed_share=(host + per_example) / step,
        limit="host" if host + per_example >= step / 2 else bound, error=max(high / step - 1, 1 - low / step),
        usd_per_epoch=steps * step * usd_per_s, usd_to_target=to_target * usd_per_s,
        source={**source, "host_part": how, **{f"reference_{k}": v for k, v in ref.source.items()},
                "reference_backend": ref.backend, "configurations": ref.configurations})


def _plain(v: Any) -> Any:
    """A NumPy scalar as the Python number it holds (what JSON writes)."""
    return v.item() if isinstance(v, np.generic) else v


def _predicted(name: str, chip: Chip, best: Mapping[str, Any], model: StepModel, e: float, here: Device,
               there: Device, usd_per_s: float, n: int) -> DevicePrediction:
    """One predicted device (see :class:`DevicePrediction`)."""
    batch, spe, steps = float(best["global_batch_size"]), float(best["steps_per_execution"]), float(
        best["steps_per_epoch"])
    measured = step_s(best)
    grows = measured * model.example_s * batch / model.seconds(batch, spe)  # the part that grows with the batch
    fixed = measured - grows
    flops, moved = float(best["flops_per_example"]), step_bytes(best, batch, 1.0) / batch
    ratio = (flops / there.peak + moved / there.bandwidth) / (flops / here.peak + moved / here.bandwidth)
    step = fixed + grows * ratio
    # a rate at most e off, or a time at most e off, either way: the wider of the two
    low, high = (step * (1 - e), step / (1 - e)) if e < 1 else (step / (1 + e), math.inf)
    bound = "compute" if flops / there.peak >= moved / there.bandwidth else "memory"
    to_target = as_float(best.get("time_to_target_s")) * step / measured if best.get("reached_target") else math.nan
    source = {k: _plain(best.get(k)) for k in ("backend", "strategy_id", "accelerator", "global_batch_size",
                                               "steps_per_execution", "precision", "compiler_mark")}
    return DevicePrediction(
        name, chip.kind, chip.model, PREDICTED, train_s=steps * step, low_s=steps * low, high_s=steps * high,
        examples_per_s=batch / step, fixed_share=fixed / step, limit="host" if fixed >= step / 2 else bound,
        error=e, usd_per_epoch=steps * step * usd_per_s, usd_to_target=to_target * usd_per_s,
        source={**source, "configurations": n})


def predictions_by_workload(summary: pd.DataFrame, errors: Mapping[str, Any],
                            prices: Mapping[str, Price] | None = None,
                            reference: Reference | None = None) -> dict[int, list[DevicePrediction]]:
    """:func:`predict_workload` for every section (a workload on one data set) of ``summary`` with a finished
    configuration, by section (``reference``: the shipped one,
    :func:`bench.reporting.analysis.reference.load_reference`, unless given)."""
    reference = reference if reference is not None else load_reference()
    out = {}
    for section in sections(summary):
        g = rows_of(summary, section)
        if (g["status"] == "ok").any():
            workload = g["workload"].iloc[0]
            out[section] = predict_workload(g, summary[summary["workload"] == workload], errors, prices,
                                                 reference)
    return out


@dataclass(frozen=True)
class Pick:
    """The device a workload's predictions put first on one figure (``fastest``: steady seconds an epoch;
    ``cheapest``: USD to the target, else USD an epoch), with its value and 90% interval, and every device whose
    interval overlaps it (``tied``, the first among them included): one device in ``tied`` is a pick the intervals
    separate from all others."""

    what: str
    figure: str  # "train_s", "usd_to_target" or "usd_per_epoch"
    value: float
    low: float
    high: float
    tied: tuple[DevicePrediction, ...]


def _pick(rows: list[DevicePrediction], what: str, figure: str) -> Pick | None:
    def span(d: DevicePrediction) -> tuple[float, float, float]:
        v = float(getattr(d, figure))
        return v, v * d.low_s / d.train_s, v * d.high_s / d.train_s

    found = sorted((d for d in rows if math.isfinite(float(getattr(d, figure)))), key=lambda d: span(d)[0])
    if not found:
        return None
    value, low, high = span(found[0])
    return Pick(what, figure, value, low, high, tuple(d for d in found if span(d)[1] <= high))


def picks(devices: list[DevicePrediction]) -> list[Pick]:
    """The fastest and the cheapest of a workload's predicted devices (:class:`Pick`; none without a prediction)."""
    rows = [d for d in devices if d.basis in (PREDICTED, REFERENCED) and math.isfinite(d.train_s)]
    cost = "usd_to_target" if any(math.isfinite(d.usd_to_target) for d in rows) else "usd_per_epoch"
    return [p for p in (_pick(rows, "fastest", "train_s"), _pick(rows, "cheapest", cost)) if p is not None]
