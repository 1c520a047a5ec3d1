"""Harness overhead: the same point through bench's worker and as a bare ``model.fit``, in one process.

    python -m pytest tests/benchmarks/test_overhead.py -q -s --benchmark-enable

Reports (``benchmark.extra_info`` and stdout):

- ``overhead_ratio``: median steady epoch time through bench / the same with a bare fit whose only
  callback reads ``time.perf_counter()`` at epoch begin/end (target <= 1.02);
- ``epochs_over_wall``: the sum of bench's recorded ``epoch_s`` / an outside ``perf_counter`` around the
  whole ``fit`` (target within 2 %), and ``epochs_plus_teardown_over_wall`` with fit's recorded
  ``teardown_s`` (the time Keras spends after the last epoch) added.

Pairs alternate which side runs first (bench/bare, bare/bench, …) so slow drift of a shared machine hits both sides
(``PAIRS`` pairs of ``MEASURED`` with ``--benchmark-enable``; one pair of a smaller point, ``CHECKED``, in the
normal test run, which checks only the same work). The figures are reported, not asserted to the percent: on
a noisy 2-core machine that would be a flaky timed test. The assertions check that both sides measured the
same work.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import statistics
import time

import pytest

keras = pytest.importorskip("keras")

from bench.data import synthetic  # noqa: E402
from bench.engines.tensorflow import make_pipelines, make_strategy  # noqa: E402
from bench.job.point import Point, WorkerJob  # noqa: E402
from bench.job.point_record import base_record  # noqa: E402
from bench.records import Record  # noqa: E402
from bench.worker.main import Worker  # noqa: E402
from bench.workloads import get_workload  # noqa: E402
from bench.workloads.models import build_model, compile_kwargs  # noqa: E402

BATCH, SPE, PAIRS = 128, 4, 3
MEASURED = Point(workload="fashion_cnn", strategy="cpu", global_batch_size=BATCH, steps_per_execution=SPE,
                 precision="float32", repeat=0, seed=0, epochs=6, n_train=6144, n_val=1024, data_scale="reduced")
# the normal test run checks the same work only: a smaller point is enough (the figure needs MEASURED)
CHECKED = dataclasses.replace(MEASURED, epochs=3, n_train=1024, n_val=256)


class BareTimer(keras.callbacks.Callback):
    """Nothing but a clock around each epoch."""

    def __init__(self) -> None:
        super().__init__()
        self.epoch_s: list[float] = []

    def on_epoch_begin(self, epoch, logs=None):
        self.t0 = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        self.epoch_s.append(time.perf_counter() - self.t0)


def run_bench_point(worker: Worker, point: Point, arrays) -> Record:
    rec = base_record("bench", "bench", point, worker.info.as_record(), {}, BATCH, 1)
    worker.fit(point, rec, arrays, BATCH)
    keras.backend.clear_session()  # as the worker does after every point (and run_bare below)
    return rec


def run_bare(strategy, point: Point, arrays) -> list[float]:
    keras.utils.set_random_seed(0)
    pipes = make_pipelines(get_workload("fashion_cnn"), arrays, BATCH, 0)
    with strategy.scope() if strategy is not None else contextlib.nullcontext():  # `cpu`: no scope
        model = build_model("fashion_cnn")
        model.compile(**compile_kwargs("fashion_cnn"), steps_per_execution=SPE)
    timer = BareTimer()
    model.fit(pipes.train, epochs=point.epochs, steps_per_epoch=pipes.steps_per_epoch, validation_data=pipes.val,
              validation_steps=pipes.validation_steps, verbose=0, callbacks=[timer])
    keras.backend.clear_session()
    return timer.epoch_s


def test_harness_overhead_and_wall_clock_agreement(benchmark) -> None:
    point = CHECKED if benchmark.disabled else MEASURED
    strategy, info = make_strategy("cpu")
    job = WorkerJob("bench", "/nonexistent", "bench", "cpu", (point,), measure_peak=False, measure_input=False)
    worker = Worker(job, io.StringIO())
    worker.strategy, worker.info, worker.env = strategy, info, {}
    arrays = synthetic.load("fashion", point.n_train, point.n_val, 0)
    bench_steady: list[float] = []
    bare_steady: list[float] = []
    agreement: list[float] = []

    pairs = PAIRS if not benchmark.disabled else 1  # the same-work checks need one pair; the figure needs three

    def measure() -> None:
        for i in range(pairs):
            for side in (("bench", "bare") if i % 2 == 0 else ("bare", "bench")):  # alternate who goes first
                if side == "bench":
                    rec = run_bench_point(worker, point, arrays)
                    bench_steady.extend(float(e.epoch_s or 0) for e in rec.epochs[1:])
                    epochs_total = sum(float(e.epoch_s or 0) for e in rec.epochs)
                    wall, teardown = float(rec.fit_wall_s or 0), float(rec.teardown_s or 0)
                    agreement.append((epochs_total / wall, (epochs_total + teardown) / wall))
                else:
                    bare_steady.extend(run_bare(strategy, point, arrays)[1:])

    benchmark.pedantic(measure, rounds=1, iterations=1)
    ratio = statistics.median(bench_steady) / statistics.median(bare_steady)
    benchmark.extra_info.update(overhead_ratio=ratio,
                                epochs_over_wall=statistics.median(a for a, _ in agreement),
                                epochs_plus_teardown_over_wall=statistics.median(b for _, b in agreement),
                                bench_steady_median_s=statistics.median(bench_steady),
                                bare_steady_median_s=statistics.median(bare_steady))
    print(f"\noverhead ratio bench/bare (median steady epoch, {len(bench_steady)} vs {len(bare_steady)} epochs): "
          f"{ratio:.4f}; recorded epochs / outside wall clock: {[round(a, 4) for a, _ in agreement]}; "
          f"(epochs + teardown_s) / outside wall clock: {[round(b, 4) for _, b in agreement]}")
    assert len(bench_steady) == len(bare_steady) == pairs * (point.epochs - 1)
    # the recorded epochs are inside the fit: their sum can never exceed the outside clock, and with
    # fit's teardown after the last epoch they account for all of it
    assert all(0 < a <= b <= 1 for a, b in agreement)
