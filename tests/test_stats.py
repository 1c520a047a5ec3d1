"""bench.reporting.stats against textbook values (quartiles: Hyndman & Fan type 7, numpy "linear")."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.reporting.render.text import ratio_text
from bench.reporting.stats import ratio, sample

# https://en.wikipedia.org/wiki/Quartile#Example_1 and #Example_2
WIKI_1 = [6, 7, 15, 36, 39, 40, 41, 42, 43, 47, 49]
WIKI_2 = [7, 15, 36, 39, 40, 41]


def test_quartiles_wikipedia_example_1_type7():
    # Type 7 (linear interpolation, R/Excel QUARTILE.INC default) gives Wikipedia's "method 2" values here.
    assert sample.median_iqr(WIKI_1) == (40.0, 25.5, 42.5)
    assert sample.iqr(WIKI_1) == 17.0


def test_quartiles_wikipedia_example_2_type7():
    med, q1, q3 = sample.median_iqr(WIKI_2)
    assert (med, q1, q3) == (37.5, 20.25, 39.75)
    assert sample.iqr(WIKI_2) == pytest.approx(19.5)


def test_quartile_excel_quartile_inc_doc_example():
    # Microsoft's QUARTILE.INC documentation: QUARTILE.INC({1,2,4,7,8,9,10,12}, 1) = 3.5
    assert sample.median_iqr([1, 2, 4, 7, 8, 9, 10, 12])[1] == 3.5


def test_quartiles_ignore_order_and_missing_values():
    shuffled = [43, None, 6, 49, 15, float("nan"), 36, 7, 39, 47, 40, 41, 42]
    assert sample.median_iqr(shuffled) == (40.0, 25.5, 42.5)
    assert all(math.isnan(v) for v in sample.median_iqr([]))


def test_coefficient_of_variation_textbook():
    # Wikipedia "Standard deviation" example: mean 5, sample variance 32/7.
    data = [2, 4, 4, 4, 5, 5, 7, 9]
    assert sample.coefficient_of_variation(data) == pytest.approx(math.sqrt(32 / 7) / 5)
    assert math.isnan(sample.coefficient_of_variation([3.0]))


def test_summarize_sample():
    s = sample.summarize_sample(WIKI_1)
    assert (s.n, s.median, s.q1, s.q3, s.iqr) == (11, 40.0, 25.5, 42.5, 17.0)


def test_repeat_ratio_is_a_ratio_of_geometric_means_with_a_welch_interval():
    a = [2.0, 2.1, 1.9, 2.05, 1.95]
    b = [1.0, 1.02, 0.98, 1.01, 0.99]
    ci = ratio.repeat_ratio_ci(a, b)
    la, lb = np.log(a), np.log(b)
    assert ci.ratio == pytest.approx(math.exp(la.mean() - lb.mean()))
    # Welch's t interval on the logs, cross-checked against scipy's own implementation
    from scipy import stats as sps

    ref = sps.ttest_ind(la, lb, equal_var=False).confidence_interval(0.95)
    assert (ci.low, ci.high) == pytest.approx((math.exp(ref.low), math.exp(ref.high)))
    assert ci == ratio.repeat_ratio_ci(a, b)  # deterministic
    assert ci.significant and ratio_text(ci) == f"{ci.ratio:.2f}x [{ci.low:.2f}, {ci.high:.2f}]"


def test_interval_contains_one_is_marked_not_significant():
    ci = ratio.repeat_ratio_ci([3.0, 3.1, 2.9, 3.05], [3.02, 2.95, 3.08, 2.99])
    assert ci.low < 1.0 < ci.high and not ci.significant
    assert ratio_text(ci).startswith("~") and "[" in ratio_text(ci)


@pytest.mark.parametrize(("num", "den", "text"), [
    ([1.0], [2.0], "0.500x (n=1)"),
    ([1.0, 1.1], [2.0, 2.1], "0.512x (n=2)"),
    ([1.0, 1.1, 1.0], [2.0], "0.516x (n=3 vs 1)"),
])
def test_fewer_than_three_repeats_per_side_make_no_claim(num, den, text):
    ci = ratio.repeat_ratio_ci(num, den)
    assert math.isnan(ci.low) and math.isnan(ci.high)
    assert not ci.significant and ratio_text(ci) == text  # no ~, no interval: nothing is claimed


def test_no_data_gives_na():
    assert ratio_text(ratio.repeat_ratio_ci([], [2.0])) == "n/a"


def test_no_spread_gives_point_interval():
    ci = ratio.repeat_ratio_ci([2.0, 2.0, 2.0], [1.0, 1.0, 1.0])
    assert (ci.ratio, ci.low, ci.high, ci.significant) == (2.0, 2.0, 2.0, True)


def _simulated_repeat_medians(rng: np.random.Generator, mean_s: float, repeats: int = 5, epochs: int = 5,
                              epoch_cv: float = 0.03, repeat_cv: float = 0.06) -> np.ndarray:
    """Per-repeat median of the steady epochs (2..n) of ``repeats`` simulated processes: each process has
    its own level (repeat-to-repeat CV), each epoch its own noise around it (epoch CV)."""
    level = mean_s * rng.lognormal(0.0, repeat_cv, repeats)
    epoch_s = level[:, None] * rng.lognormal(0.0, epoch_cv, (repeats, epochs))
    return np.median(epoch_s[:, 1:], axis=1)


A_A_TRIALS = 4000


def test_a_a_comparisons_are_marked_significant_at_most_5_percent_of_the_time():
    rng = np.random.default_rng(2026)
    hits = sum(ratio.repeat_ratio_ci(_simulated_repeat_medians(rng, 2.0), _simulated_repeat_medians(rng, 2.0))
               .significant for _ in range(A_A_TRIALS))
    rate = hits / A_A_TRIALS
    sampling_error = math.sqrt(0.05 * 0.95 / A_A_TRIALS)  # binomial standard error at the nominal 5 %
    assert rate <= 0.05 + 3 * sampling_error, f"{rate:.3f} of A/A comparisons marked significant"
    assert rate >= 0.05 - 3 * sampling_error, f"{rate:.3f}: the interval is needlessly wide"


def test_a_true_20_percent_difference_is_found():
    rng = np.random.default_rng(11)
    found = [ratio.repeat_ratio_ci(_simulated_repeat_medians(rng, 2.4), _simulated_repeat_medians(rng, 2.0))
             for _ in range(1000)]
    power = sum(ci.significant and ci.ratio > 1 for ci in found) / len(found)
    assert power >= 0.9, f"a real 1.2x difference found in only {power:.0%} of trials"
    assert np.median([ci.ratio for ci in found]) == pytest.approx(1.2, rel=0.02)


def test_pooling_epochs_of_one_process_would_be_overconfident():
    """Why repeats are the sample: the old bootstrap over pooled epochs of 1 repeat x 3 epochs called an
    A/A difference significant far more often than 5 %; the repeat rule makes no claim there at all."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        a, b = _simulated_repeat_medians(rng, 2.0, repeats=1, epochs=3), _simulated_repeat_medians(rng, 2.0, 1, 3)
        assert not ratio.repeat_ratio_ci(a, b).significant


@pytest.mark.parametrize("low,high,expected", [(1.1, 1.3, True), (0.7, 0.9, True), (0.9, 1.1, False),
                                               (1.0, 1.2, False), (-math.inf, math.inf, False),
                                               (math.nan, 2.0, False)])
def test_is_significant(low, high, expected):
    assert ratio.is_significant(low, high) is expected


def test_finite_median_is_numpys_median_of_the_finite_values():
    """finite_median is computed in Python for speed: it must be numpy's median, bit for bit (even counts: the
    mean of the two middle values), ignoring NaN and infinities."""
    rng = np.random.default_rng(0)
    pool = np.array([np.nan, np.inf, -np.inf, 1.0, 2.0])  # non-finite values and ties
    for _ in range(3000):
        n = int(rng.integers(0, 9))
        v = np.where(rng.random(n) < 0.5, rng.lognormal(0, 3, size=n), rng.choice(pool, size=n))
        finite = v[np.isfinite(v)]
        got = sample.finite_median(v.tolist())
        assert (math.isnan(got) and not finite.size) or got == float(np.median(finite))
