"""Compare two result folders, or reports (their report.json), point by point: ``python -m bench compare A B
[fail_above=1.10]``. Each repeat gives one value, the median of its steady epochs; the verdict is the report's rule
(:func:`bench.reporting.stats.ratio.repeat_ratio_ci`) and the exit status gates CI. Method: docs/statistics.md,
*Honest significance*.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from bench.reporting.stats.ratio import repeat_ratio_ci
from bench.reporting.stats.sample import median_iqr

METRICS = {"epoch_s": "steady_epoch_s", "train_s": "steady_train_s"}
# verdicts of a matched point (words: bench.reporting.render.console); notes of an unmatched one, a code first
FASTER, SLOWER, NOT_SIGNIFICANT, NO_CLAIM = "faster", "slower", "not_significant", "no_claim"
ONLY_IN = "only_in"  # (side,)
NOT_OK = "not_ok"  # ((side, status, error), ...): "A and B" as the side when both failed alike
DEFAULT_FAIL_ABOVE = 1.10
KEY = ["workload", "dataset", "strategy_key", "global_batch_size", "steps_per_execution", "precision"]

BOTH = "both"  # a note's side where A and B failed alike (render words it)

def records_side(points: pd.DataFrame, metric: str = "train_s") -> pd.DataFrame:
    """Per key: one value per ok repeat (median of its steady ``metric``, seconds), plus status/error when none is
    ok."""
    column = METRICS[metric]
    if points.empty:
        return pd.DataFrame(columns=[*KEY, "samples", "status", "error"])
    points = points.assign(strategy_key=points["strategy"])  # the report's label: report.json's key too
    rows = []
    for key, g in points.groupby(KEY, sort=True, dropna=False):
        ok = g[g["status"] == "ok"]
        samples = tuple(v for v in (median_iqr(t)[0] for t in ok[column]) if math.isfinite(v))
        bad = g[g["status"] != "ok"]
        rows.append({**dict(zip(KEY, key, strict=True)), "samples": samples,
                     "status": "ok" if len(ok) else bad.iloc[0]["status"],
                     "error": "" if bad.empty else bad.iloc[0]["error"]})
    return pd.DataFrame(rows)


def report_side(report: dict[str, Any], metric: str = "train_s") -> pd.DataFrame:
    """A side of the comparison from a ``report.json`` (:mod:`bench.reporting.render.report_json`): per configuration
    its per-repeat ``metric`` samples (the median of each repeat's steady epochs, seconds), as :func:`records_side`
    gives them from records; the strategy is the report's label (``jax/cpu_x2``, ``cpu@host``)."""
    rows = [{"workload": c["workload"], "dataset": c["dataset"], "strategy_key": c["strategy"],
             "global_batch_size": c["global_batch_size"], "steps_per_execution": c["steps_per_execution"],
             "precision": c["precision"], "samples": tuple(c[metric]["samples"]),
             "status": "ok" if c[metric]["samples"] else c["status"],
             "error": "" if c[metric]["samples"] else "; ".join(c["flags"]) or c["status"]}
            for c in report["configurations"]]
    return pd.DataFrame(rows, columns=[*KEY, "samples", "status", "error"])


def compare_sides(a: pd.DataFrame, b: pd.DataFrame, fail_above: float = DEFAULT_FAIL_ABOVE
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return ``(matched, unmatched)`` of two sides already reduced to per-repeat samples (:func:`records_side`,
    :func:`report_side`).

    ``matched`` has one row per key present and ok on both sides: ``a_median_s``, ``b_median_s``,
    ``ratio`` (B/A), ``low``, ``high``, ``significant``, ``verdict`` (a code), ``fails`` (significant and
    ratio > ``fail_above``). ``unmatched`` lists keys found on one side only or not ok on a side, with a ``note``
    (a code and what it needs: :data:`ONLY_IN`, :data:`NOT_OK`).
    """
    merged = a.merge(b, on=KEY, how="outer", suffixes=("_a", "_b"), indicator=True).sort_values(KEY)
    matched: list[dict[str, Any]] = []
    unmatched: list[dict[str, Any]] = []
    for _, r in merged.iterrows():
        base = {k: r[k] for k in KEY}
        if r["_merge"] != "both":
            unmatched.append({**base, "note": (ONLY_IN, "A" if r["_merge"] == "left_only" else "B")})
            continue
        sides = tuple((side, str(r[f"status_{s}"]), str(r[f"error_{s}"])) for side, s in (("A", "a"), ("B", "b"))
                      if r[f"status_{s}"] != "ok")
        if len(sides) == 2 and (r["status_a"], r["error_a"]) == (r["status_b"], r["error_b"]):
            sides = ((BOTH, str(r["status_a"]), str(r["error_a"])),)
        if sides:
            unmatched.append({**base, "note": (NOT_OK, sides)})
            continue
        ci = repeat_ratio_ci(r["samples_b"], r["samples_a"])
        if not ci.has_interval:
            verdict = NO_CLAIM
        else:
            verdict = NOT_SIGNIFICANT if not ci.significant else (SLOWER if ci.ratio > 1 else FASTER)
        fails = bool(ci.significant and ci.ratio > fail_above)
        matched.append({**base, "a_median_s": median_iqr(r["samples_a"])[0],
                        "b_median_s": median_iqr(r["samples_b"])[0], "ratio": ci.ratio, "low": ci.low,
                        "high": ci.high, "n_a": ci.n_den, "n_b": ci.n_num, "significant": ci.significant,
                        "verdict": verdict, "fails": fails, "fail_above": fail_above})
    return pd.DataFrame(matched), pd.DataFrame(unmatched)
