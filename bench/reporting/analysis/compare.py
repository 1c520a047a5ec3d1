"""Compare two result folders, or reports (their report.json), point by point: ``python -m bench compare A B
[fail_above=1.10]``. Each repeat gives one value, the median of its steady epochs; the verdict is the report's rule
(:func:`bench.reporting.stats.ratio.repeat_ratio_ci`) and the exit status gates CI. Method: docs/statistics.md,
*Honest significance*.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from bench.reporting.frames.keys import CONFIG_KEY, DATASET_KEY, SETTINGS, STRATEGY_KEY
from bench.reporting.stats.ratio import repeat_ratio_ci
from bench.reporting.stats.sample import median_iqr

METRICS = {"epoch_s": "steady_epoch_s", "train_s": "steady_train_s"}
# verdicts of a matched point (words: bench.reporting.render.console); notes of an unmatched one, a code first
FASTER, SLOWER, NOT_SIGNIFICANT, NO_CLAIM = "faster", "slower", "not_significant", "no_claim"
ONLY_IN = "only_in"  # (side,)
NOT_OK = "not_ok"  # ((side, status, error), ...): "A and B" as the side when both failed alike
DEFAULT_FAIL_ABOVE = 1.10
# Two runs' configurations are joined on their identity (bench.reporting.frames.keys.CONFIG_KEY), the host only where
# a side's label names it (one strategy on several hosts): two machines' runs of one strategy are compared.
KEY = ["workload", *DATASET_KEY, *(k for k in STRATEGY_KEY if k != "host"), "host_key", *SETTINGS]
LABEL_KEY = ["workload", "dataset", "strategy", *SETTINGS]  # a report.json from before its identity fields
SIDE = [*dict.fromkeys([*LABEL_KEY, *KEY]), "samples", "status", "error"]

BOTH = "both"  # a note's side where A and B failed alike (render words it)


def records_side(points: pd.DataFrame, metric: str = "train_s") -> pd.DataFrame:
    """Per configuration: one value per ok repeat (median of its steady ``metric``, seconds), plus status/error when
    none is ok; its identity (:data:`KEY`) and labels."""
    column = METRICS[metric]
    if points.empty:
        return pd.DataFrame(columns=SIDE)
    rows = []
    for _, g in points.groupby(CONFIG_KEY, sort=False, dropna=False):
        ok = g[g["status"] == "ok"]
        samples = tuple(v for v in (median_iqr(t)[0] for t in ok[column]) if math.isfinite(v))
        bad = g[g["status"] != "ok"]
        rows.append({**{k: g.iloc[0][k] for k in SIDE[:-3]}, "samples": samples,
                     "status": "ok" if len(ok) else bad.iloc[0]["status"],
                     "error": "" if bad.empty else bad.iloc[0]["error"]})
    return pd.DataFrame(rows, columns=SIDE)


def report_side(report: dict[str, Any], metric: str = "train_s") -> pd.DataFrame:
    """A side of the comparison from a ``report.json`` (:mod:`bench.reporting.render.report_json`): per configuration
    its per-repeat ``metric`` samples (the median of each repeat's steady epochs, seconds), as :func:`records_side`
    gives them from records, with its identity (a report.json from before it carried one: its labels alone)."""
    rows = []
    for c in report["configurations"]:
        ident = c.get("identity") or {}
        rows.append({**{k: ident.get(k) for k in KEY}, **{k: c[k] for k in (*LABEL_KEY, "backend")},
                     "samples": tuple(c[metric]["samples"]), "status": "ok" if c[metric]["samples"] else c["status"],
                     "error": "" if c[metric]["samples"] else "; ".join(c["flags"]) or c["status"]})
    return pd.DataFrame(rows, columns=SIDE)


def join_key(a: pd.DataFrame, b: pd.DataFrame) -> list[str]:
    """What two sides are joined on: their identity (:data:`KEY`), or their labels where a side has no identity (a
    report.json written before it carried one)."""
    known = all(side[k].notna().all() for side in (a, b) for k in KEY if k not in LABEL_KEY)
    return KEY if known else LABEL_KEY


def compare_sides(a: pd.DataFrame, b: pd.DataFrame, fail_above: float = DEFAULT_FAIL_ABOVE
                  ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return ``(matched, unmatched)`` of two sides already reduced to per-repeat samples (:func:`records_side`,
    :func:`report_side`).

    ``matched`` has one row per key present and ok on both sides: ``a_median_s``, ``b_median_s``,
    ``ratio`` (B/A), ``low``, ``high``, ``significant``, ``verdict`` (a code), ``fails`` (significant and
    ratio > ``fail_above``). ``unmatched`` lists keys found on one side only or not ok on a side, with a ``note``
    (a code and what it needs: :data:`ONLY_IN`, :data:`NOT_OK`).
    """
    key = join_key(a, b)
    labels = [k for k in LABEL_KEY if k not in key]
    merged = a[[*key, *labels, "samples", "status", "error"]].merge(
        b[[*key, *labels, "samples", "status", "error"]], on=key, how="outer", suffixes=("_a", "_b"), indicator=True)
    for k in labels:  # a configuration's label on the side that has it (A's where both do)
        merged[k] = merged[f"{k}_a"].where(merged[f"{k}_a"].notna(), merged[f"{k}_b"])
    merged = merged.sort_values(LABEL_KEY, kind="mergesort")
    matched: list[dict[str, Any]] = []
    unmatched: list[dict[str, Any]] = []
    for _, r in merged.iterrows():
        base = {k: r[k] for k in LABEL_KEY}
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
