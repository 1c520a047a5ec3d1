"""Ratios of two configurations from their per-repeat values, with a Welch interval on the log scale: no interval and no
claim under :data:`~bench.reporting.stats.sample.MIN_REPEATS` repeats a side (:func:`repeat_ratio_ci`). Numbers only.
Method: docs/statistics.md, *Honest significance*.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bench.reporting.stats.sample import MIN_REPEATS, finite_array

CONFIDENCE = 0.95  # 1 - bench.reporting.stats.sample.ALPHA, written as the level it is


@dataclass(frozen=True)
class RatioCI:
    """A ratio of two configurations' per-repeat values, with its confidence interval.

    ``n_num``/``n_den`` are the numbers of repeats (processes) on each side. With fewer than
    :data:`MIN_REPEATS` on a side no interval exists (``low``/``high`` are NaN) and no significance is
    claimed; otherwise ``significant`` is True when the interval excludes 1.0.
    """

    ratio: float
    low: float
    high: float
    n_num: int
    n_den: int
    confidence: float = CONFIDENCE

    @property
    def has_interval(self) -> bool:
        return math.isfinite(self.low) and math.isfinite(self.high)

    @property
    def significant(self) -> bool:
        return self.has_interval and is_significant(self.low, self.high)


def is_significant(low: float, high: float, null: float = 1.0) -> bool:
    """True when the finite interval ``[low, high]`` excludes ``null`` (1.0 for a ratio)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return False
    return not (low <= null <= high)


def repeat_ratio_ci(numerator: Sequence[float] | np.ndarray, denominator: Sequence[float] | np.ndarray,
                    confidence: float = CONFIDENCE) -> RatioCI:
    """Ratio of two configurations from their **per-repeat** values (one value per process, e.g. a
    repeat's median steady examples/s), with a Welch *t* interval on the log scale.

    The unit of replication is the repeat: two strategies always run in different processes, and the
    process-to-process variation (1-6 % measured here) is what a comparison has to beat; the epochs of one
    process are not independent samples of it. ``ratio`` is the ratio of geometric means (so it equals the
    plain ratio with one repeat per side). With at least :data:`MIN_REPEATS` repeats on both sides the
    interval is ``exp(d ± t(df) * se)``, d = difference of mean logs, Welch-Satterthwaite df: valid for
    small samples of positive, roughly log-normal timings, and calibrated: 5 % of A/A comparisons are
    marked significant (``tests/test_stats.py`` simulates it). With fewer repeats: the ratio, no interval.
    """
    num, den = finite_array(numerator), finite_array(denominator)
    num, den = num[num > 0], den[den > 0]
    if num.size == 0 or den.size == 0:
        return RatioCI(math.nan, math.nan, math.nan, int(num.size), int(den.size), confidence)
    ln, ld = np.log(num), np.log(den)
    d = float(ln.mean() - ld.mean())
    ratio = math.exp(d)
    if num.size < MIN_REPEATS or den.size < MIN_REPEATS:
        return RatioCI(ratio, math.nan, math.nan, int(num.size), int(den.size), confidence)
    vn, vd = float(ln.var(ddof=1)) / num.size, float(ld.var(ddof=1)) / den.size
    se = math.sqrt(vn + vd)
    if se == 0:  # no spread at all on either side: the ratio is exact
        return RatioCI(ratio, ratio, ratio, int(num.size), int(den.size), confidence)
    df = (vn + vd) ** 2 / (vn ** 2 / (num.size - 1) + vd ** 2 / (den.size - 1))
    from scipy import stats as sps  # here, not at import: a console table without intervals needs no scipy (1.3 s)

    half = float(sps.t.ppf(0.5 + confidence / 2, df)) * se
    return RatioCI(ratio, math.exp(d - half), math.exp(d + half), int(num.size), int(den.size), confidence)
