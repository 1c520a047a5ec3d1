"""A user workload that brings its own input pipeline: bench times *your* ``tf.data`` code, not its own.

Run it from the repository root::

    python -m bench workloads=[examples.own_pipeline:make] strategies=[cpu,cpu_x2] batch_sizes=[64]

``input_fn(split, global_batch_size, seed)`` returns the batches of ``split`` (``"train"`` or ``"val"``) as your
script hands them to ``fit``: here the pipeline TensorFlow's data-performance guide teaches (shuffle, batch, a
``map`` on ``tf.data.AUTOTUNE``, ``prefetch(tf.data.AUTOTUNE)``), one epoch long, which Keras iterates afresh every
epoch. A ``keras.utils.PyDataset`` works too (``make_pydataset``), and so does an endless iterator of NumPy
batches (``make_generator``; bench then cuts it into epochs of ``full[0] // global_batch_size`` batches), under
either backend. ``full=(n_train, n_val)`` says how many examples an epoch and a validation pass hold. Your
pipeline makes the labels the loss wants and does its own augmentation; bench records the points with
``dataset.pipeline: user`` and ``data_order: input_fn``, and runs the input-only probe on a fresh copy of it.

The data are the made-up digits of ``examples/digits.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from bench import Workload
from examples.digits import build, load

N_TRAIN, N_VAL = 2048, 512
COMPILE = {"optimizer": "adam", "loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]}


def input_fn(split: str, global_batch_size: int, seed: int):
    """A ``tf.data`` pipeline as the guide writes it: float images in [0, 1], integer labels, whole batches (a TPU
    needs static shapes), training examples reshuffled every epoch."""
    import tensorflow as tf

    x_train, y_train, x_val, y_val = load()
    x, y = (x_train, y_train) if split == "train" else (x_val, y_val)
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if split == "train":
        ds = ds.shuffle(len(y), seed=seed, reshuffle_each_iteration=True)
    ds = ds.batch(global_batch_size, drop_remainder=True)
    ds = ds.map(lambda a, b: (tf.cast(a, tf.float32) / 255.0, b), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.prefetch(tf.data.AUTOTUNE)


def make() -> Workload:
    return Workload(name="digits_own_tfdata", build_model=build, compile_kwargs=COMPILE, input_fn=input_fn,
                    full=(N_TRAIN, N_VAL), description="examples/own_pipeline.py: the digits CNN, its own tf.data")


def pydataset_fn(split: str, global_batch_size: int, seed: int):
    """The same batches from a ``keras.utils.PyDataset`` (no TensorFlow needed)."""
    import keras

    x_all, y_all = (load()[0], load()[1]) if split == "train" else (load()[2], load()[3])

    class Digits(keras.utils.PyDataset):
        def __len__(self) -> int:
            return len(y_all) // global_batch_size

        def __getitem__(self, i: int) -> tuple[np.ndarray, np.ndarray]:
            rows = slice(i * global_batch_size, (i + 1) * global_batch_size)
            return x_all[rows].astype(np.float32) / 255.0, y_all[rows]

    return Digits()


def make_pydataset() -> Workload:
    return Workload(name="digits_own_pydataset", build_model=build, compile_kwargs=COMPILE, input_fn=pydataset_fn,
                    full=(N_TRAIN, N_VAL))


def generator_fn(split: str, global_batch_size: int, seed: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """An endless generator of NumPy batches, each epoch in a new seeded order."""
    x_all, y_all = (load()[0], load()[1]) if split == "train" else (load()[2], load()[3])
    rng = np.random.default_rng(seed)
    while True:
        order = rng.permutation(len(y_all)) if split == "train" else np.arange(len(y_all))
        for i in range(len(y_all) // global_batch_size):
            rows = order[i * global_batch_size: (i + 1) * global_batch_size]
            yield x_all[rows].astype(np.float32) / 255.0, y_all[rows]


def make_generator() -> Workload:
    return Workload(name="digits_own_generator", build_model=build, compile_kwargs=COMPILE, input_fn=generator_fn,
                    full=(N_TRAIN, N_VAL))
