"""Runs one strategy group inside one process: ``python -m bench.runner.worker`` (a :class:`WorkerJob` as
one JSON line on stdin).

The launcher starts one worker per strategy group. The worker creates the strategy first (before any
other framework op), then runs its points one by one, writing each point's record atomically as soon as
it is finished, and reports progress to the launcher as JSON lines on its original stdout (everything
else printed to stdout is redirected to stderr, which the launcher keeps in a log file). Everything that
knows a framework is reached through the engine (:mod:`bench.engines`).

Failures are records: out of memory and any other exception of a point -> ``failed`` with type, message
and the traceback's last lines (``kind: out_of_memory`` for the former); NaN/inf loss -> ``diverged``;
absent hardware -> ``skipped`` for every point of the group. A crash or hang that kills the process is
recorded by the launcher, which restarts a fresh worker for the rest of the group.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from bench.config import effective_steps_per_execution
from bench.engines import Engine, StrategyInfo, StrategyUnavailable, load, prepare_process, unresolved_strategy
from bench.records import Epoch, ErrorInfo, Record, Stage, write_record
from bench.runner.env import host_env
from bench.runner.faults import Faults
from bench.runner.plan import Point, WorkerJob
from bench.runner.point_record import base_record, error_info, process_record, utc_now
from bench.runner.probes import Peaks, input_only_rate, measure_peaks, memory_record, reset_peak_rss
from bench.workloads import get_workload, stage_epochs

TPU_AUGMENTATION_NOTE = (
    "the model holds Keras augmentation layers; seed 001: under TensorFlow a TPU cannot compile them "
    "(RandomRotation's ImageProjectiveTransformV3; RandomWidth/RandomHeight make dynamic shapes): augment in "
    "the input pipeline instead, as the workloads' augment= does")


def point_data(point: Point, cache: dict[tuple, Any]) -> Any:
    """A point's examples (generated, read from the bench cache or a data source; kept in ``cache`` by what
    they are): arrays, or encoded images (:class:`bench.data.sources.Encoded`) the input pipeline decodes."""
    from bench.data import sources, synthetic
    from bench.workloads import imported, source_of

    wl = get_workload(point.workload, point.data)
    spec = source_of(wl, point.data_scale)
    loader: Callable[..., Any]
    if spec:  # files (a data source, or the generated plant images): read, and decoded in the pipeline
        key = (spec, point.n_train, point.n_val, wl.shape[0] if wl.modality == "tokens" else 0)
        loader = sources.load
    elif wl.source:  # a user workload: its own arrays, the first n_train / n_val
        x_train, y_train, x_val, y_val = imported(point.workload)[1]
        return synthetic.Arrays(x_train[:point.n_train], y_train[:point.n_train], x_val[:point.n_val],
                                y_val[:point.n_val])
    else:
        key = (wl.dataset, point.n_train, point.n_val, point.seed)
        loader = synthetic.load
    if key not in cache:
        cache[key] = loader(*key)
    return cache[key]


def failure_kind(error: BaseException, out_of_memory: bool, augmentation_layers: list[str] | None,
                 device_kind: str) -> dict[str, str]:
    """The ``kind`` (and ``hint``) a failed point's error gets, {} for none: ``out_of_memory``;
    ``augmentation_layers_on_tpu`` (seed 001: a model with Keras augmentation layers on a TPU);
    ``augmentation_layers_need_tensorflow`` (Keras 3.15's augmentation layers under the JAX backend)."""
    if out_of_memory:
        return {"kind": "out_of_memory"}
    if augmentation_layers and device_kind == "tpu":
        return {"kind": "augmentation_layers_on_tpu", "hint": TPU_AUGMENTATION_NOTE}
    if augmentation_layers and "requires the tensorflow module" in str(error):
        return {"kind": "augmentation_layers_need_tensorflow",
                "hint": ("Keras' augmentation layers need TensorFlow even under the JAX backend (a JAX-only TPU "
                         "image has none): augment in the input pipeline")}
    return {}


def val_predictions(model: Any, pipes: Any) -> dict[str, Any]:
    """The final model's predicted class for every validation example it was evaluated on, with the labels, in
    the split's order (:mod:`bench.predictions`): what a paired test between two configurations needs. Outside
    every timed region. A one-unit output is a binary classifier (threshold 0.5 on probabilities, 0 on logits).
    The test suite checks that their accuracy is the epoch's ``val_accuracy``."""
    import numpy as np

    from bench.predictions import encode

    loss = getattr(model, "loss", None)
    config = loss.get_config() if loss is not None and hasattr(loss, "get_config") else {}
    threshold = 0.0 if isinstance(config, dict) and config.get("from_logits") else 0.5
    predicted, labels = [], []
    import keras

    for x, y in pipes.val_pass():
        # a plain forward call: predict_on_batch under MirroredStrategy returned every replica's copy of the batch
        out = np.asarray(keras.ops.convert_to_numpy(model(x, training=False)), dtype=np.float64)
        out = out.reshape(len(out), -1)
        predicted.append((out[:, 0] > threshold).astype(np.int64) if out.shape[1] == 1 else out.argmax(axis=1))
        labels.append(np.asarray(y).reshape(len(out), -1)[:, 0].astype(np.int64))
    return encode(np.concatenate(predicted), np.concatenate(labels))


class Worker:
    """State of one worker process: its job, engine, strategy, environment, cached datasets, event stream.

    ``faults`` are the test-only injected faults (:mod:`bench.runner.faults`); none by default.
    """

    def __init__(self, job: WorkerJob, events: TextIO, faults: Faults | None = None) -> None:
        self.job = job
        self.events = events
        self.faults = faults or Faults()
        self.run_dir = Path(job.run_dir)
        self._engine: Engine | None = None
        self.strategy: Any = None
        self.info: StrategyInfo | None = None
        self.env: dict[str, Any] = {}
        self._data: dict[tuple, Any] = {}
        self.peaks = Peaks()
        self.process = process_record(job.worker, os.getpid(), job.log or None)

    @property
    def resolved(self) -> StrategyInfo:
        """The strategy this worker resolved in :meth:`setup` (RuntimeError before it)."""
        if self.info is None:
            raise RuntimeError("the worker's strategy is not set up yet")
        return self.info

    @property
    def engine(self) -> Engine:
        """The engine module (:mod:`bench.engines`), loaded (with its framework) on first use."""
        if self._engine is None:
            self._engine = load(self.job.backend)
        return self._engine

    def emit(self, event: str, **fields: Any) -> None:
        """One event line for the launcher (``start``, ``epoch``, ``ready``, ``done``)."""
        self.events.write(json.dumps({"event": event, "t": time.time(), **fields}) + "\n")
        self.events.flush()

    def finish(self, record: Record) -> None:
        """Write a point's record atomically, then tell the launcher it is done."""
        record.finished_at = utc_now()
        write_record(self.run_dir, record)
        self.emit("done", point_id=record.point_id, status=record.status)

    def skip_all(self, points: list[Point], reason: str, exc_type: str) -> None:
        """A ``skipped`` record for every point of the group (the strategy's hardware is absent)."""
        for p in points:
            self.emit("start", point_id=p.point_id)
            rec = base_record(self.job.run_id, self.job.suite, p, unresolved_strategy(p.strategy), host_env(),
                              None, None)
            rec.process = self.process
            rec.status = "skipped"
            rec.error = ErrorInfo(type=exc_type, message=reason)
            self.finish(rec)

    def setup(self, points: list[Point]) -> bool:
        """Load the engine and create the strategy (first framework work in the process); False when the
        group is skipped."""
        job = self.job
        try:
            self.strategy, self.info = self.engine.make_strategy(job.strategy, job.all_reduce, job.tpu,
                                                                 job.tpu_connect_timeout_s)
        except StrategyUnavailable as e:
            self.skip_all(points, str(e), "StrategyUnavailable")
            return False
        self.env = {**host_env(), **self.engine.framework_env(self.resolved), "device_kind": self.resolved.device_kind,
                    "device_count": self.resolved.num_replicas}
        if job.measure_peak:
            self.peaks = measure_peaks(self.engine, self.resolved, sorted({"float32", *(p.precision for p in points)}))
        self.emit("ready", strategy=self.resolved.as_record())
        return True

    def arrays(self, point: Point) -> Any:
        """The point's examples, read once per worker (:func:`point_data`)."""
        return point_data(point, self._data)

    def run_point(self, point: Point) -> None:
        """Run one point and write its record, whatever happens inside."""
        import keras

        replicas = self.resolved.num_replicas
        gb = point.global_batch(replicas)
        rec = base_record(self.job.run_id, self.job.suite, point, self.resolved.as_record(), self.env, gb, replicas)
        rec.process = self.process
        self.emit("start", point_id=point.point_id)
        t_point = time.perf_counter()
        try:
            self._check_batch(point, rec, gb, replicas)
            arrays = self.arrays(point)
            rec.dataset.chance_accuracy = float(arrays.chance_accuracy)
            self.faults.before_fit(point.point_id, self.engine.out_of_memory_error)
            rss_reset, device_reset = reset_peak_rss(), self.engine.reset_peak_memory(self.resolved)
            try:
                self.fit(point, rec, arrays, gb)
            finally:  # a point that ran out of memory has a peak worth seeing too
                rec.memory = memory_record(rss_reset, device_reset, self.engine.peak_memory_bytes(self.resolved))
        except Exception as e:
            rec.status = "failed"
            rec.error = error_info(e, **failure_kind(e, self.engine.is_out_of_memory(e), rec.augmentation_layers,
                                                     self.resolved.device_kind))
        finally:
            keras.backend.clear_session()
            keras.mixed_precision.set_global_policy("float32")
        rec.point_wall_s = time.perf_counter() - t_point  # data, build, compile, fit, probes: all of the point
        self.finish(rec)

    def _check_batch(self, point: Point, rec: Record, gb: int, replicas: int) -> None:
        """Refuse a global batch the replicas cannot share or the data cannot fill; note TPU padding."""
        name = self.resolved.name
        if gb % replicas:
            raise ValueError(f"global batch {gb} is not divisible by the {replicas} replicas of {name}; "
                             f"use a multiple of {replicas}")
        if self.resolved.device_kind == "tpu" and (gb // replicas) % 8:
            rec.notes.append(f"per-replica batch {gb // replicas} is not a multiple of 8: TPU cores "
                                "pad it (seeds 000/001: use 8 x replicas multiples)")
        if point.n_train // gb < 1 or point.n_val // gb < 1:
            # per_replica sizing on hardware whose replica count was unknown when the config was checked
            per = (f"{point.per_replica_batch_size} per replica x {replicas} replicas of {name}"
                   if point.per_replica_batch_size is not None else f"{name}, {replicas} replicas")
            raise ValueError(
                f"global batch {gb} ({per}) is larger than {point.workload}'s split ({point.n_train} train / "
                f"{point.n_val} val examples); use a smaller batch or more data (data_scale=full, n_train, n_val)")

    def fit(self, point: Point, rec: Record, arrays: Any, gb: int) -> None:
        """Build, compile and fit the point's model under the strategy, filling ``rec`` with what it measured."""
        import keras

        from bench.runner.flops import FLOP_COUNT, datasheet_peak, forward_flops_per_example, train_flops_per_example
        from bench.runner.init_weights import apply_shared_weights
        from bench.runner.timing import EpochTimer

        keras.utils.set_random_seed(point.seed)  # dropout; weights: the run's shared file; order: bench.data.order
        keras.mixed_precision.set_global_policy(point.precision)
        from bench.workloads.models import runnable

        workload = runnable(get_workload(point.workload, point.data))
        pipes = self.engine.make_pipelines(workload, arrays, gb, point.seed,
                                           slow_decode=point.input_pipeline == "slow_decode", epochs=point.epochs,
                                           cached=point.input_pipeline == "cached")
        spe = effective_steps_per_execution(point.steps_per_execution, pipes.steps_per_epoch)
        rec.effective_steps_per_execution = spe
        if spe != point.steps_per_execution:
            rec.notes.append(f"steps_per_execution {point.steps_per_execution} ran as {spe}, the largest "
                                f"divisor of the epoch's {pipes.steps_per_epoch} steps not above it (Keras would "
                                "run whole executions past the end of the epoch)")
        stages = stage_epochs(workload, point.epochs)

        def scope() -> Any:
            return self.strategy.scope() if self.strategy is not None else contextlib.nullcontext()

        def compile_for(stage: str) -> None:
            kwargs = workload.compile_settings()
            kwargs["loss"] = self.faults.loss(point.point_id, kwargs["loss"])
            if stage == "fine_tune":  # the same optimizer, fresh, at the fine-tuning learning rate
                kwargs["optimizer"] = keras.optimizers.get(kwargs["optimizer"])
                kwargs["optimizer"].learning_rate = workload.fine_tune_learning_rate
            model.compile(**kwargs, steps_per_execution=spe)

        with scope():
            model = workload.new_model()
            rec.initial_weights = apply_shared_weights(model, self.run_dir, workload.name, point.seed)
            frozen = [model.get_layer(name) for name in workload.frozen]
            for layer in frozen:
                layer.trainable = False
            compile_for(stages[0][0])
        from bench.workloads.models import augmentation_layers

        in_model = augmentation_layers(model)
        if in_model:
            rec.augmentation_layers = in_model
            if self.resolved.device_kind == "tpu":
                rec.notes.append(TPU_AUGMENTATION_NOTE)
        rec.flops_per_example = train_flops_per_example(model)  # the stage now compiled; the last stage's below
        rec.forward_flops_per_example = forward_flops_per_example(model)
        rec.flop_count = FLOP_COUNT
        rec.params = int(model.count_params())
        rec.math_mode = self.engine.math_mode(self.resolved, point.precision)
        autotune_mark = self.engine.autotune_mark()

        def on_epoch(row: dict[str, Any]) -> None:
            self.emit("epoch", point_id=point.point_id, epoch=row["epoch"], epoch_s=row["epoch_s"],
                      epochs=point.epochs)

        timer = EpochTimer(gb, on_epoch=on_epoch)
        t0 = time.perf_counter()
        train, done = pipes.train, 0
        for i, (stage, n) in enumerate(stages):
            if i:  # the next stage: unfreeze, recompile, and fit again, as Keras' transfer-learning guide does
                with scope():
                    for layer in frozen:
                        layer.trainable = True
                    compile_for(stage)
                train = pipes.rewind()
            if len(stages) > 1:
                timer.stage = stage
                rec.flops_per_example = train_flops_per_example(model)  # fewer gradients while frozen
                trainable = int(sum(math.prod(w.shape) for w in model.trainable_weights))
                rec.stages = [*(rec.stages or []), Stage(
                    name=stage, epochs=n, trainable_params=trainable,
                    learning_rate=float(keras.ops.convert_to_numpy(model.optimizer.learning_rate)),
                    flops_per_example=rec.flops_per_example)]
            timer.fit_started()
            model.fit(train, initial_epoch=done, epochs=done + n, steps_per_epoch=pipes.steps_per_epoch,
                      validation_data=pipes.val, validation_steps=pipes.validation_steps, verbose=0,
                      callbacks=[timer], shuffle=False)  # the pipelines order the data; Keras would reorder a
            # PyDataset's batches with Python's own random (not bench.data.order), so the backends would differ
            done += n
            if timer.diverged:
                break
        if workload.frozen:
            rec.pretrained_weights = getattr(model, "bench_pretrained", None)
        t1 = time.perf_counter()
        rec.fit_wall_s = t1 - t0  # outside wall clock around the whole fit
        rec.teardown_s = t1 - timer.ended_at if timer.ended_at is not None else None  # after the last epoch
        rec.epochs = [Epoch.model_validate(row, strict=False) for row in timer.rows]
        if timer.diverged:
            rec.status = "diverged"
            rec.error = ErrorInfo(type="NonFiniteLoss",
                                  message=f"training loss became NaN/inf in epoch {timer.rows[-1]['epoch']}")
        steady = [e.epoch_s for e in rec.steady_epochs() if e.epoch_s is not None]
        rec.warmup_overhead_s = timer.rows[0]["epoch_s"] - statistics.median(steady) if steady else None
        for st in rec.stages or []:  # each stage's first epoch traces its (re)compiled model: its own warm-up
            rows = [r["epoch_s"] for r in timer.rows if r.get("stage") == st.name]
            st.warmup_overhead_s = rows[0] - statistics.median(rows[1:]) if len(rows) > 1 else None
        observed = self.engine.device_pipeline_autotune(autotune_mark)
        if observed is not None and rec.strategy.scope is not False:
            rec.strategy.device_pipeline_autotune = observed  # seen, not requested
        if not timer.diverged:
            t = time.perf_counter()
            rec.val_predictions = val_predictions(model, pipes)
            rec.predict_measure_s = time.perf_counter() - t
        if self.job.measure_input:
            t = time.perf_counter()
            rec.input_examples_per_s = input_only_rate(pipes.fresh_train(), pipes.steps_per_epoch, gb)
            rec.input_measure_s = time.perf_counter() - t
        if self.peaks.flops_per_s:
            rec.peak_flops_per_s = {p: self.peaks.flops_per_s[p] for p in sorted({"float32", point.precision})}
            rec.peak_scope = self.peaks.scope
            rec.peak_measure_s = self.peaks.measure_s  # once per worker, before its first point
        info = self.resolved
        rec.datasheet_peak_flops_per_s = datasheet_peak(info.device_kind, self.env.get("accelerator"),
                                                        point.precision, info.num_replicas, rec.math_mode)

    def run(self) -> None:
        """Set up the strategy, then run every point of the job in order."""
        points = list(self.job.points)
        ready = self.setup(points)
        if self.job.spawned_at:  # interpreter start, imports, strategy, peak probe: before the first point
            self.process.startup_s = time.time() - self.job.spawned_at
        if not ready:
            return
        for p in points:
            self.run_point(p)


def main() -> int:
    """Entry point of a worker process; the job arrives as one JSON line on stdin.

    The launcher keeps stdin open for the worker's whole life; end-of-file on it means the launcher is
    gone (even by SIGKILL: the kernel closes a dead process's pipes), and the worker then exits at once
    (status 70) instead of running on as an orphan in its own session.
    """
    import threading

    exit_orphaned = 70
    events = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # stray prints (Keras, absl) go to the log, not into the event stream
    sys.stdout = sys.stderr
    line = sys.stdin.readline()
    if not line.strip():
        return exit_orphaned  # the launcher died before sending the job
    job = WorkerJob.from_json(line)
    prepare_process(job.backend)  # before anything imports Keras (under jax: no TensorFlow in this process)

    def exit_when_orphaned() -> None:
        with contextlib.suppress(Exception):
            while sys.stdin.read(4096):
                pass
        sys.stderr.write("bench worker: launcher gone (stdin closed); exiting\n")
        sys.stderr.flush()
        os._exit(exit_orphaned)

    threading.Thread(target=exit_when_orphaned, name="orphan-watch", daemon=True).start()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    faults = Faults.parse(os.environ.get("BENCH_FAULT", ""))  # test-only, see bench.runner.faults
    Worker(job, events, faults).run()
    events.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
