"""The per-epoch frame: one row per point and epoch, its identity columns and codes as the per-point frame's, then the
columns of :data:`EPOCH_COLUMNS` (each with its unit; also in ``docs/reports.md``): for the report's figures and, named
by :func:`bench.reporting.render.labels.with_labels`, for ``bench.epochs``' user (``seaborn.lineplot(data=epochs,
x="epoch", y="val_accuracy", hue="strategy")``). Never imports TensorFlow.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pandas as pd

from bench.records import RecordLike, as_records
from bench.reporting.frames.identity import identity_rows
from bench.reporting.frames.keys import LABELS, plain_rows
from bench.reporting.stats.sample import as_float

EPOCH_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("run_id", "text", "the run folder's name"),
    ("point_id", "text", "the point (joins the per-point frame)"),
    ("workload", "text", "the workload's name"),
    ("dataset", "text", "the data set (as in the per-point frame; bench.epochs' frame)"),
    ("strategy", "text", "the strategy as the report labels it (bench.epochs' frame)"),
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


def epochs_frame(records: Sequence[RecordLike]) -> pd.DataFrame:
    """One row per point and epoch: its identity columns and codes (as the per-point frame's), then the columns of
    :data:`EPOCH_COLUMNS` but the labels."""
    typed = as_records(records)
    rows = []
    for r, ids in zip(typed, plain_rows(identity_rows(typed)), strict=True):
        steady = {e.epoch for e in r.steady_epochs()}
        for e in r.epochs:
            train_s, examples = as_float(e.training_s()), as_float(e.examples)
            rows.append({
                **ids, "epoch": e.epoch,
                "stage": e.stage or "", "steady": e.epoch in steady, "steps": as_float(e.steps),
                "examples": examples, "epoch_s": as_float(e.epoch_s), "train_s": train_s, "val_s": as_float(e.val_s),
                "examples_per_s": examples / train_s if train_s > 0 else math.nan, "loss": as_float(e.loss),
                "accuracy": as_float(e.accuracy), "val_loss": as_float(e.val_loss),
                "val_accuracy": as_float(e.val_accuracy)})
    columns = [c for c, _, _ in EPOCH_COLUMNS if c not in LABELS]
    if not rows:
        return pd.DataFrame(columns=columns)
    frame = pd.DataFrame(rows)
    return frame[[*(c for c in frame.columns if c not in columns), *columns]]


def epochs_table(records: Sequence[RecordLike], labels: Callable[[pd.DataFrame], pd.DataFrame]) -> pd.DataFrame:
    """``bench.epochs``' frame: the columns of :data:`EPOCH_COLUMNS`, its labels added by ``labels``
    (:func:`bench.reporting.render.labels.with_labels`)."""
    frame = epochs_frame(records)
    columns = [c for c, _, _ in EPOCH_COLUMNS]
    return pd.DataFrame(columns=columns) if frame.empty else labels(frame)[columns]
