"""bench.stats against textbook values (quartiles: Hyndman & Fan type 7, numpy "linear")."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench import stats

# https://en.wikipedia.org/wiki/Quartile#Example_1 and #Example_2
WIKI_1 = [6, 7, 15, 36, 39, 40, 41, 42, 43, 47, 49]
WIKI_2 = [7, 15, 36, 39, 40, 41]


def test_quartiles_wikipedia_example_1_type7():
    # Type 7 (linear interpolation, R/Excel QUARTILE.INC default) gives Wikipedia's "method 2" values here.
    assert stats.median_iqr(WIKI_1) == (40.0, 25.5, 42.5)
    assert stats.iqr(WIKI_1) == 17.0


def test_quartiles_wikipedia_example_2_type7():
    med, q1, q3 = stats.median_iqr(WIKI_2)
    assert (med, q1, q3) == (37.5, 20.25, 39.75)
    assert stats.iqr(WIKI_2) == pytest.approx(19.5)


def test_quartile_excel_quartile_inc_doc_example():
    # Microsoft's QUARTILE.INC documentation: QUARTILE.INC({1,2,4,7,8,9,10,12}, 1) = 3.5
    assert stats.median_iqr([1, 2, 4, 7, 8, 9, 10, 12])[1] == 3.5


def test_quartiles_ignore_order_and_missing_values():
    shuffled = [43, None, 6, 49, 15, float("nan"), 36, 7, 39, 47, 40, 41, 42]
    assert stats.median_iqr(shuffled) == (40.0, 25.5, 42.5)
    assert all(math.isnan(v) for v in stats.median_iqr([]))


def test_coefficient_of_variation_textbook():
    # Wikipedia "Standard deviation" example: mean 5, sample variance 32/7.
    data = [2, 4, 4, 4, 5, 5, 7, 9]
    assert stats.coefficient_of_variation(data) == pytest.approx(math.sqrt(32 / 7) / 5)
    assert math.isnan(stats.coefficient_of_variation([3.0]))


def test_summarize_sample():
    s = stats.summarize_sample(WIKI_1)
    assert (s.n, s.median, s.q1, s.q3, s.iqr) == (11, 40.0, 25.5, 42.5, 17.0)


def test_ratio_of_medians_is_exact_and_deterministic():
    a = [2.0, 2.1, 1.9, 2.05, 1.95]
    b = [1.0, 1.02, 0.98, 1.01, 0.99]
    first = stats.ratio_of_medians_ci(a, b)
    assert first.ratio == pytest.approx(2.0)
    assert first == stats.ratio_of_medians_ci(a, b)  # fixed seed
    assert first.low <= first.ratio <= first.high
    assert first.significant
    assert first.format() == f"2.00x [{first.low:.2f}, {first.high:.2f}]"


def test_ratio_interval_covers_true_ratio_on_seeded_samples():
    rng = np.random.default_rng(7)
    a = 2.0 * rng.lognormal(0, 0.05, 12)
    b = 1.0 * rng.lognormal(0, 0.05, 12)
    ci = stats.ratio_of_medians_ci(a, b)
    assert ci.low < 2.0 < ci.high


def test_same_distribution_is_not_significant():
    rng = np.random.default_rng(1)
    ci = stats.ratio_of_medians_ci(rng.normal(3, 0.1, 8), rng.normal(3, 0.1, 8))
    assert ci.low < 1.0 < ci.high
    assert not ci.significant
    assert ci.format().startswith("~")


@pytest.mark.parametrize("num,den", [([1.0], [2.0, 2.1]), ([1.0, 1.1], [2.0]), ([], [1.0, 2.0])])
def test_tiny_samples_give_infinite_interval_not_significant(num, den):
    ci = stats.ratio_of_medians_ci(num, den)
    assert math.isinf(ci.low) and math.isinf(ci.high)
    assert not ci.significant


def test_tiny_sample_formats():
    assert stats.ratio_of_medians_ci([1.0], [2.0]).format() == "~0.50x [n<2]"
    assert stats.ratio_of_medians_ci([], [2.0]).format() == "n/a"


def test_no_spread_gives_point_interval():
    ci = stats.ratio_of_medians_ci([2.0, 2.0, 2.0], [1.0, 1.0])
    assert (ci.ratio, ci.low, ci.high, ci.significant) == (2.0, 2.0, 2.0, True)


@pytest.mark.parametrize("low,high,expected", [(1.1, 1.3, True), (0.7, 0.9, True), (0.9, 1.1, False),
                                               (1.0, 1.2, False), (-math.inf, math.inf, False),
                                               (math.nan, 2.0, False)])
def test_is_significant(low, high, expected):
    assert stats.is_significant(low, high) is expected
