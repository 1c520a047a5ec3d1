"""tf.data input pipelines for the workloads (imports TensorFlow).

Rules from the seeds and DESIGN.md: static shapes (``drop_remainder=True``, required on TPU), random
augmentation inside the pipeline and never as model layers (seed 001: TPUs cannot compile it), a fixed
``prefetch`` last (see ``make_pipelines``). The order and the flips come from :mod:`bench.data.order`,
the same under every strategy and backend: the pipeline is a dataset of index batches, and each batch is
gathered and converted as a whole (one vectorised op per batch, not per image).

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

import numpy as np
import tensorflow as tf

from bench.data.order import epoch_plan
from bench.data.sources import Encoded
from bench.data.synthetic import Arrays
from bench.workloads import Workload


@dataclass
class Pipelines:
    """Train/validation datasets of one point and their step counts."""

    train: tf.data.Dataset  # repeats; an epoch is ``steps_per_epoch`` global batches (one reshuffled pass)
    val: tf.data.Dataset  # finite: ``validation_steps`` global batches
    steps_per_epoch: int
    validation_steps: int


def _prepare(workload: Workload, x_all: tf.Tensor, y_all: tf.Tensor, augment: bool):
    """Batch of indices (and flips) -> the batch itself: gather, convert images, flip, shape the labels."""
    is_image = len(workload.shape) == 3
    scale = x_all.dtype == tf.uint8  # uint8 pixels -> [0, 1]; other inputs are used as given

    def fn(idx, flip):
        x, y = tf.gather(x_all, idx), tf.gather(y_all, idx)
        if is_image:
            x = tf.cast(x, tf.float32) / 255.0 if scale else tf.cast(x, tf.float32)
            if augment:
                x = tf.where(flip[:, None, None, None], tf.reverse(x, axis=[2]), x)
        if workload.binary_labels:
            y = tf.cast(y, tf.float32)[:, None]  # binary cross-entropy wants (batch, 1) float labels
        return x, y

    return fn


PREFETCH_BATCHES = 2
MAP_PARALLELISM = max(1, min(4, os.cpu_count() or 1))  # fixed: autotune is off (module docstring)
SLOW_DECODE_S = 0.002  # per example: a stand-in for an expensive, un-parallelised JPEG decode


def _slow_decode(x, y):
    """A per-example host-side step run sequentially (no parallel calls, no prefetch behind it)."""

    def work(v):
        for _ in range(len(v)):
            time.sleep(SLOW_DECODE_S)
        return v

    x = tf.ensure_shape(tf.numpy_function(work, [x], x.dtype, stateful=True), x.shape)
    return x, y


def no_autotune(options: tf.data.Options | None = None) -> tf.data.Options:
    """``options`` (or new ones) with tf.data's autotune switched off (module docstring: the teardown race)."""
    options = options or tf.data.Options()
    options.autotune.enabled = False
    return options


def _batches(n: int, batch: int, seed: int | None, epochs: int, augment: bool) -> tf.data.Dataset:
    """Index batches (and flips) of ``epochs`` epochs from :mod:`bench.data.order`, the same as under every
    other backend; repeated after that (only the input-only probe reads further)."""
    return tf.data.Dataset.from_tensor_slices(_plans(n, batch, seed, epochs, augment))


def _plans(n: int, batch: int, seed: int | None, epochs: int, augment: bool) -> tuple[np.ndarray, np.ndarray]:
    """Example indices and flips of ``epochs`` epochs, one row per batch (:mod:`bench.data.order`)."""
    plans = [epoch_plan(n, batch, seed, e, augment) for e in range(epochs)]
    idx = np.concatenate([i for i, _ in plans])
    flips = np.concatenate([f if f is not None else np.zeros(i.shape, dtype=bool) for i, f in plans])
    return idx.astype(np.int32), flips


def decode(raw: tf.Tensor, channels: int) -> tf.Tensor:
    """A JPEG or PNG image -> float32 (h, w, channels), values 0-255. JPEGs with the accurate integer IDCT
    (libjpeg's ISLOW, which Pillow uses too: TF's default fast IDCT differs from it by up to 4/255 per
    pixel); grey as ``tf.image.rgb_to_grayscale`` of the colour image (the decoders' own grey conversions
    differ), as :func:`bench.data.images.decode` computes them."""
    img = tf.cond(tf.io.is_jpeg(raw),
                  lambda: tf.io.decode_jpeg(raw, channels=3, dct_method="INTEGER_ACCURATE"),
                  lambda: tf.io.decode_png(raw, channels=3))
    img = tf.cast(img, tf.float32)
    return tf.image.rgb_to_grayscale(img) if channels == 1 else img


def _decoded(workload: Workload, items: list[str | bytes], labels: np.ndarray, batch: int, seed: int | None,
             epochs: int, augment: bool, parallel: int | None) -> tf.data.Dataset:
    """Encoded images (file paths or bytes) in the order of :mod:`bench.data.order`: read, decode, resize
    to the workload's input (bilinear), scale to [0, 1], flip, per example in ``parallel`` calls; batched."""
    idx, flips = _plans(len(labels), batch, seed, max(1, epochs), augment)
    store, y_all = tf.constant(items), tf.constant(labels)
    from_files = isinstance(items[0], str)
    height, width, channels = workload.shape

    def one(i, flip):
        raw = tf.io.read_file(store[i]) if from_files else store[i]
        img = decode(raw, channels)
        img = tf.image.resize(img, (height, width)) / 255.0  # float32; bilinear, as bench.data.images does
        img = tf.where(flip, tf.reverse(img, axis=[1]), img)
        y = y_all[i]
        return img, (tf.cast(y, tf.float32)[None] if workload.binary_labels else y)

    ds = tf.data.Dataset.from_tensor_slices((idx.reshape(-1), flips.reshape(-1)))
    if seed is not None:
        ds = ds.repeat()
    return ds.map(one, num_parallel_calls=parallel).batch(batch, drop_remainder=True)


def _encoded_pipelines(workload: Workload, data: Encoded, global_batch_size: int, seed: int, slow_decode: bool,
                       epochs: int, options: tf.data.Options) -> Pipelines:
    """Pipelines of encoded images: the training images are decoded in every epoch (the work seed 001 found
    to starve a TPU); the validation images once, then cached (as the arrays' validation batches are)."""
    train = _decoded(workload, data.train, data.y_train, global_batch_size, seed, epochs, workload.augment,
                     None if slow_decode else MAP_PARALLELISM)
    train = train.map(_slow_decode) if slow_decode else train.prefetch(PREFETCH_BATCHES)
    val = _decoded(workload, data.val, data.y_val, global_batch_size, None, 1, False, MAP_PARALLELISM)
    return Pipelines(train.with_options(options), val.cache().prefetch(PREFETCH_BATCHES).with_options(options),
                     len(data.y_train) // global_batch_size, len(data.y_val) // global_batch_size)


def make_pipelines(workload: Workload, arrays: Arrays | Encoded, global_batch_size: int, seed: int,
                   slow_decode: bool = False, epochs: int = 1) -> Pipelines:
    """Build the point's pipelines: seeded index batches (:mod:`bench.data.order`) -> gather + prepare
    (augment) -> prefetch; encoded images (a file data source) are read and decoded in the pipeline.
    ``epochs`` is how many epochs the orders are drawn for (then they repeat).

    ``slow_decode`` inserts a sequential per-example step and drops the prefetch: the input-bound
    configuration of seed 001 (a fast device starved by a slow pipeline), for diagnosis tests.
    """
    options = no_autotune()
    options.deterministic = True
    if isinstance(arrays, Encoded):
        return _encoded_pipelines(workload, arrays, global_batch_size, seed, slow_decode, epochs, options)
    steps = len(arrays.y_train) // global_batch_size
    val_steps = len(arrays.y_val) // global_batch_size
    x_train, y_train = tf.constant(arrays.x_train), tf.constant(arrays.y_train)
    # Repeated, with a persistent iterator (steps_per_epoch), as TPU tutorials do: re-creating a
    # distributed iterator every epoch cost MirroredStrategy ~50 % per epoch here. Fixed parallelism and
    # prefetch depth, autotune off: see the module docstring.
    train = _batches(len(arrays.y_train), global_batch_size, seed, max(1, epochs), workload.augment).repeat()
    train = train.map(_prepare(workload, x_train, y_train, workload.augment),
                      num_parallel_calls=None if slow_decode else MAP_PARALLELISM)
    if slow_decode:
        train = train.map(_slow_decode)
    else:
        train = train.prefetch(PREFETCH_BATCHES)
    train = train.with_options(options)
    x_val, y_val = tf.constant(arrays.x_val), tf.constant(arrays.y_val)
    val = (
        _batches(len(arrays.y_val), global_batch_size, None, 1, False)
        .map(_prepare(workload, x_val, y_val, False), num_parallel_calls=MAP_PARALLELISM)
        .cache()
        .prefetch(PREFETCH_BATCHES)
        .with_options(options)
    )
    return Pipelines(train, val, steps, val_steps)
