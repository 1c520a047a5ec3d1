"""The paired accuracy test (McNemar, exact) and Holm's correction, by simulation on identical examples.

Two models trained on identical batches agree on most validation examples; only the discordant ones say
anything about a difference. The simulation draws, per example, whether each model is right from a joint
distribution (both right / only A / only B / both wrong), so the pairing is real.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.reporting.stats import ALPHA, holm, mcnemar

SIMS = 1000


def draw(rng: np.random.Generator, n: int, both: float, only_a: float, only_b: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-example correctness of two models on the same ``n`` examples."""
    u = rng.random(n)
    a = u < both + only_a
    b = (u < both) | ((u >= both + only_a) & (u < both + only_a + only_b))
    return a, b


def sampling_error(p: float, sims: int) -> float:
    return math.sqrt(p * (1 - p) / sims)


def test_mcnemar_counts_and_exact_p_value_by_hand() -> None:
    a = np.array([1, 1, 1, 1, 1, 1, 0, 0, 1, 0], dtype=bool)
    b = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 1], dtype=bool)
    t = mcnemar(a, b)
    assert (t.n, t.only_a, t.only_b) == (10, 3, 1)
    assert t.diff_pp == pytest.approx(20.0) and t.agreement == pytest.approx(0.6)
    assert t.p == pytest.approx(2 * (1 + 4) / 16)  # two-sided binomial: P(X <= 1) + P(X >= 3), X ~ Bin(4, 1/2)
    assert mcnemar(a, a).p == 1.0  # no discordant pair: no evidence of a difference
    with pytest.raises(ValueError, match="same examples"):
        mcnemar(a, b[:5])


def test_holm_adjusts_step_down_and_keeps_order() -> None:
    assert holm([0.01, 0.04, 0.03, math.nan]) == pytest.approx([0.03, 0.06, 0.06, math.nan], nan_ok=True)
    assert holm([]) == []


def test_a_a_false_positive_rate_is_at_most_alpha() -> None:
    """Equal true accuracy (85 %), 10 % of 1,024 examples discordant: the test rejects at most 5 % of the time,
    within the simulation's sampling error."""
    rng = np.random.default_rng(1)
    rejected = sum(mcnemar(*draw(rng, 1024, 0.80, 0.05, 0.05)).p < ALPHA for _ in range(SIMS)) / SIMS
    assert rejected <= ALPHA + 2 * sampling_error(ALPHA, SIMS)


def test_eight_configurations_of_equal_accuracy_flag_one_at_most_alpha_of_the_time() -> None:
    """The report compares every configuration with one paired reference and corrects for the number of
    comparisons: with 8 configurations no better or worse than the reference, some flag appears in at most 5 %
    of runs (the old rule, distance from the best of many, flagged one in most runs)."""
    rng = np.random.default_rng(2)
    runs = 600
    flagged = 0
    for _ in range(runs):
        base = rng.random(1024) < 0.85
        pvalues = []
        for _ in range(8):  # each configuration re-draws 10 % of the examples at the same accuracy
            redraw = rng.random(1024) < 0.10
            pvalues.append(mcnemar(np.where(redraw, rng.random(1024) < 0.85, base), base).p)
        flagged += any(p < ALPHA for p in holm(pvalues))
    assert flagged / runs <= ALPHA + 2 * sampling_error(ALPHA, runs)


def test_power_against_a_three_point_gap() -> None:
    """A true gap of 3 pp (85 % vs 82 %) with 9 % of 1,024 examples discordant is found at least 80 % of the
    time; with a quarter of the examples the same gap mostly is not (the test can fail to find a real gap when
    the validation set is small, and says "not significant" rather than "equal")."""
    rng = np.random.default_rng(3)
    power = sum(mcnemar(*draw(rng, 1024, 0.79, 0.06, 0.03)).p < ALPHA for _ in range(SIMS)) / SIMS
    assert power >= 0.80
    small = sum(mcnemar(*draw(rng, 256, 0.79, 0.06, 0.03)).p < ALPHA for _ in range(SIMS)) / SIMS
    assert small < 0.5
