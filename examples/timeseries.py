"""A user's first own model: a Conv1D classifier of short time series, the walk-through in
docs/your-model-and-data.md.

    python -m bench doctor workloads=[examples.timeseries:make] strategies=[tpu] batch_sizes=[32,128]
    python -m bench workloads=[examples.timeseries:make] strategies=[cpu,cpu_x2] batch_sizes=[32,128]

Made-up data so that it runs offline: 64 steps of one channel, a sine whose frequency is the class (1 to 4 cycles),
with a random phase and noise; 2,048 training and 600 validation series (600 is no multiple of a batch of 128:
bench scores every one of them anyway). The workload declares the accuracy that counts as trained
(``target_accuracy``), so the report names the configuration fastest to it.
"""

from __future__ import annotations

import numpy as np

from bench import Workload

STEPS, CLASSES = 64, 4


def load() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x_train, y_train, x_val, y_val): float32 series (n, 64, 1) and int labels 0..3."""
    rng = np.random.default_rng(0)

    def split(n: int) -> tuple[np.ndarray, np.ndarray]:
        y = rng.integers(0, CLASSES, n)
        t = np.linspace(0.0, 1.0, STEPS)
        phase = rng.uniform(0.0, 2 * np.pi, n)
        x = np.sin(2 * np.pi * (y[:, None] + 1) * t[None, :] + phase[:, None]) + rng.normal(0.0, 0.5, (n, STEPS))
        return x[..., None].astype(np.float32), y.astype(np.int32)

    return (*split(2048), *split(600))


def build():
    """An uncompiled Keras model whose input is the data's (64 steps, 1 channel) and whose output is 4 classes."""
    import keras

    return keras.Sequential([
        keras.Input((STEPS, 1)),
        keras.layers.Conv1D(16, 7, activation="relu"),
        keras.layers.MaxPooling1D(2),
        keras.layers.Conv1D(32, 5, activation="relu"),
        keras.layers.GlobalAveragePooling1D(),
        keras.layers.Dense(CLASSES, activation="softmax"),
    ])


def compile_settings() -> dict:
    """Fresh optimizer and metric objects for every point."""
    import keras

    return {"optimizer": keras.optimizers.Adam(learning_rate=3e-3), "loss": "sparse_categorical_crossentropy",
            "metrics": ["accuracy"]}


def make() -> Workload:
    return Workload(name="ts_conv1d", build_model=build, compile_kwargs=compile_settings, data=load,
                    target_accuracy=0.9, description="examples/timeseries.py: a Conv1D time-series classifier")
