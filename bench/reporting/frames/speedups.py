"""Speedups: each configuration against the baseline strategy's at equal settings (:data:`MATCH_KEY`), repeats as the
sample (:func:`bench.reporting.stats.ratio.repeat_ratio_ci`). :func:`baseline_rows` and :func:`pick_baseline` find
the baseline rows, which accuracy parity compares against too. Definitions: docs/reports.md, *How to read a report*.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from bench.records import BACKENDS
from bench.reporting.frames.keys import MATCH_KEY, config_key
from bench.reporting.stats.ratio import CONFIDENCE, RatioCI, repeat_ratio_ci

DEFAULT_BASELINE = "cpu"


def baseline_rows(summary: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Rows of the baseline strategy: those requested as typed (``cpu``); only when there are none, those
    that resolved to it (``auto`` -> ``cpu``), so an ``auto`` run never silently replaces ``cpu``.

    ``backend/strategy`` (``tensorflow/cpu``, ``jax/cpu``) takes the baseline from that backend only; a
    bare name matches it under every backend (:func:`pick_baseline` then prefers tensorflow's).
    """
    return summary[preferred(*baseline_masks(summary, baseline))]  # masks, then one take of the wide frame


def baseline_masks(summary: pd.DataFrame, baseline: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`baseline_rows`' two masks over ``summary``'s rows: requested as typed, and resolved to it; a caller
    that splits a frame in groups applies :func:`preferred` to each group's part of them."""
    backend, _, name = baseline.partition("/") if baseline.partition("/")[0] in BACKENDS else ("", "", baseline)
    ok = (summary["status"] == "ok").to_numpy()
    if backend:
        ok = ok & (summary["backend"] == backend).to_numpy()
    exact = ok & (summary["strategy_requested"] == name).to_numpy()
    return exact, ok & (summary["strategy_name"] == name).to_numpy()


def preferred(exact: np.ndarray, resolved: np.ndarray) -> np.ndarray:
    """The baseline's rows of :func:`baseline_masks`: those requested as typed, else those resolved to it."""
    return exact if exact.any() else resolved


class Candidates:
    """Baseline rows (:func:`baseline_rows`) split once by :data:`MATCH_KEY`, each group in the strategies' order
    (``strategy_id``), and in each group the first row per host, so that :func:`pick_baseline` over every
    configuration of a report is two dictionary lookups instead of masking a frame (1,000 records: 360 lookups,
    1.06 s -> a few ms)."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self.first: dict[tuple[Any, ...], pd.Series] = {}  # match key -> its first row (strategy order)
        self.by_host: dict[tuple[Any, ...], pd.Series] = {}  # (*match key, host) -> that host's first row
        if frame.empty:
            return
        # plain lists, not a groupby: a race builds this once per look (tests/test_race.py: thousands of times)
        keys = list(zip(*(frame[k].tolist() for k in MATCH_KEY), strict=True))
        codes, hosts = frame["strategy_id"].tolist(), frame["host"].tolist()
        for i in sorted(range(len(keys)), key=codes.__getitem__):  # stable: ties keep the frame's order
            key, at_host = keys[i], (*keys[i], hosts[i])
            if key in self.first and at_host in self.by_host:
                continue
            row = frame.iloc[i]
            self.first.setdefault(key, row)
            self.by_host.setdefault(at_host, row)


def pick_baseline(row: Mapping[str, Any] | pd.Series, candidates: Candidates) -> pd.Series | None:
    """The baseline configuration for ``row``: same match key; same host preferred, else the first strategy."""
    key = tuple(row[k] for k in MATCH_KEY)
    local = candidates.by_host.get((*key, row["host"]))
    return local if local is not None else candidates.first.get(key)


def add_speedups(summary: pd.DataFrame, baseline: str = DEFAULT_BASELINE) -> pd.DataFrame:
    """Add ``baseline_id`` (the baseline's ``strategy_id``; -1: none), ``is_baseline`` (the row is its own),
    ``speedup`` (throughput ratio) and its interval to a
    :func:`bench.reporting.frames.summary.summarize` frame.

    ``speedup_low``/``speedup_high`` are NaN (no claim) unless both sides have >= 3 ok repeats.
    """
    summary = summary.copy()
    cands = Candidates(baseline_rows(summary, baseline))
    names = ("baseline_id", "is_baseline", "speedup", "speedup_low", "speedup_high", "speedup_significant",
             "speedup_n_base")
    cols: dict[str, list[Any]] = {k: [] for k in names}
    for _, row in summary.iterrows():
        base = pick_baseline(row, cands) if row["status"] == "ok" else None
        if base is None:
            ci = RatioCI(math.nan, math.nan, math.nan, 0, 0)
        elif config_key(base) == config_key(row):
            ci = RatioCI(1.0, math.nan, math.nan, row["n_repeats"], row["n_repeats"])
        else:
            ci = ratio_ci(row, base)
        cols["baseline_id"].append(-1 if base is None else int(base["strategy_id"]))
        cols["is_baseline"].append(base is not None and config_key(base) == config_key(row))  # its own baseline
        cols["speedup"].append(ci.ratio)
        cols["speedup_low"].append(ci.low)
        cols["speedup_high"].append(ci.high)
        cols["speedup_significant"].append(ci.significant)
        cols["speedup_n_base"].append(ci.n_den)
    for k, v in cols.items():
        summary[k] = v
    return summary


def ratio_ci(row: pd.Series, base: pd.Series) -> RatioCI:
    """Throughput of summary row ``row`` over ``base`` per repeat (:func:`bench.reporting.stats.ratio.repeat_ratio_ci`),
    at 95 %, or, where either comes from a ``repeats=auto`` run, at ``1 - 0.05 / looks`` (Bonferroni over the
    looks its race took at the data: bench.reporting.analysis.race)."""
    looks = max(int(row.get("race_looks", 1)), int(base.get("race_looks", 1)))
    return repeat_ratio_ci(row["repeat_rates"], base["repeat_rates"], 1 - (1 - CONFIDENCE) / looks)


def speedup_ci(row: pd.Series) -> RatioCI:
    """The speedup of a :func:`add_speedups` row as a RatioCI (for formatting)."""
    return RatioCI(row["speedup"], row["speedup_low"], row["speedup_high"], int(row["n_repeats"]),
                         int(row["speedup_n_base"]))
