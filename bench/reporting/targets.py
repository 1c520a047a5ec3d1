"""Targets and time to target (MLPerf/DAWNBench style). Never imports TensorFlow.

A workload declares the validation accuracy a configuration must reach (``target_accuracy`` in its records). A
configuration *reaches* it when at least half of its ok repeats have an epoch at or above it; **time to target**
is the training seconds (``train_s``, the warm-up epoch included: tracing, compilation and ``fit``'s set-up are a
cost a user pays; validation excluded) summed up to and including the first such epoch, median over the repeats
that reached it.
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


def target_columns(ok: pd.DataFrame) -> dict[str, Any]:
    """The summary's target columns from a configuration's ok points."""
    target = float(np.nanmedian(ok["target_accuracy"])) if ok["target_accuracy"].notna().any() else math.nan
    reached = ok[np.isfinite(ok["time_to_target_s"])] if math.isfinite(target) else ok.iloc[0:0]
    return {
        "target_accuracy": target, "n_reached": len(reached),
        "reached_target": bool(math.isfinite(target) and len(ok) and 2 * len(reached) >= len(ok)),
        "time_to_target_s": float(reached["time_to_target_s"].median()) if len(reached) else math.nan,
        "epochs_to_target": float(reached["epochs_to_target"].median()) if len(reached) else math.nan,
    }
