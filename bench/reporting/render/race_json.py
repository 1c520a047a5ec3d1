"""report.json's ``race``: how a ``repeats=auto`` run spent its repeats (:mod:`bench.reporting.analysis.race_replay`),
each configuration's stop with its reason in words."""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict

from bench.reporting.analysis.race_replay import Spent
from bench.reporting.frames.keys import plain_rows
from bench.reporting.render.text import section_title
from bench.reporting.render.words import race_reason_text


def _num(x: float) -> float | None:
    return x if math.isfinite(x) else None


class RaceStop(BaseModel):
    """One configuration of a ``repeats=auto`` run: the repeats it got and why it stopped
    (bench.reporting.analysis.race)."""

    model_config = ConfigDict(extra="forbid")

    workload: str
    dataset: str
    strategy: str
    global_batch_size: int
    steps_per_execution: int
    precision: str
    repeats: int
    state: str  # out | separated | max | budget | misses_target | not_learning | no_ok_repeat | unfinished | lost
    reason: str


class RaceSpent(BaseModel):
    """How a ``repeats=auto`` run spent its repeats: point seconds used against ``max_repeats`` everywhere, the
    workloads whose answer is settled, and each configuration's stop."""

    model_config = ConfigDict(extra="forbid")

    max_repeats: int
    used_s: float | None
    full_s: float | None
    settled: list[str]  # "<workload> on <dataset>" of the workloads whose leader separated
    configurations: list[RaceStop]



def race_data(spent: Spent | None) -> RaceSpent | None:
    """report.json's ``race`` (None for a run with a fixed number of repeats)."""
    if spent is None:
        return None
    stops = [RaceStop(**{**{k: r[k] for k in RaceStop.model_fields}, "reason": race_reason_text(r["reason"])})
             for r in plain_rows(spent.table)]
    return RaceSpent(max_repeats=spent.max_repeats, used_s=_num(spent.used_s), full_s=_num(spent.full_s),
                     settled=sorted(section_title(spent.table[spent.table["section"] == s])
                                    for s, done in spent.settled.items() if done),
                     configurations=stops)
