"""A second user workload: a small MLP on tabular float features (no images, nothing scaled by bench).

    python -m bench suite=smoke workloads=[examples.tabular:make] strategies=[cpu,cpu_x2]

The compile settings come from a callable here, so each point gets fresh optimizer and metric objects
(needed as soon as you pass objects, e.g. an optimizer with its own learning rate). Inputs that are not
uint8 images reach the model as float32, unchanged.

Made-up data so that it runs offline: 20 features, 3 classes, the class decided by two of the features.
"""

from __future__ import annotations

import numpy as np

from bench import Workload


def load() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x_train, y_train, x_val, y_val): float32 features (n, 20) and int labels 0..2."""
    rng = np.random.default_rng(1)

    def split(n: int) -> tuple[np.ndarray, np.ndarray]:
        x = rng.normal(size=(n, 20)).astype(np.float32)
        y = (x[:, 0] > 0).astype(np.int32) + (x[:, 1] > 1).astype(np.int32)
        return x, y

    return (*split(4096), *split(1024))


def build():
    """An uncompiled Keras MLP."""
    import keras

    return keras.Sequential([
        keras.Input((20,)),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dense(3, activation="softmax"),
    ])


def compile_settings() -> dict:
    """Fresh objects for every point."""
    import keras

    return {"optimizer": keras.optimizers.Adam(learning_rate=3e-3),
            "loss": keras.losses.SparseCategoricalCrossentropy(),
            "metrics": [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]}


def make() -> Workload:
    return Workload(name="tabular_mlp", build_model=build, compile_kwargs=compile_settings, data=load,
                    description="examples/tabular.py: an MLP on made-up tabular features")
