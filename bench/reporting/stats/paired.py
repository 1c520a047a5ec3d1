"""Paired-by-seed differences: the interval of a mean difference over seeds (Bonferroni over a workload's
comparisons) and its adjusted p, with the default equivalence margin. NumPy and SciPy only; the verdict the
interval gives and the method are in :mod:`bench.reporting.analysis.seeds`.
"""

from __future__ import annotations

import math

import numpy as np

from bench.reporting.stats.sample import ALPHA

PARITY_MARGIN_PP = 2.0  # default equivalence margin (pp): config key parity_margin_pp


def interval(diffs: list[float], comparisons: int = 1, alpha: float = ALPHA) -> tuple[float, float, float, float]:
    """(mean, low, high, adjusted p) of paired differences: Student's t at ``1 - alpha / comparisons`` and the
    paired t-test's p times ``comparisons`` (capped at 1). No spread at all: the interval is the mean itself
    (p 0 when it is not 0, else 1). Fewer than 2 values: NaNs."""
    d = np.asarray(diffs, dtype=float)
    n = len(d)
    if n < 2:
        return (float(d.mean()) if n else math.nan), math.nan, math.nan, math.nan
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    if sd == 0:
        return mean, mean, mean, (0.0 if mean != 0 else 1.0)
    from scipy import stats as sps  # here: the console table needs no scipy

    se = sd / math.sqrt(n)
    half = float(sps.t.ppf(1 - alpha / comparisons / 2, n - 1)) * se
    p = float(2 * sps.t.sf(abs(mean) / se, n - 1))
    return mean, mean - half, mean + half, min(1.0, p * comparisons)
