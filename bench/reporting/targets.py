"""Targets and time to target (MLPerf/DAWNBench style). Never imports TensorFlow.

A workload declares the validation accuracy a configuration must reach (``target_accuracy`` in its records). The
unit is the **training run**, one per seed (repeats that share a seed, ``repeat_seeds=same``, are one run timed
several times: their median is that seed's). A configuration *reaches* its target when at least half of its seeds
have an epoch at or above it; **time to target** is the training seconds (``train_s``, the warm-up epoch
included: tracing, compilation and ``fit``'s set-up are a cost a user pays; validation excluded) summed up to and
including the first such epoch, median over the seeds that reached it, with their range.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from bench.records import Epoch
from bench.reporting.stats import as_float


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


def per_seed(ok: pd.DataFrame, column: str, missing_is_never: bool = False) -> pd.Series:
    """``column`` per seed of a configuration's ok points: the median over the repeats that share a seed (with
    ``missing_is_never``, a repeat without a value, e.g. one that never reached the target, counts as infinitely
    late, and a seed whose median is that reads NaN)."""
    if not len(ok):
        return pd.Series(dtype=float)
    values = ok[column].fillna(np.inf) if missing_is_never else ok[column]
    med = values.groupby(ok["seed"], sort=True).median()
    return med.replace(np.inf, np.nan) if missing_is_never else med


def target_columns(ok: pd.DataFrame) -> dict[str, Any]:
    """The summary's target and per-seed accuracy columns from a configuration's ok points: ``n_seeds``;
    ``val_acc_min``/``val_acc_max`` (range of the seeds' final validation accuracies); ``n_reached`` (seeds that
    reached the target), ``reached_target`` (at least half did), ``time_to_target_s`` (s, median over them) with
    ``time_to_target_min_s``/``time_to_target_max_s`` and ``epochs_to_target``."""
    target = float(np.nanmedian(ok["target_accuracy"])) if ok["target_accuracy"].notna().any() else math.nan
    acc = per_seed(ok, "final_val_accuracy").dropna()
    seeds = int(ok["seed"].nunique()) if len(ok) else 0
    ttt = per_seed(ok, "time_to_target_s", True) if math.isfinite(target) else pd.Series(dtype=float)
    reached = ttt[np.isfinite(ttt)]
    epochs = per_seed(ok, "epochs_to_target")[reached.index] if len(reached) else reached
    return {
        "target_accuracy": target, "n_seeds": seeds, "n_reached": len(reached),
        "final_val_accuracy": float(acc.median()) if len(acc) else math.nan,  # median over seeds
        "val_acc_min": float(acc.min()) if len(acc) else math.nan,
        "val_acc_max": float(acc.max()) if len(acc) else math.nan,
        "reached_target": bool(math.isfinite(target) and seeds and 2 * len(reached) >= seeds),
        "time_to_target_s": float(reached.median()) if len(reached) else math.nan,
        "time_to_target_min_s": float(reached.min()) if len(reached) else math.nan,
        "time_to_target_max_s": float(reached.max()) if len(reached) else math.nan,
        "epochs_to_target": float(epochs.median()) if len(reached) else math.nan,
    }
