"""The prediction's error, measured leave-one-device-out on published tables (:mod:`bench.reporting.load.throughput`):
for every model and every ordered pair (measured GPU -> unmeasured GPU) of a table, the unmeasured GPU's examples/s
predicted from the measured one's and the datasheets, with nothing fitted on the predicted GPU's rows. Method:
docs/predict.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bench.reporting.analysis.transfer import Device, device, fit, roofline_ratio, steps_left_out, transfer
from bench.reporting.load.throughput import ThroughputTable

# the methods, in the order the error table shows them: the time model (bench's), then what a reader of datasheets
# alone gets (one compute/memory mix for every model, fitted on the other GPUs), then no scaling at all
TIME_MODEL, ROOFLINE, SAME = "time_model", "roofline_mix", "same_throughput"  # render words them
METHODS = (TIME_MODEL, ROOFLINE, SAME)
MIXES = np.linspace(0.0, 1.0, 101)  # the roofline mixes tried (share of the time that scales with the peak)


AMP_GAIN = 1.15  # a model whose mixed-precision runs are less than this much faster than float32 runs computes in fp32


def _devices(t: ThroughputTable, precision: str) -> dict[str, Device]:
    out = {}
    for name, chip in t.chips.items():
        d = device(chip, precision)
        if d is not None:
            out[name] = d
    return out


def _half_speeds_up(t: ThroughputTable, fp32: ThroughputTable | None, model: str, gpus: Sequence[str]) -> bool:
    """Whether ``model``'s mixed-precision runs of ``t`` compute in half precision: the median over ``gpus`` of its
    fp16 over fp32 examples/s is at least :data:`AMP_GAIN` (True without an fp32 table to tell)."""
    if t.precision != "fp16" or fp32 is None:
        return True
    gains = [t.rates[(g, model)] / fp32.rates[(g, model)] for g in gpus
             if _measured(t, g, model) and _measured(fp32, g, model)]
    return not gains or float(np.median(gains)) >= AMP_GAIN


def _measured(t: ThroughputTable, gpu: str, model: str) -> bool:
    return math.isfinite(t.rates.get((gpu, model), math.nan))


def _batch(t: ThroughputTable, gpu: str, model: str) -> float:
    b = t.batches.get((gpu, model), math.nan)
    return b if math.isfinite(b) else 1.0  # no batch file: the per-step term is one per example


def _best_mix(t: ThroughputTable, devices: dict[str, Device], gpus: Sequence[str]) -> float:
    """The one roofline mix with the least median absolute log error over every pair of ``gpus`` and every model."""
    pairs = [(t.rates[(s, m)], t.rates[(g, m)], devices[s], devices[g]) for m in t.models for s in gpus for g in gpus
             if s != g and _measured(t, s, m) and _measured(t, g, m)]
    if not pairs:
        return 0.5
    ys, yt = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    compute = np.array([p[2].peak / p[3].peak for p in pairs])
    memory = np.array([p[2].bandwidth / p[3].bandwidth for p in pairs])
    ratio = MIXES[:, None] * compute + (1 - MIXES[:, None]) * memory  # target over source seconds, per mix and pair
    errors = np.median(np.abs(np.log(ys / ratio / yt)), axis=1)
    return float(MIXES[int(np.argmin(errors))])


def predictions(t: ThroughputTable, fp32: ThroughputTable | None = None) -> pd.DataFrame:
    """One row per (method, model, source GPU, target GPU) of ``t``: ``predicted`` and ``measured`` examples/s,
    ``error`` = |predicted / measured - 1|, ``same_generation``. For each target everything fitted (the time model of
    each model, the roofline mix, whether a model's mixed precision computes in half: ``fp32``, the float32 table of
    the same GPUs) is fitted on the other GPUs' rows only."""
    by_precision = {p: _devices(t, p) for p in ("fp32", t.precision)}
    gpus = sorted(by_precision[t.precision])
    rows = []
    for target in gpus:
        others = [g for g in gpus if g != target]
        mix = _best_mix(t, by_precision[t.precision], others)
        for m in t.models:
            if not _measured(t, target, m):
                continue
            devices = by_precision[t.precision if _half_speeds_up(t, fp32, m, others) else "fp32"]
            seen = [g for g in others if _measured(t, g, m)]
            model = fit([(devices[g], _batch(t, g, m), 1 / t.rates[(g, m)]) for g in seen])
            for source in seen:
                y = t.rates[(source, m)]
                guesses = {
                    TIME_MODEL: (transfer(y, model, devices[source], _batch(t, source, m), devices[target],
                                          _batch(t, target, m)) if model is not None else math.nan),
                    ROOFLINE: y / roofline_ratio(mix, devices[source], devices[target]),
                    SAME: y,
                }
                for method, guess in guesses.items():
                    rows.append({"table": t.path.name, "precision": t.precision, "method": method, "model": m,
                                 "source": source, "target": target, "measured": t.rates[(target, m)],
                                 "predicted": guess, "error": abs(guess / t.rates[(target, m)] - 1),
                                 "same_generation": devices[source].generation == devices[target].generation})
    return pd.DataFrame(rows)


def error_summary(frame: pd.DataFrame, by: Iterable[str] = ()) -> pd.DataFrame:
    """Median and 90th percentile of the absolute error (fractions) and the count, per ``by`` group and method."""
    keys = [*by, "method"]
    g = frame[frame["error"].map(math.isfinite)].groupby(keys, sort=False)["error"]
    return pd.DataFrame({"median": g.median(), "p90": g.quantile(0.9), "n": g.size()}).reset_index()


# what one step model covers: a model on one accelerator, backend, precision and compiler
STEP_GROUP = ("workload", "backend", "device_kind", "accelerator", "precision", "compiler_mark")


def accelerator_steps_left_out(summary: pd.DataFrame) -> pd.DataFrame:
    """bench's own accelerator records checked against the step model: each finished GPU or TPU configuration's
    seconds a step (steady training seconds an epoch over its steps) predicted from the other configurations of its
    group (:data:`STEP_GROUP`: other batch sizes and steps_per_execution, any data set); one row each, with
    ``error`` = |predicted / measured - 1| (NaN where the others cannot be fitted)."""
    keys = [k for k in STEP_GROUP if k in summary]
    ok = summary[(summary["status"] == "ok") & summary["device_kind"].isin(["gpu", "tpu"])]
    rows = []
    for key, g in ok.groupby(keys, sort=True, dropna=False):
        points = [(float(r["global_batch_size"]), float(r["steps_per_execution"]),
                   float(r["train_s_median"]) / float(r["steps_per_epoch"])) for r in g.to_dict("records")]
        for (b, spe, measured, predicted), section in zip(steps_left_out(points), g["section"], strict=True):
            rows.append({**dict(zip(keys, key, strict=True)), "section": section, "global_batch_size": int(b),
                         "steps_per_execution": int(spe), "measured_s": measured, "predicted_s": predicted,
                         "error": abs(predicted / measured - 1)})
    return pd.DataFrame(rows)


def measured_error(frame: pd.DataFrame) -> dict[str, Any]:
    """What a report's predictions read (``suites/reference/lambda/measured-error.json``): each method's median
    and 90th-percentile error over ``frame`` (fractions, 4 decimals), its count and the tables it covers."""
    s = error_summary(frame)
    out: dict[str, Any] = {r["method"]: {"median": round(float(r["median"]), 4), "p90": round(float(r["p90"]), 4),
                                         "n": int(r["n"])} for r in s.to_dict("records")}
    out["tables"] = sorted(set(frame["table"]))
    return out
