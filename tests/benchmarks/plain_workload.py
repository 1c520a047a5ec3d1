"""The plain script's own pipeline, brought to bench (``Workload(input_fn=…)``): the check that bench times a user's
input pipeline as the user's script does (tests/benchmarks/test_plain_baseline.py, pipeline ``user``).

bench's ``fashion_cnn`` model and compile settings (tutorial 002's, as :mod:`plain_fit` types them out by hand), fed by
:func:`plain_fit.tfdata` itself — the guide's pipeline, called with the plain script's defaults (``AUTOTUNE`` map and
prefetch, autotune on) on the same random arrays the plain script makes — so the two sides run one pipeline's code,
and only who times it differs. Factories per size: ``measured`` and ``checked`` (n_train, n_val of the test).
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

from bench.workloads import Workload, get_workload
from bench.workloads.models import runnable

MEASURED = (6144, 1024, 5)  # n_train, n_val, epochs of the measured point (--benchmark-enable)
CHECKED = (1024, 256, 3)  # the normal test run checks the same work only: a smaller point is enough
PLAIN_DEFAULTS = argparse.Namespace(autotune="on", map="auto", prefetch="auto", cpu_budget=0, ram_budget_mb=0,
                                    private_threads=0, intra_op=0)  # plain_fit's argument defaults


def arrays(n_train: int, n_val: int) -> tuple[np.ndarray, ...]:
    """The plain script's data: the same generator, in the same order (``plain_fit.main``)."""
    rng = np.random.default_rng(0)
    return (rng.integers(0, 256, (n_train, 28, 28, 1), dtype=np.uint8), rng.integers(0, 10, n_train, dtype=np.uint8),
            rng.integers(0, 256, (n_val, 28, 28, 1), dtype=np.uint8), rng.integers(0, 10, n_val, dtype=np.uint8))


def sized(n_train: int, n_val: int) -> Workload:
    def input_fn(split: str, global_batch_size: int, seed: int):
        import tensorflow as tf

        from tests.benchmarks import plain_fit

        x_train, y_train, x_val, y_val = arrays(n_train, n_val)
        if split == "train":
            return plain_fit.tfdata(x_train, y_train, global_batch_size, 0, PLAIN_DEFAULTS)
        return tf.data.Dataset.from_tensor_slices((x_val.astype("float32") / 255.0, y_val)).batch(global_batch_size)

    model = runnable(get_workload("fashion_cnn"))
    return dataclasses.replace(model, name="fashion_cnn_plain_pipeline", input_fn=input_fn, full=(n_train, n_val),
                               reduced=(n_train, n_val), dataset="", tutorial="002")


def measured() -> Workload:
    return sized(*MEASURED[:2])


def checked() -> Workload:
    return sized(*CHECKED[:2])
