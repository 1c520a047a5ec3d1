"""Adaptive repeats (``repeats=auto``): after each round, which configurations get another repeat, and why each stopped.
A stop is final: **out** (below the leader by more than the noise allows), **target** missed (or not learning, or no
ok repeat), **separated** (the leader, its speedup settled), **max** repeats or **budget**. Decisions are a function
of the records alone (each carries ``race``), so a resumed run and the report decide as the run did.
Method and its measured error rates: docs/statistics.md, *Adaptive repeats*; ``tests/test_race.py``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from bench.reporting.frames.keys import config_key, plain_rows
from bench.reporting.frames.speedups import DEFAULT_BASELINE, Candidates, baseline_rows, pick_baseline
from bench.reporting.frames.summary import summarize
from bench.reporting.stats.paired import PARITY_MARGIN_PP
from bench.reporting.stats.ratio import repeat_ratio_ci
from bench.reporting.stats.sample import ALPHA, MIN_REPEATS

SIGMA_PRIOR = 0.16  # log-throughput SD between processes assumed until the run measures its own (16 % CV here)
MIN_DF = 4  # pooled degrees of freedom below which SIGMA_PRIOR is a floor
RUNNING = "running"
# why a configuration stands where it does: a code first, then its numbers (words: bench.reporting.render.words)
LEADER = "leader"  # () a running leader
NOISE = "noise"  # () within the noise of the leader
MORE_ACCURATE = "more_accurate"  # () slower but more accurate than the leader, and no target
OUT = "out"  # (repeats,) its interval below the leader's
SEPARATED = "separated"  # (repeats,)
NO_OK = "no_ok_repeat"  # (repeats, status)
NOT_LEARNING = "not_learning"  # (repeats,)
MISSES_TARGET = "misses_target"  # (seeds that missed, seeds)
BASELINE_OF_RUNNING = "baseline_of_running"  # (its own reason,) kept running: seeds stay paired
MAX = "max"  # (max_repeats,)
BUDGET = "budget"  # (budget_s, spent_s)


@dataclass(frozen=True)
class Standing:
    """Where one configuration stands after a round: ``state`` (a code: :data:`RUNNING`, :data:`OUT`,
    :data:`MISSES_TARGET`, :data:`NOT_LEARNING`, :data:`NO_OK`, :data:`SEPARATED`, :data:`MAX`, :data:`BUDGET`), the
    repeats it has and why (a code and its numbers)."""

    config: tuple[Any, ...]  # its CONFIG_KEY values
    repeats: int
    state: str
    reason: tuple[Any, ...]

    @property
    def running(self) -> bool:
        return self.state == RUNNING


def pooled_sigma(rates: list[tuple[float, ...]]) -> tuple[float, int]:
    """(pooled SD of log throughput within configurations, its degrees of freedom) over ``rates`` (each a
    configuration's examples/s per repeat); the SD is at least :data:`SIGMA_PRIOR` below :data:`MIN_DF` degrees
    of freedom."""
    ss, df = 0.0, 0
    for r in rates:
        logs = np.log([v for v in r if v > 0 and math.isfinite(v)])
        if len(logs) >= 2:
            ss += float(np.sum((logs - logs.mean()) ** 2))
            df += len(logs) - 1
    sigma = math.sqrt(ss / df) if df else 0.0
    return (sigma if df >= MIN_DF else max(sigma, SIGMA_PRIOR)), df


@lru_cache(maxsize=256)
def t_critical(alpha: float, df: int) -> float:
    """One-sided critical value at level ``alpha``: Student's t on ``df`` degrees of freedom (infinite without any:
    nothing is told apart before the run has measured its own spread). Cached: a look asks for the same few levels
    and degrees of freedom again and again (scipy's ppf is ~0.3 ms a call)."""
    from scipy import stats

    return float(stats.t.ppf(1 - alpha, df)) if df >= 1 else math.inf


def _log_mean(rates: tuple[float, ...]) -> float:
    logs = [math.log(v) for v in rates if v > 0 and math.isfinite(v)]
    return sum(logs) / len(logs) if logs else -math.inf


def _cannot_answer(row: Mapping[str, Any]) -> tuple[str, tuple[Any, ...]] | None:
    """(state, reason) when a configuration cannot be its workload's answer whatever more repeats show."""
    n = int(row["n_points"])
    if row["status"] != "ok":
        return NO_OK, (NO_OK, n, str(row["status"]))
    seeds = int(row.get("n_seeds") or 0)
    if seeds >= MIN_REPEATS and row["not_learning"]:
        return NOT_LEARNING, (NOT_LEARNING, n)
    target = row.get("target_accuracy", math.nan)
    if seeds >= MIN_REPEATS and math.isfinite(target) and 2 * int(row["n_reached"]) < seeds:
        return MISSES_TARGET, (MISSES_TARGET, seeds - int(row["n_reached"]), seeds)
    return None


class Race:
    """The race over one run's summary (:func:`bench.reporting.frames.summary.summarize` of its points so far)."""

    def __init__(self, summary: pd.DataFrame, max_repeats: int, baseline: str = DEFAULT_BASELINE,
                 alpha: float = ALPHA, margin_pp: float = PARITY_MARGIN_PP) -> None:
        self.max_repeats, self.alpha, self.margin_pp = max_repeats, alpha, margin_pp
        self.sigma, self.df = pooled_sigma([tuple(r) for r in summary["repeat_rates"]]) if len(summary) else (
            SIGMA_PRIOR, 0)
        self.candidates = Candidates(baseline_rows(summary, baseline)) if len(summary) else None
        # the rows as plain dictionaries, once: a look reads every row several times (pandas' row access was most
        # of a look's time: tests/test_race.py runs thousands of looks)
        self.rows = plain_rows(summary)

    def z(self, leader: Mapping[str, Any], other: Mapping[str, Any]) -> float:
        """How many standard errors ``other``'s mean log throughput lies below ``leader``'s."""
        n_l, n_o = len(leader["repeat_rates"]), len(other["repeat_rates"])
        gap = _log_mean(leader["repeat_rates"]) - _log_mean(other["repeat_rates"])
        return gap / (self.sigma * math.sqrt(1 / n_l + 1 / n_o)) if self.sigma > 0 else math.inf * gap

    def level(self, comparisons: int) -> float:
        """The one-sided level one comparison is tested at: half of ``alpha`` (the leader is whichever is ahead, so
        the gap's sign is chosen by the data: the test is two-sided in effect), over the looks that can stop a
        configuration (after repeats 2 .. max_repeats - 1: none before the run has measured its spread, and none is
        needed after the last) and over ``comparisons`` (Holm's step-down: the i-th most distant of m
        configurations at ``alpha / (2 * looks * (m - i))``)."""
        return self.alpha / (2 * max(1, self.max_repeats - 2) * max(1, comparisons))

    def standings(self, spent_s: float = 0.0, budget_s: float = 0.0,
                  stopped: dict[tuple[Any, ...], Standing] | None = None) -> dict[tuple[Any, ...], Standing]:
        """Every configuration's standing; ``spent_s``: the run's point time so far (s), ``budget_s``: its budget
        (0: none); ``stopped``: the configurations an earlier look stopped (a stop is final: they keep it and are
        no longer compared as a leader)."""
        stopped = stopped or {}
        found: dict[tuple[Any, ...], Standing] = {}
        groups: dict[int, list[dict[str, Any]]] = {}
        for r in self.rows:  # each section (a workload on one data set) is raced on its own, in order
            groups.setdefault(int(r["section"]), []).append(r)
        for group in sorted(groups):
            found.update(self._workload(groups[group], set(stopped)))
        rows = {config_key(r): r for r in self.rows}
        found.update({key: st for key, st in stopped.items() if key in rows})
        keep: set[tuple[Any, ...]] = set()
        for key, st in found.items():  # each running configuration's baseline runs with it: seeds stay paired
            if st.running and self.candidates is not None:
                base = pick_baseline(rows[key], self.candidates)
                if base is not None and config_key(base) != key:
                    keep.add(config_key(base))
        for key in keep:
            st = found[key]
            if not st.running and key not in stopped and st.state != NO_OK:
                found[key] = Standing(key, st.repeats, RUNNING, (BASELINE_OF_RUNNING, st.reason))
        for key, st in found.items():
            if st.running and st.repeats >= self.max_repeats:
                found[key] = Standing(key, st.repeats, MAX, (MAX, self.max_repeats))
            elif st.running and budget_s and spent_s >= budget_s:
                found[key] = Standing(key, st.repeats, BUDGET, (BUDGET, budget_s, spent_s))
        return found

    def _workload(self, g: list[dict[str, Any]], stopped: set[tuple[Any, ...]]) -> dict[tuple[Any, ...], Standing]:
        out: dict[tuple[Any, ...], Standing] = {}
        eligible = []
        for row in g:
            stop = _cannot_answer(row)
            n = int(row["n_points"])
            if config_key(row) in stopped:
                continue
            if stop is not None:
                out[config_key(row)] = Standing(config_key(row), n, *stop)
            else:
                eligible.append(row)
        if not eligible:
            return out
        leader = max(eligible, key=lambda r: (_log_mean(r["repeat_rates"]), -int(r["strategy_id"])))
        no_target = not any(math.isfinite(float(r["target_accuracy"])) for r in eligible)
        others = sorted((r for r in eligible if r is not leader), key=lambda r: -self.z(leader, r))
        still, holding = [leader], False
        for i, row in enumerate(others):  # Holm: the most distant first; once one holds, the rest hold too
            n = int(row["n_points"])
            holding = holding or not self.z(leader, row) > t_critical(self.level(len(others) - i), self.df)
            if holding:
                out[config_key(row)] = Standing(config_key(row), n, RUNNING, (NOISE,))
                still.append(row)
            elif no_target and row["final_val_accuracy"] > leader["final_val_accuracy"] + self.margin_pp / 100:
                # slower but more accurate, and no target says which accuracy counts: the trade-off is the answer
                out[config_key(row)] = Standing(config_key(row), n, RUNNING, (MORE_ACCURATE,))
                still.append(row)
            else:
                key = config_key(row)
                out[key] = Standing(key, n, OUT, (OUT, n))
        n_l = int(leader["n_points"])
        if len(still) == 1 and self._judged(leader, no_target) and self._speedup_settled(leader):
            out[config_key(leader)] = Standing(config_key(leader), n_l, SEPARATED, (SEPARATED, n_l))
        else:
            out[config_key(leader)] = Standing(config_key(leader), n_l, RUNNING, (LEADER,))
        return out

    def _judged(self, leader: Mapping[str, Any], no_target: bool) -> bool:
        """Whether the report will rank the leader as it stands: :data:`MIN_REPEATS` seeds, or fewer where it already
        learns by the report's rule (its target reached in at least half its seeds; without a target, as its own
        baseline, since otherwise its accuracy is judged against its baseline over seeds)."""
        if int(leader["n_points"]) >= MIN_REPEATS:
            return True
        if leader["not_learning"]:
            return False
        if not no_target:
            return 2 * int(leader["n_reached"]) >= int(leader["n_seeds"])
        base = pick_baseline(leader, self.candidates) if self.candidates is not None else None
        return base is None or config_key(base) == config_key(leader)

    def _speedup_settled(self, leader: Mapping[str, Any]) -> bool:
        """The leader's speedup over its baseline is settled: it is its own baseline, it has none, or both have
        :data:`MIN_REPEATS` repeats and the adjusted interval of the ratio excludes 1."""
        base = pick_baseline(leader, self.candidates) if self.candidates is not None else None
        if base is None or config_key(base) == config_key(leader):
            return True
        # the report's own interval (Welch on the pair, at the raced level): settled is what the report will claim
        return repeat_ratio_ci(leader["repeat_rates"], base["repeat_rates"], 1 - self.alpha / self.max_repeats
                               ).significant


def standings_of(points: pd.DataFrame, max_repeats: int, baseline: str = DEFAULT_BASELINE,
                 budget_s: float = 0.0, margin_pp: float = PARITY_MARGIN_PP,
                 looks: int | None = None) -> dict[tuple[Any, ...], Standing]:
    """The race's standings after look ``looks`` (default: after every repeat recorded), decided look by look as the
    run decided them: look k sees the repeats before k (``repeat < k``), and a configuration stopped at a look stays
    stopped. ``points``: a :func:`bench.reporting.frames.points.points_frame`."""
    last = int(points["repeat"].max()) + 1 if len(points) else 0
    stopped: dict[tuple[Any, ...], Standing] = {}
    found: dict[tuple[Any, ...], Standing] = {}
    for k in range(1, min(last, looks or last) + 1):
        seen = points[points["repeat"] < k]
        spent = float(np.nansum(seen["point_wall_s"]))
        found = Race(summarize(seen, baseline), max_repeats, baseline, margin_pp=margin_pp).standings(
            spent, budget_s, stopped)
        stopped.update({key: st for key, st in found.items() if not st.running and key not in stopped})
    return found
