"""Targets and time to target (MLPerf/DAWNBench style): a configuration reaches its target when at least half its seeds
do; time to target is the training seconds, warm-up included, to the first such epoch, median over those seeds.
Method: docs/reports.md, *What counts as learning*.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bench.records import Epoch
from bench.reporting.stats.sample import as_float


def time_to_target(epochs: Sequence[Epoch], target: float) -> tuple[float, int | None]:
    """(training seconds up to and including the first epoch with ``val_accuracy >= target``, that epoch);
    (NaN, None) when no epoch reaches it. ``train_s`` of epoch 1 includes ``fit``'s set-up (warm-up)."""
    total = 0.0
    for e in epochs:
        t = as_float(e.training_s())
        total += t if math.isfinite(t) else 0.0
        if math.isfinite(target) and as_float(e.val_accuracy) >= target:
            return total, e.epoch
    return math.nan, None


def _seedless(seed: Any) -> bool:
    return seed is None or (isinstance(seed, float) and math.isnan(seed))


def _median_late_is_inf(values: Sequence[float]) -> float:
    """Median of the values that are not NaN (infinities count); NaN when none is (pandas' ``median``)."""
    kept = [v for v in values if not math.isnan(v)]
    return float(np.median(kept)) if kept else math.nan


def per_seed(ok: Mapping[str, Sequence[Any]], column: str, missing_is_never: bool = False) -> dict[Any, float]:
    """``column`` per seed of a configuration's ok points (column -> values: a frame or its rows as lists), in seed
    order: the median over the repeats that share a seed, missing values left out (NaN when all are; with
    ``missing_is_never`` a repeat without a value, e.g. one that never reached the target, counts as infinitely
    late, and a seed whose median is that reads NaN). A point without a seed belongs to no seed."""
    by: dict[Any, list[float]] = {}
    for seed, value in zip(ok["seed"], ok[column], strict=True):
        if not _seedless(seed):
            v = as_float(value)
            by.setdefault(seed, []).append(math.inf if missing_is_never and math.isnan(v) else v)
    medians = {seed: _median_late_is_inf(by[seed]) for seed in sorted(by)}
    return {s: math.nan if missing_is_never and m == math.inf else m for s, m in medians.items()}


def target_columns(ok: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """The summary's target and per-seed accuracy columns from a configuration's ok points (column -> values):
    ``n_seeds``; ``val_acc_min``/``val_acc_max`` (range of the seeds' final validation accuracies); ``n_reached``
    (seeds that reached the target), ``reached_target`` (at least half did), ``time_to_target_s`` (s, median over
    them) with ``time_to_target_min_s``/``time_to_target_max_s`` and ``epochs_to_target``."""
    target = _median_late_is_inf([as_float(v) for v in ok["target_accuracy"]])
    acc = [v for v in per_seed(ok, "final_val_accuracy").values() if not math.isnan(v)]
    seeds = len({s for s in ok["seed"] if not _seedless(s)})
    ttt = per_seed(ok, "time_to_target_s", True) if math.isfinite(target) else {}
    reached = {s: v for s, v in ttt.items() if math.isfinite(v)}
    epochs = per_seed(ok, "epochs_to_target")
    return {
        "target_accuracy": target, "n_seeds": seeds, "n_reached": len(reached),
        "final_val_accuracy": _median_late_is_inf(acc),  # median over seeds
        "val_acc_min": min(acc) if acc else math.nan,
        "val_acc_max": max(acc) if acc else math.nan,
        "reached_target": bool(math.isfinite(target) and seeds and 2 * len(reached) >= seeds),
        "time_to_target_s": _median_late_is_inf(list(reached.values())),
        "time_to_target_min_s": min(reached.values()) if reached else math.nan,
        "time_to_target_max_s": max(reached.values()) if reached else math.nan,
        "epochs_to_target": _median_late_is_inf([epochs[s] for s in reached]),
    }
