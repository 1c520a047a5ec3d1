"""Runs one worker group inside one process: ``python -m bench.worker`` (a :class:`WorkerJob` as one JSON line on
stdin). It makes the strategy first, then runs its points one by one, writing each record atomically when done and
reporting progress as JSON lines on its original stdout (other output goes to stderr, the launcher's log).
Framework work goes through the engine; failures are records (DESIGN.md, *Measurement rules*).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from bench.engines import (
    Engine,
    PipelineUnavailable,
    StrategyInfo,
    StrategyUnavailable,
    load,
    prepare_process,
    unresolved_strategy,
)
from bench.job.faults import Faults
from bench.job.point import Point, WorkerJob, with_tensorflow
from bench.job.point_record import base_record, error_info, failure_kind, process_record, utc_now
from bench.measure.env import host_env
from bench.measure.gpu_env import gpu_env
from bench.measure.peak_cache import device_kind_of
from bench.measure.probes import Peaks, memory_record, reset_peak_rss, scaled_peaks
from bench.readiness.findings import tpu_checks
from bench.records import ErrorInfo, Record, write_record


def point_data(point: Point, cache: dict[tuple, Any]) -> Any:
    """A point's examples (generated, read from the bench cache or a data source; kept in ``cache`` by what
    they are): arrays, or encoded images (:class:`bench.data.sources.Encoded`) the input pipeline decodes."""
    from bench.workloads.examples import load_examples

    return load_examples(point.workload, point.data, point.data_scale, point.n_train, point.n_val, point.seed, cache)


class Worker:
    """State of one worker process: its job, engine, strategy, environment, cached datasets, event stream;
    ``faults``: the test-only injected faults (:mod:`bench.job.faults`), none by default."""

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
        self.notes: list[str] = []  # said on every record of this worker (a probe that failed)
        self.points_started = 0
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
        """Write a point's record atomically, then tell the launcher it is done. Of a multi-process point's
        processes only process 0 writes: its record holds every process's timings (``topology``)."""
        record.finished_at = utc_now()
        if self.job.process_id == 0:
            write_record(self.run_dir, record)
        self.emit("done", point_id=record.point_id, status=record.status)

    def skip_all(self, points: list[Point], reason: str, exc_type: str) -> None:
        """A ``skipped`` record for every point of the group (the strategy's hardware is absent)."""
        for p in points:
            self.emit("start", point_id=p.point_id)
            rec = base_record(self.job.run_id, self.job.suite, p, unresolved_strategy(p.strategy), host_env(),
                              None, None, self.job.race)
            rec.process = self.process
            if p.strategy == "tpu":
                rec.tpu_checks = tpu_checks(self.job.run_dir, p.workload, p.backend)
            rec.status = "skipped"
            rec.error = ErrorInfo(type=exc_type, message=reason)
            self.finish(rec)

    def setup(self, points: list[Point]) -> bool:
        """Load the engine and create the strategy (first framework work in the process); False when the
        group is skipped."""
        job = self.job
        probing = self.probe_peaks(points) if job.measure_peak else (lambda: {})  # before the framework takes a device
        if device_kind_of(job.strategy) == "cpu":  # the child imports beside this import, and measures after it
            _ = self.engine
        probed = probing()
        try:
            self.strategy, self.info = self.engine.make_strategy(job.strategy, job.all_reduce, job.tpu,
                                                                 job.tpu_connect_timeout_s)
        except StrategyUnavailable as e:
            self.skip_all(points, str(e), "StrategyUnavailable")
            return False
        if job.float32_matmul != "framework":  # before any model is traced
            if self.resolved.device_kind == "gpu":
                self.engine.set_float32_matmul(job.float32_matmul)
            else:
                self.notes.append(f"float32_matmul={job.float32_matmul} applies on a GPU: {self.resolved.device_kind} "
                                  "arithmetic left as it is")
        self.env = {**host_env(), **self.engine.framework_env(self.resolved), "device_kind": self.resolved.device_kind,
                    "device_count": self.resolved.num_replicas}
        if self.resolved.device_kind == "gpu":  # driver, CUDA, memory, form factor, clocks, power (or why not)
            self.env["gpu"] = gpu_env()
        if probed.get("device_kind") == self.resolved.device_kind:  # not a CPU probe for an auto that found a GPU
            self.peaks = scaled_peaks(probed, self.resolved)
        gc.freeze()  # the framework's ~0.5 M objects: each point's clear_session collects without walking them
        self.emit("ready", strategy=self.resolved.as_record())
        return True

    def probe_peaks(self, points: list[Point]) -> Callable[[], dict[str, Any]]:
        """Start the devices' matmul peak per precision and bandwidth, per device (:func:`bench.measure.peak_cache.
        start_worker_peaks`); the call returned waits for them. A probe that failed is a note on every record (the
        points run without an MFU)."""
        from bench.measure.peak_cache import run_start, start_worker_peaks

        job = self.job
        pending = start_worker_peaks(job.backend, job.strategy, sorted({"float32", *(p.precision for p in points)}),
                                     run_start(job.run_id, job.spawned_at) if job.fresh_peak else None,
                                     float32_matmul=job.float32_matmul)

        def finish() -> dict[str, Any]:
            found, note = pending()
            self.notes += [note] if note else []
            return found

        return finish

    def arrays(self, point: Point) -> Any:
        """The point's examples, read once per worker (:func:`point_data`)."""
        return point_data(point, self._data)

    def run_point(self, point: Point) -> None:
        """Run one point and write its record, whatever happens inside."""
        import keras

        replicas = self.resolved.num_replicas
        gb = point.global_batch(replicas)
        rec = base_record(self.job.run_id, self.job.suite, point, self.resolved.as_record(), self.env, gb, replicas,
                          self.job.race)
        rec.process = self.process
        rec.notes.extend(self.notes)
        if point.strategy == "tpu":
            rec.tpu_checks = tpu_checks(self.job.run_dir, point.workload, point.backend)
        self.emit("start", point_id=point.point_id)
        t_point = time.perf_counter()
        first, self.points_started = not self.points_started, self.points_started + 1
        try:
            self._check_batch(point, rec, gb, replicas)
            if self.faults.placed(point.point_id):
                self.engine.activate(self.strategy)  # Keras' clear_session after the last point dropped a global one
            arrays = self.arrays(point)
            if arrays is not None:  # None: a workload's own input_fn makes its examples
                rec.dataset.chance_accuracy = float(arrays.chance_accuracy)
            self.faults.before_fit(point.point_id, self.engine.out_of_memory_error, point.point_id in self.job.one_step)
            # a counter that cannot be reset (JAX) was never raised before a worker's first point: the point's own
            rss_reset = reset_peak_rss()
            device_reset = self.engine.reset_peak_memory(self.resolved) or first
            try:
                self.fit(point, rec, arrays, gb)
            finally:  # a point that ran out of memory has a peak worth seeing too
                rec.memory = memory_record(rss_reset, device_reset, self.engine.peak_memory_bytes(self.resolved),
                                           rec.memory)  # the fit's step analysis (JAX) is kept
        except PipelineUnavailable as e:  # the point's input pipeline cannot run here: the reason, not a failure
            rec.status = "skipped"
            rec.error = ErrorInfo(type="PipelineUnavailable", message=str(e))
        except Exception as e:
            rec.status = "failed"
            rec.error = error_info(e, **failure_kind(e, self.engine.is_out_of_memory(e), rec.augmentation_layers,
                                                     self.resolved.device_kind))
        finally:
            keras.backend.clear_session()
            keras.mixed_precision.set_global_policy("float32")
        rec.point_wall_s = time.perf_counter() - t_point  # data, build, compile, fit, probes: all of the point
        self.finish(rec)
        if int(self.resolved.extra.get("processes", 1)) > 1:  # no process starts the next point before process 0
            self.engine.gather_processes([0.0])  # has written this one's record and said so: a process that dies
            # early in the next point is then charged to that point, never to this one (the launcher follows
            # process 0's events, and fails the point in flight or, between points, the next)

    def _check_batch(self, point: Point, rec: Record, gb: int, replicas: int) -> None:
        """Refuse a global batch the replicas cannot share or the data cannot fill; note TPU padding."""
        name = self.resolved.name
        if gb % replicas:
            raise ValueError(f"global batch {gb} is not divisible by the {replicas} replicas of {name}; "
                             f"use a multiple of {replicas}")
        if self.resolved.device_kind == "tpu" and (gb // replicas) % 8:
            rec.notes.append(f"per-replica batch {gb // replicas} is not a multiple of 8: TPU cores "
                                "pad it (tutorials 000/001: use 8 x replicas multiples)")
        if point.n_train // gb < 1 or point.n_val // gb < 1:
            # per_replica sizing on hardware whose replica count was unknown when the config was checked
            per = (f"{point.per_replica_batch_size} per replica x {replicas} replicas of {name}"
                   if point.per_replica_batch_size is not None else f"{name}, {replicas} replicas")
            raise ValueError(
                f"global batch {gb} ({per}) is larger than {point.workload}'s split ({point.n_train} train / "
                f"{point.n_val} val examples); use a smaller batch or more data (data_scale=full, n_train, n_val)")

    def fit(self, point: Point, rec: Record, arrays: Any, gb: int) -> None:
        """Build, compile and fit the point's model under the strategy, filling ``rec`` with what it measured
        (:class:`bench.worker.fit.PointFit`)."""
        from bench.worker.fit import PointFit

        PointFit(self, point, rec, arrays, gb).run()

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


def end_now(status: int) -> None:
    """End a worker process whose every record is written, without the interpreter's teardown, which the launcher
    waits for before it starts the next worker: TensorFlow's, JAX's and PyTorch's objects took 1.0, 0.7 and 1.9 s
    of it after a small fit on the 2-core box (docs/development.md). Output is flushed first."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


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
    # before anything imports Keras (under jax and torch: no TensorFlow in this process, unless a tf.data pipeline
    # feeds it; under torch no JAX, and under tensorflow none while TensorFlow imports)
    prepare_process(job.backend, tensorflow=any(with_tensorflow(p) for p in job.points))

    def exit_when_orphaned() -> None:
        with contextlib.suppress(Exception):
            while sys.stdin.read(4096):
                pass
        sys.stderr.write("bench worker: launcher gone (stdin closed); exiting\n")
        sys.stderr.flush()
        os._exit(exit_orphaned)

    threading.Thread(target=exit_when_orphaned, name="orphan-watch", daemon=True).start()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    faults = Faults.parse(os.environ.get("BENCH_FAULT", ""), job.process_id)  # test-only: bench.job.faults
    Worker(job, events, faults).run()
    events.flush()
    if job.processes == 1:  # no interpreter teardown: the launcher would wait for it (JAX's joins a group's processes)
        end_now(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
