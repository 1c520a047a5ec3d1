"""Location and spread of a sample (median, quartiles, IQR, CV, geometric mean), and the report's shared decisions:
:data:`ALPHA` and :data:`MIN_REPEATS`. NumPy only; numbers in, numbers out, no resampling. Quartiles are Hyndman &
Fan type 7 (NumPy's ``"linear"``, R's default). Ratios with intervals: :mod:`bench.reporting.stats.ratio`.
Method: docs/statistics.md, *Honest significance*.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

QUARTILE_METHOD: Final = "linear"  # Hyndman & Fan type 7; see the module docstring.
# The report's two shared decisions, made once: the false-claim rate of its claims (accuracy comparisons are
# Bonferroni over a workload's at ALPHA, a race's stops at ALPHA over its looks; speedup intervals are at
# bench.reporting.stats.ratio.CONFIDENCE = 1 - ALPHA), and the repeats a side below which nothing is claimed
# (processes for a speed, seeds for an accuracy, before a race may stop a configuration).
ALPHA = 0.05
MIN_REPEATS = 3


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


def finite_array(samples: Sequence[float] | np.ndarray) -> np.ndarray:
    """Finite values only, as a float array (None/NaN/inf are dropped: a diverged epoch has no time)."""
    arr = np.asarray([np.nan if s is None else s for s in samples], dtype=float)
    finite: np.ndarray[tuple[int], np.dtype[np.bool_]] = np.isfinite(arr)  # typed: the ufunc's stub says Any
    return arr[finite]


@dataclass(frozen=True)
class Summary:
    """Location and spread of a sample: median, quartiles (type 7), IQR, coefficient of variation."""

    n: int
    median: float
    q1: float
    q3: float
    iqr: float
    cv: float


def median_iqr(samples: Sequence[float] | np.ndarray) -> tuple[float, float, float]:
    """Return ``(median, q1, q3)`` with type-7 quartiles; NaNs for an empty sample."""
    x = finite_array(samples)
    if x.size == 0:
        return (math.nan, math.nan, math.nan)
    q1, med, q3 = np.percentile(x, [25, 50, 75], method=QUARTILE_METHOD)
    return (float(med), float(q1), float(q3))


def iqr(samples: Sequence[float] | np.ndarray) -> float:
    """Interquartile range Q3 - Q1 (type 7, what ``scipy.stats.iqr`` computes); NaN for an empty sample."""
    x = finite_array(samples)
    if x.size == 0:
        return math.nan
    q1, q3 = np.percentile(x, [25, 75], method=QUARTILE_METHOD)
    return float(q3 - q1)


def coefficient_of_variation(samples: Sequence[float] | np.ndarray) -> float:
    """Sample standard deviation (ddof=1) over the mean, as a fraction; NaN with fewer than 2 values."""
    x = finite_array(samples)
    if x.size < 2 or np.mean(x) == 0:
        return math.nan
    return float(np.std(x, ddof=1) / np.mean(x))  # scipy.stats.variation(x, ddof=1)


def summarize_sample(samples: Sequence[float] | np.ndarray) -> Summary:
    """Median, quartiles, IQR and CV of the finite values of ``samples``."""
    x = finite_array(samples)
    med, q1, q3 = median_iqr(x)
    return Summary(n=int(x.size), median=med, q1=q1, q3=q3, iqr=q3 - q1,
                   cv=coefficient_of_variation(x))


def geometric_mean(values: Sequence[float] | np.ndarray) -> float:
    """Geometric mean of the finite, positive ``values``; NaN when there are none."""
    x = finite_array(values)
    x = x[x > 0]
    return float(np.exp(np.mean(np.log(x)))) if x.size else math.nan


def quantile_bands(at: np.ndarray, values: np.ndarray, low_q: float) -> tuple[np.ndarray, ...]:
    """Per distinct ``at`` (sorted): the ``low_q``, 0.5 and ``1 - low_q`` quantiles (type 7) of the ``values`` there,
    as four arrays ``(at, low, median, high)`` (0.25: the IQR; 0: the range): a line figure's band."""
    xs = np.unique(at)
    low, mid, high = np.array([np.quantile(values[at == v], [low_q, 0.5, 1 - low_q]) for v in xs]).T
    return xs, low, mid, high
