"""What a user writes to train seed 002's Fashion-MNIST CNN in a notebook: plain Keras, no bench.

    python tests/benchmarks/plain_fit.py N_TRAIN N_VAL BATCH SPE EPOCHS

Deliberately independent of bench (nothing from it is imported): the reference that bench's ``cpu``
strategy is checked against (tests/benchmarks/test_plain_baseline.py). The model is written out by hand
from seed 002's layer stack and compile settings; the data are random uint8 images of Fashion-MNIST's
shape (28x28x1) and uint8 labels of its 10 classes, as ``keras.datasets.fashion_mnist.load_data()``
returns them (the values do not change the speed). The notebook way: scale the whole array to float32
/ 255 once, hand NumPy arrays straight to ``model.fit`` (no strategy scope, no tf.data), GPUs hidden so
it runs on the CPU. The Keras backend is the user's (``KERAS_BACKEND``: tensorflow or jax; under jax the
caller sets ``JAX_PLATFORMS=cpu``).

Prints one JSON line: ``train_s`` per epoch (``on_epoch_begin`` -> ``on_test_begin``, so validation is
excluded), ``steps`` per epoch (from the optimizer's iteration counter), ``examples`` per epoch and the
arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["CUDA_VISIBLE_DEVICES"] = ""  # the CPU, as bench's `cpu` runs (a notebook without a GPU)

import keras
import numpy as np


class TrainClock(keras.callbacks.Callback):
    """perf_counter at each epoch's start and at its validation's start: nothing else."""

    def __init__(self) -> None:
        super().__init__()
        self.begin: list[float] = []
        self.test_begin: list[float] = []
        self.iterations: list[int] = []

    def on_epoch_begin(self, epoch, logs=None):
        self.iterations.append(int(self.model.optimizer.iterations.numpy()))  # before the clock
        self.begin.append(time.perf_counter())

    def on_test_begin(self, logs=None):
        if len(self.test_begin) < len(self.begin):  # the first validation of this epoch
            # Under JAX fit gets here while the last train steps still run (asynchronous dispatch): reading
            # a value they produce waits for them, or their time would count as validation.
            self.model.optimizer.iterations.numpy()
            self.test_begin.append(time.perf_counter())

    def on_epoch_end(self, epoch, logs=None):
        if epoch == self.params["epochs"] - 1:
            self.iterations.append(int(self.model.optimizer.iterations.numpy()))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("n_train", "n_val", "batch", "spe", "epochs"):
        p.add_argument(name, type=int)
    a = p.parse_args(argv)

    rng = np.random.default_rng(0)
    x_train = rng.integers(0, 256, (a.n_train, 28, 28, 1), dtype=np.uint8)
    y_train = rng.integers(0, 10, a.n_train, dtype=np.uint8)
    x_val = rng.integers(0, 256, (a.n_val, 28, 28, 1), dtype=np.uint8)
    y_val = rng.integers(0, 10, a.n_val, dtype=np.uint8)
    x_train = x_train.astype("float32") / 255.0
    x_val = x_val.astype("float32") / 255.0

    keras.utils.set_random_seed(0)
    model = keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(64, (3, 3)),
        keras.layers.MaxPooling2D(pool_size=(2, 2), strides=(2, 2)),
        keras.layers.Activation("relu"),
        keras.layers.Flatten(),
        keras.layers.Dense(10),
        keras.layers.Activation("softmax"),
    ])
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(),
                  metrics=[keras.metrics.SparseCategoricalAccuracy(name="accuracy")],
                  steps_per_execution=a.spe)
    clock = TrainClock()
    model.fit(x_train, y_train, batch_size=a.batch, epochs=a.epochs, validation_data=(x_val, y_val),
              verbose=0, callbacks=[clock])
    steps = [b - s for s, b in zip(clock.iterations, clock.iterations[1:], strict=False)]
    out = {"train_s": [t - b for b, t in zip(clock.begin, clock.test_begin, strict=True)],
           "steps": steps, "examples": [s * a.batch for s in steps],
           "n_train": a.n_train, "n_val": a.n_val, "batch": a.batch, "spe": a.spe, "epochs": a.epochs,
           "keras": keras.__version__, "backend": keras.backend.backend()}
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
