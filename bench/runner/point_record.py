"""The record of one point as the run side builds it: the fields every record carries, whatever its
status, and the ``error`` object of a failure. Used by the worker (every status) and by the launcher (a
point whose worker died). No framework import.
"""

from __future__ import annotations

import traceback
from datetime import UTC, datetime
from typing import Any

from bench.records import SCHEMA_VERSION
from bench.runner.plan import Point
from bench.workloads import get_workload

TRACEBACK_LINES = 12


def utc_now() -> str:
    """Current UTC time, ISO 8601 with a Z suffix (second resolution)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def error_info(exc: BaseException) -> dict[str, Any]:
    """A record's ``error``: exception type, first lines of its message, last lines of the traceback."""
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    lines = "".join(tb).rstrip().splitlines()
    return {"type": type(exc).__name__, "message": str(exc).strip()[:2000],
            "traceback": "\n".join(lines[-TRACEBACK_LINES:])}


def base_record(run_id: str, suite: str, point: Point, strategy: dict[str, Any], env: dict[str, Any],
                global_batch: int | None, replicas: int | None) -> dict[str, Any]:
    """The fields every record of this point carries, whatever its status (``status`` starts as ok).

    ``global_batch``/``replicas`` are None where the strategy was never resolved; a point listed with a
    global batch knows it anyway.
    """
    wl = get_workload(point.workload)
    if global_batch is None:
        global_batch = point.global_batch_size  # known without the hardware (None when listed per replica)
    return {
        "schema_version": SCHEMA_VERSION,
        "run_id": run_id,
        "point_id": point.point_id,
        "config_hash": point.config_hash,
        "point": point.to_record(),
        "suite": suite,
        "backend": point.backend,
        "status": "ok",
        "error": None,
        "workload": wl.name,
        "workload_variant": wl.variant,
        **({"workload_source": wl.source} if wl.source else {}),
        "dataset": {"name": "arrays" if wl.source else "synthetic", "source": wl.dataset, "scale": point.data_scale,
                    "n_train": point.n_train, "n_val": point.n_val, "shape": list(wl.shape),
                    "classes": wl.classes, "pipeline": point.input_pipeline},
        "strategy": strategy,
        "global_batch_size": global_batch,
        "per_replica_batch_size": global_batch // replicas if global_batch and replicas else None,
        "batch_scaling": point.batch_scaling,
        "steps_per_execution": point.steps_per_execution,
        "precision": point.precision,
        "repeat": point.repeat,
        "seed": point.seed,
        "steps_per_epoch": point.n_train // global_batch if global_batch else None,
        "validation_steps": point.n_val // global_batch if global_batch else None,
        "epochs": [],
        "notes": [],
        "env": env,
        "started_at": utc_now(),
        "finished_at": None,
    }
