"""Points that cannot run, decided before any worker starts and recorded ``skipped`` with the reason: those a
backend cannot run (:func:`bench.engines.limits.unsupported`), and on a single local host those whose GPU or TPU is
surely absent (:func:`bench.engines.presence.absent`). Imports no framework."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from bench.config import SuiteConfig, race_settings
from bench.engines import unresolved_strategy
from bench.engines.limits import unsupported
from bench.engines.presence import absent
from bench.job.point import Point
from bench.job.point_record import base_record, utc_now
from bench.measure.env import host_env
from bench.records import ErrorInfo, write_record

ERROR_TYPE = "BackendUnsupported"
ABSENT_TYPE = "StrategyUnavailable"  # what a worker records for absent hardware: the same type, found earlier


def why_not(point: Point) -> str:
    """Why the point's backend cannot run it ('' when it can)."""
    return unsupported(point.backend, point.strategy, point.steps_per_execution, point.processes, point.jit_compile)


def local_host(cfg: SuiteConfig) -> bool:
    """Whether every worker runs on this machine: the local launcher, one host (no job over several)."""
    return cfg.launcher == "local" and cfg.process_id < 0 and not cfg.coordinator


def why_skipped(cfg: SuiteConfig, point: Point) -> tuple[str, str]:
    """(error type, reason) a point is recorded skipped for before any worker starts; ('', '') when it runs."""
    if why := why_not(point):
        return ERROR_TYPE, why
    if local_host(cfg) and (gone := absent(point.strategy[:3], cfg.tpu)):
        return ABSENT_TYPE, gone
    return "", ""


def announce(cfg: SuiteConfig, points: list[Point]) -> None:
    """Say, before the run starts, how many planned points will be recorded skipped and why (one line per reason)."""
    reasons = Counter(f"{p.backend}: {why}" for p in points if (why := why_skipped(cfg, p)[1]))
    for reason, n in reasons.items():
        print(f"bench: {n} planned point(s) recorded skipped, not run: {reason}", file=sys.stderr)


def record_skipped(cfg: SuiteConfig, run_id: str, run_dir: Path, points: list[Point]) -> list[Point]:
    """Write a ``skipped`` record (the error type and reason of :func:`why_skipped`) for each of ``points`` that
    cannot run; returns the others, for the workers. In a multi-host job only process 0's host writes records."""
    runnable = []
    for point in points:
        kind, why = why_skipped(cfg, point)
        if not why:
            runnable.append(point)
            continue
        if cfg.process_id > 0:
            continue
        rec = base_record(run_id, cfg.name, point, unresolved_strategy(point.strategy), host_env(),
                          point.global_batch_size, None, race_settings(cfg))
        rec.status = "skipped"
        rec.error = ErrorInfo(type=kind, message=why)
        rec.finished_at = utc_now()
        write_record(run_dir, rec)
    return runnable
