"""Where a run's time and repeats went, as the report writes it: the steps_per_execution that ran, JAX's spe loop,
where the wall time went, and how a ``repeats=auto`` run spent its repeats.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from bench.records.backends import SPECS, spec
from bench.reporting.analysis.race import NO_OK
from bench.reporting.analysis.race_replay import Spent
from bench.reporting.frames.runs import time_budget
from bench.reporting.render.text import DASH, config_label, markdown_table, seconds, section_title
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
        b = spec(r.get("backend"))
        if b is not None and b.one_step_per_call and ran == 1:
            out.append(f"{r['strategy']} at b{r['global_batch_size']}: {asked_text} ran as spe1, the only value Keras' "
                       f"{b.display} backend runs (one step per call)")
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
    looped = [name for name, b in SPECS.items() if b.spe_python_loop]
    jax = summary[summary["backend"].isin(looped) & (summary["steps_per_execution"] > 1)]
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
    for section, done in sorted(spent.settled.items()):
        lines += [f"- {section_title(spent.table[spent.table['section'] == section])}: "
                  + ("**settled**: the fastest's throughput separated from every other configuration's and its "
                     "speedup over its baseline is settled."
                     if done else "**not settled** at the repeats given: the answer above is the best estimate, "
                     "without a clear winner (more max_repeats or budget_s would tell)."), ""]
    ran = spent.table[spent.table["state"] != NO_OK]
    rows = [{"configuration": config_label(r), "workload": r["workload"], "repeats": r["repeats"],
             "why it stopped": race_reason_text(r["reason"])} for _, r in ran.iterrows()]
    idle = len(spent.table) - len(ran)
    tail = [f"{idle} configuration(s) without an ok repeat (skipped or failed: see above) stopped after one.", ""]
    return [*lines, markdown_table(rows) if rows else "", "", *(tail if idle else [])]


TIME_ROWS = (  # (row, budget column): the whole wall time, top to bottom as it passed
    ("bench before its workers (imports, plan, checks)", "before_s"),
    ("worker start-up (interpreter, imports, device)", "startup_s"),
    ("- of which the peak probe", "probe_s"),
    ("inside `fit`", "fit_s"),
    ("- of which training epochs", "train_s"),
    ("- of which teardown", "teardown_s"),
    ("points outside `fit` (data, model, compile, predictions)", "outside_fit_s"),
    ("bench between workers (starting, ending them)", "between_s"),
    ("report and figures", "report_s"),
)


def time_section(points: pd.DataFrame, parents: Mapping[str, Mapping[str, float]] | None = None) -> list[str]:
    """Where each run's wall time went (:func:`bench.reporting.frames.runs.time_budget`), one column per run and
    host, shares of the whole wall time where the run recorded it, else of its workers' time; [] for records that
    predate the fields."""
    budget = time_budget(points, parents)
    if budget.empty:
        return []
    several = budget["run_id"].duplicated(keep=False).to_dict()  # by row label, as iterrows gives it
    columns = {f"{b['run_id']} on {b['host']}" if several[i] else str(b["run_id"]): b for i, b in budget.iterrows()}
    rows = [{"where": "worker processes (host)",
             **{name: f"{b['processes']} ({b['host']})" for name, b in columns.items()}}]
    for label, col in TIME_ROWS:
        if all(not math.isfinite(b[col]) for b in columns.values()) and col in ("before_s", "between_s", "report_s"):
            continue
        rows.append({"where": label, **{name: _share(b[col], _whole(b)) for name, b in columns.items()}})
    rows.append({"where": "wall time", **{name: seconds(_whole(b)) if math.isfinite(b["wall_s"]) else DASH
                                          for name, b in columns.items()}})
    rows.append({"where": "workers' time (their start-ups and points)",
                 **{name: seconds(b["workers_s"]) for name, b in columns.items()}})
    return ["### Where the time went", "", markdown_table(rows), "",
            "Seconds, and their share of the run's wall time (of the workers' time where the run did not record "
            "its own: older runs); every row is measured, only the epochs are what the answer measures, the rest "
            "is what the sweep cost around them (docs/reports.md, *Where the time went*).", ""]


def _whole(b: pd.Series) -> float:
    """What a run's shares are of: its wall time where recorded, else its workers' time."""
    return float(b["wall_s"]) if math.isfinite(b["wall_s"]) else float(b["workers_s"])


def _share(v: float, whole: float) -> str:
    """``9.57 (16%)``; a dash where unknown."""
    if not math.isfinite(v):
        return DASH
    return f"{seconds(v)} ({100 * v / whole:.0f}%)" if whole > 0 else seconds(v)
