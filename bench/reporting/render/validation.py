"""The text ``python -m bench validate`` prints: the prediction's error per table, model and pair kind, by method, and
the overall line of bench's method (:mod:`bench.reporting.analysis.validate` computes every figure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from bench.reporting.analysis.validate import METHODS, ROOFLINE, SAME, TIME_MODEL, error_summary
from bench.reporting.load.throughput import NO_DATASHEET, SECOND_ROW, SEVERAL_GPUS, ThroughputTable
from bench.reporting.render.text import markdown_table

METHOD_WORDS = {TIME_MODEL: "time model", ROOFLINE: "one roofline mix", SAME: "same throughput"}


def _pct(v: float) -> str:
    return f"{100 * v:.1f}"


def _wide(summary: pd.DataFrame, keys: list[str]) -> list[dict[str, str]]:
    """One row per ``keys`` group, a median and a p90 column per method, the count last."""
    rows: dict[tuple[str, ...], dict[str, str]] = {}
    counts: dict[tuple[str, ...], str] = {}
    for r in summary.to_dict("records"):
        key = tuple(str(r[k]) for k in keys)
        row = rows.setdefault(key, dict(zip(keys, key, strict=True)))
        row[f"{METHOD_WORDS[r['method']]} median %"] = _pct(r["median"])
        row[f"{METHOD_WORDS[r['method']]} p90 %"] = _pct(r["p90"])
        counts[key] = str(int(r["n"]))
    return [{**row, "predictions": counts[key]} for key, row in rows.items()]


def _skipped(t: ThroughputTable) -> list[str]:
    """The rows not used, a line per reason."""
    several = [n for n, code, _ in t.skipped if code == SEVERAL_GPUS]
    second = [f"{n} (used: {used})" for n, code, used in t.skipped if code == SECOND_ROW]
    unknown = [n for n, code, _ in t.skipped if code == NO_DATASHEET]
    lines = [(several, f"  not used: {len(several)} rows of several GPUs"),
             (second, f"  not used, a second row of a GPU already read (another host): {', '.join(second)}"),
             (unknown, f"  skipped, no datasheet figures in bench (bench.measure.datasheets): {', '.join(unknown)}")]
    return [line for names, line in lines if names]


def overall_line(frame: pd.DataFrame) -> str:
    """``overall: median N %, p90 M % over K predictions``: bench's method over every table."""
    found = error_summary(frame[frame["method"] == TIME_MODEL])
    if found.empty:
        return ("overall: no prediction (the time model is fitted on a model's rows of at least three GPUs other than "
                "the one predicted)")
    s = found.iloc[0]
    return f"overall: median {_pct(s['median'])} %, p90 {_pct(s['p90'])} % over {int(s['n'])} predictions"


def validation_text(tables: Sequence[ThroughputTable], frame: pd.DataFrame) -> str:
    """The whole printout: what was read and skipped, the error tables, the overall line last."""
    out = ["Leave-one-device-out: for every model and every ordered pair of GPUs (measured -> unmeasured) of a table, "
           "the unmeasured GPU's examples/s predicted from the measured one's and the datasheets; nothing fitted sees "
           "the predicted GPU's rows. Error = |predicted / measured - 1|; same generation = one architecture. Methods: "
           f"{', '.join(METHOD_WORDS[m] for m in METHODS)} (docs/predict.md).", ""]
    for t in tables:
        out.append(f"{t.path.name} ({t.precision}): {len(t.chips)} GPUs ({', '.join(sorted(t.chips))}), "
                   f"{len(t.models)} models")
        out += _skipped(t)
    if frame.empty:
        return "\n".join([*out, "", "overall: no prediction (fewer than two GPUs with datasheet figures)"]) + "\n"
    frame = frame.assign(pairs=frame["same_generation"].map({True: "same generation", False: "cross generation"}))
    kinds = pd.concat([frame, frame.assign(pairs="all")])
    out += ["", "Per table and model:", "", markdown_table(_wide(error_summary(frame, ["table", "model"]),
                                                                    ["table", "model"])),
            "", "Per table, by pair:", "", markdown_table(_wide(error_summary(kinds, ["table", "pairs"]),
                                                               ["table", "pairs"])),
            "", "Every table, by pair:", "", markdown_table(_wide(error_summary(kinds, ["pairs"]), ["pairs"])),
            "", overall_line(frame)]
    return "\n".join(out) + "\n"


def reference_text(reference: Mapping[str, Any], left_out: pd.DataFrame) -> str:
    """``validate --records``: each GPU configuration's step predicted from its group's others (the step model),
    then the reference a workload with no GPU record is predicted from (:func:`bench.reporting.analysis.reference.
    derive`'s fields)."""
    rows = [{"workload": r["workload"], "backend": r["backend"] + (f"+{r['compiler_mark']}" if r.get("compiler_mark")
                                                                   else ""), "accelerator": r["accelerator"],
             "dataset": r["dataset"], "batch": str(r["global_batch_size"]), "spe": str(r["steps_per_execution"]),
             "measured ms a step": f"{1e3 * r['measured_s']:.3f}",
             "predicted ms a step": f"{1e3 * r['predicted_s']:.3f}" if r["predicted_s"] == r["predicted_s"] else "—",
             "error %": _pct(r["error"]) if r["error"] == r["error"] else "—"}
            for r in left_out.to_dict("records")]
    ratios = "; ".join(f"{k} {lo:.2f}x to {hi:.2f}x" for k, (lo, hi) in reference["ratios"].items()) or "none"
    return "\n".join([
        "Each GPU configuration's seconds a step, predicted from the other configurations of its workload, backend, "
        "GPU, precision and compiler (the step model):", "", markdown_table(rows), "",
        f"reference: {reference['backend']} on {reference['accelerator']}, {reference['configurations']} "
        f"configurations of {reference['workload']}: a step's fixed part {1e3 * reference['step_s']:.3f} ms + "
        f"{1e3 * reference['call_s']:.3f} ms / steps_per_execution, {1e6 * reference['example_s']:.2f} µs an "
        f"example; leave-one-out p90 {_pct(reference['host_error'])} %",
        f"other backends' steps on the same configurations: {ratios}",
        f"device part: at {100 * reference['efficiency']:.2f} % of the datasheet's rate (its floor over its "
        "seconds), from "
        f"{reference['efficiency_configurations']} configuration(s); each predicted from the others: up to "
        f"{_pct(reference['efficiency_error'])} % off", ""])
