"""Where a run's time and repeats went, as the report writes it: the steps_per_execution that ran, JAX's spe loop,
where the wall time went, and how a ``repeats=auto`` run spent its repeats.
"""

from __future__ import annotations

import math

import pandas as pd

from bench.reporting.analysis.race_replay import Spent
from bench.reporting.frames.labels import config_label
from bench.reporting.frames.runs import time_budget
from bench.reporting.render.text import DASH, markdown_table, seconds, workload_title
from bench.reporting.render.words import race_reason_text
from bench.reporting.stats.sample import as_float


def spe_notes(summary: pd.DataFrame) -> list[str]:
    """One sentence per configuration whose steps_per_execution ran other than asked, with the reason."""
    out = []
    for _, r in summary.iterrows():
        ran = int(r["steps_per_execution"])
        other = [a for a in r.get("spe_requested") or () if a != ran]
        if not other:
            continue
        asked_text = " and ".join(f"spe{a}" for a in other)
        if r.get("backend") == "torch" and ran == 1:
            out.append(f"{r['strategy']} at b{r['global_batch_size']}: {asked_text} ran as spe1, the only value Keras' "
                       "PyTorch backend runs (one step per call)")
            continue
        steps = as_float(r.get("steps_per_epoch"))
        why = (f"the largest divisor of the epoch's {int(steps)} steps not above it" if math.isfinite(steps)
               else "the largest divisor of the epoch's steps not above it")
        out.append(f"{r['strategy']} at b{r['global_batch_size']}: {asked_text} ran as spe{ran}, {why} (Keras "
                   "would otherwise run whole executions past the end of the epoch)")
    return out


def jax_spe_note(summary: pd.DataFrame) -> str | None:
    """What ``steps_per_execution`` means under JAX, when JAX configurations with more than one step per execution
    are compared: in Keras 3.15 the JAX trainer runs an execution as a Python loop that calls the jitted train step
    once per step (``keras/src/backend/jax/trainer.py``, ``_make_function``), where TensorFlow compiles the loop
    into one ``tf.function`` and TPUStrategy into one TPU program; Keras' main branch has since moved to
    ``lax.scan``. So a JAX spe sweep measures fewer host callbacks only, and can change with the Keras version."""
    jax = summary[(summary["backend"] == "jax") & (summary["steps_per_execution"] > 1)]
    if jax.empty:
        return None
    versions = sorted({v for v in jax.get("keras", pd.Series(dtype=str)) if v}) or ["(version not recorded)"]
    return (f"**steps_per_execution under JAX** is a Python loop calling the jitted train step once per step in "
            f"Keras {', '.join(versions)} (its JAX trainer's `_make_function`), not one compiled program as under "
            "TensorFlow's `tf.function` or TPUStrategy: a JAX spe figure saves host callbacks only, and may change "
            "with the Keras version (docs/findings.md).")


def race_section(spent: Spent | None) -> list[str]:
    """The report's "How the repeats were spent" section (nothing for a run with a fixed number of repeats)."""
    if spent is None:
        return []
    share = f" ({100 * spent.used_s / spent.full_s:.0f} %)" if spent.full_s > 0 and math.isfinite(spent.full_s) else ""
    lines = ["## How the repeats were spent (repeats=auto)", "",
             f"{spent.used_s:.0f} s of point time, against about {spent.full_s:.0f} s for "
             f"repeats={spent.max_repeats} everywhere{share}. Speedup intervals of this run are Bonferroni-adjusted "
             f"over its {spent.max_repeats} looks at the data (method: docs/statistics.md).", ""]
    for (workload, dataset), done in sorted(spent.settled.items()):
        lines += [f"- {workload_title(workload, dataset)}: "
                  + ("**settled**: the fastest's throughput separated from every other configuration's and its "
                     "speedup over its baseline is settled."
                     if done else "**not settled** at the repeats given: the answer above is the best estimate, "
                     "without a clear winner (more max_repeats or budget_s would tell)."), ""]
    ran = spent.table[spent.table["state"] != "no ok repeat"]
    rows = [{"configuration": config_label(r), "workload": r["workload"], "repeats": r["repeats"],
             "why it stopped": race_reason_text(r["reason"])} for _, r in ran.iterrows()]
    idle = len(spent.table) - len(ran)
    tail = [f"{idle} configuration(s) without an ok repeat (skipped or failed: see above) stopped after one.", ""]
    return [*lines, markdown_table(rows) if rows else "", "", *(tail if idle else [])]


def time_section(points: pd.DataFrame) -> list[str]:
    """Where each run's wall time went (:func:`bench.reporting.frames.runs.time_budget`); [] for records that predate
    the fields."""
    budget = time_budget(points)
    if budget.empty:
        return []
    rows = []
    for _, b in budget.iterrows():
        total = b["total_s"]

        def share(v: float, total: float = total) -> str:
            return f"{seconds(v)} ({100 * v / total:.0f}%)" if math.isfinite(v) and total > 0 else DASH

        rows.append({"run": b["run_id"], "host": b["host"], "worker processes": b["processes"],
                     "process start-up s": share(b["startup_s"]), "of which peak probe s": share(b["probe_s"]),
                     "in fit s": share(b["fit_s"]), "of which training s": share(b["train_s"]),
                     "of which teardown s": seconds(b["teardown_s"]),
                     "points outside fit s": share(b["outside_fit_s"]), "total s": seconds(total)})
    return ["### Where the time went", "", markdown_table(rows), "",
            "Worker wall time per run, in seconds and its share: only the epochs in `fit` are measured figures, the "
            "rest is what a sweep costs around them (each column: docs/reports.md, *Where the time went*).", ""]
