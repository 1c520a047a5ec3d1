"""A workload's results table, built so it cannot mislead: every measured column per configuration (:func:`result_rows`,
``results.csv``: :func:`results_csv`); in the report at most :data:`MAX_COLUMNS` columns, the equal ones said once
under it, and the flags. Docs: docs/reports.md, *The results table*."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from bench.reporting.analysis.limits import SAID_LIMITS
from bench.reporting.frames.points import COMPILED
from bench.reporting.frames.summary import SHORT_EPOCH_S
from bench.reporting.render.labels import absent as absent_strategies
from bench.reporting.render.markdown.accuracy import accuracy_cell
from bench.reporting.render.text import (
    DASH,
    counted,
    flag,
    markdown_table,
    names_of,
    number,
    rate,
    reason_text,
    seconds,
    shorten,
    sig,
    speedup_cell,
    two_speeds_text,
    with_backend,
)
from bench.reporting.render.words import ONE_STEP_WORDS, accuracy_flag_text, arithmetic_words, not_learning_text

MAX_COLUMNS = 12
# Dropped first when a table has more than MAX_COLUMNS columns (all of them are in results.csv and report.json).
SPARE_COLUMNS = ("peak RSS MiB", "MFU % (datasheet)", "GFLOP/s", "target", "device MiB", "warm-up s", "repeats",
                 "devices", "epochs", "MFU %")
CSV_NAME = "results.csv"


def _trend_flag(row: pd.Series) -> str:
    """``still falling (-21 % over its steady epochs)``: the largest drift of a trending process (stats.trend)."""
    if not flag(row.get("trending")):
        return ""
    drifts = [d for d in row.get("steady_drift") or () if math.isfinite(d)]
    d = max(drifts, key=abs) if drifts else math.nan
    word = "falling" if d < 0 else "rising"
    return f"still {word} ({d:+.0%} over its steady epochs)" if math.isfinite(d) else ""


def _flags(row: pd.Series) -> str:
    """The flags column: status, learning, what limits it (input-bound; overhead-, compute-, memory-, kernel-,
    host-bound or mixed from analysis.limits: undetermined is no flag), two speeds, parity, MFU above the probe, a
    steady state that still trends, an epoch too short to time, processes run again with one step in flight."""
    limit = row.get("limit", "")
    flags = [f"**{row['status']}**: " + shorten(reason_text(row["error"])) if row["status"] != "ok" else
             f"{row['n_points'] - row['n_ok']} of {row['n_points']} repeats not ok" if row["n_ok"] < row["n_points"]
             else "",
             "not learning" if row["not_learning"] else accuracy_flag_text(row),
             "input-bound" if row["input_bound"] else limit if limit in SAID_LIMITS else "",
             # across processes (bench.reporting.stats.spread): the range is part of the answer
             two_speeds_text(row["two_speeds"]) if row.get("two_speeds") else "",
             "parity" if row.get("parity_flag", False) else "",
             "above the probed peak (MFU not shown)" if row.get("mfu_over_peak", False) else "",
             ("FLOPs counted by XLA (the layer rules miss some layers)" if row.get("flop_count") == COMPILED
              else "FLOPs partly counted (MFU not shown)") if row.get("flops_uncounted") else "",
             _trend_flag(row),
             f"epoch too short to time (< {SHORT_EPOCH_S:g} s)" if flag(row.get("too_short")) else "",
             f"{ONE_STEP_WORDS}: {row['one_step']} of {row['n_ok']} processes" if row.get("one_step") else ""]
    return "; ".join(f for f in flags if f)


def _epochs(row: pd.Series) -> str:
    return ", ".join(str(n) for n in row.get("epochs") or ()) or DASH


def _row(r: pd.Series, baseline: str, has_target: bool) -> dict[str, Any]:
    """Every column of one configuration's row, as the report writes it."""
    ok = r["status"] == "ok"
    known = isinstance(r["device_kind"], str) and pd.notna(r["num_replicas"]) and r["num_replicas"]
    row: dict[str, Any] = {
        "strategy": r["strategy"], "devices": f"{r['device_kind']} x{int(r['num_replicas'])}" if known else DASH,
        "global batch": r["global_batch_size"], "spe": r["steps_per_execution"], "precision": r["precision"],
        "repeats": r["n_ok"] if r["n_ok"] == r["n_points"] else f"{r['n_ok']}/{r['n_points']}",
        "epochs": _epochs(r),
        "examples/s": rate(r["examples_per_s"]), f"same-settings speedup vs {baseline}": speedup_cell(r),
        "train s/epoch median [IQR]": f"{seconds(r['train_s_median'])} [{seconds(r['train_s_iqr'])}]" if ok else DASH,
        "warm-up s": seconds(r["warmup_overhead_s"]) + (" †" if flag(r.get("warmup_after_others")) else ""),
        "final val acc [runs' range]": accuracy_cell(r),
    }
    if has_target:
        targeted = ok and math.isfinite(r["target_accuracy"])
        reached = f" ({r['n_reached']}/{r['n_seeds']} runs)" if targeted and r["n_reached"] < r["n_seeds"] else ""
        row["target"] = number(r["target_accuracy"], ".2f")
        row["s to target"] = (seconds(r["time_to_target_s"]) + reached) if targeted else DASH
    row |= {"GFLOP/s": sig(r["gflops_per_s"]), "MFU %": sig(r["mfu_pct"]),
            "MFU % (datasheet)": sig(r["mfu_datasheet_pct"]), "peak RSS MiB": number(r.get("peak_rss_mib"), ",.0f"),
            "device MiB": device_memory_cell(r), "flags": _flags(r)}
    return row


def result_rows(summary: pd.DataFrame, baseline: str, show_backend: bool = False) -> list[dict[str, Any]]:
    """Every column of every configuration that ran (a strategy absent as a whole is left to the line under the
    table): the full table, before columns are folded or dropped."""
    absent = set(absent_strategies(summary)["strategy"])
    has_target = bool(np.isfinite(summary["target_accuracy"]).any())
    shown = summary[~summary["strategy"].isin(absent)]
    rows = [_row(r, baseline, has_target) for _, r in shown.iterrows()]
    return with_backend(rows, show_backend, names_of(shown))


def _fold(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """Columns equal in every row (two rows or more) or empty in every row, out of the table: ``name value`` each."""
    if not rows:
        return rows, []
    said, dropped = [], set()
    for name in rows[0]:
        values = {str(r.get(name, DASH)) for r in rows}
        if values <= {"", DASH}:
            dropped.add(name)
        elif len(rows) > 1 and len(values) == 1 and name not in ("examples/s", "train s/epoch median [IQR]"):
            dropped.add(name)
            said.append(f"{name} {values.pop()}")
    return [{k: v for k, v in r.items() if k not in dropped} for r in rows], said


def results_table(summary: pd.DataFrame, baseline: str, show_backend: bool = False) -> str:
    """One workload's results table (at most :data:`MAX_COLUMNS` columns) and the one line under it: what every row
    shares, the columns left to the CSV, the absent strategies, the marks' legend."""
    rows = result_rows(summary, baseline, show_backend)
    marks = {m.strip() for r in rows for m in MEM_MARKS if f"{r.get('device MiB')}".endswith(m)}
    marks |= {"†" for r in rows if str(r.get("warm-up s", "")).endswith("†")}
    rows, said = _fold(rows)
    spare = [c for c in SPARE_COLUMNS if rows and c in rows[0]]
    left = []
    while rows and len(rows[0]) > MAX_COLUMNS and spare:
        name = spare.pop(0)
        left.append(name)
        rows = [{k: v for k, v in r.items() if k != name} for r in rows]
    notes = [f"Every row: {', '.join(said)}." if said else "",
             f"Also in {CSV_NAME} and report.json: {', '.join(left)}." if left else "",
             " ".join(TABLE_LEGEND[m] for m in sorted(marks, reverse=True) if m in TABLE_LEGEND),
             _absent_line(summary)]
    table = markdown_table(pd.DataFrame(rows).fillna(DASH)) if rows else "No configuration ran."
    line = " ".join(n for n in notes if n)
    return table + (f"\n\n{line}" if line else "")


def _absent_line(summary: pd.DataFrame) -> str:
    absent = absent_strategies(summary)
    if absent.empty:
        return ""
    return "Absent: " + "; ".join(f"`{r['strategy']}` ({counted(r['n_points'], 'point')}, {shorten(r['reason'], 70)})"
                                  for _, r in absent.iterrows()) + "."


SCOPE_MARKS = {"process": " (process)", "process+probe": " (process, probe)"}  # device MiB not reset for a point
MEM_MARKS = (" (step)", *SCOPE_MARKS.values())
TABLE_LEGEND = {  # the marks' legend, in the line under the results table (in full: docs/reports.md)
    "†": "† warm-up after other points in its worker process (a fresh process's first epoch is longer).",
    "(step)": "Device MiB (step): the compiled step's need on one device (XLA's memory analysis).",
    "(process)": "Device MiB (process): the worker's allocator peak over its points so far.",
    "(process, probe)": "Device MiB (process, probe): the worker's allocator peak, bench's matmul probe included "
                        "(records of an older bench).",
}


def device_memory_cell(r: pd.Series) -> str:
    """Device MiB: the compiled step's analysis (JAX), else the allocator's peak, marked unless the point's own."""
    step = r.get("step_mib", math.nan)
    if isinstance(step, float) and math.isfinite(step):
        return f"{number(step, ',.0f')} (step)"
    peak = r.get("device_peak_mib", math.nan)
    if not (isinstance(peak, float) and math.isfinite(peak)):
        return DASH
    scope = r.get("device_scope")  # a str, or None/NaN where the record has none
    return number(peak, ",.0f") + (SCOPE_MARKS.get(scope, "") if isinstance(scope, str) else "")


CSV_COLUMNS = ("workload", "dataset", "strategy", "backend", "compiler_mark", "device_kind", "num_replicas",
               "accelerator", "host", "global_batch_size", "steps_per_execution", "spe_requested", "precision",
               "arithmetic", "status", "n_points", "n_ok", "epochs", "examples_per_s", "baseline", "speedup",
               "speedup_low", "speedup_high", "train_s_median", "train_s_iqr", "epoch_s_median", "warmup_overhead_s",
               "final_val_accuracy", "val_acc_min", "val_acc_max", "n_seeds", "target_accuracy", "n_reached",
               "time_to_target_s", "gflops_per_s", "mfu_pct", "mfu_datasheet_pct", "peak_rss_mib", "device_peak_mib",
               "step_mib", "limit", "trending", "too_short", "not_learning", "error")


def results_csv(summary: pd.DataFrame) -> str:
    """Every configuration's results as CSV (one row each, the summary's own values and units: seconds, examples/s,
    fractions of 1 for accuracy, MiB), the file ``results.csv`` beside report.md; a flags column as in the report."""
    cols = [c for c in CSV_COLUMNS if c in summary]
    out = summary[cols].copy()
    for c in ("epochs", "spe_requested"):
        if c in out:
            out[c] = [" ".join(str(v) for v in t) for t in out[c]]
    if "not_learning" in out:
        out["not_learning"] = out["not_learning"].map(not_learning_text)
    if "arithmetic" in out:
        out["arithmetic"] = [arithmetic_words(r) for _, r in summary.iterrows()]
    if "error" in out:  # a configuration with a point that did not finish: its reason, or that none was recorded
        out["error"] = [reason_text(e) if n else "" for e, n in zip(out["error"], summary["n_not_ok"], strict=True)]
    out["flags"] = [_flags(r) for _, r in summary.iterrows()]
    return str(out.to_csv(index=False, lineterminator="\n", float_format="%.6g"))
