"""Four workloads built to be slow for four different reasons: what bench's "what limits it" label must tell apart.

    python -m bench suite=regimes                    # the four, TensorFlow, on the CPU
    python -m bench suite=regimes backends=[jax]     # under JAX (pip install -e .[jax])

Each is a plain user workload (made-up data, a label a model can learn) sized for a 2-core CPU:

* ``input_bound``: a tiny model fed by a generator that sleeps 40 ms per batch (an expensive, unparallelised decode):
  training runs at the input pipeline's own rate (input-bound);
* ``overhead_bound``: a 16 -> 8 -> 2 MLP at batches of 8 and 128: a step is the framework's fixed cost, whatever
  the batch, and the device's floors explain under 0.1 % of it (host-bound: where the floors rule the device out,
  they decide between host and overhead, docs/reports.md);
* ``compute_bound``: three 1024-wide Dense layers trained by plain SGD (no optimizer slots: a small
  fixed cost a step) at batches of 256 and 2048: the step grows with the batch and its
  FLOPs take far longer at the measured matmul peak than its bytes at the measured bandwidth (compute-bound);
* ``memory_bound``: a trainable per-feature scale over 8,192 features, six ReLU layers, then a 2-way Dense head, at
  batches of 32 and 512: almost no multiply-adds, every layer one elementwise kernel that reads and writes the wide
  tensor, as the byte count assumes, so its bytes at the measured bandwidth explain most of the step
  (memory-bound). A LayerNormalization stack, this workload's earlier form, moves many times the bytes a layer-by-layer
  count sees (its backward pass is several kernels): its floor explained 7-17 % of the step, far from the roof.

``suites/regimes.yaml`` sweeps each over its two batches (the second batch is what separates a fixed cost from one
that grows with the batch). docs/reports.md ("What limits it") says how the label is read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import numpy as np

from bench import Workload

SLEEP_S = 0.04  # per batch, input_bound's pipeline


def _data(features: int, n_train: int, n_val: int) -> Callable[[], tuple[np.ndarray, ...]]:
    """A ``data`` callable: float32 normal features, the label the sign of the first feature."""
    def load() -> tuple[np.ndarray, ...]:
        rng = np.random.default_rng(0)
        x = rng.normal(size=(n_train + n_val, features)).astype(np.float32)
        y = (x[:, 0] > 0).astype(np.int32)
        return x[:n_train], y[:n_train], x[n_train:], y[n_train:]
    return load


def _mlp(features: int, widths: tuple[int, ...]) -> Callable[[], object]:
    def build() -> object:
        import keras

        layers = [keras.layers.Dense(w, activation="relu") for w in widths]
        return keras.Sequential([keras.Input((features,)), *layers, keras.layers.Dense(2)])
    return build


def _logits_compile() -> dict:
    import keras

    return {"optimizer": keras.optimizers.Adam(1e-2),  # a few steps an epoch at the large batches: learn fast
            "loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            "metrics": ["accuracy"]}


def _sgd_compile() -> dict:
    import keras

    return {**_logits_compile(), "optimizer": keras.optimizers.SGD(0.05)}


def _sleepy_input(split: str, global_batch_size: int, seed: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """An endless generator of (x, y) batches that sleeps :data:`SLEEP_S` before each one."""
    rng = np.random.default_rng(seed + (split == "val"))
    while True:
        time.sleep(SLEEP_S)
        x = rng.normal(size=(global_batch_size, 16)).astype(np.float32)
        yield x, (x[:, 0] > 0).astype(np.int32)


def input_bound() -> Workload:
    return Workload(name="regime_input", build_model=_mlp(16, (8,)), compile_kwargs=_logits_compile,
                    input_fn=_sleepy_input, full=(1024, 128),
                    description=f"examples/regimes.py: a 16-8-2 MLP fed by a generator sleeping {SLEEP_S * 1e3:g} ms "
                                "a batch")


def overhead_bound() -> Workload:
    return Workload(name="regime_overhead", build_model=_mlp(16, (8,)), compile_kwargs=_logits_compile,
                    data=_data(16, 2048, 256), description="examples/regimes.py: a 16-8-2 MLP at tiny batches")


def compute_bound() -> Workload:
    return Workload(name="regime_compute", build_model=_mlp(1024, (1024, 1024, 1024)),
                    compile_kwargs=_sgd_compile, data=_data(1024, 4096, 2048),
                    description="examples/regimes.py: three 1024-wide Dense layers at large batches")


def _relus() -> object:
    import keras

    class Scale(keras.layers.Layer):
        """y = x * w, one trainable weight per feature: the gradient path the ReLUs above it need."""

        def build(self, input_shape: tuple[int, ...]) -> None:
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")

        def call(self, x: object) -> object:
            return x * self.w

    return keras.Sequential([keras.Input((8192,)), Scale(), *[keras.layers.Activation("relu") for _ in range(6)],
                             keras.layers.Dense(2)])


def memory_bound() -> Workload:
    return Workload(name="regime_memory", build_model=_relus, compile_kwargs=_logits_compile,
                    data=_data(8192, 4096, 512),
                    description="examples/regimes.py: a per-feature scale and six ReLU layers over 8,192 features")
