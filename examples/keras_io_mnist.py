"""keras.io's "Simple MNIST convnet" as a bench workload, its model and compile call as published.

https://keras.io/examples/vision/mnist_convnet/ builds the model below and compiles it with
``loss="categorical_crossentropy"``, for labels it made one-hot with ``keras.utils.to_categorical``. bench's
data hold integer class ids; it reads the compiled loss and feeds one-hot rows (the record's
``label_format`` says ``one_hot``), so the model and the compile call run unchanged::

    python -m bench workloads=[examples.keras_io_mnist:make] strategies=[cpu,cpu_x2] epochs=3

The example trains on MNIST; this box is offline, so the data here are made-up 28 x 28 "digits" (class k:
a bright bar at row 2k + 4, plus noise). With the MNIST file in Keras' cache (``~/.keras/datasets/mnist.npz``)
use the real digits instead: ``data="keras:mnist"`` in the Workload, or ``data=keras:mnist`` on the command line.
"""

from __future__ import annotations

import numpy as np

from bench import Workload

num_classes = 10
input_shape = (28, 28, 1)


def load() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x_train, y_train, x_val, y_val): uint8 images (n, 28, 28, 1) and integer labels 0..9."""
    rng = np.random.default_rng(0)

    def split(n: int) -> tuple[np.ndarray, np.ndarray]:
        y = rng.integers(0, num_classes, n)
        x = rng.normal(40, 20, (n, *input_shape))
        x[np.arange(n), 2 * y + 4, 4:24, 0] += 200
        return np.clip(x, 0, 255).astype(np.uint8), y.astype(np.int32)

    return (*split(2048), *split(512))


def build():
    """keras.io's model, as published."""
    import keras
    from keras import layers

    return keras.Sequential(
        [
            keras.Input(shape=input_shape),
            layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Flatten(),
            layers.Dropout(0.5),
            layers.Dense(num_classes, activation="softmax"),
        ]
    )


def make() -> Workload:
    return Workload(
        name="keras_io_mnist_convnet",
        build_model=build,
        # keras.io: model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
        compile_kwargs={"loss": "categorical_crossentropy", "optimizer": "adam", "metrics": ["accuracy"]},
        data=load,
        description="keras.io's Simple MNIST convnet, unchanged, on made-up 28x28 digits",
    )
