"""Points a backend cannot run, decided from the plan alone (:func:`bench.engines.limits.unsupported`: Keras' PyTorch
backend runs one step per call on one device; TensorFlow's XLA fails under MirroredStrategy), recorded ``skipped``
with the reason before any worker starts, so a sweep over every backend and compiler runs what each can and says
what it left out. Imports no framework."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from bench.config import SuiteConfig, race_settings
from bench.engines import unresolved_strategy
from bench.engines.limits import unsupported
from bench.measure.env import host_env
from bench.records import ErrorInfo, write_record
from bench.runner.plan import Point
from bench.runner.point_record import base_record, utc_now

ERROR_TYPE = "BackendUnsupported"


def why_not(point: Point) -> str:
    """Why the point's backend cannot run it ('' when it can)."""
    return unsupported(point.backend, point.strategy, point.steps_per_execution, point.processes, point.jit_compile)


def announce(points: list[Point]) -> None:
    """Say, before the run starts, how many planned points will be recorded skipped and why (one line per reason)."""
    reasons = Counter(f"{p.backend}: {why}" for p in points if (why := why_not(p)))
    for reason, n in reasons.items():
        print(f"bench: {n} planned point(s) recorded skipped, not run: {reason}", file=sys.stderr)


def record_skipped(cfg: SuiteConfig, run_id: str, run_dir: Path, points: list[Point]) -> list[Point]:
    """Write a ``skipped`` record (error type ``BackendUnsupported``, the reason) for each of ``points`` its backend
    cannot run; returns the others, for the workers. In a multi-host job only process 0's host writes records."""
    runnable = []
    for point in points:
        why = why_not(point)
        if not why:
            runnable.append(point)
            continue
        if cfg.process_id > 0:
            continue
        rec = base_record(run_id, cfg.name, point, unresolved_strategy(point.strategy), host_env(),
                          point.global_batch_size, None, race_settings(cfg))
        rec.status = "skipped"
        rec.error = ErrorInfo(type=ERROR_TYPE, message=why)
        rec.finished_at = utc_now()
        write_record(run_dir, rec)
    return runnable
