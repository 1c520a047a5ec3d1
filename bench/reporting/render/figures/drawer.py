"""The report's figures as tasks (:class:`Task`), drawn by :class:`Drawer` in a pool of forked processes while the
report's process analyses and writes, or in that process. Each figure depends only on its own frames, and is
byte-identical either way.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import pandas as pd

from bench.reporting.analysis.cost import frontier, single_price
from bench.reporting.render.figures import files as plots
from bench.reporting.render.figures.comparisons import backend_data, speedup_data
from bench.reporting.render.figures.costs import cost_figure
from bench.reporting.render.figures.curves import line_data, val_accuracy_data
from bench.reporting.render.figures.runs import (
    epoch_times_figure,
    runs_data,
    time_to_accuracy_data,
    time_to_accuracy_figure,
)
from bench.reporting.render.text import workload_title

PROCESSES_ENV = "BENCH_REPORT_PROCESSES"
MAX_PROCESSES = 4
Drawn = tuple[tuple[str, str], str, Path | None]  # a drawn task: (workload, dataset), figure name, PNG path or None


@dataclass(frozen=True)
class Task:
    """One figure: ``draw(*args)`` returns a matplotlib Figure or None (no data); saved as PNG at ``path``.
    ``draw`` is a module-level function, so a task can be sent to another process."""

    key: tuple[str, str]  # (workload, dataset)
    name: str  # the figure's name in the report: epoch_time, throughput, ...
    path: Path
    draw: Callable[..., Any]
    args: tuple[Any, ...]
    has_data: bool = True  # what the figure's own data function said: a task without data is never drawn


def run(task: Task) -> Drawn:
    """Draw and save ``task``; returns (key, name, path or None when the figure had no data)."""
    return task.key, task.name, plots.save(task.draw(*task.args), task.path)


def processes() -> int:
    """How many drawing processes a report uses here (1: none, the report's own process draws). Forks only on
    Linux; by default only from a single-threaded process (not a Jupyter kernel); ``BENCH_REPORT_PROCESSES`` sets
    it there."""
    if not sys.platform.startswith("linux"):
        return 1  # fork is Linux's default start method only
    chosen = os.environ.get(PROCESSES_ENV, "").strip()
    if chosen:
        try:
            return max(1, int(chosen))
        except ValueError:
            raise ValueError(f"{PROCESSES_ENV}={chosen!r}; allowed: a whole number of processes, 1 or more") from None
    if threading.active_count() > 1:
        return 1  # fork is safe only in a single-threaded process
    return min(len(os.sched_getaffinity(0)), MAX_PROCESSES)


class Drawer:
    """Draws each submitted task in a pool of forked processes (:func:`processes`) as it is submitted, or, with a
    pool of one, in this process when :meth:`collect` is called. A figure's error is raised by :meth:`collect`; a
    figure a broken pool (a drawing process that died) did not draw is drawn in this process."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = processes() if workers is None else workers
        self.pool = (ProcessPoolExecutor(self.workers, mp_context=get_context("fork"), initializer=_worker_start)
                     if self.workers > 1 else None)
        self.tasks: list[Task] = []  # every task submitted, in order
        self.futures: list[Future[Drawn] | None] = []  # their drawings

    def submit(self, *tasks: Task) -> None:
        """Draw ``tasks`` (a task whose data function found no data is not drawn: it would only find that out)."""
        for t in tasks:
            self.tasks.append(t)
            self.futures.append(self._send(t) if t.has_data else None)

    def _send(self, task: Task) -> Future[Drawn] | None:
        """``task`` handed to the pool; None without a pool or with a broken one (this process draws it)."""
        if self.pool is None:
            return None
        try:
            return self.pool.submit(run, task)
        except BrokenProcessPool:  # a drawing process died
            return None

    def collect(self) -> dict[tuple[str, str], dict[str, Path]]:
        """Wait for every figure (drawing them here without a pool); (workload, dataset) -> figure name -> PNG
        path, for the figures with data, in the order they were submitted."""
        try:
            with collected_apart():
                done = [_drawn(t, f) for t, f in zip(self.tasks, self.futures, strict=True)]
        finally:
            self.close()
        return _by_key(done)

    def close(self) -> None:
        """Stop the drawing processes (what they have not started is dropped); again does nothing."""
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)


@contextmanager
def collected_apart() -> Iterator[None]:
    """Figures drawn in this process are reference cycles (figure, canvas, axes) that only the cyclic garbage
    collector frees. Where a report has paused it (:func:`bench.reporting.build.gc_paused`), it runs here over
    what is made from now on: the objects alive now are frozen out of it for the while (freezing and thawing move
    whole generations, no walk), so each figure is freed without a walk over the report's records and frames."""
    if gc.isenabled() or gc.get_freeze_count():  # collecting already, or somebody else's frozen objects: leave them
        yield
        return
    gc.freeze()
    gc.enable()
    try:
        yield
    finally:
        gc.disable()
        gc.unfreeze()


def _drawn(task: Task, future: Future[Drawn] | None) -> Drawn:
    """``task``'s (key, name, path): its drawing's result, or drawn here (no pool, or the pool broke first)."""
    if not task.has_data:
        return task.key, task.name, None
    if future is not None:
        try:
            return future.result()
        except BrokenProcessPool:
            pass
    return run(task)


def _worker_start() -> None:
    """A drawing process's start: what it inherited from the report's process (records, frames) is frozen out of the
    cyclic garbage collector, which then runs (the report's process may have paused it) over its own figures."""
    gc.freeze()
    gc.enable()


def _by_key(done: Iterable[Drawn]) -> dict[tuple[str, str], dict[str, Path]]:
    found: dict[tuple[str, str], dict[str, Path]] = {}
    for key, name, path in done:
        if path is not None:
            found.setdefault(key, {})[name] = path
    return found


def _task(key: tuple[str, str], name: str, out_dir: Path, has_data: bool, draw: Callable[..., Any],
          *args: Any) -> Task:
    """Figure ``name`` of workload and dataset ``key``, at ``out_dir/<workload>-<dataset>-<name>.png``."""
    return Task(key, name, Path(out_dir) / f"{plots.slug('-'.join(key))}-{name}.png", draw, args, has_data)


def epoch_tasks(key: tuple[str, str], epochs: pd.DataFrame, out_dir: Path) -> list[Task]:
    """The per-epoch time figures of one workload and dataset (epoch time and throughput against the settings, every
    epoch of every run): they need only the epochs."""
    title = workload_title(*key)
    return [_task(key, "epoch_time", out_dir, line_data(epochs, "train_s", "global_batch_size") is not None,
                  plots.epoch_time_figure, epochs, title),
            _task(key, "throughput", out_dir, line_data(epochs, "examples_per_s", "steps_per_execution") is not None,
                  plots.throughput_figure, epochs, title),
            _task(key, "epoch_times", out_dir, runs_data(epochs, "train_s") is not None, epoch_times_figure,
                  epochs, title)]


def accuracy_tasks(key: tuple[str, str], points: pd.DataFrame, epochs: pd.DataFrame, out_dir: Path) -> list[Task]:
    """The validation-accuracy figures of one workload and dataset, per epoch and against training time (they need
    the points too: chance, target)."""
    title = workload_title(*key)
    return [_task(key, "val_accuracy", out_dir, val_accuracy_data(epochs) is not None, plots.val_accuracy_figure,
                  epochs, points, title),
            _task(key, "time_to_accuracy", out_dir, time_to_accuracy_data(epochs) is not None,
                  time_to_accuracy_figure, epochs, points, title)]


def summary_tasks(key: tuple[str, str], summary: pd.DataFrame, baseline: str, out_dir: Path) -> list[Task]:
    """The figures of one workload's summary (:func:`bench.reporting.frames.summary.summarize`, speedups included): the
    speedup heatmap and the backends figure. They start as soon as the summary exists, before the accuracy
    verdicts."""
    title = workload_title(*key)
    return [_task(key, "speedup", out_dir, speedup_data(summary) is not None, plots.speedup_heatmap_figure,
                  summary, title, baseline),
            _task(key, "backends", out_dir, backend_data(summary) is not None, plots.backend_figure, summary, title)]


def cost_tasks(key: tuple[str, str], priced: pd.DataFrame, out_dir: Path) -> list[Task]:
    """The cost figure of one workload's priced rows (:func:`bench.reporting.analysis.cost.priced_summary`); none at a
    single price (the Cost section says it in a sentence)."""
    if single_price(priced) is not None:
        return []
    return [_task(key, "cost", out_dir, not frontier(priced)[0].empty, priced_cost_figure, priced,
                  workload_title(*key))]


def priced_cost_figure(priced: pd.DataFrame, title: str) -> Any:
    """The cost figure of one workload's priced rows: :func:`bench.reporting.render.figures.costs.cost_figure` of their
    front (:func:`bench.reporting.analysis.cost.frontier`)."""
    return cost_figure(*frontier(priced), title)
