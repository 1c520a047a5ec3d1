"""Does a configuration train as well? Judged against a target, or across seeds paired with its baseline
(:func:`nearest_reference`), never against the best of many; and parity, every strategy against the baseline and
every backend against TensorFlow's on the same strategy. Method: docs/reports.md, *What counts as learning*.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from bench.records.backends import BACKENDS
from bench.reporting.analysis.seeds import DIFFERS, SeedIndex, compare_seeds
from bench.reporting.frames.keys import (
    CONFIG_KEY,
    MATCH_KEY,
    compared_spe,
    config_of,
    plain_rows,
    same_config,
    same_settings,
    same_strategy,
    settings_of,
)
from bench.reporting.frames.speedups import Candidates, baseline_masks, baseline_rows, pick_baseline, preferred
from bench.reporting.stats.paired import PARITY_MARGIN_PP


def add_learning(summary: pd.DataFrame, points: pd.DataFrame, baseline: str,
                 margin_pp: float = PARITY_MARGIN_PP, index: SeedIndex | None = None) -> pd.DataFrame:
    """Add the accuracy judgement to a :func:`bench.reporting.frames.summary.summarize` frame (module docstring).

    Columns: ``accuracy_test`` (``target``, ``seeds`` or ""), ``accuracy_ref_id`` (the baseline compared with, its
    ``strategy_id``; -1: none), ``accuracy_ref_settings`` (its settings where they differ from the row's, else empty),
    ``accuracy_seeds`` (seeds paired), ``accuracy_diff_pp`` (mean per-seed difference) with ``accuracy_low_pp`` /
    ``accuracy_high_pp`` (its interval), ``accuracy_p`` (adjusted), ``accuracy_verdict``, ``accuracy_agreement``
    (same-seed agreement), ``accuracy_flag`` (a code; "" = fine), ``learns`` (ok, not *not learning*, reached its
    target or not worse than its baseline, has a throughput): only those are ranked.
    """
    summary = summary.copy()
    cands = Candidates(baseline_rows(summary, baseline))
    refs: dict[Any, pd.Series] = {}
    for i, row in summary.iterrows():
        if row["status"] != "ok" or math.isfinite(row["target_accuracy"]):
            continue
        base = pick_baseline(row, cands)
        if base is None:  # no baseline at this batch and spe: one reference chosen without looking at accuracy
            base = nearest_reference(row, cands.frame)
        if base is not None and not same_config(base, row):
            refs[i] = base
    per_section = pd.Series([summary.at[i, "section"] for i in refs]).value_counts()
    index = index or SeedIndex(points, CONFIG_KEY)
    cols: dict[str, list[Any]] = {k: [] for k in ("accuracy_test", "accuracy_ref_id", "accuracy_ref_settings",
                                                   "accuracy_seeds",
                                                   "accuracy_diff_pp", "accuracy_low_pp", "accuracy_high_pp",
                                                   "accuracy_p", "accuracy_verdict", "accuracy_agreement")}
    for i, row in summary.iterrows():
        vals: list[Any] = ["", -1, {}, 0, math.nan, math.nan, math.nan, math.nan, "", math.nan]
        if row["status"] == "ok" and math.isfinite(row["target_accuracy"]):
            vals[0] = "target"
        elif i in refs:
            base = refs[i]
            m = int(per_section[row["section"]])
            c = compare_seeds(index, config_of(row), config_of(base), m, margin_pp)
            ref = {} if same_settings(base, row) else settings_of(base)  # named by render: at its own settings
            vals = ["seeds", int(base["strategy_id"]), ref, c.seeds, c.mean_pp, c.low_pp, c.high_pp, c.p, c.verdict,
                    c.agreement]
        for k, v in zip(cols, vals, strict=True):
            cols[k].append(v)
    for k, v in cols.items():
        summary[k] = v
    summary["accuracy_flag"] = [_flag(r, margin_pp) for r in plain_rows(summary)]
    summary["learns"] = ((summary["status"] == "ok") & ~summary["not_learning"].map(bool)
                         & (summary["accuracy_flag"] == "") & np.isfinite(summary["examples_per_s"]))
    return summary


def nearest_reference(row: pd.Series, cands: pd.DataFrame) -> pd.Series | None:
    """The baseline strategy's configuration of the same section (workload and data set) and precision closest to
    ``row`` in global batch (ratio; the smaller on a tie), then in spe: one reference per configuration, picked by its
    settings alone (never by accuracy), so a paired test against it stays valid where no baseline ran at ``row``'s
    own batch."""
    # a mask of Series == Any reads as Any
    same: pd.DataFrame = cands[(cands["section"] == row["section"]) & (cands["precision"] == row["precision"])]
    if same.empty:
        return None
    order = same.assign(
        _gap=[abs(math.log(float(b) / float(row["global_batch_size"]))) for b in same["global_batch_size"]],
        _spe=[abs(math.log(float(x) / float(row["steps_per_execution"]))) for x in same["steps_per_execution"]])
    return order.sort_values(["_gap", "global_batch_size", "_spe", "strategy_id"], kind="mergesort").iloc[0]


TARGET_MISSED, BELOW_REFERENCE = "target_missed", "below_reference"  # accuracy_flag's codes ("" = fine)


def _flag(r: Mapping[str, Any], margin_pp: float = PARITY_MARGIN_PP) -> str:
    """Why a configuration's accuracy keeps it from being ranked, as a code ("" when it does not): its target
    missed (:data:`TARGET_MISSED`: ``n_reached`` of ``n_seeds``), or, paired by seed, significantly below its
    reference (the interval excludes 0) by more than the margin on average (:data:`BELOW_REFERENCE`:
    ``accuracy_ref``, ``accuracy_diff_pp`` and its interval; a consistent 0.3 pp loss is a real difference, not one
    that should cost the ranking)."""
    if r["accuracy_test"] == "target" and not r["reached_target"]:
        return TARGET_MISSED
    if r["accuracy_test"] == "seeds" and r["accuracy_verdict"] == DIFFERS and r["accuracy_diff_pp"] < -margin_pp:
        return BELOW_REFERENCE
    return ""


PARITY_COLUMNS = [*CONFIG_KEY, "section", "strategy_id", "kind", "baseline_id", "baseline_backend", "seeds",
                  "val_accuracy", "baseline_val_accuracy",
                  "diff_pp", "low_pp", "high_pp", "p", "verdict", "agreement", "same_predictions", "compared",
                  "per_seed", "flag"]
REFERENCE_BACKENDS = BACKENDS  # a backend is compared with the first of these that ran (their declared order)


def _other_backend(row: Mapping[str, Any], by_name: Mapping[int, Any]) -> int | None:
    """The ``strategy_id`` of the same strategy under the first of :data:`REFERENCE_BACKENDS` that ran
    it before ``row``'s own backend (TensorFlow; JAX where TensorFlow is absent, as on GPU boxes and TPU VMs); None
    without one."""
    backend = row["backend"]
    for ref in REFERENCE_BACKENDS[:REFERENCE_BACKENDS.index(backend)] if backend in REFERENCE_BACKENDS else ():
        for code, other in by_name.items():
            if other["backend"] == ref and same_strategy(other, row):
                return int(code)
    return None


def accuracy_parity(points: pd.DataFrame, summary: pd.DataFrame, baseline: str,
                    margin_pp: float = PARITY_MARGIN_PP, index: SeedIndex | None = None) -> pd.DataFrame:
    """Accuracy of every strategy against its baseline, and of every backend against another on the same strategy
    name (:func:`_other_backend`: TensorFlow, else JAX), at equal workload, dataset, global batch, spe and
    precision, paired by seed (module docstring): one row per comparison (``kind``: ``strategy`` or ``backend``),
    the interval Bonferroni-corrected over the workload's comparisons; ``flag`` = the verdict is *differs*;
    ``same_predictions`` of ``compared`` validation examples got the same class from both (over the seeds)."""
    conf = summary[summary["status"] == "ok"] if not summary.empty else summary
    if conf.empty:
        return pd.DataFrame(columns=PARITY_COLUMNS)
    pairs: list[tuple[str, Mapping[str, Any], Mapping[str, Any] | pd.Series]] = []  # (kind, row, its reference)
    # _spe: PyTorch's spe1 (asked 8) beside the others' spe8; the index: row positions
    conf = conf.assign(_spe=compared_spe(conf)).sort_values(  # in the report's order
        ["section", "global_batch_size", "_spe", "precision"], kind="mergesort").reset_index(drop=True)
    exact, resolved = baseline_masks(conf, baseline)  # once: per group they cost 0.2 s over 1,000 records
    rows_at = plain_rows(conf)  # plain rows: a Series a row cost 0.1 s
    for _, g in conf.groupby([*MATCH_KEY[:-2], "_spe", "precision"], sort=False, dropna=False):
        at = g.index.to_numpy()
        strategies = sorted(set(g["strategy_id"]))
        cands = Candidates(conf.iloc[at[preferred(exact[at], resolved[at])]])
        by_name = {rows_at[i]["strategy_id"]: rows_at[i] for i in at}
        for s in strategies:
            row = by_name[s]
            base = pick_baseline(row, cands)
            if base is not None and base["strategy_id"] != s:  # the same strategy on another backend: a backend gap
                same_name = same_strategy(base, row)
                pairs.append(("backend" if same_name else "strategy", row, base))
            other = _other_backend(row, by_name)  # TensorFlow's, else JAX's when TensorFlow is absent
            if other is not None and other != (base["strategy_id"] if base is not None else None):
                pairs.append(("backend", row, by_name[other]))
    counts = pd.Series([r["section"] for _, r, _ in pairs]).value_counts()
    index = index or SeedIndex(points, CONFIG_KEY)
    rows = []
    for kind, row, ref in pairs:
        c = compare_seeds(index, config_of(row), config_of(ref), int(counts[row["section"]]),
                          margin_pp)
        rows.append({**{k: row[k] for k in (*CONFIG_KEY, "section", "strategy_id")}, "kind": kind,
                     "baseline_id": ref["strategy_id"], "baseline_backend": ref["backend"],
                     "seeds": c.seeds, "val_accuracy": row["final_val_accuracy"],
                     "baseline_val_accuracy": ref["final_val_accuracy"], "diff_pp": c.mean_pp, "low_pp": c.low_pp,
                     "high_pp": c.high_pp, "p": c.p, "verdict": c.verdict, "agreement": c.agreement,
                     "same_predictions": c.same[0], "compared": c.same[1],
                     "per_seed": tuple(sorted(c.diffs.items())), "flag": c.verdict == DIFFERS})
    return pd.DataFrame(rows, columns=PARITY_COLUMNS)
