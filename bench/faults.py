"""Test-only fault injection for workers (``BENCH_FAULT`` env var). Never active in normal runs.

``BENCH_FAULT=<kind>:<point_id substring>[,<kind>:<substring> ...]`` makes the worker misbehave when it
reaches a matching point (the first matching rule wins):

- ``oom``: raise ``tf.errors.ResourceExhaustedError`` (as an out-of-memory would);
- ``nan``: multiply the loss by NaN (the point must end ``diverged``); works for every workload, since
  it does not depend on what NaN/inf inputs do to a given model;
- ``raise``: raise ``RuntimeError`` (any other exception);
- ``hang``: sleep forever (the launcher's time limit must stop it);
- ``exit``: ``os._exit(3)`` (a hard crash);
- ``kill``: SIGKILL its own process;
- ``segv``: SIGSEGV its own process.

The worker runs as ``python -m bench.worker``, i.e. as module ``__main__``, not ``bench.worker``: the
class to patch is therefore passed in by :func:`bench.worker.main` (patching ``bench.worker.Worker``
would patch a second, unused copy of the module).
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

KINDS = ("oom", "nan", "raise", "hang", "exit", "kill", "segv")


def parse(spec: str) -> list[tuple[str, str]]:
    """``"oom:spe1,nan:b64"`` -> ``[("oom", "spe1"), ("nan", "b64")]``; ValueError on an unknown kind."""
    rules = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        kind, _, match = part.partition(":")
        if kind not in KINDS:
            raise ValueError(f"BENCH_FAULT kind {kind!r}; allowed: {', '.join(KINDS)}")
        rules.append((kind, match))
    return rules


def install(spec: str, worker_cls: Any = None) -> None:
    """Patch ``worker_cls._fit`` (default :class:`bench.worker.Worker`) to misbehave on matching points."""
    if worker_cls is None:
        from bench import worker

        worker_cls = worker.Worker
    rules = parse(spec)
    original = worker_cls._fit

    def faulty(self, point, rec, arrays, gb, cfg):
        kind = next((k for k, match in rules if match in point.point_id), None)
        if kind is None:
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
            time.sleep(60)  # the signal is delivered asynchronously: never go on with the point
        if kind == "nan":
            return _with_nan_loss(original, self, point, rec, arrays, gb, cfg)
        return original(self, point, rec, arrays, gb, cfg)

    worker_cls._fit = faulty


def _with_nan_loss(fit, *args):
    """Run ``fit`` with the workload's loss multiplied by NaN: the first epoch's loss is NaN, always."""
    from bench.workloads import models

    real = models.compile_kwargs

    def poisoned(name):
        kwargs = real(name)
        loss = kwargs["loss"]

        def nan_loss(y_true, y_pred):
            return loss(y_true, y_pred) * float("nan")

        kwargs["loss"] = nan_loss
        return kwargs

    models.compile_kwargs = poisoned  # Worker._fit imports it at call time
    try:
        return fit(*args)
    finally:
        models.compile_kwargs = real
