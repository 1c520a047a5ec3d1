"""The plain-text tables: the end-of-run console table (the report's own numbers) and ``compare``'s table. Never
imports TensorFlow.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import pandas as pd
from tabulate import tabulate

from bench.records import RecordLike
from bench.reporting.analysis.compare import BOTH, NO_CLAIM, NOT_SIGNIFICANT, ONLY_IN
from bench.reporting.frames.identity import shows_backends
from bench.reporting.frames.points import points_frame
from bench.reporting.render.labels import Names, labelled
from bench.reporting.render.labels import absent as absent_named
from bench.reporting.render.text import number, ratio_text, reason_text, seconds, speedup_cell
from bench.reporting.render.words import accuracy_flag_text
from bench.reporting.stats.ratio import RatioCI
from bench.reporting.stats.sample import MIN_REPEATS
from bench.reporting.verdicts import judged_summary


def summary_table(records: Sequence[RecordLike], baseline: str = "cpu") -> str:
    """One row per configuration, from :func:`bench.reporting.frames.summary.summarize` (the report's numbers).

    examples/s = training throughput of the steady epochs (the report's one ranking measure, geometric
    mean over repeats); train s = median steady ``train_s``; speedup vs ``baseline`` formatted as in the
    report (an interval and ``~`` only with >= 3 repeats a side); spe = what ran (the request beside it when it
    differs); s to target = training seconds until the target accuracy (when the workload has one); flags: not
    learning, target not reached or below the baseline (paired test), input-bound. A strategy whose every point
    was skipped (absent hardware) gets one line with the reason instead of a row per point.
    """
    points = points_frame(records)
    summary = judged_summary(points, baseline)
    if summary.empty:
        return "no records"
    summary = labelled(summary, Names.of(points))
    backends = shows_backends(summary)  # a backend column when not every record is TensorFlow's
    pipelines = set(summary["input_pipeline"]) != {"default"}  # a pipeline column when one is not the default
    targets = bool(np.isfinite(summary["target_accuracy"]).any())  # a time-to-target column
    absent = absent_named(summary)  # a strategy every point of which was skipped: one line, not a row each
    lines = []
    rows = []
    order = ["workload", "strategy", "global_batch_size", "steps_per_execution", "input_pipeline"]
    for _, r in summary.sort_values(order, kind="mergesort").iterrows():
        if r["strategy"] in set(absent["strategy"]):
            continue
        ok = r["status"] == "ok"
        flags = [f for f, on in (("not learning", r["not_learning"]),
                                 (accuracy_flag_text(r), r["accuracy_flag"] and not r["not_learning"]),
                                 ("input-bound", r["input_bound"])) if on]
        status = r["status"] if ok else f"{r['status']}: {reason_text(r['error'])[:80]}"
        speedup = "-"
        if ok and r["baseline"] and not r["is_baseline"] and pd.notna(r["speedup"]):
            speedup = speedup_cell(r)
        name = [r["backend"], r["strategy_label"]] if backends else [r["strategy"]]
        spe = str(int(r["steps_per_execution"]))
        if r["spe_requested"] != (int(r["steps_per_execution"]),):  # what ran, and the request behind it
            spe += f" (asked {', '.join(str(a) for a in r['spe_requested'])})"
        ttt = number(r["time_to_target_s"] if ok and r["reached_target"] else None, ".1f", dash="-")
        rows.append([r["workload"], *name, int(r["global_batch_size"]), spe,
                     *([r["input_pipeline"]] if pipelines else []),
                     number(r["examples_per_s"] if ok else None, ",.0f", dash="-"),
                     number(r["train_s_median"] if ok else None, ".3f", dash="-"),
                     number(r["final_val_accuracy"] if ok else None, ".3f", dash="-"),
                     *([ttt] if targets else []), speedup,
                     ", ".join([status, *flags])])
    if rows:
        headers = ["workload", *(["backend"] if backends else []), "strategy", "batch", "spe",
                   *(["pipeline"] if pipelines else []), "examples/s",
                   "train s/epoch", "val acc", *(["s to target"] if targets else []), f"vs {baseline}", "status"]
        lines.append(tabulate(rows, headers=headers, disable_numparse=True))
    for _, s in absent.iterrows():
        lines.append(f"skipped {s['strategy']} ({s['n_points']} points): {reason_text(s['reason'])}")
    return "\n".join(lines)


def _key_cells(r: pd.Series) -> list[Any]:
    return [r["workload"], r["dataset"], r["strategy"], r["global_batch_size"], r["steps_per_execution"],
            r["precision"]]


def verdict_text(r: pd.Series) -> str:
    """A compared point's verdict (bench.reporting.analysis.compare) in words, with the gate it fails."""
    said = {NOT_SIGNIFICANT: "~ not significant", NO_CLAIM: f"no claim (n < {MIN_REPEATS})"}.get(
        str(r["verdict"]), str(r["verdict"]))
    return f"{said} (> {r['fail_above']:g}x)" if r["fails"] else said


def note_text(note: tuple[Any, ...]) -> str:
    """Why a point was not compared, in words: ``only in A``, ``B: failed (OOM)``."""
    if note[0] == ONLY_IN:
        return f"only in {note[1]}"
    return "; ".join(f"{'A and B' if side == BOTH else side}: {status} ({error})" for side, status, error in note[1])


def compare_table(matched: pd.DataFrame, unmatched: pd.DataFrame, metric: str) -> str:
    """Plain-text tables (tabulate) for the console."""
    head = ["workload", "dataset", "strategy", "global batch", "spe", "precision"]
    out = []
    if not matched.empty:
        rows = [[*_key_cells(r), seconds(r["a_median_s"]), seconds(r["b_median_s"]),
                 ratio_text(RatioCI(r["ratio"], r["low"], r["high"], r["n_b"], r["n_a"])).lstrip("~"),
                 verdict_text(r)]
                for _, r in matched.iterrows()]
        out.append(tabulate(rows, headers=[*head, f"A {metric} median", f"B {metric} median",
                                           "B/A [95% CI]", "verdict"], disable_numparse=True))
        few = int((~np.isfinite(matched["low"].astype(float))).sum())
        if few:
            out += ["", f"{few} point(s) have fewer than {MIN_REPEATS} repeats on a side: their ratio is "
                        "shown without a claim and cannot fail the gate (run with repeats>=3 to gate on them)."]
    else:
        out.append("No point was measured in both folders.")
    if not unmatched.empty:
        # one line per strategy and reason: a missing GPU should not fill a screen with identical lines
        groups = unmatched.groupby(["strategy", "note"], sort=True)
        rows = [[strategy, len(g), ", ".join(sorted({str(w) for w in g["workload"]})),
                 note_text(cast(tuple[Any, ...], note))]  # the note column holds tuples (compare's unmatched)
                for (strategy, note), g in groups]
        out += ["", "Not compared:", tabulate(rows, headers=["strategy", "points", "workloads", "why"],
                                              disable_numparse=True)]
    return "\n".join(out)
