"""The run's own process, read from ``run.json``'s ``parent``: how long the ``python -m bench`` that ran it spent
before its first worker, running workers and building the report, so *Where the time went* accounts for the whole
wall time. Only finite, non-negative numbers of the known fields are read; a run without them has none."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

from bench.records import RUN_MANIFEST
from bench.reporting.load.untrusted import clean

FIELDS = ("before_workers_s", "workers_s", "report_s", "wall_s")  # seconds of the parent process (docs/reports.md)


def parent_times(dirs: Sequence[Path | str]) -> dict[str, dict[str, float]]:
    """Per run id, the parent's seconds (:data:`FIELDS`, each present only when the run recorded it) from every
    ``run.json`` below ``dirs``; a manifest that is unreadable or lacks them adds nothing."""
    found: dict[str, dict[str, float]] = {}
    for d in dirs:
        d = Path(d)
        for path in [d] if d.name == RUN_MANIFEST else sorted(d.rglob(RUN_MANIFEST)):
            try:
                manifest = json.loads(path.read_text(encoding="utf-8"))
                parent, run_id = manifest.get("parent"), manifest.get("run_id")
            except (OSError, ValueError, AttributeError):
                continue
            if not isinstance(parent, dict) or not isinstance(run_id, str):
                continue
            times = {k: float(v) for k in FIELDS if isinstance(v := parent.get(k), int | float)
                     and not isinstance(v, bool) and math.isfinite(v) and v >= 0}
            if times:
                found[clean(run_id, "run_id")] = times  # as the records' run ids are made inert
    return found
