"""Small, pure statistics for benchmark samples (no TensorFlow; numpy + scipy.stats only).

Samples are steady-state epoch times in seconds (``epoch_s``/``train_s``) unless a caller says otherwise.

Quartiles use numpy's default ``"linear"`` interpolation, which is Hyndman & Fan (1996) type 7: the
default of R's ``quantile()``, of Excel's ``QUARTILE.INC`` and of ``scipy.stats.iqr``. For the Wikipedia
example 6, 7, 15, 36, 39, 40, 41, 42, 43, 47, 49 (https://en.wikipedia.org/wiki/Quartile#Example_1) it
gives Q1 = 25.5, median = 40, Q3 = 42.5.

Comparisons are noise-aware, like asv's ``compare``: a ratio of medians comes with a percentile bootstrap
confidence interval (``scipy.stats.bootstrap``, independent resampling of both samples, fixed seed so that
reports are reproducible), and a ratio whose interval contains 1.0 is *not significant* (printed ``~``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

QUARTILE_METHOD = "linear"  # Hyndman & Fan type 7; see the module docstring.
CONFIDENCE = 0.95
N_RESAMPLES = 2000
SEED = 20261121  # fixed: the same samples always give the same interval


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
    """Interquartile range Q3 - Q1 (``scipy.stats.iqr``, type 7); NaN for an empty sample."""
    x = _clean(samples)
    if x.size == 0:
        return math.nan
    return float(sps.iqr(x, interpolation=QUARTILE_METHOD))


def coefficient_of_variation(samples: Sequence[float] | np.ndarray) -> float:
    """Sample standard deviation (ddof=1) over the mean, as a fraction; NaN with fewer than 2 values."""
    x = _clean(samples)
    if x.size < 2 or np.mean(x) == 0:
        return math.nan
    return float(sps.variation(x, ddof=1))


def summarize_sample(samples: Sequence[float] | np.ndarray) -> Summary:
    """Median, quartiles, IQR and CV of the finite values of ``samples``."""
    x = _clean(samples)
    med, q1, q3 = median_iqr(x)
    return Summary(n=int(x.size), median=med, q1=q1, q3=q3, iqr=q3 - q1,
                   cv=coefficient_of_variation(x))


@dataclass(frozen=True)
class RatioCI:
    """A ratio of medians with its bootstrap confidence interval.

    ``significant`` is False when the interval contains 1.0 or could not be computed (fewer than two
    samples on a side gives an interval of ``(-inf, inf)``), the way asv marks a change it cannot tell
    from noise.
    """

    ratio: float
    low: float
    high: float
    n_num: int
    n_den: int
    confidence: float = CONFIDENCE

    @property
    def significant(self) -> bool:
        return is_significant(self.low, self.high)

    def format(self, digits: int = 2) -> str:
        """``"1.85x [1.70, 2.01]"``, prefixed by ``~`` when not significant; ``"n/a"`` without a ratio."""
        if not math.isfinite(self.ratio):
            return "n/a"
        core = f"{self.ratio:.{digits}f}x"
        if math.isfinite(self.low) and math.isfinite(self.high):
            core += f" [{self.low:.{digits}f}, {self.high:.{digits}f}]"
        else:
            core += " [n<2]"
        return core if self.significant else f"~{core}"


def is_significant(low: float, high: float, null: float = 1.0) -> bool:
    """True when the finite interval ``[low, high]`` excludes ``null`` (1.0 for a ratio)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return False
    return not (low <= null <= high)


def _ratio_of_medians(num: np.ndarray, den: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.median(num, axis=axis) / np.median(den, axis=axis)


def ratio_of_medians_ci(
    numerator: Sequence[float] | np.ndarray,
    denominator: Sequence[float] | np.ndarray,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> RatioCI:
    """``median(numerator) / median(denominator)`` with a percentile bootstrap interval.

    Both samples are resampled independently (``paired=False``). Speedup of B over A in epoch time is
    ``ratio_of_medians_ci(epoch_s_A, epoch_s_B)``; a time ratio B/A is ``ratio_of_medians_ci(B, A)``.
    The percentile method is used rather than BCa because BCa is undefined for the tiny, often tied
    samples of a benchmark (3-10 steady epochs). With fewer than 2 values on either side the interval is
    ``(-inf, inf)``: not significant. The seed is fixed, so equal inputs give equal output.
    """
    num, den = _clean(numerator), _clean(denominator)
    if num.size == 0 or den.size == 0 or np.median(den) == 0:
        return RatioCI(math.nan, -math.inf, math.inf, int(num.size), int(den.size), confidence)
    ratio = float(np.median(num) / np.median(den))
    if num.size < 2 or den.size < 2:
        return RatioCI(ratio, -math.inf, math.inf, int(num.size), int(den.size), confidence)
    if np.ptp(num) == 0 and np.ptp(den) == 0:
        # No spread at all: every resample gives the same ratio (scipy would warn about degeneracy).
        return RatioCI(ratio, ratio, ratio, int(num.size), int(den.size), confidence)
    res = sps.bootstrap((num, den), _ratio_of_medians, n_resamples=n_resamples, vectorized=True,
                        paired=False, confidence_level=confidence, method="percentile",
                        rng=np.random.default_rng(seed))
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return RatioCI(ratio, low, high, int(num.size), int(den.size), confidence)
