"""How a ``repeats=auto`` run spent its repeats, replayed from its records (:mod:`bench.reporting.analysis.race`): per
configuration the repeats it got and why it stopped, the machine time used against what ``max_repeats`` for every
configuration would have taken, and whether each workload's answer is settled. Its section is
:func:`bench.reporting.render.markdown.runs.race_section`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from bench.reporting.analysis.race import SEPARATED, standings_of
from bench.reporting.frames.keys import CONFIG_KEY, ORDER
from bench.reporting.frames.speedups import DEFAULT_BASELINE
from bench.reporting.stats.paired import PARITY_MARGIN_PP

LOST, UNFINISHED = "lost", "unfinished"  # why codes of a replay: no record after its last repeat; the run ended first


@dataclass(frozen=True)
class Spent:
    """A raced run's repeats: ``table`` (CONFIG_KEY, ``repeats``, ``state``, ``reason``: a code and its numbers),
    ``used_s`` (point time of every record, s), ``full_s`` (each configuration's mean point time x ``max_repeats``,
    s) and per section (a workload on one data set) whether the leader separated (``settled``)."""

    table: pd.DataFrame
    used_s: float
    full_s: float
    max_repeats: int
    settled: dict[int, bool]


def replay(points: pd.DataFrame, baseline: str = DEFAULT_BASELINE, margin_pp: float = PARITY_MARGIN_PP) -> Spent | None:
    """The race of the raced points of ``points`` (a points frame), decided again from the records (None when no
    record is of a ``repeats=auto`` run). A configuration's reason is its standing after its last repeat."""
    if points.empty or "race_looks" not in points or not (points["race_looks"] > 1).any():
        return None
    raced = points[points["race_looks"] > 1]
    most, budget = int(raced["race_looks"].max()), float(raced["race_budget_s"].max())
    groups = raced.sort_values(ORDER, kind="mergesort").groupby(CONFIG_KEY, sort=False, dropna=False)
    counts = groups.agg(section=("section", "first"), strategy_id=("strategy_id", "first"), n=("repeat", "max"))
    final = standings_of(raced, most, baseline, budget, margin_pp)  # look by look, as the run decided
    rows = []
    settled: dict[int, bool] = {}
    for label, r in counts.iterrows():
        key = cast(tuple[Any, ...], label)  # a label of the MultiIndex over CONFIG_KEY: pandas types it Hashable
        st = final.get(tuple(key))
        state, reason = (st.state, st.reason) if st is not None else (LOST, (LOST,))
        if st is not None and st.running:
            state, reason = UNFINISHED, (UNFINISHED,)
        rows.append({**dict(zip(CONFIG_KEY, key, strict=True)), "section": r["section"],
                     "strategy_id": r["strategy_id"], "repeats": int(r["n"]) + 1, "state": state, "reason": reason})
        if state == SEPARATED:
            settled[int(r["section"])] = True
    table = pd.DataFrame(rows)
    for section in set(table["section"]):
        settled.setdefault(int(section), False)
    per_config = groups["point_wall_s"].mean()
    used = float(np.nansum(raced["point_wall_s"]))
    return Spent(table, used, float(np.nansum(per_config.to_numpy() * most)), most, settled)
