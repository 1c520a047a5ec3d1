"""tf.data input pipelines for the workloads (imports TensorFlow): a dataset of index batches, each batch gathered (or
decoded), converted and augmented as a whole, in :mod:`bench.data.order`'s order with :mod:`bench.data.augment`'s
draws; static shapes (``drop_remainder=True``), augmentation in the pipeline, never in the model.
**No tf.data autotune** in bench's own pipelines (:func:`no_autotune`; fixed map parallelism and prefetch depth:
docs/findings.md, *fit's slow ending is tf.data's autotune thread*); the ``autotune`` pipeline is the exception by
design: autotune on, one epoch that ``fit`` iterates afresh, as tutorial 004 and TensorFlow's guide write it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import tensorflow as tf

from bench.data.order import epoch_plan, remainder_batch
from bench.data.sources import Encoded
from bench.data.synthetic import Arrays
from bench.engines import BENCH_ORDER, SLOW_DECODE_S, TF_SHUFFLE, input_threads
from bench.engines.tensorflow.batches import augment, labels, loader, prepare
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
    # the autotune pipeline: ``train`` is one epoch, which ``fit`` iterates afresh every epoch (the user's way)
    finite: bool = False

    @property
    def data_order(self) -> str:
        """``data_order`` of the record: bench.data.order's, or tf.data's reshuffle of a finite dataset."""
        return TF_SHUFFLE if self.finite else BENCH_ORDER

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
        would reorder a PyDataset's batches with Python's own random, not :mod:`bench.data.order`). A finite
        dataset (``autotune``) goes in as the user hands it: no ``steps_per_epoch``, a new iterator every epoch."""
        if self.finite:
            return {"x": train, "shuffle": False}
        return {"x": train, "steps_per_epoch": self.steps_per_epoch, "shuffle": False}

    def fresh_train(self) -> tf.data.Dataset:
        """The training data for the input-only probe: iterating the dataset starts a new iterator, with no
        batch prepared yet (the JAX engine's :meth:`~bench.engines.jax.pipelines.Pipelines.fresh_train` matches);
        a finite one repeated, as the probe reads past an epoch."""
        return self.train.repeat() if self.finite else self.train


PREFETCH_BATCHES = 2
MAP_PARALLELISM = input_threads()  # fixed (autotune is off: module docstring); the rule both engines share


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


def _decoded(workload: Workload, data: Encoded, batch: int, seed: int, epochs: int, parallel: int | None,
             cached: bool) -> tf.data.Dataset:
    """Training batches of encoded images in the order of :mod:`bench.data.order`. Uncached: every epoch
    reads and decodes each image again (``parallel`` calls), then the batch is augmented. Cached (tutorial
    001's ``cache()``): every image is decoded once, in epoch 1, and kept; the batches are gathered from the
    cache and augmented afterwards, so the augmentation still differs between epochs."""
    load = loader(workload, data.train)
    y_all = tf.constant(data.y_train)
    idx, params = _plans(workload, len(data.y_train), batch, seed, max(1, epochs))
    if not cached:
        images = (tf.data.Dataset.from_tensor_slices(idx.reshape(-1)).repeat()
                  .map(lambda i: (load(i), tf.gather(y_all, i)), num_parallel_calls=parallel)
                  .batch(batch, drop_remainder=True))
        draws = tf.data.Dataset.from_tensor_slices(params).repeat() if params else None
        if draws is None:
            return images.map(lambda x, y: (x, labels(workload, y)))
        return tf.data.Dataset.zip(images, draws).map(lambda xy, p: (augment(xy[0], p), labels(workload, xy[1])))
    n = len(data.y_train)
    every = tf.data.Dataset.range(n).map(load, num_parallel_calls=parallel).batch(n).cache().repeat()
    steps = len(idx) // max(1, epochs)
    epochs_plan = (idx.reshape(-1, steps, batch), {k: v.reshape(-1, steps, *v.shape[1:]) for k, v in params.items()})
    plans = tf.data.Dataset.from_tensor_slices(epochs_plan).repeat()

    def epoch(images, plan):
        idx_e, p_e = plan
        return tf.data.Dataset.from_tensor_slices((idx_e, p_e)).map(
            lambda i, p: (augment(tf.gather(images, i), p), labels(workload, tf.gather(y_all, i))))

    return tf.data.Dataset.zip(every, plans).flat_map(epoch)


def _guide_train(workload: Workload, data: Arrays | Encoded, batch: int, seed: int) -> tf.data.Dataset:
    """The ``autotune`` training data as TensorFlow's data-performance guide and tutorial 004 write it: **one epoch**,
    a finite dataset ``fit`` iterates afresh every epoch (a new iterator, a new autotune model), its examples
    reshuffled every iteration (``shuffle(n, seed, reshuffle_each_iteration=True)``), batched, prepared on
    ``AUTOTUNE`` calls, prefetched ``AUTOTUNE`` deep; encoded images read and decoded per example before the batch.
    Augmentation: epoch 1's draws of :mod:`bench.data.order`, dealt to the examples in a new order every epoch."""
    n = len(data.y_train)
    auto = tf.data.AUTOTUNE
    examples = tf.data.Dataset.range(n).shuffle(n, seed=seed, reshuffle_each_iteration=True)
    _, params = _plans(workload, n, batch, seed, 1)
    draws = None
    if params:  # (steps, batch, ...) -> one row per example, reshuffled on a seed of its own
        per_example = {k: v.reshape(-1, *v.shape[2:]) for k, v in params.items()}
        draws = (tf.data.Dataset.from_tensor_slices(per_example).shuffle(len(next(iter(per_example.values()))),
                                                                         seed=seed + 1, reshuffle_each_iteration=True)
                 .repeat().batch(batch, drop_remainder=True))
    if isinstance(data, Encoded):
        load, y_all = loader(workload, data.train), tf.constant(data.y_train)
        images = (examples.map(lambda i: (load(i), tf.gather(y_all, i)), num_parallel_calls=auto)
                  .batch(batch, drop_remainder=True))
        if draws is None:
            train = images.map(lambda x, y: (x, labels(workload, y)), num_parallel_calls=auto)
        else:
            train = tf.data.Dataset.zip(images, draws).map(
                lambda xy, p: (augment(xy[0], p), labels(workload, xy[1])), num_parallel_calls=auto)
    else:
        fn = prepare(workload, tf.constant(data.x_train), tf.constant(data.y_train))
        idx = examples.batch(batch, drop_remainder=True)
        if draws is None:
            train = idx.map(lambda i: fn(i, {}), num_parallel_calls=auto)
        else:
            train = tf.data.Dataset.zip(idx, draws).map(fn, num_parallel_calls=auto)
    return train.prefetch(auto)


def _encoded_pipelines(workload: Workload, data: Encoded, global_batch_size: int, seed: int, slow_decode: bool,
                       epochs: int, cached: bool, options: tf.data.Options, parallel: int, ahead: int) -> Pipelines:
    """Pipelines of encoded images: training images decoded in every epoch (the work tutorial 001 found to
    starve a TPU) or once (``cached``); the validation images once, then cached (as the arrays' are).
    ``parallel`` map calls and ``ahead`` batches prefetched (:func:`make_pipelines`)."""
    if options.autotune.enabled:
        train = _guide_train(workload, data, global_batch_size, seed)
    else:
        train = _decoded(workload, data, global_batch_size, seed, epochs, None if slow_decode else parallel, cached)
        train = train.map(_slow_decode) if slow_decode else train.prefetch(ahead)
    load, y_val = loader(workload, data.val), tf.constant(data.y_val)
    val = (tf.data.Dataset.range(len(data.y_val) // global_batch_size * global_batch_size)
           .map(lambda i: (load(i), tf.gather(y_val, i)), num_parallel_calls=parallel)
           .batch(global_batch_size, drop_remainder=True)
           .map(lambda x, y: (x, labels(workload, y))))
    idx, real = remainder_batch(len(data.y_val), global_batch_size)
    rest = None
    if real:
        x_rest = tf.stack([load(tf.constant(i)) for i in idx])
        rest = (x_rest.numpy(), labels(workload, tf.gather(y_val, idx)).numpy(), real)
    return Pipelines(train.with_options(options), val.cache().prefetch(ahead).with_options(options),
                     len(data.y_train) // global_batch_size, len(data.y_val) // global_batch_size, rest,
                     finite=bool(options.autotune.enabled))


def make_pipelines(workload: Workload, arrays: Arrays | Encoded, global_batch_size: int, seed: int,
                   slow_decode: bool = False, epochs: int = 1, cached: bool = False,
                   autotune: bool = False) -> Pipelines:
    """Build the point's pipelines: seeded index batches (:mod:`bench.data.order`) -> gather + prepare
    (augment) -> prefetch; encoded images (a file data source) are read and decoded in the pipeline, in
    every epoch or (``cached``) once. ``epochs`` is how many epochs the orders are drawn for (then they
    repeat).

    ``slow_decode`` inserts a sequential per-example step and drops the prefetch: the input-bound
    configuration of tutorial 001 (a fast device starved by a slow pipeline), for diagnosis tests.

    ``autotune``: every ``map``'s parallelism and every ``prefetch`` (training and validation) on
    ``tf.data.AUTOTUNE`` with tf.data's autotune on, in these pipelines and in a strategy's per-device ones (the
    tutorials' own settings; module docstring), and the training data one epoch long, reshuffled by tf.data
    (:func:`_guide_train`; ``finite``).
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
    # Repeated, with a persistent iterator (steps_per_epoch), as TPU tutorials do: re-creating a
    # distributed iterator every epoch cost MirroredStrategy ~50 % per epoch here. Fixed parallelism and
    # prefetch depth, autotune off: see the module docstring. The autotune pipeline: one epoch, as users write it.
    if autotune:
        train = _guide_train(workload, arrays, global_batch_size, seed)
    else:
        train = _batches(workload, len(arrays.y_train), global_batch_size, seed, max(1, epochs)).repeat()
        x_train, y_train = tf.constant(arrays.x_train), tf.constant(arrays.y_train)
        train = train.map(prepare(workload, x_train, y_train), num_parallel_calls=None if slow_decode else parallel)
        train = train.map(_slow_decode) if slow_decode else train.prefetch(ahead)
    train = train.with_options(options)
    x_val, y_val = tf.constant(arrays.x_val), tf.constant(arrays.y_val)
    val = (
        _batches(workload, len(arrays.y_val), global_batch_size, None, 1)
        .map(prepare(workload, x_val, y_val), num_parallel_calls=parallel)
        .cache()
        .prefetch(ahead)
        .with_options(options)
    )
    idx, real = remainder_batch(len(arrays.y_val), global_batch_size)
    rest = None
    if real:
        x_rest, y_rest = prepare(workload, x_val, y_val)(tf.constant(idx), {})
        rest = (x_rest.numpy(), y_rest.numpy(), real)
    return Pipelines(train, val, steps, val_steps, rest, finite=autotune)
