"""Small, pure statistics for benchmark samples (no TensorFlow; numpy + scipy.stats only).

Samples are steady-state epoch times in seconds (``epoch_s``/``train_s``) unless a caller says otherwise.

Quartiles use numpy's default ``"linear"`` interpolation, which is Hyndman & Fan (1996) type 7: the
default of R's ``quantile()``, of Excel's ``QUARTILE.INC`` and of ``scipy.stats.iqr``. For the Wikipedia
example 6, 7, 15, 36, 39, 40, 41, 42, 43, 47, 49 (https://en.wikipedia.org/wiki/Quartile#Example_1) it
gives Q1 = 25.5, median = 40, Q3 = 42.5.

Comparisons are noise-aware, like asv's ``compare``, and their unit is the **repeat** (one worker
process), not the epoch (:func:`repeat_ratio_ci`): with fewer than :data:`MIN_REPEATS` repeats per side a
ratio is shown without an interval and without a claim; with more, a ratio whose 95 % interval contains
1.0 is *not significant* (printed ``~``). Deterministic: no resampling, so equal inputs give equal output.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

QUARTILE_METHOD = "linear"  # Hyndman & Fan type 7; see the module docstring.
CONFIDENCE = 0.95
MIN_REPEATS = 3  # per side, for an interval and a significance claim


def as_float(x: Any) -> float:
    """A float, or NaN for None and non-numbers (records store NaN as null)."""
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def last_finite(values: Iterable[Any]) -> float:
    """The last finite value (e.g. the final epoch's val accuracy that is not null); NaN when none is."""
    vals = [v for v in (as_float(x) for x in values) if math.isfinite(v)]
    return vals[-1] if vals else math.nan


def finite_median(values: Iterable[float]) -> float:
    """Median of the finite values; NaN when there are none. numpy's median (the mean of the two middle values of
    an even count), computed in Python: the report takes thousands of medians of a few values each."""
    vals = sorted(v for v in values if math.isfinite(v))
    n = len(vals)
    if not n:
        return math.nan
    return float(vals[n // 2]) if n % 2 else float((vals[n // 2 - 1] + vals[n // 2]) / 2)


def _clean(samples: Sequence[float] | np.ndarray) -> np.ndarray:
    """Finite values only, as a float array (None/NaN/inf are dropped: a diverged epoch has no time)."""
    arr = np.asarray([np.nan if s is None else s for s in samples], dtype=float)
    return arr[np.isfinite(arr)]


@dataclass(frozen=True)
class Summary:
    """Location and spread of a sample: median, quartiles (type 7), IQR, coefficient of variation."""

    n: int
    median: float
    q1: float
    q3: float
    iqr: float
    cv: float

    def __str__(self) -> str:
        return f"{self.median:.3g} [{self.iqr:.2g}]"


def median_iqr(samples: Sequence[float] | np.ndarray) -> tuple[float, float, float]:
    """Return ``(median, q1, q3)`` with type-7 quartiles; NaNs for an empty sample."""
    x = _clean(samples)
    if x.size == 0:
        return (math.nan, math.nan, math.nan)
    q1, med, q3 = np.percentile(x, [25, 50, 75], method=QUARTILE_METHOD)
    return (float(med), float(q1), float(q3))


def iqr(samples: Sequence[float] | np.ndarray) -> float:
    """Interquartile range Q3 - Q1 (type 7, what ``scipy.stats.iqr`` computes); NaN for an empty sample."""
    x = _clean(samples)
    if x.size == 0:
        return math.nan
    q1, q3 = np.percentile(x, [25, 75], method=QUARTILE_METHOD)
    return float(q3 - q1)


def coefficient_of_variation(samples: Sequence[float] | np.ndarray) -> float:
    """Sample standard deviation (ddof=1) over the mean, as a fraction; NaN with fewer than 2 values."""
    x = _clean(samples)
    if x.size < 2 or np.mean(x) == 0:
        return math.nan
    return float(np.std(x, ddof=1) / np.mean(x))  # scipy.stats.variation(x, ddof=1)


def summarize_sample(samples: Sequence[float] | np.ndarray) -> Summary:
    """Median, quartiles, IQR and CV of the finite values of ``samples``."""
    x = _clean(samples)
    med, q1, q3 = median_iqr(x)
    return Summary(n=int(x.size), median=med, q1=q1, q3=q3, iqr=q3 - q1,
                   cv=coefficient_of_variation(x))


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

    def format(self, digits: int = 2) -> str:
        """``"1.11x [1.02, 1.23]"``; ``"~1.03x [0.95, 1.12]"`` when the interval contains 1; ``"1.11x (n=1)"``
        (no interval, no claim) with fewer than MIN_REPEATS repeats on a side; ``"n/a"`` without a ratio."""
        if not math.isfinite(self.ratio):
            return "n/a"
        core = f"{self.ratio:.{digits}f}x"
        if not self.has_interval:
            n = f"{self.n_num}" if self.n_num == self.n_den else f"{self.n_num} vs {self.n_den}"
            return f"{core} (n={n})"
        core += f" [{self.low:.{digits}f}, {self.high:.{digits}f}]"
        return core if self.significant else f"~{core}"


def is_significant(low: float, high: float, null: float = 1.0) -> bool:
    """True when the finite interval ``[low, high]`` excludes ``null`` (1.0 for a ratio)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return False
    return not (low <= null <= high)


def geometric_mean(values: Sequence[float] | np.ndarray) -> float:
    """Geometric mean of the finite, positive ``values``; NaN when there are none."""
    x = _clean(values)
    x = x[x > 0]
    return float(np.exp(np.mean(np.log(x)))) if x.size else math.nan


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
    num, den = _clean(numerator), _clean(denominator)
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


ALPHA = 0.05  # family-wise error rate of the accuracy comparisons (Bonferroni over a workload's: bench.reporting.seeds)
