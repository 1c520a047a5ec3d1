"""A user workload for bench: your own model and your own NumPy data, no bench code inside the model.

Run it from the repository root (the current folder is importable, as with ``python -m``)::

    python -m bench suite=smoke workloads=[examples.digits:make] strategies=[cpu,cpu_x2]

``make()`` returns a :class:`bench.Workload`: a zero-argument ``build_model`` (bench calls it
inside each strategy's scope or distribution, so it must *build* the model, not return one built
earlier), the ``compile_kwargs`` (optimizers by name, so every point gets a fresh one) and ``data``, a
zero-argument callable returning ``(x_train, y_train, x_val, y_val)`` NumPy arrays with integer class
labels. bench builds the input pipeline from the arrays (static shapes, a seeded order, uint8 images
scaled to [0, 1]) and takes the input shape, the classes and the sizes from them.

The data here are made up so that the example runs offline: 16 x 16 "digits", where class k is a bright
bar at row k plus noise, 2,048 training and 512 validation images.
"""

from __future__ import annotations

import numpy as np

from bench import Workload


def load() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x_train, y_train, x_val, y_val): uint8 images (n, 16, 16, 1) and int labels 0..9."""
    rng = np.random.default_rng(0)

    def split(n: int) -> tuple[np.ndarray, np.ndarray]:
        y = rng.integers(0, 10, n)
        x = rng.normal(40, 20, (n, 16, 16, 1))
        x[np.arange(n), y + 3, 2:14, 0] += 200  # the class is the row of the bar
        return np.clip(x, 0, 255).astype(np.uint8), y.astype(np.int32)

    return (*split(2048), *split(512))


def build():
    """An uncompiled Keras model (Keras is imported here, where bench calls it: inside the worker)."""
    import keras

    return keras.Sequential([
        keras.Input((16, 16, 1)),
        keras.layers.Conv2D(8, 3, activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Flatten(),
        keras.layers.Dense(10, activation="softmax"),
    ])


def make() -> Workload:
    return Workload(
        name="digits_cnn",
        build_model=build,
        compile_kwargs={"optimizer": "adam", "loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]},
        data=load,
        description="examples/digits.py: a small CNN on made-up 16x16 digits",
    )
