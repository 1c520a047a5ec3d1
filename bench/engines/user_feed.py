"""The ``user`` input pipeline: a workload's own ``input_fn``, fed to ``fit`` as Keras takes it (a finite dataset or
``PyDataset`` is an epoch; an endless one or an iterator is cut into epochs of ``full[0] // global_batch_size``
batches); one step of the worker beside :mod:`bench.worker.feeds`. One process per point: a multi-process point is
skipped. Method: docs/your-model-and-data.md, *Your own input pipeline*.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from bench.engines import USER_ORDER, PipelineUnavailable
from bench.workloads import Workload

KINDS = ("tf.data.Dataset", "keras.utils.PyDataset", "iterator")


def kind_of(data: Any) -> str:
    """Which of :data:`KINDS` ``data`` is (ValueError naming them for anything else)."""
    if type(data).__name__.endswith("Dataset") and hasattr(data, "element_spec"):
        return KINDS[0]
    if hasattr(data, "__getitem__") and hasattr(data, "num_batches"):
        return KINDS[1]
    if hasattr(data, "__next__"):
        return KINDS[2]
    raise ValueError(f"returned {type(data).__name__}; input_fn must return one of {', '.join(KINDS)} (a generator "
                     "of (x, y) NumPy batches is an iterator)")


def batches(data: Any, kind: str) -> int | None:
    """How many batches one pass yields: a dataset's known cardinality, a PyDataset's length; None where it is
    endless or not known before the pass (-1 marks endless)."""
    if kind == KINDS[0]:
        n = int(data.cardinality())
        return -1 if n == -1 else n if n >= 0 else None  # tf.data: INFINITE -1, UNKNOWN -2
    if kind == KINDS[1]:
        n = data.num_batches
        return -1 if n is None else int(n)
    return -1  # an iterator: endless, or Keras would find it empty in the second epoch


class UserFeed:
    """A point's training and validation data from the workload's ``input_fn`` (module docstring); ``gb`` the
    global batch (examples)."""

    data_order = USER_ORDER
    val_rest = None  # the user's pipeline decides what a validation pass holds

    def __init__(self, workload: Workload, gb: int, seed: int, processes: int = 1) -> None:
        if processes > 1:
            raise PipelineUnavailable(f"input pipeline user: {workload.name}'s input_fn feeds one process, and this "
                                      f"point runs {processes} (each would need its own rows of every batch)")
        self.workload, self.gb, self.seed = workload, gb, seed
        self.train, self.kind = self.make("train")
        self.val, val_kind = self.make("val")
        n_train, n_val = workload.full
        train_n = batches(self.train, self.kind)
        self.finite = train_n != -1
        self.steps_per_epoch = train_n if train_n and train_n > 0 else n_train // gb
        val_n = batches(self.val, val_kind)
        if val_n is None:  # finite, length unknown: counted once (validation's pipeline, before anything is timed)
            val_n = sum(1 for _ in self.val)
        self.validation_steps = val_n if val_n > 0 else n_val // gb

    @property
    def autotune(self) -> bool | None:
        """Whether tf.data tunes the training pipeline (a dataset's options; tf.data's default is on); None for a
        PyDataset or an iterator, which Keras wraps as it sees fit."""
        if self.kind != KINDS[0]:
            return None
        return self.train.options().autotune.enabled is not False

    def make(self, split: str) -> tuple[Any, str]:
        """A new pipeline of ``split`` from the workload's ``input_fn``, and its kind."""
        try:
            data = self.workload.input_fn(split, self.gb, self.seed)  # type: ignore[misc]
            return data, kind_of(data)
        except Exception as e:
            raise ValueError(f"{self.workload.name}: input_fn({split!r}, {self.gb}, {self.seed}) "
                             f"{'raised ' + type(e).__name__ + ': ' if not isinstance(e, ValueError) else ''}{e}"
                             ) from e

    def fit_inputs(self, train: Any) -> dict[str, Any]:
        """As the user's ``fit`` call: the data alone where it is an epoch; an endless one with the epoch's steps."""
        return {"x": train} if self.finite else {"x": train, "steps_per_epoch": self.steps_per_epoch}

    def rewind(self) -> Any:
        """A later stage's training data: a new pipeline from ``input_fn`` (an iterator cannot be rewound)."""
        return self.make("train")[0]

    def first_batch(self) -> tuple[np.ndarray, np.ndarray]:
        """The first training batch of a separate pipeline, as NumPy (x, y): what the checks run the model on."""
        data, kind = self.make("train")
        x, y, *_ = data[0] if kind == KINDS[1] else next(iter(data))
        return np.asarray(x), np.asarray(y)

    def input_shape(self) -> list[int]:
        """One example's input shape (-1: not fixed), from a dataset's spec or a separate pipeline's first batch."""
        if self.kind == KINDS[0] and isinstance(self.train.element_spec, tuple):
            shape = getattr(self.train.element_spec[0], "shape", None)
            if shape is not None and shape.rank is not None:
                return [-1 if d is None else int(d) for d in shape[1:]]
        return [int(d) for d in self.first_batch()[0].shape[1:]]

    def val_pass(self) -> Iterator[tuple[Any, Any]]:
        """One pass over a fresh validation pipeline's batches as NumPy arrays."""
        data, kind = self.make("val")
        source = (data[i] for i in range(len(data))) if kind == KINDS[1] else iter(data)
        for _, (x, y, *_) in zip(range(self.validation_steps), source, strict=False):
            yield np.asarray(x), np.asarray(y)

    def fresh_train(self) -> Iterator[tuple[Any, Any]]:
        """Batches of a new training pipeline as Keras' own data adapter makes them for ``fit``, endlessly (the
        input-only probe reads past an epoch's warm-up)."""
        steps = None if self.finite else self.steps_per_epoch
        return keras_batches((self.rewind(),), steps_per_epoch=steps)


def keras_batches(data: tuple[Any, ...], **adapter_args: Any) -> Iterator[tuple[Any, Any]]:
    """Endless batches of ``data`` (``(x, y)`` arrays, or ``(dataset,)``) as Keras' own data adapter makes them for
    ``fit`` under the current backend: its ``tf.data`` dataset repeated under TensorFlow, else epoch after epoch of
    its NumPy batches (the input-only probe reads past an epoch's warm-up)."""
    import keras
    from keras.src.trainers.data_adapters import get_data_adapter

    adapter = get_data_adapter(*data, **adapter_args)
    if keras.backend.backend() == "tensorflow":
        return iter(adapter.get_tf_dataset().repeat())
    return _endless(adapter)


def _endless(adapter: Any) -> Iterator[tuple[Any, Any]]:
    """Epoch after epoch of an adapter's NumPy batches."""
    while True:
        yield from adapter.get_numpy_iterator()
