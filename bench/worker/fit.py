"""One point's training inside a worker process (it imports Keras; framework specifics go through the engine):
:class:`PointFit` fills the point's :class:`~bench.records.Record` with what ran, each epoch, the fit's own wall
clock, teardown and neighbours' CPU share, and after the fit, outside every timed region, the validation
predictions, the input pipeline's own rate and the peaks.
"""

from __future__ import annotations

import contextlib
import math
import statistics
import time
from pathlib import Path
from typing import Any, Protocol

from bench.config import effective_steps_per_execution
from bench.engines import Engine, StrategyInfo, input_threads
from bench.job.faults import Faults
from bench.job.point import Point, WorkerJob
from bench.job.point_record import TPU_AUGMENTATION_NOTE
from bench.measure.env import cpu_busy, others_busy
from bench.measure.probes import Peaks
from bench.records import Epoch, ErrorInfo, Record, Stage, finite_or_none
from bench.worker.devices import guard, jit_compile, one_step, record_peaks, record_placement, record_step_memory
from bench.worker.feeds import describe_feed, make_feed
from bench.worker.init_weights import weights_digest
from bench.worker.second_batch import measure_second_batch
from bench.workloads import get_workload, stage_epochs

TIMES = ("epoch_s", "train_s", "val_s")  # an epoch's seconds each process of a multi-process point reports


class FitContext(Protocol):
    """What a point's fit needs of its worker process (:class:`bench.worker.main.Worker` is one)."""

    job: WorkerJob
    strategy: Any
    env: dict[str, Any]
    peaks: Peaks
    faults: Faults
    run_dir: Path

    @property
    def engine(self) -> Engine: ...

    @property
    def resolved(self) -> StrategyInfo: ...

    def emit(self, event: str, **fields: Any) -> None: ...


class PointFit:
    """The training of one point by one worker (``gb``: the global batch, examples)."""

    def __init__(self, worker: FitContext, point: Point, rec: Record, arrays: Any, gb: int) -> None:
        self.worker, self.point, self.rec, self.arrays, self.gb = worker, point, rec, arrays, gb
        self.model: Any = None
        self.frozen: list[Any] = []
        self.sample_batch: Any = None  # one validation batch, drawn for the placement check, read again after fit

    def run(self) -> None:
        """Build and compile under the strategy, fit every stage, then measure what follows the fit."""
        import keras

        from bench.workloads.models import runnable

        point = self.point
        keras.utils.set_random_seed(point.seed)  # dropout; weights: the run's shared file; order: bench.data.order
        keras.mixed_precision.set_global_policy(point.precision)
        self.workload = runnable(get_workload(point.workload, point.data))
        self.record_labels()
        processes = int(self.worker.resolved.extra.get("processes", 1))
        self.pipes = make_feed(self.worker.engine, self.workload, self.arrays, self.gb, point.seed,
                               point.input_pipeline, point.epochs, processes)
        describe_feed(self.rec, self.pipes, point.input_pipeline, input_threads())
        self.spe = self.resolve_spe()
        stages = stage_epochs(self.workload, point.epochs)
        self.build(stages[0][0])
        record_placement(self)  # what the devices will run, checked before anything is timed
        autotune_mark = self.worker.engine.autotune_mark()
        timer = self.train(stages)
        self.after_fit(timer, autotune_mark)
        measure_second_batch(self)  # a short extra stage where the sweep has no other batch of this configuration

    def record_labels(self) -> None:
        """The labels' format as fed (``label_format``), with a note when bench adapted them to the model."""
        from bench.workloads.labels import AS_GIVEN, INTEGER, ONE_HOT

        wl = self.workload
        self.rec.label_format = (AS_GIVEN if wl.input_fn else ONE_HOT if wl.one_hot_labels else
                                 "binary" if wl.binary_labels else INTEGER)
        if wl.one_hot_labels:
            self.rec.notes.append(f"labels fed as one-hot rows: the compiled {wl.one_hot_labels} expects them "
                                  "(the data hold integer class ids)")

    def resolve_spe(self) -> int:
        """The steps_per_execution that divides the epoch (recorded, with a note when it is not the request)."""
        point, steps = self.point, self.pipes.steps_per_epoch
        spe = effective_steps_per_execution(point.steps_per_execution, steps)
        self.rec.effective_steps_per_execution = spe
        if spe != point.steps_per_execution:
            self.rec.notes.append(f"steps_per_execution {point.steps_per_execution} ran as {spe}, the largest "
                                  f"divisor of the epoch's {steps} steps not above it (Keras would run whole "
                                  "executions past the end of the epoch)")
        return spe

    def scope(self) -> Any:
        """The strategy's scope (none for the no-scope strategies)."""
        strategy = self.worker.strategy
        return strategy.scope() if strategy is not None else contextlib.nullcontext()

    def compile_for(self, stage: str) -> None:
        """Compile the model for a stage (``fine_tune``: the same optimizer, fresh, at the fine-tuning rate)."""
        import keras

        kwargs = self.workload.compile_settings()
        kwargs["loss"] = self.worker.faults.loss(self.point.point_id, kwargs["loss"])
        if stage == "fine_tune":
            kwargs["optimizer"] = keras.optimizers.get(kwargs["optimizer"])
            kwargs["optimizer"].learning_rate = self.workload.fine_tune_learning_rate
        kwargs.setdefault("jit_compile", jit_compile(self.point.backend, self.point.jit_compile))
        self.model.compile(**kwargs, steps_per_execution=self.spe)

    def build(self, first_stage: str) -> None:
        """Model from the run's shared initial weights, frozen layers, compiled; what ran goes in the record."""
        from bench.measure.flops import FLOP_COUNT, forward_flops_per_example, train_flops_per_example, uncounted_layers
        from bench.worker.init_weights import apply_shared_weights
        from bench.workloads.models import augmentation_layers

        rec, worker = self.rec, self.worker
        with self.scope():
            self.model = model = self.workload.new_model()
            rec.initial_weights = apply_shared_weights(model, worker.run_dir, self.workload.name, self.point.seed)
            self.check_same_start(model, rec.initial_weights)
            self.frozen = [model.get_layer(name) for name in self.workload.frozen]
            for layer in self.frozen:
                layer.trainable = False
            self.compile_for(first_stage)
        in_model = augmentation_layers(model)
        if in_model:
            rec.augmentation_layers = in_model
            if worker.resolved.device_kind == "tpu":
                rec.notes.append(TPU_AUGMENTATION_NOTE)
        rec.flops_per_example = train_flops_per_example(model)  # the stage now compiled; the last stage's below
        rec.forward_flops_per_example = forward_flops_per_example(model)
        rec.flop_count, rec.flops_uncounted = FLOP_COUNT, uncounted_layers(model) or None
        rec.params = int(model.count_params())
        if self.workload.input_fn:  # its own pipeline: the classes the model tells apart (one unit: binary)
            rec.dataset.classes = max(2, int(model.output_shape[-1]))
        rec.math_mode = worker.engine.math_mode(worker.resolved, self.point.precision)
        rec.arithmetic = worker.engine.arithmetic(worker.resolved, self.point.precision)
        rec.float32_matmul = worker.job.float32_matmul

    def check_same_start(self, model: Any, initial: dict[str, Any] | None) -> None:
        """A multi-process point: every process's model starts from the same weights (on several hosts each reads
        its own run folder's file), else its processes would train different models; RuntimeError naming the fix."""
        if int(self.worker.resolved.extra.get("processes", 1)) == 1 or not initial:
            return
        sha = weights_digest(model)
        gathered = self.worker.engine.gather_processes([int(sha[:6], 16), int(sha[6:12], 16)])
        starts = {(int(a), int(b)) for a, b in gathered}
        if len(starts) > 1:
            raise RuntimeError(f"the processes loaded different initial weights ({len(starts)} distinct): copy process "
                               f"0's {initial.get('path')} to every host's run folder, or let each draw them from "
                               "the same seed with the same Keras and JAX versions")

    def train(self, stages: list[tuple[str, int]]) -> Any:
        """``fit`` each stage (unfreeze and recompile between them, as Keras' transfer-learning guide does);
        returns the epoch timer. The fit's outside wall clock and teardown (seconds) go in the record."""
        from bench.measure.timing import EpochTimer

        point, rec, pipes, model = self.point, self.rec, self.pipes, self.model

        def on_epoch(row: dict[str, Any]) -> None:
            self.worker.emit("epoch", point_id=point.point_id, epoch=row["epoch"], epoch_s=row["epoch_s"],
                             epochs=point.epochs)

        timer = EpochTimer(self.gb, on_epoch=on_epoch)
        callbacks = [guard(self.worker.engine, self.worker.strategy), timer, *one_step(self.worker.job, point, rec)]
        if int(self.worker.resolved.extra.get("processes", 1)) == 1:  # predict needs every row in this process
            from bench.measure.predict import ValidationRest

            callbacks.append(ValidationRest(timer, pipes, self.gb))
        elif getattr(pipes, "val_rest", None) is not None:
            rec.notes.append(f"validation scored the whole batches only ({pipes.validation_steps * self.gb} "
                             "examples): Keras' predict cannot fetch arrays that span processes")
        busy0, t0 = cpu_busy(), time.perf_counter()  # the /proc read outside the fit's wall clock
        train, done = pipes.train, 0
        for i, (stage, n) in enumerate(stages):
            if i:
                with self.scope():
                    for layer in self.frozen:
                        layer.trainable = True
                    self.compile_for(stage)
                train = pipes.rewind()
            if len(stages) > 1:
                timer.stage = stage
                self.add_stage(stage, n)
            timer.fit_started()
            model.fit(**pipes.fit_inputs(train), initial_epoch=done, epochs=done + n, validation_data=pipes.val,
                      validation_steps=pipes.validation_steps, verbose=0, callbacks=callbacks)
            done += n
            if timer.diverged:
                break
        if self.workload.frozen:
            rec.pretrained_weights = getattr(model, "bench_pretrained", None)
        t1 = time.perf_counter()
        rec.fit_wall_s = t1 - t0  # outside wall clock around the whole fit
        # a neighbour's share of the CPUs meanwhile; not where the point's own sibling processes share the host
        rec.others_busy = others_busy(busy0, cpu_busy(), t1 - t0) if self.point.processes == 1 else None
        rec.teardown_s = t1 - timer.ended_at if timer.ended_at is not None else None  # after the last epoch
        return timer

    def add_stage(self, stage: str, epochs: int) -> None:
        """A staged point's ``stages`` entry: its epochs, trainable parameters, learning rate, FLOPs/example."""
        import keras

        from bench.measure.flops import train_flops_per_example

        model, rec = self.model, self.rec
        rec.flops_per_example = train_flops_per_example(model)  # fewer gradients while frozen
        trainable = int(sum(math.prod(w.shape) for w in model.trainable_weights))
        rec.stages = [*(rec.stages or []), Stage(
            name=stage, epochs=epochs, trainable_params=trainable,
            learning_rate=float(keras.ops.convert_to_numpy(model.optimizer.learning_rate)),
            flops_per_example=rec.flops_per_example)]

    def gather_processes(self, timer: Any, processes: int) -> None:
        """A multi-process point: every process's own timings, input rate and final-weights hash (one all-gather),
        kept in ``topology.per_process``; each epoch's times in the record are the slowest process's, and the
        input rate is the slowest process's times the processes (each step needs every process's rows)."""
        import os

        from bench.records import ProcessShare, Topology

        rec, rows, n_epochs = self.rec, timer.rows, len(timer.rows)
        digest = weights_digest(self.model)
        mine = [float(os.getpid()), float(int(digest[:6], 16)), float(int(digest[6:12], 16)),
                rec.input_examples_per_s if rec.input_examples_per_s is not None else math.nan,
                *(math.nan if r.get(k) is None else r[k] for k in TIMES for r in rows)]
        shares = []
        for i, v in enumerate(self.worker.engine.gather_processes(mine)):
            times = {k: [None if math.isnan(t) else t for t in v[4 + j * n_epochs: 4 + (j + 1) * n_epochs]]
                     for j, k in enumerate(TIMES)}
            shares.append(ProcessShare(process_id=i, pid=int(v[0]), **times,
                                       input_examples_per_s=None if math.isnan(v[3]) else v[3],
                                       final_weights_sha256=f"{int(v[1]):06x}{int(v[2]):06x}"))
        for k, epoch in enumerate(rec.epochs):  # the slowest process bounds every step: its time is the point's
            for name in TIMES:
                values = [getattr(sh, name)[k] for sh in shares if getattr(sh, name)[k] is not None]
                if values:
                    setattr(epoch, name, max(values))
        steady = [e.epoch_s for e in rec.steady_epochs() if e.epoch_s is not None]
        if steady and rec.epochs[0].epoch_s is not None:
            rec.warmup_overhead_s = rec.epochs[0].epoch_s - statistics.median(steady)
        rates = [sh.input_examples_per_s for sh in shares if sh.input_examples_per_s is not None]
        if rates:
            rec.input_examples_per_s = min(rates) * processes
        extra = self.worker.resolved.extra
        rec.topology = Topology(processes=processes, devices_per_process=len(extra.get("local_devices", [])),
                                coordinator=extra.get("coordinator"),
                                launched_by="one bench per host" if self.worker.job.per_host else "bench",
                                timing="slowest process per epoch", per_process=shares)

    def after_fit(self, timer: Any, autotune_mark: Any) -> None:
        """Epochs, status, warm-ups; then, outside every timed region, predictions, input rate and peaks."""
        from bench.measure.predict import val_predictions
        from bench.measure.probes import input_only_rate

        rec, worker = self.rec, self.worker
        rec.epochs = [Epoch.model_validate(finite_or_none(row), strict=False) for row in timer.rows]  # NaN: null
        if timer.diverged:
            rec.status = "diverged"
            rec.error = ErrorInfo(type="NonFiniteLoss",
                                  message=f"training loss became NaN/inf in epoch {timer.rows[-1]['epoch']}")
        steady = [e.epoch_s for e in rec.steady_epochs() if e.epoch_s is not None]
        rec.warmup_overhead_s = timer.rows[0]["epoch_s"] - statistics.median(steady) if steady else None
        for st in rec.stages or []:  # each stage's first epoch traces its (re)compiled model: its own warm-up
            rows = [r["epoch_s"] for r in timer.rows if r.get("stage") == st.name]
            st.warmup_overhead_s = rows[0] - statistics.median(rows[1:]) if len(rows) > 1 else None
        observed = worker.engine.device_pipeline_autotune(autotune_mark)
        if observed is not None and rec.strategy.scope is not False:
            rec.strategy.device_pipeline_autotune = observed  # seen, not requested
        processes = int(worker.resolved.extra.get("processes", 1))
        if not timer.diverged and processes == 1:
            t = time.perf_counter()
            rec.val_predictions = val_predictions(self.model, self.pipes)
            rec.predict_measure_s = time.perf_counter() - t
        elif processes > 1:
            rec.notes.append(f"no per-example predictions: each of the {processes} processes holds only its rows of "
                             "a batch, and Keras' predict cannot fetch arrays that span processes")
        record_step_memory(self)
        if worker.job.measure_input:  # a process makes its own rows of each batch: gb / processes examples
            t = time.perf_counter()
            rec.input_examples_per_s = input_only_rate(self.pipes.fresh_train(), self.pipes.steps_per_epoch,
                                                       self.gb // processes)
            rec.input_measure_s = time.perf_counter() - t
        if processes > 1:
            self.gather_processes(timer, processes)
        record_peaks(self)
