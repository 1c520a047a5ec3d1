"""Point records -> tidy pandas frames -> summaries and speedups. Never imports TensorFlow.

Two frames:

* :func:`points_frame` has one row per record (one point, i.e. one repeat), with its raw steady-state
  samples kept as tuples.
* :func:`summarize` has one row per *configuration* (workload x dataset x strategy x global batch x
  steps_per_execution x precision): the repeats of a configuration are pooled.

Definitions (the report repeats them):

* steady state = epochs 2..n; the warm-up epoch (epoch 1) is never mixed into steady figures.
* **One throughput measure** ranks configurations and gives speedups (``speedup``, against a baseline:
  :mod:`bench.reporting.speedups`): training examples/s of the steady epochs (``examples / train_s``,
  validation excluded; ``epoch_s`` stands in when a record has no ``train_s``). Per repeat (one process) it
  is the median over that repeat's steady epochs (``repeat_examples_per_s``); per configuration,
  ``examples_per_s`` is the geometric mean over its ok repeats (``repeat_rates`` keeps them).
* ``train_s_*`` / ``epoch_s_*``: median and type-7 quartiles of ``train_s`` / ``epoch_s`` (training +
  validation) in seconds over the steady epochs of every ok repeat, pooled (for display and plots).
* ``warmup_overhead_s``: median over repeats of epoch-1 ``epoch_s`` minus the pooled steady median.
* **Learning** is judged twice (:mod:`bench.reporting.learning`, :mod:`bench.reporting.verdicts`):
  against chance and the loss curve (the ``not_learning`` reason), and against the best final val
  accuracy any configuration of the same workload and dataset reached, within the accuracy tolerance.
  Only configurations that learn by both (``learns``) are ranked (best per strategy, winner, break-even).
* ``steps_per_execution`` is what ran (``effective_steps_per_execution`` where a record has it);
  ``spe_requested`` the request(s) behind it. Configurations that ran the same are one configuration.
* ``gflops_per_s`` = ``flops_per_example * examples_per_s / 1e9``; ``mfu_pct`` = achieved over the run's
  measured peak on that machine (:func:`bench.reporting.runs.with_run_peaks`: the highest of its worker
  processes' matmul probes), no figure when achieved exceeds it; ``mfu_datasheet_pct`` the same over the
  vendor peak of the math mode that ran.
* Targets and time to target: :mod:`bench.reporting.targets`; accuracy verdicts: :mod:`bench.reporting.accuracy`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from bench.predictions import decode
from bench.records import BACKENDS, ErrorInfo, Record, RecordLike, as_records
from bench.reporting import spread, stats
from bench.reporting.datasets import dataset_label, one_name_per_content
from bench.reporting.labels import compiler_mark, host_of, strategy_labels
from bench.reporting.learning import CHANCE_MARGIN_PP, MIN_LOSS_DROP, configuration_not_learning, learning_verdict
from bench.reporting.runs import with_run_peaks
from bench.reporting.speedups import DEFAULT_BASELINE, add_speedups
from bench.reporting.stats import as_float, finite_median, last_finite
from bench.reporting.targets import target_columns, time_to_target

INPUT_BOUND_FRACTION = 0.8  # training reaches >= 80 % of the input pipeline's own rate

# A configuration; repeats of it are pooled. ``strategy`` is the display label (see strategy_labels).
CONFIG_KEY = ["workload", "dataset", "strategy", "global_batch_size", "steps_per_execution", "precision"]
STATUS_ORDER = ("ok", "diverged", "failed", "skipped")
# Summary columns taken from a configuration's first point (equal across its points, or the first one's).
FIRST_OF_GROUP = ("backend", "keras", "strategy_name", "compiler_mark", "input_pipeline", "data", "strategy_class",
                  "strategy_requested", "device_kind", "num_replicas", "accelerator", "cpu_count", "env_var_names",
                  "per_replica_batch_size")


def _peak_for(peak: Any, precision: str) -> float:
    """Look up a peak FLOP/s (dict keyed by dtype, or a plain number) for a Keras precision policy."""
    if isinstance(peak, dict):
        for key in (precision, precision.removeprefix("mixed_")):
            if key in peak:
                return as_float(peak[key])
        return math.nan
    return as_float(peak)


def error_text(error: ErrorInfo | None) -> str:
    """``"Type: message"`` on one line ("" when there is no error)."""
    if error is None:
        return ""
    typ, msg = error.type or "", error.message or ""
    text = f"{typ}: {msg}" if typ and msg else typ or msg
    return " ".join(str(text).split())


def split_label(label: str) -> tuple[str, str]:
    """(backend, strategy label) of a display label: ``jax/cpu_x2`` -> (jax, cpu_x2); ``cpu`` -> (tensorflow, cpu)."""
    head, sep, rest = label.partition("/")
    return (head, rest) if sep and head in BACKENDS else ("tensorflow", label)


def shows_backends(points: pd.DataFrame) -> bool:
    """True when the records are not all TensorFlow's: tables then get a ``backend`` column next to strategy
    (reports of TensorFlow-only records look as they did before the JAX backend)."""
    return bool(not points.empty and "backend" in points and (points["backend"] != "tensorflow").any())


def _mib(value: Any) -> float:
    return as_float(value) / 2**20 if value is not None else math.nan


def points_frame(records: Sequence[RecordLike], min_loss_drop: float = MIN_LOSS_DROP,
                 chance_margin_pp: float = CHANCE_MARGIN_PP) -> pd.DataFrame:
    """One row per record, raw steady samples as tuples (seconds, examples_per_s), sorted by point. Records
    are read as the current typed model (:func:`bench.records.upgrade`: what an absent field means is settled
    there)."""
    typed = as_records(records)
    rows = [_point_row(r, label, min_loss_drop, chance_margin_pp)
            for r, label in zip(typed, strategy_labels(typed), strict=True)]
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    frame = with_run_peaks(one_name_per_content(frame))  # one data set at two paths is one data set
    return frame.sort_values([*CONFIG_KEY, "repeat", "run_id", "point_id"], kind="mergesort",
                             ignore_index=True)


def _point_row(r: Record, label: str, min_loss_drop: float, chance_margin_pp: float) -> dict[str, Any]:
    """One row of :func:`points_frame` (timing, identity, learning)."""
    s, ds = r.strategy, r.dataset
    # A skipped point may not know its global batch (per-replica sizing on absent hardware).
    gb = int(r.global_batch_size or (r.point or {}).get("batch_size") or 0)
    steady = r.steady_epochs()
    rates = []
    for e in steady:
        t, n = as_float(e.training_s()), as_float(e.examples)
        rates.append(n / t if t > 0 else math.nan)
    first = [e for e in r.epochs if e.epoch == 1]
    target = as_float(r.target_accuracy)
    ttt, ttt_epoch = time_to_target(r.epochs, target) if r.status == "ok" else (math.nan, None)
    val_steps = as_float(r.validation_steps)
    n_val = val_steps * gb if math.isfinite(val_steps) and val_steps > 0 and gb else as_float(ds.n_val)
    scored = [e.val_examples for e in r.epochs if e.val_examples]  # recorded since every example is scored
    n_val = float(scored[-1]) if scored else n_val
    return {
        "run_id": r.run_id, "point_id": r.point_id, "suite": r.suite, "host": host_of(r),
        "workload": r.workload + (f"/{r.workload_variant}" if r.workload_variant else ""),
        "dataset": dataset_label(ds), "dataset_name": ds.name or "?", "dataset_sha256": ds.sha256 or "",
        "input_pipeline": ds.pipeline or "default",
        "data": dataset_label(ds, with_pipeline=False),  # the label, any pipeline
        "strategy": label, "backend": r.backend, "keras": str(r.env.get("keras") or ""),
        "compiler_mark": compiler_mark(r), "strategy_requested": s.requested,
        "strategy_name": s.name or s.requested or "?", "strategy_class": s.cls, "device_kind": s.device_kind,
        "accelerator": r.env.get("accelerator") or "", "cpu_count": as_float(r.env.get("cpu_count")),
        "env_var_names": tuple(sorted(r.env.get("env_vars") or ())),  # names only: the Cost section's free tiers
        "num_replicas": s.num_replicas, "global_batch_size": gb, "per_replica_batch_size": r.per_replica_batch_size,
        # what ran (records keep the request: steps_per_execution before the plan resolved it)
        "steps_per_execution": r.effective_spe(),
        "spe_requested": r.requested_steps_per_execution or r.steps_per_execution,
        "steps_per_epoch": r.steps_per_epoch, "precision": r.precision,
        "repeat": r.repeat, "seed": r.seed, "status": r.status,
        "error": error_text(r.error), "n_epochs": len(r.epochs),
        "epoch1_s": as_float(first[0].epoch_s) if first else math.nan,
        "steady_epoch_s": tuple(as_float(e.epoch_s) for e in steady),
        "steady_train_s": tuple(as_float(e.train_s) for e in steady),
        "steady_examples_per_s": tuple(rates),
        "repeat_examples_per_s": finite_median(rates), "n_val_eval": n_val,
        "final_val_accuracy": last_finite(e.val_accuracy for e in r.epochs),
        "target_accuracy": target, "time_to_target_s": ttt,
        "epochs_to_target": float(ttt_epoch) if ttt_epoch is not None else math.nan,
        "predictions": decode(r.val_predictions),
        "augmentation_layers": tuple(str(x) for x in r.augmentation_layers or ()),  # Keras layers in the model
        **_process_columns(r, label),
        "point_wall_s": as_float(r.point_wall_s), "fit_wall_s": as_float(r.fit_wall_s), **_race_columns(r),
        "teardown_s": as_float(r.teardown_s), "stage_warmup_s": _later_stage_warmups(r),
        "math_mode": r.math_mode or "", "flop_count": r.flop_count or "",
        "val_accuracy_curve": tuple((e.epoch, as_float(e.val_accuracy)) for e in r.epochs),
        "chance_accuracy": as_float(ds.chance_accuracy),
        "not_learning": learning_verdict(r, min_loss_drop, chance_margin_pp) if r.status == "ok" else "",
        "input_examples_per_s": as_float(r.input_examples_per_s),
        "flops_per_example": as_float(r.flops_per_example),
        "peak_flops_per_s": _peak_for(r.peak_flops_per_s, r.precision),
        "datasheet_peak_flops_per_s": _peak_for(r.datasheet_peak_flops_per_s, r.precision),
        "peak_scope": r.peak_scope or "",
        "peak_rss_mib": _mib(r.memory.peak_rss_bytes if r.memory else None),
        "device_peak_mib": _mib(r.memory.device_peak_bytes if r.memory else None),
    }


def _race_columns(r: Record) -> dict[str, Any]:
    """A ``repeats=auto`` point's race settings (bench.reporting.race): the looks its run took at the data (its
    ``max_repeats``; 1 for a fixed number of repeats) and its budget (s; 0 = none)."""
    return {"race_looks": r.race.max_repeats if r.race is not None else 1,
            "race_budget_s": r.race.budget_s if r.race is not None else 0.0}


def _process_columns(r: Record, label: str) -> dict[str, Any]:
    """Which worker process ran the point. Records from before one process per repeat: one per strategy."""
    p = r.process
    worker = p.worker if p is not None else None
    return {"process": f"{r.run_id}/{worker}" if worker is not None else f"{r.run_id}/{label}",
            "pid": p.pid if p is not None else None, "startup_s": as_float(p.startup_s if p is not None else None)}


def _later_stage_warmups(record: Record) -> float:
    """Warm-up of a staged point's later stages (their first epoch traces the recompiled model), seconds; 0 for
    a point trained in one stage."""
    later = (record.stages or [])[1:]
    return float(sum(as_float(st.warmup_overhead_s) for st in later
                     if math.isfinite(as_float(st.warmup_overhead_s))))


def _summarize_group(g: dict[str, list[Any]], input_bound_fraction: float) -> dict[str, Any]:
    """One configuration's summary row from its points (column -> values, one per point)."""
    ok_at = [i for i, s in enumerate(g["status"]) if s == "ok"]
    ok = {c: [v[i] for i in ok_at] for c, v in g.items()}
    statuses = set(g["status"])
    status = next(s for s in STATUS_ORDER if s in statuses) if not ok_at else "ok"
    bad = [i for i, s in enumerate(g["status"]) if s != "ok"]
    epoch_s = tuple(v for t in ok["steady_epoch_s"] for v in t if math.isfinite(v))
    repeat_rates = tuple(v for v in ok["repeat_examples_per_s"] if math.isfinite(v))
    summ = stats.summarize_sample(epoch_s)
    train = stats.summarize_sample([v for t in ok["steady_train_s"] for v in t])
    per_process = tuple(stats.finite_median(t) for t in ok["steady_train_s"] if len(t))  # a repeat: one process
    found = spread.two_speeds(per_process)
    ex_s = stats.geometric_mean(repeat_rates)
    inp = finite_median(ok["input_examples_per_s"])
    flops, peak = finite_median(ok["flops_per_example"]), finite_median(ok["run_peak_flops_per_s"])
    sheet = finite_median(ok["datasheet_peak_flops_per_s"])
    gflops = flops * ex_s / 1e9
    first = {c: v[0] for c, v in g.items()}
    return {
        "host": ", ".join(sorted(set(g["host"]))), **{c: first[c] for c in FIRST_OF_GROUP},
        "status": status, "n_points": len(g["status"]), "n_ok": len(ok_at),
        "error": "" if not bad else (g["error"][bad[0]] or "(no reason recorded)"),
        "epoch_s_samples": epoch_s, "n_steady": summ.n, "epoch_s_median": summ.median,
        "epoch_s_q1": summ.q1, "epoch_s_q3": summ.q3, "epoch_s_iqr": summ.iqr, "epoch_s_cv": summ.cv,
        "train_s_median": train.median, "train_s_iqr": train.iqr,
        "process_train_s": per_process, "process_spread": spread.spread_text(per_process),
        "two_speeds": found.text() if found else "",
        "repeat_rates": repeat_rates, "n_repeats": len(repeat_rates), "examples_per_s": ex_s,
        "n_val_eval": finite_median(ok["n_val_eval"]),
        "warmup_overhead_s": finite_median(ok["epoch1_s"]) - summ.median + finite_median(ok["stage_warmup_s"]),
        "spe_requested": tuple(sorted({int(v) for v in g["spe_requested"]})),  # the requests behind what ran
        "steps_per_epoch": finite_median(as_float(v) for v in g["steps_per_epoch"]),
        "final_val_accuracy": finite_median(ok["final_val_accuracy"]),
        **target_columns(ok),
        "chance_accuracy": finite_median(g["chance_accuracy"]),
        "not_learning": configuration_not_learning(list(ok["seed"]), list(ok["not_learning"])),
        "input_examples_per_s": inp,
        "input_bound": bool(math.isfinite(inp) and ex_s >= input_bound_fraction * inp),
        "flops_per_example": flops, "gflops_per_s": gflops,
        # above 100 %: the probe measured less than the model reached; shown as no figure, never as > 100 %
        "mfu_pct": 100 * gflops * 1e9 / peak if peak > 0 and gflops * 1e9 <= peak else math.nan,
        "mfu_over_peak": bool(peak > 0 and gflops * 1e9 > peak),
        "mfu_datasheet_pct": 100 * gflops * 1e9 / sheet if sheet > 0 else math.nan,
        "peak_rss_mib": _max(g["peak_rss_mib"]), "device_peak_mib": _max(g["device_peak_mib"]),
        "race_looks": int(max(g["race_looks"])),
    }


def _max(values: Any) -> float:
    """Largest finite value (a repeat's peak memory is a peak too), NaN when there is none."""
    finite = [v for v in values if math.isfinite(v)]
    return max(finite) if finite else math.nan


def summarize(records_or_points: Sequence[RecordLike] | pd.DataFrame, baseline: str = DEFAULT_BASELINE,
              input_bound_fraction: float = INPUT_BOUND_FRACTION) -> pd.DataFrame:
    """One row per configuration, repeats pooled, with speedup vs ``baseline`` (:mod:`bench.reporting.speedups`).

    Accepts records or a :func:`points_frame`. A configuration none of whose repeats is ok keeps its
    row with the worst-first status (diverged > failed > skipped) and the first error; it is never
    dropped. Columns: CONFIG_KEY, host, status, n_points, n_ok, error, epoch_s_* (s), examples_per_s,
    warmup_overhead_s (s), final_val_accuracy, not_learning (reason text, "" = learns), input_bound,
    gflops_per_s, mfu_pct, mfu_datasheet_pct, baseline, speedup, speedup_low/high, speedup_significant.
    """
    points = records_or_points if isinstance(records_or_points, pd.DataFrame) else points_frame(
        records_or_points)
    if points.empty:
        return pd.DataFrame(columns=CONFIG_KEY)
    rows = [{**dict(zip(CONFIG_KEY, key, strict=True)), **_summarize_group(g, input_bound_fraction)}
            for key, g in _configurations(points)]
    return add_speedups(pd.DataFrame(rows), baseline)


def _configurations(points: pd.DataFrame) -> list[tuple[tuple[Any, ...], dict[str, list[Any]]]]:
    """The configurations of a points frame in sorted order (pandas' groupby of CONFIG_KEY): (key, its points as
    column -> list of values). Plain lists, because a configuration has a handful of points and pandas' indexing
    of one group cost more than its statistics (1,000 records: 0.36 s -> 0.1 s)."""
    grouped = points.groupby(CONFIG_KEY, sort=True, dropna=False)
    at: list[list[int]] = [[] for _ in range(grouped.ngroups)]
    for i, k in enumerate(grouped.ngroup().tolist()):
        at[k].append(i)
    columns = {c: points[c].tolist() for c in points.columns}
    groups = [{c: [v[i] for i in rows] for c, v in columns.items()} for rows in at]
    return [(tuple(g[c][0] for c in CONFIG_KEY), g) for g in groups]


def rows_of(frame: pd.DataFrame, workload: str, dataset: str) -> pd.DataFrame:
    """The rows of an analysis frame that belong to one workload and dataset (an empty frame stays empty)."""
    if frame.empty:
        return frame
    return frame[(frame["workload"] == workload) & (frame["dataset"] == dataset)]
