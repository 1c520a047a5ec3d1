"""What a point's ``fit`` is fed, by its input pipeline (config key ``input_pipelines``): one step of the worker between
the data (:mod:`bench.workloads.examples`) and the fit (:mod:`bench.worker.fit`). ``default``, ``cached``,
``slow_decode``: the engine's own pipelines; ``autotune``: tf.data's ``AUTOTUNE`` settings; ``numpy``: the arrays
into ``fit``; ``user``: the workload's ``input_fn`` (:mod:`bench.engines.user_feed`). A pipeline a point cannot run
raises :class:`~bench.engines.PipelineUnavailable` (``skipped``). Method: docs/workloads.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from bench.config import USER_PIPELINE
from bench.engines import BENCH_ORDER, KERAS_ORDER, TF_SHUFFLE, Engine, Pipelines, PipelineUnavailable
from bench.engines.user_feed import UserFeed, keras_batches
from bench.job.point import tuned
from bench.workloads import Workload
from bench.workloads.labels import as_fed


def make_feed(engine: Engine, workload: Workload, arrays: Any, gb: int, seed: int, pipeline: str, epochs: int,
              processes: int = 1) -> Pipelines:
    """The point's pipelines for ``pipeline`` (module docstring); ``gb`` the global batch (examples)."""
    if pipeline == USER_PIPELINE:  # the workload's own input_fn
        return UserFeed(workload, gb, seed, processes)
    why = numpy_refusal(workload, arrays, processes) if pipeline == "numpy" else ""
    if why:  # refused before anything is built
        raise PipelineUnavailable(f"input pipeline numpy: {why}")
    pipes = engine.make_pipelines(workload, arrays, gb, seed, slow_decode=pipeline == "slow_decode", epochs=epochs,
                                  cached=pipeline == "cached", autotune=tuned(pipeline, engine.NAME))
    if pipeline != "numpy":
        return pipes
    return ArrayFeed(workload, arrays.x_train, arrays.y_train, gb, pipes)


def describe_feed(rec: Any, pipes: Any, pipeline: str, threads: int) -> None:
    """What fed the fit, in the record: ``input_threads`` (``threads`` for bench's fixed pipelines, 0 for the
    slow-decode one, absent where tf.data or Keras decide), ``input_autotune``, ``data_order`` and a note where
    bench did not order the data or left examples out."""
    rec.input_threads = (0 if pipeline == "slow_decode" else None if pipeline in ("autotune", "numpy", USER_PIPELINE)
                         else threads)
    rec.input_autotune = pipes.autotune if isinstance(pipes, UserFeed) else tuned(pipeline, rec.backend)
    rec.data_order = getattr(pipes, "data_order", BENCH_ORDER)
    if rec.data_order == TF_SHUFFLE:
        rec.notes.append("input pipeline autotune: one epoch of tf.data, which fit iterated afresh every epoch (a new "
                         "iterator and autotune model each time), its examples reshuffled by tf.data on the point's "
                         "seed (not bench.data.order's order)")
    if isinstance(pipes, UserFeed):
        how = ("one epoch, iterated afresh every epoch by fit" if pipes.finite else
               f"endless, cut into epochs of {pipes.steps_per_epoch} steps")
        rec.notes.append(f"input pipeline user: the workload's input_fn ({pipes.kind}, {how}), fed to fit as-is; "
                         "its order, batches and labels are its own")
        rec.dataset.shape = pipes.input_shape()  # its examples' shape, from the pipeline
    if isinstance(pipes, ArrayFeed):
        rec.notes.append("input pipeline numpy: the arrays went straight into fit, which batched and shuffled them "
                         "itself every epoch (Keras' order, not bench.data.order's); validation scored bench's batches")
        if pipes.left_out:
            rec.notes.append(f"input pipeline numpy: the last {pipes.left_out} training examples left out, so every "
                             "batch is whole (Keras would run a smaller last batch)")


def numpy_refusal(workload: Workload, arrays: Any, processes: int) -> str:
    """Why arrays cannot go straight into ``fit`` for this point ('' when they can)."""
    if not hasattr(arrays, "x_train"):
        return ("the training images are encoded files that a pipeline decodes; arrays straight into fit would "
                "need all of them decoded in memory first (input_pipeline=cached decodes them once)")
    if workload.augment:
        kinds = workload.augment if isinstance(workload.augment, tuple) else ("its augmentation",)
        return (f"{workload.name} augments ({', '.join(kinds)}) in the input pipeline, and arrays straight into fit "
                "cannot draw a new augmentation for every batch")
    if processes > 1:
        return f"this point runs {processes} processes, each feeding its own rows of a batch; arrays feed one"
    return ""


class ArrayFeed:
    """``numpy``: training arrays for ``fit`` (Keras batches and shuffles them), the engine's validation batches.

    The arrays are cut to whole global batches (``steps_per_epoch`` x ``gb`` examples, the first ones): Keras
    would run a last, smaller batch, which bench's pipelines drop and a TPU cannot compile."""

    data_order = KERAS_ORDER

    def __init__(self, workload: Workload, x: np.ndarray, y: np.ndarray, gb: int, engine_pipes: Pipelines) -> None:
        self.steps_per_epoch = len(y) // gb
        self.left_out = len(y) - self.steps_per_epoch * gb
        self.x, self.y = as_fed(workload, x[: self.steps_per_epoch * gb], y[: self.steps_per_epoch * gb])
        self.gb = gb
        self.engine_pipes = engine_pipes
        self.val = engine_pipes.val
        self.validation_steps = engine_pipes.validation_steps
        self.val_rest = getattr(engine_pipes, "val_rest", None)
        self.train = (self.x, self.y)

    def fit_inputs(self, train: Any) -> dict[str, Any]:
        """Arrays and a batch size: Keras batches them and shuffles them every epoch (its own order)."""
        x, y = train
        return {"x": x, "y": y, "batch_size": self.gb, "shuffle": True}

    def rewind(self) -> tuple[np.ndarray, np.ndarray]:
        """The same arrays for a later stage (Keras reshuffles them)."""
        return self.train

    def val_pass(self) -> Iterator[tuple[Any, Any]]:
        """The engine's validation batches, in order."""
        return self.engine_pipes.val_pass()

    def fresh_train(self) -> Iterator[tuple[Any, Any]]:
        """Batches as Keras' own array adapter makes them for ``fit`` (the input-only probe)."""
        return keras_batches((self.x, self.y), batch_size=self.gb, shuffle=True)
