"""What a user writes to train tutorial 002's Fashion-MNIST CNN in a notebook: plain Keras, no bench.

    python tests/benchmarks/plain_fit.py N_TRAIN N_VAL BATCH SPE EPOCHS [--pipeline numpy|tfdata] [knobs]

Deliberately independent of bench (nothing from it is imported): the reference that bench's ``cpu``
strategy is checked against (tests/benchmarks/test_plain_baseline.py). The model is written out by hand
from tutorial 002's layer stack and compile settings; the data are random uint8 images of Fashion-MNIST's
shape (28x28x1) and uint8 labels of its 10 classes, as ``keras.datasets.fashion_mnist.load_data()``
returns them (the values do not change the speed). The notebook way: scale the whole array to float32
/ 255 once, hand NumPy arrays straight to ``model.fit`` (no strategy scope, no tf.data), GPUs hidden so
it runs on the CPU (``--device gpu`` leaves them visible: the same notebook on a GPU box). The Keras backend
is the user's (``KERAS_BACKEND``: tensorflow, jax or torch; under jax on the CPU the caller sets
``JAX_PLATFORMS=cpu``).

``--pipeline tfdata`` is the other way users write it (tutorial 004, TensorFlow's data-performance guide, which
tutorial 001 points to): ``from_tensor_slices`` of the uint8 arrays, ``cache``, ``shuffle`` of the whole set each
epoch, ``batch`` (whole batches), a ``map`` scaling to float32 with ``num_parallel_calls=--map`` and a
``prefetch(--prefetch)``; both default to ``tf.data.AUTOTUNE`` with tf.data's autotune on, as the guide writes
it. ``--autotune off``, fixed ``--map``/``--prefetch``, ``--cpu-budget``, ``--ram-budget-mb``, ``--private-threads``
and ``--intra-op`` are the
experiment's knobs (docs/findings.md, "tf.data autotune on two cores"); ``tests/benchmarks/autotune_cause.py``
runs them.

Prints one JSON line: ``train_s`` per epoch (``on_epoch_begin`` -> ``on_test_begin``, so validation is
excluded), ``steps`` per epoch (from the optimizer's iteration counter), ``examples`` per epoch, the
arguments, ``fit_cpu_s`` (the process's CPU seconds during ``fit``), ``teardown_s`` (the last epoch's end until
``fit`` returned), ``steal_s`` (CPU seconds the hypervisor took from the machine during ``fit``), ``threads`` and
``thread_cpu_s`` (the busiest threads' CPU seconds at the end, named as Linux lists them in ``/proc/self/task``),
and ``train_cpu_s`` (the process's CPU seconds in each epoch's training).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
if "--device" not in sys.argv[1:] or sys.argv[sys.argv.index("--device") + 1:][:1] != ["gpu"]:
    os.environ["CUDA_VISIBLE_DEVICES"] = ""  # the CPU, as bench's `cpu` runs (a notebook without a GPU)

import keras
import numpy as np


def thread_cpu_s() -> list[tuple[str, float]]:
    """CPU seconds (user + system) of each of this process's threads, busiest first, named as Linux lists
    them in ``/proc/self/task`` (TensorFlow's own threads mostly keep the name ``python``); [] off Linux."""
    out: list[tuple[str, float]] = []
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for task in (os.listdir("/proc/self/task") if os.path.isdir("/proc/self/task") else []):
        try:
            with open(f"/proc/self/task/{task}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/self/task/{task}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended meanwhile
            continue
        out.append((name, round((int(fields[11]) + int(fields[12])) / tick, 2)))
    return sorted(out, key=lambda kv: -kv[1])


def steal_ticks() -> int:
    """The machine's CPU time stolen by the hypervisor so far, in clock ticks (``/proc/stat``; 0 elsewhere)."""
    try:
        with open("/proc/stat") as f:
            return int(f.readline().split()[8])
    except (OSError, IndexError, ValueError):
        return 0


def tfdata(x, y, batch: int, seed: int, a: argparse.Namespace):
    """The pipeline of tutorial 004 and TensorFlow's data-performance guide (module docstring)."""
    import tensorflow as tf

    def knob(v: str):
        return tf.data.AUTOTUNE if v == "auto" else int(v)

    options = tf.data.Options()
    options.autotune.enabled = a.autotune == "on"
    if a.cpu_budget:
        options.autotune.cpu_budget = a.cpu_budget
    if a.ram_budget_mb:
        options.autotune.ram_budget = a.ram_budget_mb << 20
    if a.private_threads:
        options.threading.private_threadpool_size = a.private_threads
    if a.intra_op:
        options.threading.max_intra_op_parallelism = a.intra_op
    ds = (tf.data.Dataset.from_tensor_slices((x, y)).cache()
          .shuffle(len(y), seed=seed, reshuffle_each_iteration=True).batch(batch, drop_remainder=True)
          .map(lambda u, v: (tf.cast(u, tf.float32) / 255.0, v), num_parallel_calls=knob(a.map))
          .prefetch(knob(a.prefetch)))
    return ds.with_options(options)


class TrainClock(keras.callbacks.Callback):
    """perf_counter at each epoch's start and at its validation's start: nothing else."""

    def __init__(self) -> None:
        super().__init__()
        self.begin: list[float] = []
        self.test_begin: list[float] = []
        self.iterations: list[int] = []
        self.cpu_begin: list[float] = []  # process CPU seconds at the same two moments
        self.cpu_test_begin: list[float] = []

    def on_train_begin(self, logs=None):
        self.cpu0, self.steal0 = time.process_time(), steal_ticks()

    def on_train_end(self, logs=None):
        self.train_end = time.perf_counter()

    def on_epoch_begin(self, epoch, logs=None):
        self.iterations.append(int(self.model.optimizer.iterations.numpy()))  # before the clock
        self.cpu_begin.append(time.process_time())
        self.begin.append(time.perf_counter())

    def on_test_begin(self, logs=None):
        if len(self.test_begin) < len(self.begin):  # the first validation of this epoch
            # Under JAX fit gets here while the last train steps still run (asynchronous dispatch): reading
            # a value they produce waits for them, or their time would count as validation.
            self.model.optimizer.iterations.numpy()
            self.test_begin.append(time.perf_counter())
            self.cpu_test_begin.append(time.process_time())

    def on_epoch_end(self, epoch, logs=None):
        if epoch == self.params["epochs"] - 1:
            self.iterations.append(int(self.model.optimizer.iterations.numpy()))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("n_train", "n_val", "batch", "spe", "epochs"):
        p.add_argument(name, type=int)
    p.add_argument("--pipeline", choices=("numpy", "tfdata"), default="numpy")
    p.add_argument("--device", choices=("cpu", "gpu"), default="cpu",
                   help="cpu hides every GPU (bench's `cpu`); gpu leaves them visible (a notebook on a GPU box)")
    p.add_argument("--autotune", choices=("on", "off"), default="on")
    p.add_argument("--map", default="auto", help="num_parallel_calls: auto or an integer")
    p.add_argument("--prefetch", default="auto", help="prefetch buffer: auto or an integer")
    p.add_argument("--cpu-budget", type=int, default=0, help="options.autotune.cpu_budget (0: tf.data's default)")
    p.add_argument("--ram-budget-mb", type=int, default=0, help="options.autotune.ram_budget in MiB (0: default)")
    p.add_argument("--persistent", action="store_true",
                   help="repeat the tf.data pipeline and give fit steps_per_epoch: one iterator for the whole fit "
                        "(as bench's pipelines), instead of Keras' new iterator every epoch")
    p.add_argument("--private-threads", type=int, default=0,
                   help="options.threading.private_threadpool_size (0: tf.data's shared pool)")
    p.add_argument("--intra-op", type=int, default=0,
                   help="options.threading.max_intra_op_parallelism (0: tf.data's default)")
    a = p.parse_args(argv)

    rng = np.random.default_rng(0)
    x_train = rng.integers(0, 256, (a.n_train, 28, 28, 1), dtype=np.uint8)
    y_train = rng.integers(0, 10, a.n_train, dtype=np.uint8)
    x_val = rng.integers(0, 256, (a.n_val, 28, 28, 1), dtype=np.uint8)
    y_val = rng.integers(0, 10, a.n_val, dtype=np.uint8)
    if a.pipeline == "numpy":
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
    if a.pipeline == "numpy":
        model.fit(x_train, y_train, batch_size=a.batch, epochs=a.epochs, validation_data=(x_val, y_val),
                  verbose=0, callbacks=[clock])
    else:
        ds = tfdata(x_train, y_train, a.batch, 0, a)
        steps = {"steps_per_epoch": a.n_train // a.batch} if a.persistent else {}
        model.fit(ds.repeat() if a.persistent else ds, epochs=a.epochs, validation_data=(x_val, y_val),
                  validation_batch_size=a.batch, verbose=0, callbacks=[clock], **steps)
    fit_returned = time.perf_counter()
    fit_cpu = time.process_time() - clock.cpu0
    steal = (steal_ticks() - clock.steal0) / (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)
    steps = [b - s for s, b in zip(clock.iterations, clock.iterations[1:], strict=False)]
    out = {"train_s": [t - b for b, t in zip(clock.begin, clock.test_begin, strict=True)],
           "steps": steps, "examples": [s * a.batch for s in steps],
           "n_train": a.n_train, "n_val": a.n_val, "batch": a.batch, "spe": a.spe, "epochs": a.epochs,
           "keras": keras.__version__, "backend": keras.backend.backend(), "pipeline": a.pipeline, "device": a.device,
           "autotune": a.autotune, "map": a.map, "prefetch": a.prefetch, "cpu_budget": a.cpu_budget,
           "ram_budget_mb": a.ram_budget_mb, "fit_cpu_s": round(fit_cpu, 2), "steal_s": round(steal, 2),
           "teardown_s": round(fit_returned - clock.train_end, 3),
           "threads": len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None,
           "thread_cpu_s": thread_cpu_s()[:8],
           "train_cpu_s": [round(t - b, 3) for b, t in zip(clock.cpu_begin, clock.cpu_test_begin, strict=True)]}
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
