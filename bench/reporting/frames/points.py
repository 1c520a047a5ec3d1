"""The per-point frame: one row per record (one repeat), its raw steady samples kept as tuples (:func:`points_frame`),
and :func:`points_table`, the scalar frame ``bench.run`` returns (:data:`POINT_COLUMNS`, each with its unit).
Definitions (steady state, examples/s per repeat and per configuration, warm-up, GFLOP/s, MFU): docs/reports.md,
*How to read a report*; the columns: *The frames in Python*.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from bench.measure.datasheets import datasheet_peak
from bench.predictions import decode
from bench.records import ErrorInfo, Record, RecordLike, as_records
from bench.records.backends import spec
from bench.reporting.frames.floors import probe_columns
from bench.reporting.frames.identity import earlier_of, identity_rows
from bench.reporting.frames.keys import ORDER, plain_rows
from bench.reporting.frames.learning import CHANCE_MARGIN_PP, MIN_LOSS_DROP, Reason, learning_reasons
from bench.reporting.frames.runs import with_run_peaks
from bench.reporting.frames.targets import time_to_target
from bench.reporting.stats.sample import as_float, finite_median, last_finite


def error_text(error: ErrorInfo | None) -> str:
    """``"Type: message"`` on one line ("" when there is no error)."""
    if error is None:
        return ""
    typ, msg = error.type or "", error.message or ""
    text = f"{typ}: {msg}" if typ and msg else typ or msg
    return " ".join(str(text).split())


def _mib(value: Any) -> float:
    return as_float(value) / 2**20 if value is not None else math.nan


def points_frame(records: Sequence[RecordLike], min_loss_drop: float = MIN_LOSS_DROP,
                 chance_margin_pp: float = CHANCE_MARGIN_PP) -> pd.DataFrame:
    """One row per record, raw steady samples as tuples (seconds, examples_per_s), sorted by point. Records
    are read as the current typed model (:func:`bench.records.upgrade`: what an absent field means is settled
    there)."""
    typed = as_records(records)
    ids = identity_rows(typed)  # one data set at two paths is one data set
    if ids.empty:
        return ids
    rows = [_point_row(r, i, min_loss_drop, chance_margin_pp) for r, i in zip(typed, plain_rows(ids),
                                                                              strict=True)]
    frame = with_run_peaks(pd.DataFrame(rows))
    frame["first_in_process"] = _first_in_process(frame)
    return frame.sort_values([*ORDER, "repeat", "run_id", "point_id"], kind="mergesort", ignore_index=True)


def arithmetic_of(r: Record) -> tuple[str, bool]:
    """The arithmetic a point ran, per op class where they differ (``tf32``; ``matmul fp32, conv tf32``: a code of
    the record's op classes, "" where nothing is known), and whether its matmul's is inferred. A record from before
    ``arithmetic`` was recorded gives its ``math_mode``, except a PyTorch GPU point whose float32 probe ran no faster
    than the GPU's FP32 datasheet peak: its matmuls ran in FP32, PyTorch's default, whatever ``math_mode`` said (its
    cuDNN convolutions in TF32): ``matmul fp32, conv tf32``, inferred from its probe."""
    ops = dict(r.arithmetic or {})
    inferred = False
    if not ops and r.math_mode:
        ops = {"matmul": r.math_mode, "conv": r.math_mode}
        peaks = r.peak_flops_per_s
        probe = peaks.get("float32") if isinstance(peaks, dict) else peaks
        fp32 = datasheet_peak(r.strategy.device_kind or "", r.env.get("accelerator"), "float32",
                              r.strategy.num_replicas or 1, "fp32")
        fp32_default = (b := spec(r.backend)) is not None and b.gpu_float32_matmul == "fp32"
        if fp32_default and r.math_mode == "tf32" and probe and fp32 and probe <= fp32:
            ops["matmul"], inferred = "fp32", True
    if not ops:
        return "", False
    if len(set(ops.values())) == 1:
        return next(iter(ops.values())), inferred
    return ", ".join(f"{op} {mode}" for op, mode in sorted(ops.items(), key=lambda kv: kv[0] != "matmul")), inferred


def _device_scope(r: Record) -> str:
    """``point``, ``process`` (the worker's peak over its points so far: JAX) or ``process+probe`` (a process peak
    that includes bench's matmul probe: records of a bench whose probe ran in the worker process)."""
    scope = (r.memory.device_scope or "") if r.memory else ""
    if scope == "process" and r.memory is not None and r.memory.probe_in_process is not False and r.peak_flops_per_s:
        return "process+probe"
    return scope


def _spent_columns(r: Record) -> dict[str, float]:
    """Where a point's worker time went besides its wall clocks: every epoch's training seconds (validation
    excluded, warm-up included: what the worker spent training) and its worker's matmul probe (in its start-up)."""
    return {"train_s_total": float(sum(v for e in r.epochs if math.isfinite(v := as_float(e.training_s())))),
            "peak_measure_s": as_float(r.peak_measure_s)}


def _first_in_process(frame: pd.DataFrame) -> list[bool]:
    """Whether each point was the first its worker process ran (by ``started_at``; a skipped point never ran and
    counts for none): a later point's epoch 1 finds the libraries loaded and kernels compiled, so its warm-up is
    shorter than a fresh process's (2.32, 1.12, 2.18, 1.25 s for four points of one JAX worker on an H200 against
    1.95-3.35 s in fresh processes: tests/data/gpu_h200_2026_11_27)."""
    ran = frame[frame["status"] != "skipped"]
    first = set(ran.sort_values("started_at", kind="mergesort").groupby("process", sort=False).head(1).index)
    return [i in first for i in frame.index]


def _point_rate(steady: Sequence[Any]) -> float:
    """Training examples/s of a point: its median steady epoch's examples over its median steady training seconds."""
    times = [t for t in (as_float(e.training_s()) for e in steady) if t > 0]
    n = finite_median(as_float(e.examples) for e in steady)
    return n / finite_median(times) if times and math.isfinite(n) else math.nan


def _first_training_s(first: Sequence[Any]) -> float:
    """The warm-up epoch's training seconds (NaN without one)."""
    return as_float(first[0].training_s()) if first else math.nan


def _point_row(r: Record, ids: dict[str, Any], min_loss_drop: float, chance_margin_pp: float) -> dict[str, Any]:
    """One row of :func:`points_frame` (timing, learning) beside its identity and labels, ``ids``."""
    s, ds = r.strategy, r.dataset
    gb = ids["global_batch_size"]
    steady = r.steady_epochs()
    times = [(as_float(e.training_s()), as_float(e.examples)) for e in steady]
    rates = [n / t if t > 0 else math.nan for t, n in times]
    first = [e for e in r.epochs if e.epoch == 1]
    target = as_float(r.target_accuracy)
    ttt, ttt_epoch = time_to_target(r.epochs, target) if r.status == "ok" else (math.nan, None)
    val_steps = as_float(r.validation_steps)
    n_val = val_steps * gb if math.isfinite(val_steps) and val_steps > 0 and gb else as_float(ds.n_val)
    scored = [e.val_examples for e in r.epochs if e.val_examples]  # recorded since every example is scored
    n_val = float(scored[-1]) if scored else n_val
    return {
        **ids, "suite": r.suite, "started_at": str(r.started_at or ""), "keras": str(r.env.get("keras") or ""),
        "strategy_class": s.cls, "device_kind": s.device_kind,
        "accelerator": r.env.get("accelerator") or "", "cpu_count": as_float(r.env.get("cpu_count")),
        "cpu_flags": tuple(str(f) for f in r.env.get("cpu_flags") or ()),
        "env_var_names": tuple(sorted(r.env.get("env_vars") or ())),  # names only: the Cost section's free tiers
        "num_replicas": s.num_replicas, "per_replica_batch_size": r.per_replica_batch_size,
        # what ran is steps_per_execution (records keep the request: steps_per_execution before the plan resolved it)
        "spe_requested": r.requested_steps_per_execution or r.steps_per_execution,
        "steps_per_epoch": r.steps_per_epoch, "seed": r.seed,
        "error": error_text(r.error), "error_type": (r.error.type or "") if r.error is not None else "",
        "n_epochs": len(r.epochs),
        "epoch1_s": as_float(first[0].epoch_s) if first else math.nan, "epoch1_train_s": _first_training_s(first),
        "steady_epoch_s": tuple(as_float(e.epoch_s) for e in steady),
        "steady_train_s": tuple(as_float(e.train_s) for e in steady),
        "steady_examples_per_s": tuple(rates),
        # the point's examples over its median steady training epoch: what its epoch count and s/epoch imply (the
        # median of per-epoch rates differs from it with an even number of steady epochs)
        "repeat_examples_per_s": _point_rate(steady), "n_val_eval": n_val,
        "final_val_accuracy": last_finite(e.val_accuracy for e in r.epochs),
        "target_accuracy": target, "time_to_target_s": ttt,
        "epochs_to_target": float(ttt_epoch) if ttt_epoch is not None else math.nan,
        "predictions": decode(r.val_predictions),
        "earlier_definition": earlier_of(r),  # a built-in's record of an earlier definition (words: render)
        "augmentation_layers": tuple(str(x) for x in r.augmentation_layers or ()),  # Keras layers in the model
        **_process_columns(r, int(ids["strategy_id"])),
        "point_wall_s": as_float(r.point_wall_s), "fit_wall_s": as_float(r.fit_wall_s), **_race_columns(r),
        **_spent_columns(r),
        "teardown_s": as_float(r.teardown_s), "stage_warmup_s": _later_stage_warmups(r),
        "math_mode": r.math_mode or "", **dict(zip(("arithmetic", "arithmetic_inferred"), arithmetic_of(r),
                                                   strict=True)), **_flop_columns(r),
        "val_accuracy_curve": tuple((e.epoch, as_float(e.val_accuracy)) for e in r.epochs),
        "chance_accuracy": as_float(ds.chance_accuracy), "input_examples_per_s": as_float(r.input_examples_per_s),
        "not_learning": learning_reasons(r, min_loss_drop, chance_margin_pp) if r.status == "ok" else (),
        "flops_uncounted": tuple(r.flops_uncounted or ()),
        **probe_columns(r),
        "peak_rss_mib": _mib(r.memory.peak_rss_bytes if r.memory else None),
        "device_peak_mib": _mib(r.memory.device_peak_bytes if r.memory else None),
        "device_scope": _device_scope(r),
        "step_mib": _mib(r.memory.step_bytes if r.memory else None),  # XLA's analysis of the compiled step (JAX)
    }


def _race_columns(r: Record) -> dict[str, Any]:
    """A ``repeats=auto`` point's race settings (bench.reporting.analysis.race): the looks its run took at the data (its
    ``max_repeats``; 1 for a fixed number of repeats) and its budget (s; 0 = none)."""
    return {"race_looks": r.race.max_repeats if r.race is not None else 1,
            "race_budget_s": r.race.budget_s if r.race is not None else 0.0}


def _process_columns(r: Record, strategy: int) -> dict[str, Any]:
    """Which worker process ran the point (older records: one per strategy, its ``strategy_id``), others' CPU share
    meanwhile, one step in flight."""
    p = r.process
    worker = p.worker if p is not None else None
    return {"process": f"{r.run_id}/{worker}" if worker is not None else f"{r.run_id}/strategy-{strategy}",
            "pid": p.pid if p is not None else None, "startup_s": as_float(p.startup_s if p is not None else None),
            "others_busy": as_float(r.others_busy), "one_step": r.steps_in_flight == 1}


def _later_stage_warmups(record: Record) -> float:
    """Warm-up of a staged point's later stages (their first epoch traces the recompiled model), seconds; 0 for
    a point trained in one stage."""
    later = (record.stages or [])[1:]
    return float(sum(as_float(st.warmup_overhead_s) for st in later
                     if math.isfinite(as_float(st.warmup_overhead_s))))


# (column, unit or kind, meaning)
POINT_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("run_id", "text", "the run folder's name"),
    ("point_id", "text", "the point: workload, backend, strategy, batch, spe, precision, repeat"),
    ("suite", "text", "the suite, or the workloads of a run given without one"),
    ("host", "text", "the machine's host name"),
    ("workload", "text", "the workload's name (its variant, or a built-in's earlier definition, after a slash)"),
    ("dataset", "text", "the data set: name (no path) and how much of it was used"),
    ("dataset_name", "text", "the data set's name (one per content hash)"),
    ("dataset_scale", "text", "reduced, full or '' (a data source or a user's arrays)"),
    ("dataset_n_train", "examples", "training examples used (-1: not recorded)"),
    ("dataset_whole", "examples", "training examples of the whole data source (-1: generated data, or not known)"),
    ("input_pipeline", "text", "default, cached, slow_decode, autotune or numpy"),
    ("strategy", "text", "the strategy as the report labels it (backend/ prefix under JAX)"),
    ("backend", "text", "tensorflow, jax or torch"),
    ("strategy_requested", "text", "the strategy as asked for (auto, or a name)"),
    ("strategy_name", "text", "the strategy that ran (auto resolved)"),
    ("compiler_mark", "text", "the compiler where it is not the backend's default (XLA, torch.compile, ...; '' none)"),
    ("process_count", "count", "cooperating processes that ran the point (1 unless multi-process)"),
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
    ("error_type", "text", "the kind of that reason, a code: StrategyUnavailable, WorkerCrashed, ... ('' when ok)"),
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
    ("flops_per_example", "FLOP", "training FLOPs per example: counted by hand, or by XLA where the hand count misses "
                                  "layers (flop_count)"),
    ("compiled_flops_per_example", "FLOP", "training FLOPs per example, XLA's cost analysis of the compiled step"),
    ("flops_uncounted", "text", "layers with weights the FLOP and byte counts do not see into (the floors: lower)"),
    ("peak_flops_per_s", "FLOP/s", "the point's process's measured peak at its precision"),
    ("point_wall_s", "s", "the whole point: data, build, compile, fit, probes"),
    ("fit_wall_s", "s", "wall clock around the fit"),
    ("others_busy", "fraction", "share of the machine's CPU time other processes used during the fit (NaN: older)"),
    ("teardown_s", "s", "after the last epoch until fit returned"),
    ("startup_s", "s", "the worker process's start (imports, strategy)"),
    ("peak_rss_mib", "MiB", "the worker process's peak resident memory"),
    ("device_peak_mib", "MiB", "the accelerator's peak memory (NaN on a CPU)"),
    ("device_scope", "text", "device_peak_mib's scope: point (reset before it), process (JAX: the worker's points so "
                             "far) or process+probe (bench's matmul probe included: records of an older bench)"),
    ("step_mib", "MiB", "XLA's memory analysis of the compiled train step, one device (JAX; NaN elsewhere)"),
)


def points_table(records: Sequence[RecordLike], labels: Callable[[pd.DataFrame], pd.DataFrame],
                 reasons: Callable[[tuple[Reason, ...]], str] | None = None) -> pd.DataFrame:
    """``bench.run``'s frame: one row per point, the columns of :data:`POINT_COLUMNS` (steady samples as medians,
    seconds), its labels added by ``labels`` (:func:`bench.reporting.render.labels.with_labels`); ``not_learning``
    as ``reasons`` words it (default: its reason codes, ``; ``-separated)."""
    frame = points_frame(records)
    columns = [c for c, _, _ in POINT_COLUMNS]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    out = labels(frame).assign(n_steady_epochs=frame["steady_epoch_s"].map(len),
                       flops_uncounted=frame["flops_uncounted"].map("; ".join))
    for col in ("steady_epoch_s", "steady_train_s"):
        out[col] = out[col].map(finite_median)
    out["not_learning"] = out["not_learning"].map(reasons or (lambda rs: "; ".join(r.code for r in rs)))
    return out[columns].reset_index(drop=True)


COMPILED = "xla_cost_analysis"  # flop_count where the layer rules missed layers and the compiler counted them


def _flop_columns(r: Record) -> dict[str, Any]:
    """The point's FLOPs per example: the layer rules' count, or XLA's where the rules miss layers (a user's own
    layer) and the compiled step was analysed (JAX); ``flop_count`` says which."""
    compiled = as_float(r.compiled_flops_per_example)
    if r.flops_uncounted and compiled > 0:
        return {"flops_per_example": compiled, "flop_count": COMPILED, "compiled_flops_per_example": compiled}
    return {"flops_per_example": as_float(r.flops_per_example), "flop_count": r.flop_count or "",
            "compiled_flops_per_example": compiled}
