"""report.json's ``limit`` of a configuration: the label of :mod:`bench.reporting.analysis.limits`, the numbers it
was read from (milliseconds per step, shares as fractions) and the lever that would help."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict

from bench.reporting.analysis.limits import LIMIT_COLUMNS, PARTNER_KEY
from bench.reporting.frames.keys import plain_rows
from bench.reporting.render.words import LEVERS

LIMIT_KEY = [*PARTNER_KEY[:3], "global_batch_size", *PARTNER_KEY[3:5]]  # a limits row's configuration


class Limit(BaseModel):
    """What limits a configuration: ``label`` (input-bound | overhead-bound | compute-bound | memory-bound | mixed |
    undetermined), the step at its batch and at ``batch2`` (the same configuration's other batch; null: none) in
    ms, the fixed share of the step with its 95 % interval, the input share (training over the input pipeline's own
    rate), the compute and memory floors in ms (FLOPs over the measured peak, bytes over the measured bandwidth),
    the device share (the larger floor over the step), the fixed cost of one compiled call per step in ms, and the
    ``lever`` that would help (empty for mixed and undetermined)."""

    model_config = ConfigDict(extra="forbid")

    label: str
    lever: str = ""
    step_ms: float | None = None
    batch2: int | None = None
    step2_ms: float | None = None
    fixed_share: float | None = None
    fixed_low: float | None = None
    fixed_high: float | None = None
    input_share: float | None = None
    compute_floor_ms: float | None = None
    memory_floor_ms: float | None = None
    device_share: float | None = None
    call_ms: float | None = None


def _num(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def limits_by_config(limits: pd.DataFrame) -> dict[tuple[Any, ...], Limit]:
    """Each limits row (:data:`~bench.reporting.analysis.limits.LIMIT_COLUMNS`) as a :class:`Limit`, keyed by its
    configuration's :data:`LIMIT_KEY` values."""
    out = {}
    numbers = [c for c in LIMIT_COLUMNS if c in Limit.model_fields and c not in ("label", "batch2")]
    for row in plain_rows(limits):
        out[tuple(row[k] for k in LIMIT_KEY)] = Limit(
            label=row["limit"], lever=LEVERS.get(row["limit"], ""), batch2=int(row["batch2"]) or None,
            **{c: _num(row[c]) for c in numbers})
    return out
