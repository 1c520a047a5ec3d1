"""A workload's conclusions as data, computed once: the fastest configuration that learns, the pairs it is compared
with (each ratio with its interval, both sides' time to the target), the runner-up, the accuracy given up, what
limits it and its flags. Everything that words an answer reads these; numbers and codes only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bench.reporting.analysis.tradeoff import Tradeoff
from bench.reporting.frames.keys import ORDER, PIPELINE_KEY, row_of, rows_of, same_config, sections
from bench.reporting.frames.speedups import baseline_rows, ratio_ci
from bench.reporting.stats.ratio import RatioCI
from bench.reporting.verdicts import Analysis, best_baseline, fastest_to_target, winner

TIE = 0.95  # a configuration quicker to the target by less than 5 % is a tie with the winner, not named apart

# outcomes of a workload
WINNER, NONE_LEARNS, NONE_FINISHED, TRADEOFF = "winner", "none_learns", "none_finished", "tradeoff"
# flags on the winner's row that qualify its headline
TOO_SHORT, TRENDING, INPUT_BOUND, EARLIER_DEFINITION = "too_short", "trending", "input_bound", "earlier_definition"
ONE_STEP = "one_step"  # a process of it trained with one step in flight (a rerun; its steps wait for each other)


@dataclass(frozen=True)
class Pair:
    """Configuration ``a`` against ``b``: throughput ``a / b`` over processes (``ratio``, with its interval and
    counts), and each side's median training seconds to the target (NaN: not reached, or no target) with the seeds
    that reached it. ``sooner`` is ``b``'s time over ``a``'s (> 1: ``a`` reaches the target sooner)."""

    a: pd.Series
    b: pd.Series
    ratio: RatioCI
    a_target_s: float
    b_target_s: float
    a_reached: int
    b_reached: int

    @property
    def sooner(self) -> float:
        ok = math.isfinite(self.a_target_s) and math.isfinite(self.b_target_s) and self.a_target_s > 0
        return self.b_target_s / self.a_target_s if ok else math.nan

    @property
    def same_settings(self) -> bool:
        """Whether both sides ran at one batch, steps per call, precision and arithmetic."""
        keys = ("global_batch_size", "steps_per_execution", "precision")
        return all(self.a[k] == self.b[k] for k in keys) and _same_maths(self.a, self.b)


@dataclass(frozen=True)
class GivenUp:
    """A configuration that learns and ends more accurate than the winner by more than the parity margin: ``row``,
    and the difference of their median final accuracies in percentage points."""

    row: pd.Series
    diff_pp: float


@dataclass(frozen=True)
class Claims:
    """One workload's conclusions. ``outcome`` is one of :data:`WINNER`, :data:`NONE_LEARNS`, :data:`NONE_FINISHED`,
    :data:`TRADEOFF`; the rest is set where the outcome has a winner."""

    workload: str
    section: int  # a workload on one data set (bench.reporting.frames.keys.SECTION_KEY)
    outcome: str
    n_finished: int
    earlier_definition: bool  # some of its records were made under an earlier definition of the workload
    winner: pd.Series | None = None
    vs_baseline: Pair | None = None  # against the baseline's best configuration that learns (best against best)
    is_baseline: bool = False  # the winner is that configuration
    quickest: pd.Series | None = None  # quickest to the target, where that is not the winner nor a tie with it
    runner_up: Pair | None = None  # the next strategy's best configuration against the winner (best against best)
    others: tuple[Pair, ...] = ()  # every other strategy's best configuration against the winner
    given_up: GivenUp | None = None
    flags: tuple[str, ...] = ()
    drift_pct: float = math.nan  # the largest drift of a trending process's steady epochs, percent
    limit: pd.Series | None = None  # its row of Analysis.limits


def _same_maths(a: pd.Series, b: pd.Series) -> bool:
    """Whether two configurations' matmuls ran in one arithmetic (``tf32``, ``bf16``; inferred or recorded)."""
    return str(a.get("arithmetic") or "") == str(b.get("arithmetic") or "")


def _target(row: pd.Series) -> tuple[float, int]:
    if bool(row.get("reached_target")) and math.isfinite(row.get("time_to_target_s", math.nan)):
        return float(row["time_to_target_s"]), int(row["n_reached"])
    return math.nan, 0


def pair(a: pd.Series, b: pd.Series) -> Pair:
    """``a`` against ``b``: the one definition of a ratio between two configurations the report prints."""
    (ta, na), (tb, nb) = _target(a), _target(b)
    if same_config(a, b):
        ci = RatioCI(1.0, math.nan, math.nan, int(a["n_repeats"]), int(b["n_repeats"]))
    else:
        ci = ratio_ci(a, b)
    return Pair(a, b, ci, ta, tb, na, nb)


def strategy_bests(a: Analysis, section: int) -> list[tuple[pd.Series, Pair | None]]:
    """Each strategy's best configuration that learns, with its throughput against the baseline's best one (best
    against best: the pair whose examples/s the best-per-strategy table prints side by side); None without one."""
    best, summary = rows_of(a.best, section), rows_of(a.summary, section)
    out: list[tuple[pd.Series, Pair | None]] = []
    for _, r in best.iterrows():
        base = best_baseline(a, summary, r)
        out.append((r, None if base is None else pair(r, base)))
    return out


def _on(value: object) -> bool:
    """A frame cell as a flag: a true boolean, or a non-empty text or tuple (NaN and None are off)."""
    return bool(value) if isinstance(value, str | tuple | bool | np.bool_) else False


def _flags(win: pd.Series) -> tuple[tuple[str, ...], float]:
    """The codes of the flags on the winner's row, and the drift (percent) of its most drifting process."""
    flags = tuple(f for f in (TOO_SHORT, TRENDING, INPUT_BOUND, EARLIER_DEFINITION) if _on(win.get(f)))
    flags += (ONE_STEP,) if (win.get(ONE_STEP) or 0) > 0 else ()
    drifts = [d for d in (win.get("steady_drift") or ()) if math.isfinite(d)]
    return flags, (100 * max(drifts, key=abs) if drifts and TRENDING in flags else math.nan)


def _runner_up(a: Analysis, summary: pd.DataFrame, win: pd.Series) -> Pair | None:
    """The best configuration of the fastest other strategy that is not the baseline's, against the winner."""
    learns = summary[summary["learns"]]
    base = set(baseline_rows(summary, a.baseline)["strategy_id"])
    others = learns[(learns["strategy_id"] != win["strategy_id"]) & ~learns["strategy_id"].isin(base)]
    if others.empty:
        return None
    return pair(others.sort_values("examples_per_s", ascending=False, kind="mergesort").iloc[0], win)


def _given_up(a: Analysis, summary: pd.DataFrame, win: pd.Series) -> GivenUp | None:
    learns = summary[summary["learns"] & summary["final_val_accuracy"].map(math.isfinite)]
    if learns.empty or not math.isfinite(win["final_val_accuracy"]):
        return None
    top = learns.sort_values(["final_val_accuracy", "examples_per_s"], ascending=False, kind="mergesort").iloc[0]
    diff = 100 * (top["final_val_accuracy"] - win["final_val_accuracy"])
    return GivenUp(top, diff) if diff > a.parity_margin_pp + 1e-9 else None


def _quickest(summary: pd.DataFrame, win: pd.Series) -> pd.Series | None:
    quick = fastest_to_target(summary)
    if quick is None or same_config(quick, win):
        return None
    if win["reached_target"] and quick["time_to_target_s"] >= TIE * win["time_to_target_s"]:
        return None
    return quick


def claims(a: Analysis, section: int) -> Claims:
    """The conclusions about one section, a workload on one data set (module docstring)."""
    summary = rows_of(a.summary, section)
    workload = str(summary["workload"].iloc[0]) if len(summary) else ""
    finished = int((summary["status"] == "ok").sum()) if len(summary) else 0
    earlier = bool(len(summary) and "earlier_definition" in summary
                   and any(bool(t) for t in summary["earlier_definition"]))
    win = winner(a, section)
    if win is None:
        return Claims(workload, section, NONE_LEARNS if finished else NONE_FINISHED, finished, earlier)
    t = a.tradeoffs.get(section)
    flags, drift = _flags(win)
    base = best_baseline(a, summary, win)
    limit = row_of(a.limits, win)
    if t is not None and not t.settled:
        return Claims(workload, section, TRADEOFF, finished, earlier, winner=win, flags=flags, drift_pct=drift,
                      limit=limit)
    return Claims(workload, section, WINNER, finished, earlier, winner=win, flags=flags, drift_pct=drift, limit=limit,
                  vs_baseline=None if base is None else pair(win, base),
                  is_baseline=base is not None and same_config(base, win), quickest=_quickest(summary, win),
                  runner_up=_runner_up(a, summary, win), given_up=_given_up(a, summary, win),
                  others=tuple(pair(r, win) for r, _ in strategy_bests(a, section)
                               if r["strategy_id"] != win["strategy_id"]))


def backend_bests(a: Analysis, section: int) -> list[tuple[str, pd.Series, tuple[Pair, ...]]]:
    """Per strategy name that ran under two or more backends: its fastest backend's best configuration that learns,
    and every other backend's best against it (from each strategy's best, :attr:`Analysis.best`)."""
    best = rows_of(a.best, section)
    if best.empty or best["backend"].nunique() < 2:
        return []
    out = []
    for name, g in best.groupby("strategy_name", sort=True):
        tops = g.sort_values("examples_per_s", ascending=False, kind="mergesort").drop_duplicates("backend")
        if len(tops) >= 2:
            top = tops.iloc[0]
            out.append((str(name), top, tuple(pair(r, top) for _, r in tops.iloc[1:].iterrows())))
    return out


def tradeoff_pairs(a: Analysis, t: Tradeoff) -> tuple[tuple[Pair, ...], Pair | None, Pair | None]:
    """A trade-off without a target (:mod:`bench.reporting.analysis.tradeoff`): each member of its front against
    the fastest, and the fastest and the most accurate each against the baseline's best configuration that learns
    (None where that is one of them, or there is none)."""
    fast, best = t.fastest, t.most_accurate
    front = tuple(pair(r, fast) for _, r in t.front.iterrows())
    summary = rows_of(a.summary, int(fast["section"]))
    base = best_baseline(a, summary, fast)
    if base is None or same_config(base, fast) or same_config(base, best):
        return front, None, None
    return front, pair(fast, base), pair(best, base)


def pipeline_pairs(summary: pd.DataFrame) -> list[tuple[pd.DataFrame, dict[str, Pair]]]:
    """Each configuration that ran under several input pipelines (:data:`PIPELINE_KEY`): its rows, and each other
    pipeline's throughput against ``default``'s (none where ``default`` did not run)."""
    ok = summary[summary["status"] == "ok"]
    out = []
    ok = ok.sort_values(ORDER, kind="mergesort")  # the default pipeline's section first
    for _, g in ok.groupby(PIPELINE_KEY, sort=False, dropna=False):
        if g["input_pipeline"].nunique() < 2:
            continue
        by = {str(r["input_pipeline"]): r for _, r in g.iterrows()}
        base = by.get("default")
        out.append((g, {} if base is None else {p: pair(r, base) for p, r in by.items() if p != "default"}))
    return out


def all_claims(a: Analysis) -> dict[int, Claims]:
    """Every section's claims, keyed by section."""
    return {s: claims(a, s) for s in sections(a.summary)}
