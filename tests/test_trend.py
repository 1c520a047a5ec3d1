"""A steady state that still trends is flagged (issue 53), with its false-flag rate measured here by simulation."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from bench.reporting.stats.trend import EPOCH_CV, MIN_DRIFT, drift, drift_threshold, trending


def test_drift_is_the_fitted_lines_change_over_the_mean_redone_by_hand() -> None:
    # 1, 2, 3 s: slope 1 s an epoch, 2 s from first to last, mean 2 s -> +100 %
    assert drift([1.0, 2.0, 3.0]) == pytest.approx(1.0)
    assert drift([4.0, 4.0, 4.0, 4.0]) == 0.0
    assert math.isnan(drift([1.0])) and math.isnan(drift([]))
    # the H200 run's PyTorch catsdogs_cnn steady epochs (s): falling 22 % over seven epochs, past 16 %
    torch = [4.847416, 4.827545, 4.548895, 4.294039, 4.113375, 4.008232, 4.060462]
    assert drift(torch) == pytest.approx(-0.2167, abs=1e-3) and drift_threshold(7) == pytest.approx(0.1606, abs=1e-3)
    assert trending(torch)
    # and JAX fashion_cnn's first process at spe6: 0.43 -> 0.65 s in four epochs, +36 %
    assert trending([0.433265, 0.546138, 0.654464, 0.618381])
    assert not trending([0.427488, 0.521167, 0.427546, 0.427626])  # one slow epoch is not a trend


def test_the_threshold_is_at_least_ten_percent_and_wider_with_fewer_epochs() -> None:
    limits = [drift_threshold(k) for k in range(2, 11)]
    assert all(a >= b for a, b in itertools.pairwise(limits))
    assert min(limits) >= MIN_DRIFT and drift_threshold(2) == pytest.approx(2.576 * EPOCH_CV * math.sqrt(2))
    assert drift_threshold(1) == math.inf


@pytest.mark.parametrize("k", [2, 3, 4, 7, 10])
def test_trendless_epochs_are_flagged_about_one_time_in_a_hundred(k: int) -> None:
    """A/A: steady epochs without a trend, normal at the within-process spread (5.5 %): the share of processes
    flagged is the false-flag rate (docs/statistics.md)."""
    rng = random.Random(k)
    n = 20_000
    flagged = sum(trending([1.0 + rng.gauss(0, EPOCH_CV) for _ in range(k)]) for _ in range(n))
    assert flagged / n < 0.015, flagged / n


def test_a_real_trend_of_a_fifth_is_found_with_five_epochs_or_more() -> None:
    """The power side: a 20 % fall over the steady epochs at the same noise is flagged most of the time."""
    rng = random.Random(7)
    n, k = 2_000, 5
    found = sum(trending([(1.0 - 0.2 * i / (k - 1)) * (1 + rng.gauss(0, EPOCH_CV)) for i in range(k)])
                for _ in range(n))
    assert found / n > 0.6, found / n
