"""tf.data input pipelines for the workloads (imports TensorFlow).

Rules from the seeds and DESIGN.md: static shapes (``drop_remainder=True``, required on TPU), random
augmentation inside the pipeline and never as model layers (seed 001: TPUs cannot compile it), a fixed
``prefetch`` last (see ``make_pipelines``). The order and the augmentation draws come from
:mod:`bench.data.order` and :mod:`bench.data.augment`, the same under every strategy and backend: the
pipeline is a dataset of index batches, and each batch is gathered (or decoded), converted and augmented
as a whole (one vectorised op per batch, not per image).

**No tf.data autotune** in bench's own pipelines (measured, docs/findings.md: "fit's slow ending is tf.data's
autotune thread"; "tf.data autotune on two cores"): an autotuned pipeline runs an optimisation thread whose
wake-ups double from 10 ms up to 60 s; destroying the iterator at the end of ``fit`` can wait for the next
wake-up, i.e. 10-80 s of dead time after the last epoch; and on two cores, iterated afresh every epoch as
Keras does a finite dataset, it trained stretches of epochs at half speed. Every pipeline here has autotune
off (:func:`no_autotune`), fixed map parallelism and a fixed prefetch depth. The per-device pipelines a
``tf.distribute`` strategy builds need the same (see
:mod:`bench.engines.tensorflow.strategies`). The ``autotune`` input pipeline is the exception by design: the
same batches with ``num_parallel_calls`` and ``prefetch`` on ``tf.data.AUTOTUNE`` and autotune on, here and in the
per-device pipelines, as seed 004 and TensorFlow's data-performance guide write it; what its teardown costs is
recorded (``teardown_s``), not avoided.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import tensorflow as tf

from bench.data.augment import crop_pad
from bench.data.order import epoch_plan, remainder_batch
from bench.data.sources import Encoded
from bench.data.synthetic import Arrays
from bench.engines import input_threads
from bench.engines.tensorflow.options import DEVICE_AUTOTUNE, autotune_on, no_autotune
from bench.workloads import Workload


@dataclass
class Pipelines:
    """Train/validation datasets of one point and their step counts."""

    train: tf.data.Dataset  # repeats; an epoch is ``steps_per_epoch`` global batches (one reshuffled pass)
    val: tf.data.Dataset  # finite: ``validation_steps`` global batches
    steps_per_epoch: int
    validation_steps: int
    # the examples whole validation batches leave out, padded to one batch: (x, y, how many are real); None: none
    val_rest: tuple[Any, Any, int] | None = None

    def rewind(self) -> tf.data.Dataset:
        """The training data for another ``fit`` (a transfer-learning point's second stage): the same dataset,
        which ``fit`` iterates from its first epoch again (a cache filled in the first stage is kept)."""
        return self.train

    def val_pass(self) -> Iterator[tuple[Any, Any]]:
        """One pass over the validation batches, in the split's order, as NumPy arrays (per-example predictions)."""
        for x, y in self.val.take(self.validation_steps):
            yield x.numpy(), y.numpy()

    def fit_inputs(self, train: Any) -> dict[str, Any]:
        """``fit``'s data arguments: the endless training data and the steps of an epoch, in bench's order (Keras
        would reorder a PyDataset's batches with Python's own random, not :mod:`bench.data.order`)."""
        return {"x": train, "steps_per_epoch": self.steps_per_epoch, "shuffle": False}

    def fresh_train(self) -> tf.data.Dataset:
        """The training data for the input-only probe: iterating the dataset starts a new iterator, with no
        batch prepared yet (the JAX engine's :meth:`~bench.engines.jax.pipelines.Pipelines.fresh_train` matches)."""
        return self.train


def augment(x: tf.Tensor, p: dict[str, tf.Tensor]) -> tf.Tensor:
    """One batch's augmentation, as :func:`bench.data.augment.apply` computes it (float (b, h, w, c))."""
    if not p:
        return x
    h, w = int(x.shape[1]), int(x.shape[2])
    if "crop" in p:  # zero-pad, then every image its own static-size window
        pad = crop_pad(h)
        x = tf.pad(x, [[0, 0], [pad, pad], [pad, pad], [0, 0]])
        x = tf.gather(x, p["crop"][:, 0, None] + tf.range(h), axis=1, batch_dims=1)
        x = tf.gather(x, p["crop"][:, 1, None] + tf.range(w), axis=2, batch_dims=1)
    if "flip" in p:
        x = tf.where(p["flip"][:, None, None, None], tf.reverse(x, axis=[2]), x)
    if "rot90" in p:  # every rotation of the batch, then each image's own
        rotations = tf.stack([tf.image.rot90(x, k) for k in range(4)], axis=1)
        x = tf.gather(rotations, p["rot90"], axis=1, batch_dims=1)
    if "brightness" in p:
        x = x + p["brightness"][:, None, None, None]
    if "contrast" in p:
        mean = tf.reduce_mean(x, axis=[1, 2], keepdims=True)
        x = (x - mean) * p["contrast"][:, None, None, None] + mean
    if "brightness" in p or "contrast" in p:
        x = tf.clip_by_value(x, 0.0, 1.0)
    return x


def _labels(workload: Workload, y: tf.Tensor) -> tf.Tensor:
    if workload.one_hot_labels:  # a categorical loss: one-hot float32 rows (bench.workloads.labels)
        return tf.one_hot(y, workload.classes, dtype=tf.float32)
    return tf.cast(y, tf.float32)[:, None] if workload.binary_labels else y  # BCE wants (batch, 1) floats


def _prepare(workload: Workload, x_all: tf.Tensor, y_all: tf.Tensor):
    """Batch of indices (and augmentation draws) -> the batch: gather, convert images, augment, labels."""
    is_image = len(workload.shape) == 3
    scale = x_all.dtype == tf.uint8  # uint8 pixels -> [0, 1]; other inputs are used as given

    def fn(idx, p):
        x, y = tf.gather(x_all, idx), tf.gather(y_all, idx)
        if is_image:
            x = augment(tf.cast(x, tf.float32) / 255.0 if scale else tf.cast(x, tf.float32), p)
        return x, _labels(workload, y)

    return fn


PREFETCH_BATCHES = 2
MAP_PARALLELISM = input_threads()  # fixed (autotune is off: module docstring); the rule both engines share
SLOW_DECODE_S = 0.002  # per example: a stand-in for an expensive, un-parallelised JPEG decode


def _slow_decode(x, y):
    """A per-example host-side step run sequentially (no parallel calls, no prefetch behind it)."""

    def work(v):
        for _ in range(len(v)):
            time.sleep(SLOW_DECODE_S)
        return v

    x = tf.ensure_shape(tf.numpy_function(work, [x], x.dtype, stateful=True), x.shape)
    return x, y


def _plans(workload: Workload, n: int, batch: int, seed: int | None, epochs: int
           ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Example indices and augmentation draws of ``epochs`` epochs, one row per batch (``seed`` None: in
    order, no augmentation: validation)."""
    height = workload.shape[0] if len(workload.shape) == 3 else 0
    plans = [epoch_plan(n, batch, seed, e, workload.augment, height) for e in range(epochs)]
    idx = np.concatenate([i for i, _ in plans]).astype(np.int32)
    params = [p.arrays() for _, p in plans if p is not None]
    return idx, {k: np.concatenate([d[k] for d in params]) for k in (params[0] if params else {})}


def _batches(workload: Workload, n: int, batch: int, seed: int | None, epochs: int) -> tf.data.Dataset:
    """Index batches (and augmentation draws) of ``epochs`` epochs from :mod:`bench.data.order`, the same as
    under every other backend; repeated after that (only the input-only probe reads further)."""
    return tf.data.Dataset.from_tensor_slices(_plans(workload, n, batch, seed, epochs))


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


def _loader(workload: Workload, items: list[str | bytes]):
    """Index -> the image at the workload's input size, float [0, 1]: read (a path) or take (bytes),
    decode, resize (bilinear, as bench.data.images does)."""
    store = tf.constant(items)
    from_files = isinstance(items[0], str)
    height, width, channels = workload.shape

    def one(i):
        raw = tf.io.read_file(store[i]) if from_files else store[i]
        return tf.image.resize(decode(raw, channels), (height, width)) / 255.0

    return one


def _decoded(workload: Workload, data: Encoded, batch: int, seed: int, epochs: int, parallel: int | None,
             cached: bool) -> tf.data.Dataset:
    """Training batches of encoded images in the order of :mod:`bench.data.order`. Uncached: every epoch
    reads and decodes each image again (``parallel`` calls), then the batch is augmented. Cached (seed
    001's ``cache()``): every image is decoded once, in epoch 1, and kept; the batches are gathered from the
    cache and augmented afterwards, so the augmentation still differs between epochs."""
    load = _loader(workload, data.train)
    y_all = tf.constant(data.y_train)
    idx, params = _plans(workload, len(data.y_train), batch, seed, max(1, epochs))
    if not cached:
        images = (tf.data.Dataset.from_tensor_slices(idx.reshape(-1)).repeat()
                  .map(lambda i: (load(i), tf.gather(y_all, i)), num_parallel_calls=parallel)
                  .batch(batch, drop_remainder=True))
        draws = tf.data.Dataset.from_tensor_slices(params).repeat() if params else None
        if draws is None:
            return images.map(lambda x, y: (x, _labels(workload, y)))
        return tf.data.Dataset.zip(images, draws).map(lambda xy, p: (augment(xy[0], p), _labels(workload, xy[1])))
    n = len(data.y_train)
    every = tf.data.Dataset.range(n).map(load, num_parallel_calls=parallel).batch(n).cache().repeat()
    steps = len(idx) // max(1, epochs)
    epochs_plan = (idx.reshape(-1, steps, batch), {k: v.reshape(-1, steps, *v.shape[1:]) for k, v in params.items()})
    plans = tf.data.Dataset.from_tensor_slices(epochs_plan).repeat()

    def epoch(images, plan):
        idx_e, p_e = plan
        return tf.data.Dataset.from_tensor_slices((idx_e, p_e)).map(
            lambda i, p: (augment(tf.gather(images, i), p), _labels(workload, tf.gather(y_all, i))))

    return tf.data.Dataset.zip(every, plans).flat_map(epoch)


def _encoded_pipelines(workload: Workload, data: Encoded, global_batch_size: int, seed: int, slow_decode: bool,
                       epochs: int, cached: bool, options: tf.data.Options, parallel: int, ahead: int) -> Pipelines:
    """Pipelines of encoded images: training images decoded in every epoch (the work seed 001 found to
    starve a TPU) or once (``cached``); the validation images once, then cached (as the arrays' are).
    ``parallel`` map calls and ``ahead`` batches prefetched (:func:`make_pipelines`)."""
    train = _decoded(workload, data, global_batch_size, seed, epochs, None if slow_decode else parallel, cached)
    train = train.map(_slow_decode) if slow_decode else train.prefetch(ahead)
    load, y_val = _loader(workload, data.val), tf.constant(data.y_val)
    val = (tf.data.Dataset.range(len(data.y_val) // global_batch_size * global_batch_size)
           .map(lambda i: (load(i), tf.gather(y_val, i)), num_parallel_calls=parallel)
           .batch(global_batch_size, drop_remainder=True)
           .map(lambda x, y: (x, _labels(workload, y))))
    idx, real = remainder_batch(len(data.y_val), global_batch_size)
    rest = None
    if real:
        x_rest = tf.stack([load(tf.constant(i)) for i in idx])
        rest = (x_rest.numpy(), _labels(workload, tf.gather(y_val, idx)).numpy(), real)
    return Pipelines(train.with_options(options), val.cache().prefetch(ahead).with_options(options),
                     len(data.y_train) // global_batch_size, len(data.y_val) // global_batch_size, rest)


def make_pipelines(workload: Workload, arrays: Arrays | Encoded, global_batch_size: int, seed: int,
                   slow_decode: bool = False, epochs: int = 1, cached: bool = False,
                   autotune: bool = False) -> Pipelines:
    """Build the point's pipelines: seeded index batches (:mod:`bench.data.order`) -> gather + prepare
    (augment) -> prefetch; encoded images (a file data source) are read and decoded in the pipeline, in
    every epoch or (``cached``) once. ``epochs`` is how many epochs the orders are drawn for (then they
    repeat).

    ``slow_decode`` inserts a sequential per-example step and drops the prefetch: the input-bound
    configuration of seed 001 (a fast device starved by a slow pipeline), for diagnosis tests.

    ``autotune``: every ``map``'s parallelism and every ``prefetch`` (training and validation) on
    ``tf.data.AUTOTUNE`` with tf.data's autotune on, in these pipelines and in a strategy's per-device ones (the
    seeds' own settings; module docstring).
    """
    DEVICE_AUTOTUNE[0] = autotune
    options = autotune_on() if autotune else no_autotune()
    options.deterministic = True
    parallel, ahead = (tf.data.AUTOTUNE, tf.data.AUTOTUNE) if autotune else (MAP_PARALLELISM, PREFETCH_BATCHES)
    if isinstance(arrays, Encoded):
        return _encoded_pipelines(workload, arrays, global_batch_size, seed, slow_decode, epochs, cached, options,
                                  parallel, ahead)
    steps = len(arrays.y_train) // global_batch_size
    val_steps = len(arrays.y_val) // global_batch_size
    x_train, y_train = tf.constant(arrays.x_train), tf.constant(arrays.y_train)
    # Repeated, with a persistent iterator (steps_per_epoch), as TPU tutorials do: re-creating a
    # distributed iterator every epoch cost MirroredStrategy ~50 % per epoch here. Fixed parallelism and
    # prefetch depth, autotune off: see the module docstring.
    train = _batches(workload, len(arrays.y_train), global_batch_size, seed, max(1, epochs)).repeat()
    train = train.map(_prepare(workload, x_train, y_train), num_parallel_calls=None if slow_decode else parallel)
    if slow_decode:
        train = train.map(_slow_decode)
    else:
        train = train.prefetch(ahead)
    train = train.with_options(options)
    x_val, y_val = tf.constant(arrays.x_val), tf.constant(arrays.y_val)
    val = (
        _batches(workload, len(arrays.y_val), global_batch_size, None, 1)
        .map(_prepare(workload, x_val, y_val), num_parallel_calls=parallel)
        .cache()
        .prefetch(ahead)
        .with_options(options)
    )
    idx, real = remainder_batch(len(arrays.y_val), global_batch_size)
    rest = None
    if real:
        x_rest, y_rest = _prepare(workload, x_val, y_val)(tf.constant(idx), {})
        rest = (x_rest.numpy(), y_rest.numpy(), real)
    return Pipelines(train, val, steps, val_steps, rest)
