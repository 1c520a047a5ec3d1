"""Accuracy with the training run as the unit: two configurations compared across seeds, paired by seed (the interval
is :mod:`bench.reporting.stats.paired`'s): **differs**, **equivalent** (within ± ``margin_pp``), **inconclusive**, or
**no claim** under :data:`~bench.reporting.stats.sample.MIN_REPEATS` seeds; beside it the same-seed agreement.
Method: docs/statistics.md (a repeat is a training run); docs/reports.md, *What counts as learning*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bench.predictions import Predictions, paired
from bench.reporting.stats.paired import interval
from bench.reporting.stats.sample import MIN_REPEATS, finite_median

DIFFERS, EQUIVALENT, INCONCLUSIVE, NO_CLAIM = "differs", "equivalent", "inconclusive", "no_claim"  # render words them


def verdict(seeds: int, low: float, high: float, margin_pp: float) -> str:
    """differs / equivalent / inconclusive / no claim (module docstring)."""
    if seeds < MIN_REPEATS or not (math.isfinite(low) and math.isfinite(high)):
        return NO_CLAIM
    if low > 0 or high < 0:
        return DIFFERS
    if -margin_pp <= low and high <= margin_pp:
        return EQUIVALENT
    return INCONCLUSIVE


@dataclass(frozen=True)
class SeedComparison:
    """One configuration against another, paired by seed: the per-seed differences (pp, by seed), their mean and
    interval (pp), the adjusted p, the verdict and the median same-seed agreement (fraction; NaN without
    predictions)."""

    diffs: dict[int, float]
    mean_pp: float
    low_pp: float
    high_pp: float
    p: float
    verdict: str
    agreement: float
    same: tuple[int, int] = (0, 0)  # (examples predicted as the same class, examples compared), over the seeds

    @property
    def seeds(self) -> int:
        return len(self.diffs)


class SeedIndex:
    """A frame's rows by configuration, split once (a points frame: its ok points, by repeat): each configuration's
    values and predictions per seed are then read from its own few rows (a report compares every configuration
    with a reference); report.json reads its parity rows the same way (``only_ok=False``). Per-seed values,
    predictions and comparisons are kept once computed: the answer, the parity table and the trade-off ask for the
    same pairs (one index serves a whole analysis: :func:`bench.reporting.verdicts.analyze_frames`)."""

    def __init__(self, points: pd.DataFrame, keys: list[str], only_ok: bool = True) -> None:
        ok = points[points["status"] == "ok"] if only_ok and len(points) else points
        self.keys = keys
        order = ["repeat"] if "repeat" in ok else []
        self.groups = {key: g.sort_values(order) if order else g
                       for key, g in ok.groupby(keys, sort=False, dropna=False)} if len(ok) else {}
        self._values: dict[tuple[Any, ...], pd.Series] = {}
        self._predictions: dict[tuple[Any, ...], dict[int, Predictions]] = {}
        self._compared: dict[tuple[Any, ...], SeedComparison] = {}

    def key(self, config: dict[str, object]) -> tuple[Any, ...]:
        return tuple(config[k] for k in self.keys)

    def rows(self, config: dict[str, object]) -> pd.DataFrame:
        """The ok points of one configuration (``config``: column -> value over ``keys``), by repeat."""
        found = self.groups.get(self.key(config))
        return found if found is not None else pd.DataFrame(columns=["seed", "repeat"])

    def values(self, config: dict[str, object], column: str = "final_val_accuracy") -> pd.Series:
        """:func:`seed_values` of one configuration's rows (kept)."""
        key = (*self.key(config), column)
        if key not in self._values:
            self._values[key] = seed_values(self.rows(config), column)
        return self._values[key]

    def predictions(self, config: dict[str, object]) -> dict[int, Predictions]:
        """Seed -> the first stored predictions of that seed among one configuration's points (lowest repeat
        first; kept)."""
        key = self.key(config)
        if key not in self._predictions:
            rows, found = self.rows(config), {}
            if "predictions" in rows:
                for seed, p in zip(rows["seed"], rows["predictions"], strict=True):
                    if isinstance(p, Predictions) and seed not in found:
                        found[seed] = p
            self._predictions[key] = found
        return self._predictions[key]


def seed_values(rows: pd.DataFrame, column: str = "final_val_accuracy") -> pd.Series:
    """``column`` per seed of one configuration's ok points, median over repeats that share a seed (of its finite
    values; a seed without one is left out)."""
    if not len(rows):
        return pd.Series(dtype=float)
    seeds = rows["seed"].to_numpy()
    if seeds.dtype.kind in "iu":  # in Python: a groupby per configuration took 0.26 of 1.9 s of analysis (profiled)
        by: dict[int, list[float]] = {}
        for seed, value in zip(seeds.tolist(), rows[column].to_numpy(dtype=float).tolist(), strict=True):
            by.setdefault(seed, []).append(value)
        found = {seed: m for seed, vs in sorted(by.items()) if not math.isnan(m := finite_median(vs))}
        return pd.Series(list(found.values()), index=pd.Index(list(found), name="seed", dtype=seeds.dtype),
                         name=column, dtype=float)
    return rows[["seed", column]].groupby("seed", sort=True)[column].median().dropna()


def agreement(a: dict[int, Predictions], b: dict[int, Predictions], seeds: list[int]) -> float:
    """Median over ``seeds`` of the share of validation examples the two configurations' models from that seed
    (their stored predictions by seed, :meth:`SeedIndex.predictions`) both got right or both got wrong (NaN
    without stored predictions)."""
    found = []
    for seed in seeds:
        if seed in a and seed in b:
            both = paired(a[seed], b[seed])
            if both is not None:
                found.append(float(np.mean(both[0] == both[1])))
    return float(np.median(found)) if found else math.nan


def same_predictions(a: dict[int, Predictions], b: dict[int, Predictions], seeds: list[int]) -> tuple[int, int]:
    """(validation examples the two configurations' models from one seed predicted as the same class, examples
    compared), summed over ``seeds`` with stored predictions of the same examples; (0, 0) without."""
    same = total = 0
    for seed in seeds:
        if seed in a and seed in b:
            n = min(a[seed].n, b[seed].n)
            if n and np.array_equal(a[seed].labels[:n], b[seed].labels[:n]):
                same += int(np.sum(a[seed].predicted[:n] == b[seed].predicted[:n]))
                total += n
    return same, total


def compare_seeds(index: SeedIndex, a: dict[str, object], b: dict[str, object], comparisons: int,
                  margin_pp: float) -> SeedComparison:
    """Configuration ``a`` against ``b`` (each: column -> value over the index's keys), paired by seed (kept in
    the index: the same pair is asked for by several sections)."""
    key = (index.key(a), index.key(b), max(1, comparisons), margin_pp)
    if key not in index._compared:
        va, vb = index.values(a), index.values(b)
        common = sorted(set(va.index) & set(vb.index))
        diffs = {int(s): 100 * float(va[s] - vb[s]) for s in common}
        mean, low, high, p = interval(list(diffs.values()), max(1, comparisons))
        pa, pb = index.predictions(a), index.predictions(b)
        index._compared[key] = SeedComparison(diffs, mean, low, high, p, verdict(len(diffs), low, high, margin_pp),
                                              agreement(pa, pb, common), same_predictions(pa, pb, common))
    return index._compared[key]
