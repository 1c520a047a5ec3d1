"""Per-epoch timing callback (:class:`EpochTimer`): epoch- and test-level hooks only, since a batch-level hook turns off
Keras' asynchronous dispatch. Epoch 1 starts at the ``fit()`` call (``setup_s``: what comes before Keras' first
epoch); :meth:`EpochTimer.on_test_begin` reads the step counter first, which under JAX waits for the last train
step. Method: docs/statistics.md (the first bullets); DESIGN.md, *Measurement rules*.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import keras


class EpochTimer(keras.callbacks.Callback):
    """Records one row per epoch: ``epoch_s`` (train + validation), ``train_s``, ``val_s`` (seconds),
    exact ``steps`` (from ``optimizer.iterations``), ``examples`` and every logged metric.

    Args:
        global_batch_size: examples per step, to turn steps into ``examples``.
        clock: a monotonic clock in seconds (``time.perf_counter``; tests pass a fake one).
        on_epoch: optional hook called with each finished row (progress display).
    """

    def __init__(self, global_batch_size: int, clock: Callable[[], float] = time.perf_counter,
                 on_epoch: Callable[[dict[str, Any]], None] | None = None) -> None:
        super().__init__()
        self.global_batch_size = global_batch_size
        self.clock = clock
        self.on_epoch = on_epoch
        self.rows: list[dict[str, Any]] = []
        self.diverged = False
        self._t0 = 0.0
        self._t_val: float | None = None
        self._it0 = 0
        self._fit_start: float | None = None
        self._setup_s: float | None = None  # set for the first epoch of a fit that fit_started() announced
        self.stage: str | None = None  # a transfer-learning point's stage, recorded in each row when set
        self.ended_at: float | None = None  # clock at the end of the last epoch (fit's teardown follows)

    def fit_started(self) -> None:
        """Call right before each ``model.fit``: the fit's first epoch then includes its set-up."""
        self._fit_start = self.clock()

    def _iterations(self) -> int:
        return int(self.model.optimizer.iterations.numpy())

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        self._it0 = self._iterations()  # read before the clock starts: not part of the epoch
        self._t_val = None
        self._t0 = self.clock()
        self._setup_s = None
        if self._fit_start is not None:
            self._setup_s = self._t0 - self._fit_start
            self._t0, self._fit_start = self._fit_start, None

    def on_test_begin(self, logs: dict | None = None) -> None:
        if self._t_val is None:  # validation inside fit() starts here
            self._iterations()  # waits for the epoch's last train step (JAX dispatches asynchronously)
            self._t_val = self.clock()

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        t = self.clock()
        self.ended_at = t
        steps = self._iterations() - self._it0
        t_val = self._t_val if self._t_val is not None else t
        row: dict[str, Any] = {
            "epoch": epoch + 1,
            "epoch_s": t - self._t0,
            "train_s": t_val - self._t0,
            "val_s": t - t_val,
            "steps": steps,
            "examples": steps * self.global_batch_size,
        }
        if self._setup_s is not None:
            row["setup_s"] = self._setup_s  # part of epoch_s and train_s spent before Keras' first epoch
        if self.stage is not None:
            row["stage"] = self.stage
        for k, v in sorted((logs or {}).items()):
            row[k] = float(v)
        self.rows.append(row)
        if not math.isfinite(row.get("loss", 0.0)):
            self.diverged = True  # NaN/inf loss: nothing more to learn; stop and record `diverged`
            self.model.stop_training = True
        if self.on_epoch:
            self.on_epoch(row)
