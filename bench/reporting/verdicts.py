"""Verdicts on a summary and the one :class:`Analysis` every output is built from (who learns, parity, best per
strategy, winner, fastest to the target, break-even, wrapper costs, absent strategies): :func:`analyze`. Only
configurations that learn are ranked (docs/reports.md, *What counts as learning*).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bench.records import RecordLike, as_records
from bench.reporting.analysis.accuracy import accuracy_parity, add_learning
from bench.reporting.analysis.limits import limits_frame
from bench.reporting.analysis.race_replay import Spent, replay
from bench.reporting.analysis.seeds import SeedIndex
from bench.reporting.analysis.tradeoff import Tradeoff, tradeoff
from bench.reporting.frames.epochs import epochs_frame
from bench.reporting.frames.identity import shows_backends
from bench.reporting.frames.keys import CONFIG_KEY, SETTINGS, config_key, rows_of, same_config, sections, settings_of
from bench.reporting.frames.points import points_frame
from bench.reporting.frames.speedups import DEFAULT_BASELINE, baseline_rows
from bench.reporting.frames.summary import summarize
from bench.reporting.stats.paired import PARITY_MARGIN_PP
from bench.reporting.stats.sample import geometric_mean


def _learners(summary: pd.DataFrame) -> pd.DataFrame:
    """The configurations that may be ranked: ``learns`` (:func:`add_learning`); a frame it did not judge: ok, not
    *not learning*, with a throughput."""
    if "learns" in summary:
        return summary[summary["learns"]]
    finite: pd.Series[bool] = np.isfinite(summary["examples_per_s"])  # typed: NumPy's stub says Any
    return summary[(summary["status"] == "ok") & ~summary["not_learning"].map(bool) & finite]


def best_configurations(summary: pd.DataFrame) -> pd.DataFrame:
    """Per section and strategy, the learning configuration with the highest ``examples_per_s``.

    A strategy none of whose configurations learns has no row."""
    ok = _learners(summary)
    if ok.empty:
        return ok
    ranked = ok.sort_values(["section", "strategy_id", "examples_per_s", "train_s_median"],
                            ascending=[True, True, False, True], kind="mergesort")
    return ranked.groupby(["section", "strategy_id"], sort=True).head(1).reset_index(drop=True)


def winners(summary: pd.DataFrame) -> pd.DataFrame:
    """Per section (a workload on one data set), the learning configuration with the highest ``examples_per_s``; a
    section none of whose configurations learns has no winner."""
    ok = _learners(summary)
    if ok.empty:
        return ok
    ranked = ok.sort_values(["section", "examples_per_s", "strategy_id"], ascending=[True, False, True],
                            kind="mergesort")
    return ranked.groupby("section", sort=True).head(1).reset_index(drop=True)


def _weigh(g: pd.DataFrame) -> tuple[pd.Series, pd.Series, float, float]:
    """Of configurations ``g``: ``quick`` (least warm-up), ``fast`` (highest examples/s), the exact epochs n* after
    which ``fast`` is no slower in total (0 when its warm-up is no longer; inf when its epochs are not shorter) and
    the smallest whole n >= 1 (:func:`break_even`)."""
    quick = g.sort_values(["warmup_overhead_s", "train_s_median"], kind="mergesort").iloc[0]
    fast = g.sort_values(["examples_per_s", "warmup_overhead_s"], ascending=[False, True], kind="mergesort").iloc[0]
    dw = fast["warmup_overhead_s"] - quick["warmup_overhead_s"]
    dt = quick["train_s_median"] - fast["train_s_median"]
    exact = 0.0 if dw <= 0 else (dw / dt if dt > 0 else math.inf)
    return quick, fast, exact, max(1, math.ceil(round(exact, 9))) if math.isfinite(exact) else math.inf


def break_even(summary: pd.DataFrame) -> pd.DataFrame:
    """Epochs after which a strategy's fastest configuration pays back its extra warm-up.

    Per section and strategy with two or more configurations that learn: ``quick`` is the one
    with the lowest warm-up overhead w, ``fast`` the one with the highest ``examples_per_s`` (the ranking
    measure), t the steady training epoch (training seconds, as examples/s and the time to target). Training n
    epochs costs ``w + n * t`` seconds (epoch 1 = t + w, then t per epoch), so ``fast`` is no slower in total
    from ``n* = (w_fast - w_quick) / (t_quick - t_fast)`` epochs on; ``break_even_epochs`` is the smallest whole
    n >= 1 with that property (``inf``: never, its epochs are not shorter). When one configuration is both there
    is no trade-off (1).
    """
    cols = ["workload", "section", "strategy_id", "backend", "quick", "quick_warmup_s", "quick_epoch_s", "fast",
            "fast_warmup_s", "fast_epoch_s", "break_even_epochs_exact", "break_even_epochs", "quick_key", "fast_key"]
    ok = _learners(summary)
    ok = ok[np.isfinite(ok["warmup_overhead_s"]) & np.isfinite(ok["train_s_median"])]
    rows = []
    for key, g in ok.groupby(["section", "strategy_id"], sort=True):
        if len(g) < 2:
            continue
        quick, fast, exact, whole = _weigh(g)
        rows.append({"workload": quick["workload"], **dict(zip(["section", "strategy_id"], key, strict=True)),
                     "backend": quick["backend"],
                     "quick": settings_of(quick), "quick_warmup_s": quick["warmup_overhead_s"],
                     "quick_epoch_s": quick["train_s_median"], "fast": settings_of(fast),
                     "fast_warmup_s": fast["warmup_overhead_s"], "fast_epoch_s": fast["train_s_median"],
                     "break_even_epochs_exact": exact, "break_even_epochs": whole,
                     # matched by key (the answer's payback line), named by render
                     "quick_key": config_key(quick), "fast_key": config_key(fast)})
    return pd.DataFrame(rows, columns=cols)


def _named(row: pd.Series) -> dict[str, Any]:
    """A configuration's strategy code and settings (render names it: ``cpu (XLA) at b256 spe8 float32``)."""
    return {"strategy_id": row["strategy_id"], **settings_of(row)}


def compiler_break_even(summary: pd.DataFrame) -> pd.DataFrame:
    """Compiler variants of one backend at one configuration (eager vs ``torch.compile``, TensorFlow's graph vs
    XLA): per (section, backend, strategy, batch, spe, precision) whose learning configurations differ
    only in their compiler, the one with the least warm-up (``quick``) against the fastest (``fast``), as
    :func:`break_even` weighs them: ``throughput_ratio`` (fast / quick examples/s), ``extra_warmup_s`` and the
    epochs after which ``fast`` is ahead in total (``break_even_epochs``; inf: never)."""
    cols = ["workload", "section", "backend", "strategy_name", "global_batch_size", "steps_per_execution", "precision",
            "quick", "fast", "throughput_ratio", "extra_warmup_s", "break_even_epochs", "fast_key"]
    ok = _learners(summary)
    ok = ok[np.isfinite(ok["warmup_overhead_s"]) & np.isfinite(ok["train_s_median"])]
    rows = []
    for key, g in ok.groupby(cols[:7], sort=True):
        if g["compiler_mark"].nunique() < 2:
            continue
        quick, fast, _, whole = _weigh(g)
        if same_config(quick, fast):
            continue  # the quicker one is also the faster: nothing to weigh
        rows.append({**dict(zip(cols[:7], key, strict=True)), "quick": _named(quick), "fast": _named(fast),
                     "throughput_ratio": fast["examples_per_s"] / quick["examples_per_s"],
                     "extra_warmup_s": fast["warmup_overhead_s"] - quick["warmup_overhead_s"],
                     "break_even_epochs": whole, "fast_key": config_key(fast)})
    return pd.DataFrame(rows, columns=cols)


WRAPPERS = {"cpu_onedevice": "cpu", "gpu_onedevice": "gpu"}  # wrapper strategy -> the plain path it wraps


def wrapper_costs(summary: pd.DataFrame) -> pd.DataFrame:
    """What a strategy wrapper costs, when it ran beside the plain path it wraps (e.g. ``cpu_onedevice``
    vs ``cpu``): one row per (section, wrapper) with the throughput ratio plain / wrapper at
    every matched configuration (``ratios``; > 1: the wrapper is slower) and their geometric mean."""
    cols = ["workload", "section", "wrapper", "plain", "n_configs", "ratios", "cost"]
    ok = summary[(summary["status"] == "ok") & np.isfinite(summary["examples_per_s"])]
    rows = []
    for section, g in ok.groupby("section", sort=True):
        for wrapper, plain in WRAPPERS.items():
            w, p = g[g["strategy_name"] == wrapper], g[g["strategy_name"] == plain]
            if w.empty or p.empty:
                continue
            # the same backend and compiler on both sides: a wrapper's cost, not another backend's or compiler's
            both = w.merge(p, on=["host", "backend", "compiler_mark", *SETTINGS], suffixes=("_w", "_p"))
            ratios = tuple(float(a / b) for a, b in zip(both["examples_per_s_p"], both["examples_per_s_w"],
                                                         strict=True))
            if ratios:
                rows.append({"workload": g["workload"].iloc[0], "section": section, "wrapper": wrapper, "plain": plain,
                             "n_configs": len(ratios), "ratios": ratios, "cost": geometric_mean(ratios)})
    return pd.DataFrame(rows, columns=cols)


@dataclass
class Analysis:
    """Everything a report or a console table needs, derived from records only."""

    points: pd.DataFrame
    summary: pd.DataFrame
    parity: pd.DataFrame
    best: pd.DataFrame
    winners: pd.DataFrame
    break_even: pd.DataFrame
    wrappers: pd.DataFrame
    baseline: str
    parity_margin_pp: float
    epochs: pd.DataFrame = field(default_factory=pd.DataFrame)  # one row per point and epoch (the figures')
    # section -> throughput against accuracy where no target is declared (bench.reporting.analysis.tradeoff)
    tradeoffs: dict[int, Tradeoff] = field(default_factory=dict)
    seeds: SeedIndex | None = None  # the points' ok rows by configuration, with the comparisons made (report.json's)
    race: Spent | None = None  # a repeats=auto run: where its repeats went (bench.reporting.analysis.race_replay)
    compilers: pd.DataFrame = field(default_factory=pd.DataFrame)  # compiler variants weighed (compiler_break_even)
    limits: pd.DataFrame = field(default_factory=pd.DataFrame)  # what limits each configuration (analysis.limits)

    @property
    def show_backend(self) -> bool:
        """Whether tables show a ``backend`` column (:func:`bench.reporting.frames.identity.shows_backends`)."""
        return shows_backends(self.points)


def analyze(records: Sequence[RecordLike], baseline: str = DEFAULT_BASELINE,
            parity_margin_pp: float = PARITY_MARGIN_PP) -> Analysis:
    """Run every analysis step on ``records`` (any statuses, any hosts) and add the parity flag column."""
    typed = as_records(records)
    return analyze_frames(points_frame(typed), epochs_frame(typed), baseline, parity_margin_pp)


def judged_summary(points: pd.DataFrame, baseline: str = DEFAULT_BASELINE,
                   margin_pp: float = PARITY_MARGIN_PP, index: SeedIndex | None = None,
                   summarized: Callable[[pd.DataFrame], None] | None = None) -> pd.DataFrame:
    """The per-configuration frame with its speedups (:func:`~bench.reporting.frames.summary.summarize`) and its
    accuracy judgement (:func:`~bench.reporting.analysis.accuracy.add_learning`): what the report and the console
    table rank, built one way for both. ``summarized`` is given the summary before the accuracy verdicts."""
    summary = summarize(points, baseline)
    if summarized is not None:
        summarized(summary)
    return summary if summary.empty else add_learning(summary, points, baseline, margin_pp, index)


def analyze_frames(points: pd.DataFrame, epochs: pd.DataFrame, baseline: str = DEFAULT_BASELINE,
                   parity_margin_pp: float = PARITY_MARGIN_PP,
                   summarized: Callable[[pd.DataFrame], None] | None = None) -> Analysis:
    """:func:`analyze` from the frames of the records (:func:`bench.reporting.frames.points.points_frame`,
    :func:`bench.reporting.frames.epochs.epochs_frame`), for a caller that already has them (the report draws its
    per-epoch figures from them while this runs); ``summarized`` is given the summary with its speedups as soon as
    it exists, before the accuracy verdicts (the report starts the figures drawn from it)."""
    index = SeedIndex(points, CONFIG_KEY)  # one for every comparison by seed: each pair is computed once
    summary = judged_summary(points, baseline, parity_margin_pp, index, summarized)
    if summary.empty:
        empty = pd.DataFrame()
        return Analysis(points, summary, empty, summary, summary, empty, empty, baseline, parity_margin_pp,
                        epochs)
    parity = accuracy_parity(points, summary, baseline, parity_margin_pp, index)
    flagged = set(zip(*(parity.loc[parity["flag"], k] for k in CONFIG_KEY), strict=True))
    summary["parity_flag"] = [key in flagged for key in zip(*(summary[k] for k in CONFIG_KEY), strict=True)]
    limits = limits_frame(summary)
    labels = {tuple(r[k] for k in CONFIG_KEY): r["limit"] for _, r in limits.iterrows()}
    summary["limit"] = [labels.get(key, "") for key in zip(*(summary[k] for k in CONFIG_KEY), strict=True)]
    found = {s: tradeoff(summary, points, s, parity_margin_pp, index) for s in sections(summary)}
    return Analysis(points, summary, parity, best_configurations(summary), winners(summary),
                    break_even(summary), wrapper_costs(summary), baseline, parity_margin_pp, epochs,
                    {key: t for key, t in found.items() if t is not None}, index,
                    replay(points, baseline, parity_margin_pp), compiler_break_even(summary), limits)


def winner(a: Analysis, section: int) -> pd.Series | None:
    """A section's winner (:func:`winners`; None without one)."""
    w = rows_of(a.winners, section)
    return None if w.empty else w.iloc[0]


def fastest_to_target(summary: pd.DataFrame) -> pd.Series | None:
    """The learning configuration with the shortest median time to its target (None without targets)."""
    reached = summary[summary["learns"] & summary["reached_target"]]
    if reached.empty:
        return None
    return reached.sort_values(["time_to_target_s", "strategy_id"], kind="mergesort").iloc[0]


def best_baseline(a: Analysis, summary: pd.DataFrame, win: pd.Series) -> pd.Series | None:
    """The baseline's fastest learning configuration (on the winner's host when there is one)."""
    base = baseline_rows(summary, a.baseline)
    base = base[base["learns"]]
    local = base[base["host"] == win["host"]]
    base = local if not local.empty else base
    return None if base.empty else base.sort_values("examples_per_s", ascending=False, kind="mergesort").iloc[0]


def absent_strategies(summary: pd.DataFrame) -> pd.DataFrame:
    """Strategies every point of which was skipped (absent hardware): one row each, with the point count
    and the reason."""
    rows = []
    for strategy, g in summary.groupby("strategy_id", sort=True):
        if set(g["status"]) == {"skipped"}:
            rows.append({"strategy_id": strategy, "n_points": int(g["n_points"].sum()), "reason": g.iloc[0]["error"]})
    return pd.DataFrame(rows, columns=["strategy_id", "n_points", "reason"])
