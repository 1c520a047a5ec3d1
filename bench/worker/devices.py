"""What a point really runs on the devices, checked and recorded before its fit is timed (worker process only): the
distribution put back in force, the placement read back (:meth:`~bench.engines.Engine.placement`) and the compiler;
a placement the strategy does not promise fails the point; :func:`guard` asks again at ``fit``'s and each epoch's
start.
"""

from __future__ import annotations

import time
from typing import Any

from bench.engines import PlacementError
from bench.records import Memory, Placement
from bench.records.backends import declares


# Keras' JAX backend always compiles the train step (jit_compile=False would run it op by op); TensorFlow's and
# PyTorch's are the point's jit_compile, passed explicitly (default False) so that every strategy compared runs the
# same compiler unless "auto" is asked: Keras' "auto" turns XLA on for a no-scope TensorFlow model when a GPU or TPU
# is physically present and off inside any strategy scope, and runs PyTorch eagerly. The record's ``compiler`` says
# what ran, read from the compiled model.
def jit_compile(backend: str, requested: bool | str) -> bool | str:
    """The ``jit_compile`` a point's model is compiled with under ``backend`` (``"auto"``: Keras resolves it): True
    where its declaration says it always compiles (bench.records.backends)."""
    return True if declares(backend, "always_compiles") else requested


def record_placement(fit: Any) -> None:
    """Check and record the placement and the compiler of ``fit`` (a :class:`bench.worker.fit.PointFit` whose
    model is built and compiled); PlacementError when the strategy's promise does not hold."""
    worker = fit.worker
    batch = fit.sample_batch = next(iter(fit.pipes.val_pass()), None)  # the step's memory analysis reads it too
    found = worker.engine.placement(fit.model, worker.strategy, worker.resolved, batch)
    fit.rec.placement = Placement.model_validate(found)
    fit.rec.compiler = worker.engine.compiler(fit.model, worker.resolved)


def record_peaks(fit: Any) -> None:
    """The peaks ``fit``'s MFU is held against: the worker's matmul probe (this host's cached figure, or measured by
    a child process before the worker's framework started), the devices' bandwidth and the step's byte count (the memory
    floor), and the datasheet's for the devices that ran, or why the record has none."""
    from bench.measure.datasheets import datasheet_peak, why_no_peak

    rec, worker, precision = fit.rec, fit.worker, fit.point.precision
    if worker.peaks.flops_per_s:
        rec.peak_flops_per_s = {p: worker.peaks.flops_per_s[p] for p in sorted({"float32", precision})}
        rec.peak_scope, rec.peak_devices = worker.peaks.scope, worker.peaks.devices
        rec.peak_measure_s = worker.peaks.measure_s
        rec.peak_measured_at, rec.peak_cached = worker.peaks.measured_at or None, worker.peaks.cached
        rec.peak_probe = {p: worker.peaks.probe[p] for p in sorted({"float32", precision}) if p in worker.peaks.probe}
        rec.peak_bytes_per_s, rec.bandwidth_probe = worker.peaks.bytes_per_s, worker.peaks.bandwidth_probe
    record_bytes(fit)
    info, accelerator = worker.resolved, worker.env.get("accelerator")
    rec.datasheet_peak_flops_per_s = datasheet_peak(info.device_kind, accelerator, precision, info.num_replicas,
                                                    rec.math_mode)
    if rec.datasheet_peak_flops_per_s is None:
        rec.datasheet_peak_missing = why_no_peak(info.device_kind, accelerator, precision, rec.math_mode)


def record_bytes(fit: Any) -> None:
    """The step's analytic byte count (:mod:`bench.measure.traffic`), the memory floor's numerator, read after the
    fit (the optimizer's slots exist then); a model whose layers cannot be read (a subclassed model's layers have no
    symbolic input) gets none and a note, never a failed point."""
    from bench.measure.traffic import BYTE_COUNT, bytes_per_example, weight_bytes_per_step

    try:
        per_example = bytes_per_example(fit.model)
        per_step = weight_bytes_per_step(fit.model, getattr(fit.model, "optimizer", None))
    except Exception as e:  # a count beside the point, not the point
        fit.rec.notes.append(f"no byte count (memory floor): {type(e).__name__}: {e}"[:300])
        return
    fit.rec.bytes_per_example, fit.rec.weight_bytes_per_step, fit.rec.byte_count = per_example, per_step, BYTE_COUNT


def record_step_memory(fit: Any) -> None:
    """The compiled training step's own device memory where the engine reads it (JAX: XLA's analysis, since its
    allocator peak is the process's), kept in ``fit.rec.memory`` for the worker's memory record; a reading that
    fails is a note, never a failed point."""
    t = time.perf_counter()
    batch = fit.sample_batch  # record_placement's: one of the point's batches, drawn once
    try:
        step = fit.worker.engine.step_memory(fit.model, batch, fit.gb) if batch is not None else None
    except Exception as e:  # a measurement beside the point's, not the point
        fit.rec.notes.append(f"no memory analysis of the compiled step: {type(e).__name__}: {e}"[:300])
        return
    if step:
        flops, moved = step.pop("step_flops", None), step.pop("step_bytes_accessed", None)
        replicas = max(1, int(fit.worker.resolved.num_replicas or 1))  # one device's program, every replica runs it
        if flops:
            fit.rec.compiled_flops_per_example = flops * replicas / fit.gb
        if moved:
            fit.rec.compiled_bytes_per_example = moved * replicas / fit.gb
        fit.rec.memory = Memory.model_validate({
            **step, "step_source": "XLA memory analysis of the compiled train step, one device",
            "step_measure_s": time.perf_counter() - t})


def guard(engine: Any, strategy: Any) -> Any:
    """A Keras callback that fails the fit (PlacementError) when the distribution in force at ``fit``'s start or
    an epoch's start is not the worker's. Only train- and epoch-level hooks: batch-level ones would make Keras
    synchronise after every batch (:mod:`bench.measure.timing`)."""
    import keras

    class PlacementGuard(keras.callbacks.Callback):
        def _check(self) -> None:
            why = engine.lost(strategy)
            if why:
                raise PlacementError(why)

        def on_train_begin(self, logs: Any = None) -> None:
            self._check()

        def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
            self._check()

    return PlacementGuard()


def one_step(job: Any, point: Any, rec: Any) -> list[Any]:
    """The callbacks that keep one training step in flight where the worker's job says why for ``point`` (its first
    worker's fatal line and log, :attr:`bench.job.point.WorkerJob.one_step`); none otherwise. A batch-end hook
    of its own makes Keras call the batch-end hooks in step, each waiting for its step's loss, where under JAX it
    would hand them to a thread pool and dispatch the next steps meanwhile. The record says so (``steps_in_flight``,
    a note)."""
    reason = job.one_step.get(point.point_id, "")
    if not reason:
        return []
    import keras

    class OneStepInFlight(keras.callbacks.Callback):
        def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
            pass  # its presence is the point: Keras then calls batch-end hooks in step

    rec.steps_in_flight = 1
    rec.notes.append(f"run again in a fresh worker with one training step in flight: its first worker died in XLA's "
                     f"CPU all-reduce ({reason}); each step waited for the one before it, so its epochs are slower "
                     "than a plain fit's")
    return [OneStepInFlight()]
