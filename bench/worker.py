"""Runs one strategy group inside one process: ``python -m bench.worker`` (spec as JSON on stdin).

The launcher starts one worker per strategy group. The worker creates the strategy first (before any
other TensorFlow op), then runs its points one by one, writing each point's record atomically as soon as
it is finished, and reports progress to the launcher as JSON lines on its original stdout (everything
else printed to stdout is redirected to stderr, which the launcher keeps in a log file).

Failures are records: OOM (``ResourceExhaustedError``) and any other exception of a point -> ``failed``
with type, message and the traceback's last lines; NaN/inf loss -> ``diverged``; absent hardware ->
``skipped`` for every point of the group. A crash or hang that kills the process is recorded by the
launcher, which restarts a fresh worker for the rest of the group.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from bench.plan import Point
from bench.records import SCHEMA_VERSION, write_record
from bench.workloads import get_workload

TRACEBACK_LINES = 12


def utc_now() -> str:
    """Current UTC time, ISO 8601 with a Z suffix (second resolution)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def error_info(exc: BaseException) -> dict[str, Any]:
    """A record's ``error``: exception type, first lines of its message, last lines of the traceback."""
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    lines = "".join(tb).rstrip().splitlines()
    return {"type": type(exc).__name__, "message": str(exc).strip()[:2000],
            "traceback": "\n".join(lines[-TRACEBACK_LINES:])}


def base_record(spec: dict[str, Any], point: Point, strategy: dict[str, Any], env: dict[str, Any],
                global_batch: int | None, replicas: int | None) -> dict[str, Any]:
    """The fields every record of this point carries, whatever its status."""
    wl = get_workload(point.workload)
    if global_batch is None and point.batch_scaling == "global":
        global_batch = point.batch_size  # known without the hardware
    return {
        "schema_version": SCHEMA_VERSION,
        "run_id": spec["run_id"],
        "point_id": point.point_id,
        "config_hash": point.config_hash,
        "point": point.as_dict(),
        "suite": spec["suite"],
        "status": "ok",
        "error": None,
        "workload": point.workload,
        "workload_variant": wl.variant,
        "dataset": {"name": "synthetic", "source": wl.dataset, "scale": point.data_scale,
                    "n_train": point.n_train, "n_val": point.n_val, "shape": list(wl.shape),
                    "classes": wl.classes, "pipeline": point.input_pipeline},
        "strategy": strategy,
        "global_batch_size": global_batch,
        "per_replica_batch_size": global_batch // replicas if global_batch and replicas else None,
        "batch_scaling": point.batch_scaling,
        "steps_per_execution": point.steps_per_execution,
        "precision": point.precision,
        "repeat": point.repeat,
        "seed": point.seed,
        "steps_per_epoch": point.n_train // global_batch if global_batch else None,
        "validation_steps": point.n_val // global_batch if global_batch else None,
        "epochs": [],
        "notes": [],
        "env": env,
        "started_at": utc_now(),
        "finished_at": None,
    }


class Worker:
    """State of one worker process: its strategy, environment, cached datasets and event stream."""

    def __init__(self, spec: dict[str, Any], events: TextIO) -> None:
        self.spec = spec
        self.events = events
        self.run_dir = Path(spec["run_dir"])
        self.strategy: Any = None
        self.info: Any = None
        self.env: dict[str, Any] = {}
        self._data: dict[tuple, Any] = {}
        self.peaks: dict[str, float] = {}  # precision -> measured peak FLOP/s (measure_peaks)
        self.peak_scope = ""
        self.peak_measure_s = 0.0

    def emit(self, event: str, **fields: Any) -> None:
        self.events.write(json.dumps({"event": event, "t": time.time(), **fields}) + "\n")
        self.events.flush()

    def finish(self, record: dict[str, Any]) -> None:
        record["finished_at"] = utc_now()
        write_record(self.run_dir, record)
        self.emit("done", point_id=record["point_id"], status=record["status"])

    def skip_all(self, points: list[Point], reason: str, exc_type: str) -> None:
        from bench.env import host_env

        for p in points:
            self.emit("start", point_id=p.point_id)
            rec = base_record(self.spec, p, {"requested": p.strategy, "name": p.strategy, "class": None,
                                             "num_replicas": None, "devices": [], "device_kind": None},
                              host_env(), None, None)
            rec["status"] = "skipped"
            rec["error"] = {"type": exc_type, "message": reason}
            self.finish(rec)

    def setup(self, strategy_name: str, points: list[Point]) -> bool:
        """Create the strategy (first TF work in the process); False when the group is skipped."""
        from bench.strategies import StrategyUnavailable, make_strategy

        cfg = self.spec["config"]
        try:
            self.strategy, self.info = make_strategy(strategy_name, cfg["all_reduce"], cfg["tpu"],
                                                     cfg["tpu_connect_timeout_s"])
        except StrategyUnavailable as e:
            self.skip_all(points, str(e), "StrategyUnavailable")
            return False
        from bench.env import capture_env

        self.env = capture_env(self.info.device_kind, self.info.num_replicas)
        if cfg.get("measure_peak", True):
            self.measure_peaks(sorted({"float32", *(p.precision for p in points)}))
        self.emit("ready", strategy=self.info.as_record())
        return True

    def measure_peaks(self, precisions: list[str]) -> None:
        """Matmul peak FLOP/s of the strategy's devices, once per worker, before any point's clock starts.

        Logical CPUs share the host's cores: the probe on one of them is the whole host's peak. GPUs are
        separate devices: the probe on one, times their number, is the strategy's peak. TPUs: datasheet
        peak only (a TPU-side probe is not implemented).
        """
        if self.info.device_kind == "tpu":
            return
        from bench.flops import measured_peak_flops

        t = time.perf_counter()
        dtypes = {"float32": "float32", "mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}
        scale = self.info.num_replicas if self.info.device_kind == "gpu" else 1
        self.peaks = {p: scale * measured_peak_flops(self.info.devices[0], dtypes[p]) for p in precisions}
        self.peak_scope = f"{scale} x {self.info.devices[0]}"
        self.peak_measure_s = time.perf_counter() - t

    def arrays(self, point: Point) -> Any:
        from bench.data import synthetic

        key = (get_workload(point.workload).dataset, point.n_train, point.n_val, point.seed)
        if key not in self._data:
            self._data[key] = synthetic.load(*key)
        return self._data[key]

    def run_point(self, point: Point) -> None:
        """Run one point and write its record, whatever happens inside."""
        import keras
        import tensorflow as tf

        replicas = self.info.num_replicas
        gb = point.global_batch_size(replicas)
        rec = base_record(self.spec, point, self.info.as_record(), self.env, gb, replicas)
        self.emit("start", point_id=point.point_id)
        cfg = self.spec["config"]
        try:
            if gb % replicas:
                raise ValueError(f"global batch {gb} is not divisible by the {replicas} replicas of "
                                 f"{self.info.name}; use a multiple of {replicas}")
            if self.info.device_kind == "tpu" and (gb // replicas) % 8:
                rec["notes"].append(f"per-replica batch {gb // replicas} is not a multiple of 8: TPU cores "
                                    "pad it (seeds 000/001: use 8 x replicas multiples)")
            if point.n_train // gb < 1 or point.n_val // gb < 1:
                # per_replica sizing on hardware whose replica count was unknown when the config was checked
                per = (f"{point.batch_size} per replica x {replicas} replicas of {self.info.name}"
                       if point.batch_scaling == "per_replica" else f"{self.info.name}, {replicas} replicas")
                raise ValueError(
                    f"global batch {gb} ({per}) "
                    f"is larger than {point.workload}'s split ({point.n_train} train / {point.n_val} val "
                    "examples); use a smaller batch or more data (data_scale=full, n_train, n_val)")
            arrays = self.arrays(point)
            rec["dataset"]["chance_accuracy"] = arrays.chance_accuracy
            self._fit(point, rec, arrays, gb, cfg)
        except tf.errors.ResourceExhaustedError as e:
            rec["status"] = "failed"
            rec["error"] = {**error_info(e), "kind": "out_of_memory"}
        except Exception as e:
            rec["status"] = "failed"
            rec["error"] = error_info(e)
        finally:
            keras.backend.clear_session()
            keras.mixed_precision.set_global_policy("float32")
        self.finish(rec)

    def _fit(self, point: Point, rec: dict[str, Any], arrays: Any, gb: int, cfg: dict[str, Any]) -> None:
        import keras

        from bench.data.pipeline import make_pipelines
        from bench.flops import datasheet_peak, train_flops_per_example
        from bench.timing import EpochTimer
        from bench.workloads.models import build_model, compile_kwargs

        spec = get_workload(point.workload)
        keras.utils.set_random_seed(point.seed)  # same initial weights and data order everywhere
        keras.mixed_precision.set_global_policy(point.precision)
        pipes = make_pipelines(spec, arrays, gb, point.seed, slow_decode=point.input_pipeline == "slow_decode")
        scope = self.strategy.scope() if self.strategy is not None else contextlib.nullcontext()
        spe = min(point.steps_per_execution, pipes.steps_per_epoch)  # Keras runs <= 1 execution per epoch
        rec["effective_steps_per_execution"] = spe
        if spe != point.steps_per_execution:
            rec["notes"].append(f"steps_per_execution {point.steps_per_execution} clamped to the {spe} steps "
                                "of an epoch")
        with scope:
            model = build_model(point.workload)
            model.compile(**compile_kwargs(point.workload), steps_per_execution=spe)
        rec["flops_per_example"] = train_flops_per_example(model)
        rec["params"] = int(model.count_params())

        def on_epoch(row: dict[str, Any]) -> None:
            self.emit("epoch", point_id=point.point_id, epoch=row["epoch"], epoch_s=row["epoch_s"],
                      epochs=point.epochs)

        timer = EpochTimer(gb, on_epoch=on_epoch)
        t0 = time.perf_counter()
        timer.fit_started()
        model.fit(pipes.train, epochs=point.epochs, steps_per_epoch=pipes.steps_per_epoch,
                  validation_data=pipes.val, validation_steps=pipes.validation_steps, verbose=0,
                  callbacks=[timer])
        t1 = time.perf_counter()
        rec["fit_wall_s"] = t1 - t0  # outside wall clock around the whole fit
        rec["teardown_s"] = t1 - timer.ended_at if timer.ended_at is not None else None  # after the last epoch
        rec["epochs"] = timer.rows
        if timer.diverged:
            rec["status"] = "diverged"
            rec["error"] = {"type": "NonFiniteLoss",
                            "message": f"training loss became NaN/inf in epoch {timer.rows[-1]['epoch']}"}
        steady = [r["epoch_s"] for r in timer.rows[1:]]
        rec["warmup_overhead_s"] = timer.rows[0]["epoch_s"] - statistics.median(steady) if steady else None
        if cfg.get("measure_input", True):
            t = time.perf_counter()
            rec["input_examples_per_s"] = input_only_rate(pipes.train, pipes.steps_per_epoch, gb)
            rec["input_measure_s"] = time.perf_counter() - t
        if self.peaks:
            rec["peak_flops_per_s"] = {p: self.peaks[p] for p in sorted({"float32", point.precision})}
            rec["peak_scope"] = self.peak_scope
            rec["peak_measure_s"] = self.peak_measure_s  # once per worker, before its first point
        rec["datasheet_peak_flops_per_s"] = datasheet_peak(self.info.device_kind, self.env.get("accelerator"),
                                                           point.precision, self.info.num_replicas)

    def run(self) -> None:
        points = [Point.from_dict(d) for d in self.spec["points"]]
        if not self.setup(self.spec["strategy"], points):
            return
        for p in points:
            self.run_point(p)


def input_only_rate(ds: Any, steps: int, global_batch_size: int) -> float:
    """Examples/s of the input pipeline alone: ``steps`` batches of the same tf.data pipeline, no model.

    A few batches are drawn first (pipeline start-up, function tracing), as the warm-up epoch does.
    """
    it = iter(ds)
    for _ in range(min(3, steps)):
        next(it)
    t = time.perf_counter()
    for _ in range(steps):
        next(it)
    return steps * global_batch_size / (time.perf_counter() - t)


def main() -> int:
    """Entry point of a worker process; the spec arrives as one JSON line on stdin.

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
        return exit_orphaned  # the launcher died before sending the spec
    spec = json.loads(line)

    def exit_when_orphaned() -> None:
        with contextlib.suppress(Exception):
            while sys.stdin.read(4096):
                pass
        sys.stderr.write("bench worker: launcher gone (stdin closed); exiting\n")
        sys.stderr.flush()
        os._exit(exit_orphaned)

    threading.Thread(target=exit_when_orphaned, name="orphan-watch", daemon=True).start()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    fault = os.environ.get("BENCH_FAULT")  # test-only fault injection, see bench.faults
    if fault:
        from bench import faults

        faults.install(fault, Worker)  # this module's Worker: under ``-m`` it is __main__.Worker
    Worker(spec, events).run()
    events.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
