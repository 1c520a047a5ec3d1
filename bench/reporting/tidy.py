"""The two frames ``bench.run`` gives a user: one row per point, one row per point and epoch. Scalar columns only
(numbers, strings, booleans; no tuples), each documented in :data:`POINT_COLUMNS` / :data:`EPOCH_COLUMNS` with
its unit, and in ``docs/reports.md`` (a test keeps the three in step). Never imports TensorFlow.

The report's own per-point frame (:func:`bench.reporting.frame.points_frame`) keeps each point's steady epochs as
tuples for its statistics; :func:`points_table` is that frame with each sample summarised and the tuples left
out, and :func:`epochs_frame` is the same epochs, long, for plotting (``seaborn.lineplot(data=epochs, x="epoch",
y="val_accuracy", hue="strategy")``).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

import pandas as pd

from bench.records import RecordLike, as_records
from bench.reporting.datasets import content_names, dataset_label, one_name_per_content
from bench.reporting.frame import points_frame
from bench.reporting.labels import strategy_labels
from bench.reporting.stats import as_float

# (column, unit or kind, meaning)
POINT_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("run_id", "text", "the run folder's name"),
    ("point_id", "text", "the point: workload, backend, strategy, batch, spe, precision, repeat"),
    ("suite", "text", "the suite, or the workloads of a run given without one"),
    ("host", "text", "the machine's host name"),
    ("workload", "text", "the workload's name (its variant after a slash)"),
    ("dataset", "text", "the data set: name (no path) and how much of it was used"),
    ("input_pipeline", "text", "default, cached, slow_decode, autotune or numpy"),
    ("strategy", "text", "the strategy as the report labels it (backend/ prefix under JAX)"),
    ("backend", "text", "tensorflow, jax or torch"),
    ("strategy_name", "text", "the strategy that ran (auto resolved)"),
    ("device_kind", "text", "cpu, gpu or tpu"),
    ("num_replicas", "count", "replicas the strategy trained on"),
    ("global_batch_size", "examples", "examples per training step, all replicas"),
    ("per_replica_batch_size", "examples", "examples per step on one replica"),
    ("steps_per_execution", "steps", "steps per host call that ran (may be below the request)"),
    ("spe_requested", "steps", "steps_per_execution as requested"),
    ("steps_per_epoch", "steps", "training steps in one epoch"),
    ("precision", "text", "float32, mixed_float16 or mixed_bfloat16"),
    ("repeat", "index", "the repeat (each one its own process)"),
    ("seed", "integer", "the point's random seed"),
    ("status", "text", "ok, diverged, failed or skipped"),
    ("error", "text", "why a point did not finish ('' when ok)"),
    ("n_epochs", "count", "epochs recorded"),
    ("epoch1_s", "s", "the first (warm-up) epoch, training and validation"),
    ("steady_epoch_s", "s", "median of the steady epochs (2..n), training and validation"),
    ("steady_train_s", "s", "median training time of the steady epochs (validation excluded)"),
    ("n_steady_epochs", "count", "steady epochs behind the medians"),
    ("repeat_examples_per_s", "examples/s", "median steady training throughput of the point"),
    ("final_val_accuracy", "fraction", "validation accuracy after the last epoch"),
    ("target_accuracy", "fraction", "the workload's target accuracy (NaN: none)"),
    ("time_to_target_s", "s", "training time until the target was first reached (NaN: not reached)"),
    ("epochs_to_target", "epochs", "epochs until the target was first reached (NaN: not reached)"),
    ("chance_accuracy", "fraction", "accuracy of always predicting the commonest validation class"),
    ("not_learning", "text", "why the point looks like it does not learn ('' when it does)"),
    ("input_examples_per_s", "examples/s", "the input pipeline alone, no training"),
    ("flops_per_example", "FLOP", "training FLOPs per example, counted by hand"),
    ("peak_flops_per_s", "FLOP/s", "the point's process's measured peak at its precision"),
    ("point_wall_s", "s", "the whole point: data, build, compile, fit, probes"),
    ("fit_wall_s", "s", "wall clock around the fit"),
    ("teardown_s", "s", "after the last epoch until fit returned"),
    ("startup_s", "s", "the worker process's start (imports, strategy)"),
    ("peak_rss_mib", "MiB", "the worker process's peak resident memory"),
    ("device_peak_mib", "MiB", "the accelerator's peak memory (NaN on a CPU)"),
)
EPOCH_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("run_id", "text", "the run folder's name"),
    ("point_id", "text", "the point (joins the per-point frame)"),
    ("workload", "text", "the workload's name"),
    ("dataset", "text", "the data set (as in the per-point frame)"),
    ("strategy", "text", "the strategy as the report labels it"),
    ("backend", "text", "tensorflow, jax or torch"),
    ("global_batch_size", "examples", "examples per training step"),
    ("steps_per_execution", "steps", "steps per host call that ran"),
    ("precision", "text", "float32, mixed_float16 or mixed_bfloat16"),
    ("repeat", "index", "the repeat"),
    ("status", "text", "the point's status"),
    ("epoch", "index", "1, 2, …"),
    ("stage", "text", "a transfer-learning point's stage ('' otherwise)"),
    ("steady", "bool", "a steady epoch (not a warm-up: not epoch 1, not a stage's first)"),
    ("steps", "steps", "training steps run in the epoch (from the optimizer)"),
    ("examples", "examples", "training examples in the epoch"),
    ("epoch_s", "s", "the epoch, training and validation"),
    ("train_s", "s", "training alone"),
    ("val_s", "s", "validation alone"),
    ("examples_per_s", "examples/s", "examples / train_s"),
    ("loss", "loss", "mean training loss"),
    ("accuracy", "fraction", "training accuracy"),
    ("val_loss", "loss", "validation loss"),
    ("val_accuracy", "fraction", "validation accuracy"),
)


def _median(values: Sequence[float]) -> float:
    finite = [v for v in values if math.isfinite(v)]
    return statistics.median(finite) if finite else math.nan


def points_table(records: Sequence[RecordLike]) -> pd.DataFrame:
    """One row per point, the columns of :data:`POINT_COLUMNS` (steady samples as medians, seconds)."""
    frame = points_frame(records)
    if frame.empty:
        return pd.DataFrame(columns=[c for c, _, _ in POINT_COLUMNS])
    out = frame.copy()
    out["n_steady_epochs"] = out["steady_epoch_s"].map(len)
    for col in ("steady_epoch_s", "steady_train_s"):
        out[col] = out[col].map(_median)
    return out[[c for c, _, _ in POINT_COLUMNS]].reset_index(drop=True)


def epochs_frame(records: Sequence[RecordLike]) -> pd.DataFrame:
    """One row per point and epoch, the columns of :data:`EPOCH_COLUMNS`, in the per-point frame's labels."""
    typed = as_records(records)
    rows = []
    for r, label in zip(typed, strategy_labels(typed), strict=True):
        steady = {e.epoch for e in r.steady_epochs()}
        for e in r.epochs:
            train_s, examples = as_float(e.training_s()), as_float(e.examples)
            rows.append({
                "run_id": r.run_id, "point_id": r.point_id,
                "workload": r.workload + (f"/{r.workload_variant}" if r.workload_variant else ""),
                "dataset": dataset_label(r.dataset), "dataset_name": r.dataset.name or "?",
                "dataset_sha256": r.dataset.sha256 or "", "strategy": label, "backend": r.backend,
                "global_batch_size": int(r.global_batch_size or 0), "steps_per_execution": r.effective_spe(),
                "precision": r.precision, "repeat": r.repeat, "status": r.status, "epoch": e.epoch,
                "stage": e.stage or "", "steady": e.epoch in steady, "steps": as_float(e.steps),
                "examples": examples, "epoch_s": as_float(e.epoch_s), "train_s": train_s, "val_s": as_float(e.val_s),
                "examples_per_s": examples / train_s if train_s > 0 else math.nan, "loss": as_float(e.loss),
                "accuracy": as_float(e.accuracy), "val_loss": as_float(e.val_loss),
                "val_accuracy": as_float(e.val_accuracy)})
    if not rows:
        return pd.DataFrame(columns=[c for c, _, _ in EPOCH_COLUMNS])
    names = content_names((r.dataset.sha256 or "", r.dataset.name or "?") for r in typed)  # as the points frame
    return one_name_per_content(pd.DataFrame(rows), names)[[c for c, _, _ in EPOCH_COLUMNS]]
