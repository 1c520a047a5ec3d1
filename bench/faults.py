"""Test-only fault injection for workers (``BENCH_FAULT`` env var). Never active in normal runs.

``BENCH_FAULT=<kind>:<point_id substring>`` makes the worker misbehave when it reaches a matching point:

- ``oom``: raise ``tf.errors.ResourceExhaustedError`` (as an out-of-memory would);
- ``nan``: feed NaN into the loss (the point must end ``diverged``);
- ``raise``: raise ``RuntimeError`` (any other exception);
- ``hang``: sleep forever (the launcher's time limit must stop it);
- ``exit``: ``os._exit(3)`` (a hard crash);
- ``kill``: SIGKILL its own process;
- ``segv``: SIGSEGV its own process.
"""

from __future__ import annotations

import os
import signal
import time

from bench import worker as worker_mod

KINDS = ("oom", "nan", "raise", "hang", "exit", "kill", "segv")


def install(spec: str) -> None:
    """Patch :meth:`bench.worker.Worker._fit` to misbehave on matching points."""
    kind, _, match = spec.partition(":")
    if kind not in KINDS:
        raise ValueError(f"BENCH_FAULT kind {kind!r}; allowed: {', '.join(KINDS)}")
    original = worker_mod.Worker._fit

    def faulty(self, point, rec, arrays, gb, cfg):
        if match not in point.point_id:
            return original(self, point, rec, arrays, gb, cfg)
        import tensorflow as tf

        if kind == "oom":
            raise tf.errors.ResourceExhaustedError(None, None, "OOM when allocating tensor (injected)")
        if kind == "raise":
            raise RuntimeError("injected failure")
        if kind == "hang":
            while True:
                time.sleep(60)
        if kind == "exit":
            os._exit(3)
        if kind in ("kill", "segv"):
            os.kill(os.getpid(), signal.SIGKILL if kind == "kill" else signal.SIGSEGV)
        if kind == "nan":
            arrays = _poison(arrays)
        return original(self, point, rec, arrays, gb, cfg)

    worker_mod.Worker._fit = faulty


def _poison(arrays):
    import numpy as np

    from bench.data.synthetic import Arrays

    x = arrays.x_train.astype(np.float32)
    x[...] = np.inf  # inf inputs -> NaN activations -> NaN loss in the first epoch
    return Arrays(x, arrays.y_train, arrays.x_val.astype(np.float32), arrays.y_val)
