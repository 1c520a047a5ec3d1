"""NumPy input pipelines for the JAX engine (no ``tf.data``: many JAX images have no TensorFlow).

The seeds' rules hold as under TensorFlow (:mod:`bench.engines.tensorflow.pipelines`): static shapes (every
batch is full; the remainder is dropped), a seeded order reshuffled every epoch, random augmentation in
the input pipeline and never as model layers, images converted a whole batch at a time, and batches
prepared ahead by background threads (``keras.utils.PyDataset`` workers and queue) so the device is not
kept waiting. ``slow_decode`` is the same deliberately input-bound pipeline: a sequential per-example step
and nothing prepared ahead.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import keras
import numpy as np

from bench.data.synthetic import Arrays
from bench.workloads import Workload

WORKERS = max(1, min(2, os.cpu_count() or 1))  # threads preparing batches ahead
QUEUE_BATCHES = 4  # batches prepared ahead
SLOW_DECODE_S = 0.002  # per example, as under TensorFlow


class Batches(keras.utils.PyDataset):
    """Full batches of ``(x, y)`` arrays: ``len`` batches per epoch, reshuffled each epoch when ``seed`` is
    given; iterating it directly runs forever (epoch after epoch), as the input-only probe needs."""

    def __init__(self, workload: Workload, x: np.ndarray, y: np.ndarray, batch: int, seed: int | None,
                 augment: bool, slow_decode: bool = False) -> None:
        super().__init__(workers=1 if slow_decode else WORKERS, use_multiprocessing=False,
                         max_queue_size=QUEUE_BATCHES)
        self.workload, self.x, self.y, self.batch = workload, x, y, batch
        self.seed, self.augment, self.slow_decode = seed, augment, slow_decode
        self.epoch = 0
        self.order = self._order()

    def _order(self) -> np.ndarray:
        if self.seed is None:
            return np.arange(len(self.y))
        return np.random.default_rng((self.seed, self.epoch)).permutation(len(self.y))

    def __len__(self) -> int:
        return len(self.y) // self.batch

    def __getitem__(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        idx = self.order[i * self.batch:(i + 1) * self.batch]
        x, y = self.x[idx], self.y[idx]
        if self.slow_decode:
            for _ in range(len(idx)):
                time.sleep(SLOW_DECODE_S)
        if len(self.workload.shape) == 3:  # images: uint8 -> [0, 1] floats, one op per batch
            x = x.astype(np.float32) / 255.0
            if self.augment:  # random left-right flip per image, seeded by (seed, epoch, batch)
                flip = np.random.default_rng((self.seed or 0, self.epoch, i, 1)).random(len(x)) < 0.5
                x[flip] = x[flip, :, ::-1, :]
        if self.workload.classes == 2:
            y = y.astype(np.float32)[:, None]  # binary cross-entropy wants (batch, 1) float labels
        return x, y

    def on_epoch_end(self) -> None:
        """Keras calls this after each epoch: the next epoch gets a fresh order."""
        self.epoch += 1
        self.order = self._order()

    def __iter__(self) -> Iterator[Any]:
        while True:
            for i in range(len(self)):
                yield self[i]
            self.on_epoch_end()


@dataclass
class Pipelines:
    """Train/validation batches of one point and their step counts."""

    train: Batches  # ``steps_per_epoch`` batches per epoch, reshuffled each epoch
    val: Batches  # ``validation_steps`` batches, in order
    steps_per_epoch: int
    validation_steps: int


def make_pipelines(workload: Workload, arrays: Arrays, global_batch_size: int, seed: int,
                   slow_decode: bool = False) -> Pipelines:
    """Build the point's pipelines: seeded order -> full batches -> prepare (augment) -> prepared ahead."""
    train = Batches(workload, arrays.x_train, arrays.y_train, global_batch_size, seed, workload.augment,
                    slow_decode)
    val = Batches(workload, arrays.x_val, arrays.y_val, global_batch_size, None, False)
    return Pipelines(train, val, len(train), len(val))
