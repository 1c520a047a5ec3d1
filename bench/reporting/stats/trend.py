"""Whether a process's steady epochs still trend (falling: still warming up; rising: drifting), so their median is not
read as a steady state: :func:`drift` against :func:`drift_threshold`. Pure arithmetic, no frames. Method and its
false-flag rate: docs/reports.md, *The results table*; ``tests/test_trend.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# The spread of a step or epoch time within one process: five repeats inside one process on the 2-core CPU box,
# 5.5 % (docs/statistics.md); analysis.limits reads the same figure for its within-process intervals.
EPOCH_CV = 0.055
MIN_DRIFT = 0.10  # a steady state changing less than 10 % from its first epoch to its last is not flagged
Z_TREND = 2.576  # 99 % two-sided: about 1 % of trendless processes flagged


def drift(times: Sequence[float]) -> float:
    """The least-squares line's change over ``times`` (s, one per steady epoch in order) from the first epoch to the
    last, as a share of their mean: -0.2 is 20 % faster at the end; NaN with fewer than two finite times."""
    xs = [t for t in times if math.isfinite(t)]
    k = len(xs)
    if k < 2:
        return math.nan
    mean = sum(xs) / k
    if mean <= 0:
        return math.nan
    centre = (k - 1) / 2
    slope = sum((i - centre) * (t - mean) for i, t in enumerate(xs)) / sum((i - centre) ** 2 for i in range(k))
    return slope * (k - 1) / mean


def drift_threshold(k: int, cv: float = EPOCH_CV, z: float = Z_TREND) -> float:
    """The |drift| above which ``k`` steady epochs are said to trend: max(MIN_DRIFT, z x the drift's standard
    deviation without a trend, ``cv`` x sqrt(12 (k-1)^2 / (k (k^2 - 1))))."""
    if k < 2:
        return math.inf
    sd = cv * math.sqrt(12 * (k - 1) ** 2 / (k * (k * k - 1)))
    return max(MIN_DRIFT, z * sd)


def trending(times: Sequence[float]) -> bool:
    """Whether one process's steady epoch times (s, in order) still trend: :func:`drift` past
    :func:`drift_threshold`."""
    d = drift(times)
    return math.isfinite(d) and abs(d) > drift_threshold(sum(1 for t in times if math.isfinite(t)))
