"""NumPy input pipelines for the engines without ``tf.data`` (JAX, PyTorch). Framework-free: the engine passes what it
knows (a multi-process point's share of each batch). Batches as under TensorFlow (static shapes, a seeded order,
augmentation in the pipeline), prepared ahead by threads; ``slow_decode`` is sequential with nothing ahead.
``fit`` gets an endless generator with ``steps_per_epoch``, not a ``PyDataset``: Keras restarts a PyDataset's threads
at every epoch and drops the batches they prepared, which broke :mod:`bench.data.order`'s order.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.data import augment, images
from bench.data.order import epoch_plan, remainder_batch
from bench.data.sources import Encoded
from bench.data.synthetic import Arrays
from bench.engines import SLOW_DECODE_S, input_threads
from bench.workloads import Workload
from bench.workloads.labels import as_fed

WORKERS = input_threads()  # threads preparing batches ahead: the rule both engines share
QUEUE_BATCHES = 4  # batches prepared ahead


class Batches:
    """Full batches of ``(x, y)`` arrays: ``len`` batches per epoch in the order (and with the augmentation
    draws) of :mod:`bench.data.order`, reshuffled each epoch when ``seed`` is given. Iterating it runs
    forever (epoch after epoch), ``workers`` threads preparing up to ``QUEUE_BATCHES`` batches ahead (none:
    each batch is made when it is asked for).

    ``x`` is an array, or a list of encoded images (file paths or bytes: a file data source) that each batch
    reads, decodes and resizes to the workload's input, as ``tf.data`` does under TensorFlow; with
    ``keep_decoded`` (tutorial 001's ``cache()``) every image is decoded once, when the first batch is asked for,
    and augmentation still runs per batch afterwards. ``cache`` keeps each prepared batch (validation: the
    same batches every epoch, made once). ``part`` = (process index, process count): in a multi-process point
    each process makes only its own contiguous rows of every global batch (process i: rows i*b/n .. (i+1)*b/n),
    which JAX assembles into the global batch the single-process point sees."""

    def __init__(self, workload: Workload, x: np.ndarray | list, y: np.ndarray, batch: int, seed: int | None,
                 augment: bool | tuple[str, ...], workers: int = WORKERS, slow_decode: bool = False,
                 cache: bool = False, keep_decoded: bool = False, part: tuple[int, int] = (0, 1)) -> None:
        self.workload, self.x, self.y, self.batch = workload, x, y, batch
        share = batch // part[1]
        self.rows = slice(part[0] * share, (part[0] + 1) * share)  # this process's rows of each batch
        self.seed, self.augment, self.slow_decode = seed, augment, slow_decode
        self.workers = workers
        self.encoded = isinstance(x, list)
        self._cache: dict[int, tuple[np.ndarray, np.ndarray]] | None = {} if cache and seed is None else None
        self._decoded: np.ndarray | None = None
        self._keep = keep_decoded and self.encoded
        self._lock = threading.Lock()
        self.epoch = 0
        self._draw()

    def _draw(self) -> None:
        height = self.workload.shape[0] if len(self.workload.shape) == 3 else 0
        self.order, self.params = epoch_plan(len(self.y), self.batch, self.seed, self.epoch, self.augment, height)

    def __len__(self) -> int:
        return len(self.y) // self.batch

    def _draws(self, params: augment.Params | None, i: int) -> augment.Params | None:
        return None if params is None else params.row(i).part(self.rows)

    def __getitem__(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Batch ``i`` of the current epoch."""
        if self._cache is not None:
            if i not in self._cache:
                self._cache[i] = self._make(self.order[i][self.rows], None)
            return self._cache[i]
        return self._make(self.order[i][self.rows], self._draws(self.params, i))

    def _decode(self, idx: np.ndarray) -> np.ndarray:
        """Encoded images -> float32 [0, 1] at the workload's input size (decode, bilinear resize)."""
        if self._keep:
            with self._lock:  # the first batch decodes every image (the cache fill of epoch 1)
                if self._decoded is None:
                    with ThreadPoolExecutor(WORKERS) as pool:
                        parts = list(pool.map(self._decode_now, np.array_split(np.arange(len(self.x)), 4 * WORKERS)))
                    self._decoded = np.concatenate(parts)
            return self._decoded[idx]
        return self._decode_now(idx)

    def _decode_now(self, idx: np.ndarray) -> np.ndarray:
        height, width, channels = self.workload.shape
        return np.stack([images.resize_bilinear(images.decode(self.x[i], channels), height, width)
                         for i in idx]).reshape(len(idx), height, width, channels) / np.float32(255.0)

    def _make(self, idx: np.ndarray, draws: augment.Params | None) -> tuple[np.ndarray, np.ndarray]:
        x = self._decode(idx) if self.encoded else self.x[idx]
        y = self.y[idx]
        if self.slow_decode:
            for _ in range(len(idx)):
                time.sleep(SLOW_DECODE_S)
        x, y = as_fed(self.workload, x, y)  # images to [0, 1] floats, one op per batch; labels as the loss wants
        if draws is not None and len(self.workload.shape) == 3:  # random augmentation, drawn by bench.data.order
            x = augment.apply(x, draws)
        return x, y

    def rest(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The whole batch of examples ``idx`` (all rows, in order, not augmented): the validation remainder."""
        return self._make(idx, None)

    def restart(self) -> None:
        """Back to the first epoch's order and augmentation draws (decoded images stay kept)."""
        self.epoch = 0
        self._draw()

    def next_epoch(self) -> None:
        """Move on to the next epoch: a fresh order and fresh augmentation draws."""
        self.epoch += 1
        self._draw()

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        if not self.workers or self._cache is not None:
            while True:
                for i in range(len(self)):
                    yield self[i]
                self.next_epoch()
        pool = ThreadPoolExecutor(self.workers)
        try:
            pending: deque[Future] = deque()
            while True:
                order, params = self.order, self.params  # this epoch's, even once the next one is drawn
                for i in range(len(self)):
                    pending.append(pool.submit(self._make, order[i][self.rows], self._draws(params, i)))
                    if len(pending) > QUEUE_BATCHES:
                        yield pending.popleft().result()
                self.next_epoch()
        finally:
            try:  # also runs at interpreter exit, when modules are half gone
                pool.shutdown(wait=False, cancel_futures=True)
            except Exception:  # nothing left to clean up then
                pass


@dataclass
class Pipelines:
    """Train/validation batches of one point and their step counts."""

    train: Iterator[tuple[np.ndarray, np.ndarray]]  # endless; an epoch is ``steps_per_epoch`` batches
    val: Any  # ``validation_steps`` batches in order, indexed (validation_batches)
    steps_per_epoch: int
    validation_steps: int
    batches: Batches | None = None  # what ``train`` iterates
    val_batches: Batches | None = None  # what ``val`` iterates
    # the examples whole validation batches leave out, padded to one batch: (x, y, how many are real); None: none
    val_rest: tuple[np.ndarray, np.ndarray, int] | None = None

    def val_pass(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """One pass over the validation batches, in the split's order (per-example predictions)."""
        if self.val_batches is None:
            raise ValueError("no validation batches")
        for i in range(len(self.val_batches)):
            yield self.val_batches[i]

    def rewind(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The training data for another ``fit`` (a transfer-learning point's second stage) from its first
        epoch again, as ``fit`` iterates a ``tf.data`` dataset anew under TensorFlow (images decoded and kept
        in the first stage stay kept)."""
        if self.batches is not None:
            close = getattr(self.train, "close", None)
            if close is not None:
                close()  # stops the batches being prepared ahead
            self.batches.restart()
            self.train = iter(self.batches)
        return self.train

    def fit_inputs(self, train: Any) -> dict[str, Any]:
        """``fit``'s data arguments: the endless training data and the steps of an epoch, in bench's order (Keras
        would reorder a PyDataset's batches with Python's own random, not :mod:`bench.data.order`)."""
        return {"x": train, "steps_per_epoch": self.steps_per_epoch, "shuffle": False}

    def fresh_train(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The training data for the input-only probe, from an empty queue: the iterator ``fit`` used has its
        threads' batches prepared ahead while the model was idle, which would make a slow pipeline look fast.
        It is stopped, and a new one starts with nothing in hand, as TensorFlow's new iterator does."""
        if self.batches is None:
            return self.train
        close = getattr(self.train, "close", None)
        if close is not None:
            close()
        self.train = iter(self.batches)
        return self.train


def make_pipelines(workload: Workload, arrays: Arrays | Encoded, global_batch_size: int, seed: int,
                   slow_decode: bool = False, epochs: int = 1, cached: bool = False, autotune: bool = False,
                   part: tuple[int, int] = (0, 1)) -> Any:
    """Build the point's pipelines: seeded index batches (:mod:`bench.data.order`) -> gather (or read and
    decode encoded images) + prepare (augment) -> prepared ahead. ``epochs`` is accepted for the engine
    interface: orders are drawn per epoch. Encoded training images are decoded in every epoch, or once
    (``cached``); encoded validation images once, as the TensorFlow engine's ``cache()`` does. ``part`` = (process
    index, process count): in a multi-process point (JAX) each process makes its own rows of every batch
    (:class:`Batches`).

    ``autotune``: the TensorFlow engine's ``tf.data`` pipeline of the same batches on ``tf.data.AUTOTUNE``, which
    Keras on JAX or PyTorch reads as NumPy (what a user who keeps their ``tf.data`` code runs): it needs TensorFlow,
    and one process (:class:`~bench.engines.PipelineUnavailable` otherwise)."""
    if autotune:
        return _tf_data(workload, arrays, global_batch_size, seed, epochs, cached, part[1])
    x_train: np.ndarray | list[str | bytes]  # encoded images (decoded per batch), else the arrays
    x_val: np.ndarray | list[str | bytes]
    if isinstance(arrays, Encoded):
        x_train, x_val = list(arrays.train), list(arrays.val)
    else:
        x_train, x_val = arrays.x_train, arrays.x_val
    train = Batches(workload, x_train, arrays.y_train, global_batch_size, seed, workload.augment,
                    workers=0 if slow_decode else WORKERS, slow_decode=slow_decode, keep_decoded=cached, part=part)
    val = Batches(workload, x_val, arrays.y_val, global_batch_size, None, False, cache=isinstance(arrays, Encoded),
                  part=part)
    idx, real = remainder_batch(len(arrays.y_val), global_batch_size)
    rest = (*val.rest(idx), real) if real else None
    return Pipelines(iter(train), validation_batches(val), len(train), len(val), train, val, rest)


def _tf_data(workload: Workload, arrays: Arrays | Encoded, global_batch_size: int, seed: int, epochs: int,
             cached: bool, processes: int) -> Any:
    """The ``autotune`` pipeline under JAX or PyTorch: TensorFlow's (``make_pipelines`` docstring)."""
    from bench.engines import PipelineUnavailable

    if processes > 1:
        raise PipelineUnavailable(f"input pipeline autotune: a tf.data pipeline feeds one process, and this point "
                                  f"runs {processes} (each makes its own rows of a batch); run it with one process")
    try:
        from bench.engines.tensorflow.pipelines import make_pipelines as tf_pipelines
        from bench.engines.tensorflow.strategies import hide_gpus
    except ImportError:
        raise PipelineUnavailable("input pipeline autotune under JAX or PyTorch feeds a tf.data pipeline, and "
                                  "TensorFlow is not installed: pip install 'bench[tensorflow]'") from None
    hide_gpus()  # TensorFlow prepares batches on the host and must not take the accelerator's memory
    return tf_pipelines(workload, arrays, global_batch_size, seed, epochs=epochs, cached=cached, autotune=True)


def validation_batches(val: Batches) -> Any:
    """The validation batches as a ``keras.utils.PyDataset`` (indexed), not an iterator. Keras 3.15's JAX ``fit``
    re-creates its cached validation iterator every epoch, and its generator adapter then replays the two batches
    it peeked at for their shapes (``peek_and_restore``: ``itertools.chain(batches, generator)``): from the second
    epoch on, an endless generator's validation scored its first two batches twice and never its last two
    (docs/findings.md). An indexed dataset is read by index, the same batches every epoch."""
    import keras

    class ValidationBatches(keras.utils.PyDataset):
        def __len__(self) -> int:
            return len(val)

        def __getitem__(self, i: int) -> tuple[np.ndarray, np.ndarray]:
            return val[i]

    return ValidationBatches()


def autotune_mark() -> int:
    """The engines fed by these pipelines have no tf.data per-device pipelines to observe."""
    return 0


def device_pipeline_autotune(mark: int) -> None:
    """None: no tf.data per-device pipelines (:func:`autotune_mark`)."""
    return None
