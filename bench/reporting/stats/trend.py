"""Whether a process's steady epochs still trend (falling: still warming up; rising: drifting, e.g. a clock or a
memory pool), so that their median is not read as a steady state. Pure arithmetic, no frames.

The test: the least-squares line through the k steady epochs' times of one process, its change from the first
epoch to the last as a share of their mean (:func:`drift`), against :func:`drift_threshold`: at least
:data:`MIN_DRIFT` (a change too small to matter) and at least :data:`Z_TREND` standard deviations of that change
under no trend, epochs independent with a coefficient of variation :data:`EPOCH_CV`. The false-flag rate this gives
on trendless epochs is simulated in tests/test_trend.py (A/A: normal epochs at that spread; about 1 % of processes
at each k from 2 to 10), and written in docs/statistics.md.
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
