"""Does a configuration train as well? Judged against a target, or by a paired test; never against the best of many.

* **Target** (MLPerf/DAWNBench style, :mod:`bench.reporting.targets`): a configuration that declares one is
  ranked only when it reaches it.
* **No target** (a user's workload that declares none, a built-in on other data or sizes): a configuration is
  called worse than the baseline only by **McNemar's exact test** on the per-example predictions of both on the
  same validation examples (``val_predictions``), the baseline being the baseline strategy's configuration at
  the same workload, data, global batch, steps_per_execution and precision (identical batches and initial
  weights), or where none ran there, its configuration nearest in batch and spe (:func:`nearest_reference`:
  picked by settings, never by accuracy); p-values are Holm-corrected over the comparisons of a workload, at a
  family-wise 5 %.
* **Parity** (strategies and backends at identical batches): the same paired test, with the fraction of
  examples both got right or both got wrong (agreement); a significant gap between two backends running the
  same strategy name is flagged.

Records written before bench stored predictions fall back to the old unpaired rule, named as such: a difference
of final accuracies beyond the tolerance (:func:`bench.reporting.learning.accuracy_tolerance_pp`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from bench.predictions import Predictions, paired
from bench.reporting.format import config_label, config_name
from bench.reporting.frame import CONFIG_KEY, split_label
from bench.reporting.learning import PARITY_TOLERANCE_PP, accuracy_tolerance_pp
from bench.reporting.speedups import MATCH_KEY, baseline_rows, pick_baseline
from bench.reporting.stats import ALPHA, as_float, holm, mcnemar


def _first_predictions(points: pd.DataFrame, row: pd.Series) -> tuple[int, Predictions] | None:
    """(repeat, predictions) of the lowest ok repeat of ``row``'s configuration that stored predictions."""
    sel = np.logical_and.reduce([points[k] == row[k] for k in CONFIG_KEY]) & (points["status"] == "ok")
    for _, p in points[sel].sort_values("repeat").iterrows():
        if isinstance(p.get("predictions"), Predictions):
            return int(p["repeat"]), p["predictions"]
    return None


def compare(points: pd.DataFrame, row: pd.Series, base: pd.Series, tolerance_pp: float) -> dict[str, Any]:
    """``row``'s configuration against ``base``'s: McNemar on their predictions (same repeat index where both have
    it), else the unpaired tolerance rule. Keys: test, n, diff_pp, agreement, p, tolerance_pp, worse_unpaired."""
    a, b = _first_predictions(points, row), _first_predictions(points, base)
    if a is not None and b is not None:
        both = paired(a[1], b[1])
        if both is not None:
            t = mcnemar(*both)
            return {"test": "McNemar", "n": t.n, "diff_pp": t.diff_pp, "agreement": t.agreement, "p": t.p,
                    "tolerance_pp": math.nan, "worse_unpaired": False}
    diff = 100 * (as_float(row["final_val_accuracy"]) - as_float(base["final_val_accuracy"]))
    tol = accuracy_tolerance_pp(as_float(base["final_val_accuracy"]), as_float(base["n_val_eval"]), tolerance_pp)
    return {"test": "unpaired", "n": as_float(base["n_val_eval"]), "diff_pp": diff, "agreement": math.nan,
            "p": math.nan, "tolerance_pp": tol, "worse_unpaired": bool(math.isfinite(diff) and diff < -tol)}


def add_learning(summary: pd.DataFrame, points: pd.DataFrame, baseline: str,
                 tolerance_pp: float = PARITY_TOLERANCE_PP) -> pd.DataFrame:
    """Add the accuracy judgement to a :func:`bench.reporting.frame.summarize` frame (module docstring).

    Columns: ``accuracy_test`` (``target``, ``McNemar``, ``unpaired`` or ""), ``accuracy_ref`` (the baseline
    compared with), ``accuracy_diff_pp``, ``accuracy_n`` (examples compared), ``accuracy_agreement``,
    ``accuracy_p`` (Holm-adjusted), ``accuracy_flag`` (text; "" = fine),
    ``learns`` (ok, not *not learning*, reached its target or not worse than its baseline, has a throughput):
    only those are ranked.
    """
    summary = summary.copy()
    cands = baseline_rows(summary, baseline)
    names = ("accuracy_test", "accuracy_ref", "accuracy_diff_pp", "raw_p", "worse_unpaired", "accuracy_n",
             "accuracy_agreement")
    cols: dict[str, list[Any]] = {k: [] for k in names}
    for _, row in summary.iterrows():
        test, ref, diff, p, worse, n, agree = "", "", math.nan, math.nan, False, math.nan, math.nan
        if row["status"] == "ok" and math.isfinite(row["target_accuracy"]):
            test = "target"
        elif row["status"] == "ok":
            base = pick_baseline(row, cands)
            if base is None:  # no baseline at this batch and spe: one reference chosen without looking at accuracy
                base = nearest_reference(row, cands)
            if base is not None and (base["strategy"] != row["strategy"] or config_name(base) != config_name(row)):
                c = compare(points, row, base, tolerance_pp)
                ref = base["strategy"] if config_name(base) == config_name(row) else config_label(base)
                test, diff, p, worse = c["test"], c["diff_pp"], c["p"], c["worse_unpaired"]
                n, agree = c["n"], c["agreement"]
        for k, v in zip(cols, (test, ref, diff, p, worse, n, agree), strict=True):
            cols[k].append(v)
    for k, v in cols.items():
        summary[k] = v
    summary["accuracy_p"] = math.nan
    for _, g in summary.groupby(["workload", "dataset"], sort=False):
        summary.loc[g.index, "accuracy_p"] = holm(list(g["raw_p"]))
    summary["accuracy_flag"] = [_flag(r) for _, r in summary.iterrows()]
    summary["learns"] = ((summary["status"] == "ok") & (summary["not_learning"] == "")
                         & (summary["accuracy_flag"] == "") & np.isfinite(summary["examples_per_s"]))
    return summary.drop(columns=["raw_p", "worse_unpaired"])


def nearest_reference(row: pd.Series, cands: pd.DataFrame) -> pd.Series | None:
    """The baseline strategy's configuration of the same workload, dataset and precision closest to ``row`` in global
    batch (ratio; the smaller on a tie), then in spe: one reference per configuration, picked by its settings alone
    (never by accuracy), so a paired test against it stays valid where no baseline ran at ``row``'s own batch."""
    same = cands[(cands["workload"] == row["workload"]) & (cands["dataset"] == row["dataset"])
                 & (cands["precision"] == row["precision"])]
    if same.empty:
        return None
    order = same.assign(
        _gap=[abs(math.log(float(b) / float(row["global_batch_size"]))) for b in same["global_batch_size"]],
        _spe=[abs(math.log(float(x) / float(row["steps_per_execution"]))) for x in same["steps_per_execution"]])
    return order.sort_values(["_gap", "global_batch_size", "_spe", "strategy"], kind="mergesort").iloc[0]


def _flag(r: pd.Series) -> str:
    """Why a configuration's accuracy keeps it from being ranked ("" when it does not)."""
    if r["accuracy_test"] == "target" and not r["reached_target"]:
        return f"target {r['target_accuracy']:.2f} not reached in {r['n_reached']}/{r['n_ok']} repeats"
    if r["accuracy_test"] == "McNemar" and r["accuracy_p"] < ALPHA and r["accuracy_diff_pp"] < 0:
        return f"below {r['accuracy_ref']} ({r['accuracy_diff_pp']:+.1f} pp, McNemar p={r['accuracy_p']:.2g})"
    if r["accuracy_test"] == "unpaired" and r["worse_unpaired"]:
        return f"below {r['accuracy_ref']} ({r['accuracy_diff_pp']:+.1f} pp, unpaired)"
    return ""


PARITY_COLUMNS = [*MATCH_KEY, "seed", "strategy", "kind", "val_accuracy", "baseline", "test", "n", "diff_pp",
                  "agreement", "p", "tolerance_pp", "flag"]


def accuracy_parity(points: pd.DataFrame, summary: pd.DataFrame, baseline: str,
                    tolerance_pp: float = PARITY_TOLERANCE_PP) -> pd.DataFrame:
    """Accuracy of every strategy against its baseline, and of every non-TensorFlow backend against TensorFlow on
    the same strategy name, at equal workload, dataset, global batch, spe, precision and seed: identical batches
    and initial weights, so the paired test applies. One row per comparison (``kind``: ``strategy`` or
    ``backend``); ``p`` Holm-adjusted per workload; ``flag`` = significant (or beyond the tolerance, unpaired)."""
    ok = points[points["status"] == "ok"] if not points.empty else points
    if ok.empty:
        return pd.DataFrame(columns=PARITY_COLUMNS)
    rows = []
    conf = summary[summary["status"] == "ok"].set_index(CONFIG_KEY, drop=False)
    for key, g in ok.groupby([*MATCH_KEY, "seed"], sort=True, dropna=False):
        strategies = sorted(set(g["strategy"]))
        cands = baseline_rows(conf[conf["strategy"].isin(strategies)].reset_index(drop=True), baseline)
        for s in strategies:
            row = _config(conf, key, s)
            if row is None:
                continue
            pairs = []
            base = pick_baseline(row, cands)
            if base is not None and base["strategy"] != s:  # the same strategy name on another backend: a backend gap
                same_name = split_label(base["strategy"])[1] == split_label(s)[1]
                pairs.append(("backend" if same_name else "strategy", base))
            backend, name = split_label(s)
            if backend != "tensorflow" and name in strategies and name != (base["strategy"] if base is not None
                                                                            else None):
                tf_row = _config(conf, key, name)
                if tf_row is not None:
                    pairs.append(("backend", tf_row))
            for kind, ref in pairs:
                c = compare(g, row, ref, tolerance_pp)
                rows.append({**dict(zip([*MATCH_KEY, "seed"], key, strict=True)), "strategy": s, "kind": kind,
                             "val_accuracy": row["final_val_accuracy"], "baseline": ref["strategy"], **c})
    out = pd.DataFrame(rows, columns=[*PARITY_COLUMNS, "worse_unpaired"])
    if out.empty:
        return out.drop(columns=["worse_unpaired"])
    for _, g in out.groupby(["workload", "dataset"], sort=False):
        out.loc[g.index, "p"] = holm(list(g["p"]))
    out["flag"] = [bool((r["test"] == "McNemar" and r["p"] < ALPHA)
                        or (r["test"] == "unpaired" and abs(r["diff_pp"]) > r["tolerance_pp"]))
                   for _, r in out.iterrows()]
    return out.drop(columns=["worse_unpaired"])


def _config(conf: pd.DataFrame, key: tuple[Any, ...], strategy: str) -> pd.Series | None:
    """The summary row of ``strategy`` at the match key (the first MATCH_KEY values of ``key``)."""
    match = dict(zip(MATCH_KEY, key, strict=False))
    sel = np.logical_and.reduce([conf[k] == v for k, v in match.items()]) & (conf["strategy"] == strategy)
    return None if not sel.any() else conf[sel].iloc[0]


def accuracy_sentence(r: pd.Series) -> str:
    """How a configuration's accuracy was judged, in one sentence (the answer section)."""
    acc = f"final val accuracy {r['final_val_accuracy']:.3f}"
    if r["accuracy_test"] == "target":
        if not r["reached_target"]:
            return f"**target {r['target_accuracy']:.2f} NOT reached** ({r['n_reached']}/{r['n_ok']} repeats); {acc}"
        return (f"**reached the target {r['target_accuracy']:.2f}** in {r['n_reached']}/{r['n_ok']} repeats, after "
                f"{r['time_to_target_s']:.1f} s of training (epoch {r['epochs_to_target']:.0f}, warm-up included); "
                f"{acc}")
    if r["accuracy_test"] == "McNemar":
        verdict = "significantly lower" if r["accuracy_flag"] else "no significant difference"
        return (f"{acc}; paired with `{r['accuracy_ref']}` on the same {int(r['accuracy_n']):,} validation examples: "
                f"{r['accuracy_diff_pp']:+.1f} pp, {100 * r['accuracy_agreement']:.1f}% agreement, McNemar "
                f"p={r['accuracy_p']:.2g} (Holm): {verdict}")
    if r["accuracy_test"] == "unpaired":
        return (f"{acc}, {r['accuracy_diff_pp']:+.1f} pp vs `{r['accuracy_ref']}` (records without per-example "
                "predictions: unpaired, within the tolerance)")
    if r.get("baseline") == r["strategy"]:
        return f"{acc}; it is the baseline, and the workload has no target here to judge it by"
    return f"{acc}; not judged (no target, and no paired baseline at this configuration)"
