"""The second batch of a configuration the sweep runs at one batch only (config key ``second_batch``): after the
point's own measurements, its trained model is fed half the batch (twice where half does not split over the
replicas or leave an execution), one execution of warm-up, then one timed epoch of at most :data:`MAX_STEPS` steps;
a failure is a note. Half first: it fits wherever the point fitted, and its steps cost half. Docs: docs/reports.md.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from bench.job.point import Point
from bench.records.parts import SecondBatch
from bench.worker.feeds import make_feed

MAX_STEPS = 16  # the timed epoch's steps at most (rounded down to whole executions)


def _configuration(p: Point) -> tuple:
    return (p.workload, p.data, p.backend, p.strategy, p.processes, p.steps_per_execution, p.precision,
            p.input_pipeline, p.jit_compile, p.batch_scaling, p.repeat)


def has_other_batch(point: Point, points: Sequence[Point]) -> bool:
    """Whether ``points`` (a worker's job) hold ``point``'s configuration at another batch."""
    batch = (point.global_batch_size, point.per_replica_batch_size)
    return any(_configuration(p) == _configuration(point) and (p.global_batch_size, p.per_replica_batch_size) != batch
               for p in points)


def second_batch_size(gb: int, n_train: int, replicas: int, spe: int) -> int:
    """Half ``gb`` where it is a multiple of ``replicas`` and its epoch holds an execution of ``spe`` steps, else
    twice; 0 when neither fits."""
    for size in (gb // 2, 2 * gb):
        if size >= replicas and size % replicas == 0 and n_train // size >= spe:
            return size
    return 0


def measure_second_batch(fit: Any) -> None:
    """Run the stage for ``fit`` (a :class:`bench.worker.fit.FitRun` after its fit) when the job asks for it and the
    sweep has no other batch of the point's configuration; the result or the reason in the record."""
    worker, point, rec = fit.worker, fit.point, fit.rec
    if (not worker.job.second_batch or rec.status != "ok" or point.processes > 1
            or has_other_batch(point, worker.job.points)):
        return
    gb2 = second_batch_size(fit.gb, point.n_train, worker.resolved.num_replicas, fit.spe)
    if not gb2:
        rec.notes.append(f"no second batch: neither {fit.gb // 2} nor {2 * fit.gb} fits an execution of {fit.spe} "
                         f"steps in {point.n_train} training examples")
        return
    t = time.perf_counter()
    try:
        rec.second_batch = _timed(fit, gb2)
        rec.second_batch.measure_s = time.perf_counter() - t
    except Exception as e:  # a measurement beside the point, not the point
        rec.notes.append(f"no second batch (b{gb2}): {type(e).__name__}: {e}"[:300])


def _timed(fit: Any, gb2: int) -> SecondBatch:
    """A warm-up epoch and a timed one at ``gb2`` (module docstring)."""
    from bench.measure.timing import EpochTimer

    point = fit.point
    pipes = make_feed(fit.worker.engine, fit.workload, fit.arrays, gb2, point.seed, point.input_pipeline, 2)
    inputs = pipes.fit_inputs(pipes.train)
    timer = EpochTimer(gb2)
    # warm-up: one execution (the new shape traces and compiles), then the timed epoch, a whole number of them
    fit.model.fit(**{**inputs, "steps_per_epoch": fit.spe}, epochs=1, verbose=0, callbacks=[timer])
    if "steps_per_epoch" in inputs:  # an endless pipeline: a short epoch of whole executions
        inputs["steps_per_epoch"] = max(fit.spe, min(MAX_STEPS, inputs["steps_per_epoch"]) // fit.spe * fit.spe)
    fit.model.fit(**inputs, epochs=1, verbose=0, callbacks=[timer])
    warm, timed = timer.rows[0], timer.rows[-1]
    return SecondBatch(global_batch_size=gb2, steps=int(timed["steps"]), step_s=timed["train_s"] / timed["steps"],
                       warmup_s=warm["epoch_s"])
