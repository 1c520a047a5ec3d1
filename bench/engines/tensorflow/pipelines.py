"""tf.data input pipelines for the workloads (imports TensorFlow).

Rules from the seeds and DESIGN.md: static shapes (``drop_remainder=True``, required on TPU), random
augmentation inside the pipeline and never as model layers (seed 001: TPUs cannot compile it), the
same seed and therefore the same data order under every strategy, a fixed ``prefetch`` last (see
``make_pipelines``).
Images are batched first and converted as whole batches (one vectorised op per batch, not per image).

**No tf.data autotune** (measured, README "Finding: fit's teardown is tf.data's autotune thread"): an
autotuned pipeline runs an optimisation thread whose wake-ups double from 10 ms up to 60 s; destroying
the iterator at the end of ``fit`` can wait for the next wake-up, i.e. 10-80 s of dead time after the
last epoch. Every pipeline here has autotune off (:func:`no_autotune`), fixed map parallelism and a fixed
prefetch depth. The per-device pipelines a ``tf.distribute`` strategy builds need the same (see
:mod:`bench.engines.tensorflow.strategies`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import tensorflow as tf

from bench.data.synthetic import Arrays
from bench.workloads import Workload


@dataclass
class Pipelines:
    """Train/validation datasets of one point and their step counts."""

    train: tf.data.Dataset  # repeats; an epoch is ``steps_per_epoch`` global batches (one reshuffled pass)
    val: tf.data.Dataset  # finite: ``validation_steps`` global batches
    steps_per_epoch: int
    validation_steps: int


def _prepare(workload: Workload, augment: bool, seed: int):
    is_image = len(workload.shape) == 3

    def fn(x, y):
        if is_image:
            x = tf.cast(x, tf.float32) / 255.0
            if augment:
                x = tf.image.random_flip_left_right(x, seed=seed)
        if workload.classes == 2:
            y = tf.cast(y, tf.float32)[:, None]  # binary cross-entropy wants (batch, 1) float labels
        return x, y

    return fn


PREFETCH_BATCHES = 2
MAP_PARALLELISM = max(1, min(4, os.cpu_count() or 1))  # fixed: autotune is off (module docstring)
SLOW_DECODE_S = 0.002  # per example: a stand-in for an expensive, un-parallelised JPEG decode


def _slow_decode(x, y):
    """A per-example host-side step run sequentially (no num_parallel_calls, no prefetch behind it)."""

    def work(v):
        time.sleep(SLOW_DECODE_S)
        return v

    return tf.numpy_function(work, [x], x.dtype, stateful=True), y


def no_autotune(options: tf.data.Options | None = None) -> tf.data.Options:
    """``options`` (or new ones) with tf.data's autotune switched off (module docstring: the teardown race)."""
    options = options or tf.data.Options()
    options.autotune.enabled = False
    return options


def make_pipelines(workload: Workload, arrays: Arrays, global_batch_size: int, seed: int,
                   slow_decode: bool = False) -> Pipelines:
    """Build the point's pipelines: shuffle (seeded) -> batch(drop_remainder) -> prepare -> prefetch.

    ``slow_decode`` inserts a sequential per-example step before batching and drops the prefetch: the
    input-bound configuration of seed 001 (a fast device starved by a slow pipeline), for diagnosis tests.
    """
    steps = len(arrays.y_train) // global_batch_size
    val_steps = len(arrays.y_val) // global_batch_size
    options = no_autotune()
    options.deterministic = True  # same order under every strategy, so accuracy can be compared
    train = tf.data.Dataset.from_tensor_slices((arrays.x_train, arrays.y_train)).shuffle(
        min(len(arrays.y_train), 16384), seed=seed, reshuffle_each_iteration=True)
    if slow_decode:
        shape = arrays.x_train.shape[1:]
        train = train.map(_slow_decode).map(lambda x, y: (tf.ensure_shape(x, shape), y))
    # Repeated, with a persistent iterator (steps_per_epoch), as TPU tutorials do: re-creating a
    # distributed iterator every epoch cost MirroredStrategy ~50 % per epoch here. Fixed parallelism and
    # prefetch depth, autotune off: see the module docstring.
    train = train.batch(global_batch_size, drop_remainder=True).map(
        _prepare(workload, workload.augment, seed),
        num_parallel_calls=None if slow_decode else MAP_PARALLELISM).repeat()
    if not slow_decode:
        train = train.prefetch(PREFETCH_BATCHES)
    train = train.with_options(options)
    val = (
        tf.data.Dataset.from_tensor_slices((arrays.x_val, arrays.y_val))
        .batch(global_batch_size, drop_remainder=True)
        .map(_prepare(workload, False, seed), num_parallel_calls=MAP_PARALLELISM)
        .cache()
        .prefetch(PREFETCH_BATCHES)
        .with_options(options)
    )
    return Pipelines(train, val, steps, val_steps)
