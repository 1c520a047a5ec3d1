"""report.json's ``limit`` of a configuration: the label of :mod:`bench.reporting.analysis.limits`, the numbers it
was read from (milliseconds per step, shares as fractions) and the lever that would help (:mod:`..levers`: codes,
words, the command that measures it)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict

from bench.reporting.analysis.limits import LIMIT_COLUMNS
from bench.reporting.frames.keys import CONFIG_KEY, plain_rows
from bench.reporting.render.levers import lever_of


class Limit(BaseModel):
    """What limits a configuration: ``label`` (input-bound | overhead-bound | compute-bound | memory-bound |
    kernel-bound | host-bound | mixed | undetermined) and, when undetermined, ``reason`` (one_batch | straddles |
    no_floors | processes_differ | neighbour: other processes used ``others_busy``, a share of the machine's CPUs,
    during the fit | partial_count: the FLOP and byte counts miss the ``uncounted`` layers); the processes a side
    it rests on and each one's own label (three or more); the step at its batch and at ``batch2`` (the same
    configuration's other batch; null: none) in ms, the fixed share of the step with its 95 % interval, the input
    share (training over the input pipeline's own rate), the compute and memory floors in ms (FLOPs over the
    measured peak, bytes over the measured bandwidth), the device share (the larger floor over the step), the fixed
    cost of one compiled call per step in ms; the device's narrower arithmetic (bf16 | fp16 | none | unknown); the
    fastest other backend or compiler at the same settings and its examples/s over this one's; and the lever:
    ``lever`` in words, ``lever_codes`` (what to change), ``lever_command`` (the keys that measure it)."""

    model_config = ConfigDict(extra="forbid")

    label: str
    reason: str = ""
    n_processes: int | None = None
    process_labels: list[str] = []
    lever: str = ""
    lever_codes: list[str] = []
    lever_command: str = ""
    narrow_math: str = ""
    alt_strategy: str = ""
    alt_ratio: float | None = None
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
    others_busy: float | None = None
    uncounted: list[str] = []


def _num(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def limits_by_config(limits: pd.DataFrame) -> dict[tuple[Any, ...], Limit]:
    """Each limits row (:data:`~bench.reporting.analysis.limits.LIMIT_COLUMNS`) as a :class:`Limit`, keyed by its
    configuration's :data:`CONFIG_KEY` values."""
    out = {}
    words = ("reason", "narrow_math", "alt_strategy")
    numbers = [c for c in LIMIT_COLUMNS if c in Limit.model_fields and c not in ("batch2", "n_processes",
                                                                                 "process_labels", "uncounted", *words)]
    for row in plain_rows(limits):
        lever = lever_of(row)
        out[tuple(row[k] for k in CONFIG_KEY)] = Limit(
            label=row["limit"], lever=lever.text, lever_codes=list(lever.codes), lever_command=lever.command,
            batch2=int(row["batch2"]) or None, n_processes=int(row["n_processes"]),
            process_labels=list(row["process_labels"]), uncounted=list(row["uncounted"]),
            reason=str(row["reason"] or ""),
            narrow_math=str(row["narrow_math"] or ""), alt_strategy=str(row["alt_strategy"] or ""),
            **{c: _num(row[c]) for c in numbers})
    return out
