"""Without a target, throughput against accuracy: is the fastest configuration that learns also as accurate as any?
Per workload and data set: the **front** (fastest first, each next one slower and more accurate than the one before
by more than the parity margin) and whether the answer is **settled**; "more accurate" is claimed only on *differs*,
paired by seed. Method: docs/reports.md, *What counts as learning*; ``tests/test_tradeoff.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from bench.reporting.analysis.seeds import EQUIVALENT, SeedComparison, SeedIndex, compare_seeds
from bench.reporting.frames.keys import CONFIG_KEY, config_of, rows_of


@dataclass(frozen=True)
class Tradeoff:
    """One workload's throughput/accuracy trade-off (module docstring): the ``front`` (summary rows, fastest first),
    the comparison of its most accurate member with the fastest (``gap``, None when the front is the fastest
    alone) and whether the fastest is the answer (``settled``)."""

    front: pd.DataFrame
    gap: SeedComparison | None
    settled: bool

    @property
    def fastest(self) -> pd.Series:
        return self.front.iloc[0]

    @property
    def most_accurate(self) -> pd.Series:
        return self.front.iloc[-1]


def front(learners: pd.DataFrame, margin_pp: float) -> pd.DataFrame:
    """The configurations no faster one matches in accuracy within ``margin_pp`` (module docstring), fastest
    first."""
    ranked = learners.sort_values(["examples_per_s", "strategy_id"], ascending=[False, True], kind="mergesort")
    kept: list[object] = []
    best = -math.inf
    for i, r in ranked.iterrows():
        acc = float(r["final_val_accuracy"])
        if not kept or (math.isfinite(acc) and 100 * (acc - best) > margin_pp):
            kept.append(i)
            best = max(best, acc) if math.isfinite(acc) else best
    return ranked.loc[kept]


def tradeoff(summary: pd.DataFrame, points: pd.DataFrame, section: int, margin_pp: float,
             index: SeedIndex | None = None) -> Tradeoff | None:
    """The trade-off of one section (a workload on one data set) without a target (None: it has a target, or fewer
    than two configurations learn); ``index``: the analysis' seed index of ``points``, when it has one."""
    rows = rows_of(summary, section)
    learners = rows[rows["learns"]] if len(rows) else rows
    if len(learners) < 2 or learners["target_accuracy"].map(math.isfinite).any():
        return None
    found = front(learners, margin_pp)
    if len(found) == 1:
        return Tradeoff(found, None, True)
    index = index or SeedIndex(rows_of(points, section), CONFIG_KEY)
    best, fast = found.iloc[-1], found.iloc[0]
    gap = compare_seeds(index, config_of(best), config_of(fast),
                        len(learners) - 1, margin_pp)
    return Tradeoff(found, gap, gap.verdict == EQUIVALENT)
