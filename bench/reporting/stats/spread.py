"""How one configuration's speed spreads across the processes that measured it (one figure per repeat), and whether it
ran at two speeds (:func:`two_speeds`: a split at the largest gap, its critical value simulated per number of
processes by :func:`critical`). Method and measured rates: docs/statistics.md, *Spread across processes, and two
speeds*; ``tests/test_spread.py``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MIN_SIDE = 2  # processes on each side of a split: one process is no speed
MIN_PROCESSES = 2 * MIN_SIDE + 1  # below this no claim (4 processes split 2 + 2 too easily)
FALSE_CLAIM = 0.01  # the level of the critical value (one claim per configuration: kept low)
MIN_RATIO = 1.2  # the two speeds' geometric means at least this far apart
SIMULATIONS = 20_000
SEED = 20261125


@dataclass(frozen=True)
class TwoSpeeds:
    """Two speeds across processes: each side's processes and typical (geometric mean) figure, seconds."""

    fast_n: int
    fast_s: float
    slow_n: int
    slow_s: float


def _statistic(logs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(statistic, split index) of sorted logs along the last axis: the largest gap leaving MIN_SIDE each side."""
    n = logs.shape[-1]
    gaps = np.diff(logs, axis=-1)[..., MIN_SIDE - 1: n - MIN_SIDE]
    k = np.argmax(gaps, axis=-1) + MIN_SIDE  # the first index of the upper side
    idx = np.arange(n)
    low = idx < k[..., None]
    n_low = k.astype(float)
    n_high = n - n_low
    mean_low = np.where(low, logs, 0).sum(-1) / n_low
    mean_high = np.where(~low, logs, 0).sum(-1) / n_high
    centred = logs - np.where(low, mean_low[..., None], mean_high[..., None])
    pooled = np.sqrt((centred ** 2).sum(-1) / (n - 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean_high - mean_low) / pooled / np.sqrt(1 / n_low + 1 / n_high)
    return t, k


@functools.cache
def critical(n: int, level: float = FALSE_CLAIM) -> float:
    """The statistic's ``1 - level`` quantile for ``n`` processes of one (log)normal population (simulated,
    fixed seed; the same for any mean and spread)."""
    rng = np.random.default_rng(SEED + n)
    logs = np.sort(rng.standard_normal((SIMULATIONS, n)), axis=-1)
    t, _ = _statistic(logs)
    return float(np.quantile(t[np.isfinite(t)], 1 - level))


def two_speeds(seconds: Sequence[float | None], level: float = FALSE_CLAIM) -> TwoSpeeds | None:
    """Two speeds across processes (module docstring), or None: fewer than :data:`MIN_PROCESSES` finite
    positive figures, or no split that passes. ``seconds``: one figure per process (median steady epoch)."""
    xs = np.sort(np.log([s for s in seconds if s is not None and math.isfinite(s) and s > 0]))
    n = len(xs)
    if n < MIN_PROCESSES:
        return None
    t, k = _statistic(xs)
    t_value, split = float(t), int(k)
    if not math.isfinite(t_value) and np.ptp(xs) == 0:
        return None
    lo, hi = xs[:split], xs[split:]
    if math.exp(hi.mean() - lo.mean()) < MIN_RATIO:
        return None
    if math.isfinite(t_value) and t_value < critical(n, level):
        return None
    return TwoSpeeds(fast_n=len(lo), fast_s=math.exp(lo.mean()), slow_n=len(hi), slow_s=math.exp(hi.mean()))
