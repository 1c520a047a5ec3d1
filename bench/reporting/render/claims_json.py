"""report.json's copy of a workload's claims (:mod:`bench.reporting.claims`): codes and numbers, the pairs the
answer compares, each with both sides' throughput and time to the target."""

from __future__ import annotations

import math

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from bench.reporting.claims import Claims, Pair
from bench.reporting.render.text import config_label
from bench.reporting.stats.ratio import RatioCI
from bench.reporting.stats.sample import as_float


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Ratio(_Part):
    """Throughput over ``vs``'s: the ratio of geometric means over processes, its 95 % interval (null under 3
    processes a side), processes a side, and whether it is a claim."""

    vs: str
    ratio: float | None = None
    low: float | None = None
    high: float | None = None
    n: int = 0
    n_vs: int = 0
    significant: bool = False


def _num(x: object) -> float | None:
    v = as_float(x)
    return v if math.isfinite(v) else None


def ratio_data(vs: str, ci: RatioCI) -> Ratio:
    return Ratio(vs=vs, ratio=_num(ci.ratio), low=_num(ci.low), high=_num(ci.high), n=ci.n_num, n_vs=ci.n_den,
                 significant=bool(ci.has_interval and ci.significant))


class Side(_Part):
    """One configuration of a compared pair: its label, throughput (examples/s, geometric mean over processes) and
    median training seconds to the target (null: not reached, or no target)."""

    configuration: str
    examples_per_s: float | None = None
    time_to_target_s: float | None = None


class Compared(_Part):
    """A pair of configurations as the report compares them: ``ratio`` is the first's throughput over the second's
    (``vs``), ``sooner`` the second's time to the target over the first's (> 1: the first is sooner), both for the
    same pair."""

    of: Side
    vs: Side
    ratio: Ratio
    sooner: float | None = None
    same_settings: bool = False


class Claimed(_Part):
    """A workload's conclusions as codes and numbers: ``outcome`` (winner | none_learns | none_finished |
    tradeoff); the winner's throughput range over processes; against the baseline's best (``vs_baseline``) and the
    runner-up strategy's best against it (``runner_up``), each one pair; the configuration quickest to the target
    where it is not the winner; a configuration that learns and ends more accurate by more than the parity margin
    (``accuracy_given_up_pp`` below it); the flags on the winner's row (too_short | trending | input_bound |
    earlier_definition | one_step) and its limit label."""

    outcome: str
    finished: int
    earlier_definition: bool = False
    examples_per_s_low: float | None = None
    examples_per_s_high: float | None = None
    processes: int = 0
    vs_baseline: Compared | None = None
    is_baseline: bool = False
    runner_up: Compared | None = None
    quickest_to_target: Side | None = None
    more_accurate: str | None = None
    accuracy_given_up_pp: float | None = None
    flags: list[str] = Field(default_factory=list)
    limit: str | None = None



def _side(row: pd.Series, target_s: float = math.nan) -> Side:
    return Side(configuration=config_label(row), examples_per_s=_num(row["examples_per_s"]),
                time_to_target_s=_num(target_s))


def _compared(p: Pair | None) -> Compared | None:
    if p is None:
        return None
    return Compared(of=_side(p.a, p.a_target_s), vs=_side(p.b, p.b_target_s),
                    ratio=ratio_data(config_label(p.b), p.ratio), sooner=_num(p.sooner), same_settings=p.same_settings)


def claims_data(c: Claims) -> Claimed:
    """report.json's copy of a workload's claims."""
    win, g = c.winner, c.given_up
    n = 0 if win is None else int(win.get("n_repeats") or 0)
    return Claimed(outcome=c.outcome, finished=c.n_finished, earlier_definition=c.earlier_definition,
                   examples_per_s_low=None if win is None or n < 2 else _num(win.get("repeat_rates_low")),
                   examples_per_s_high=None if win is None or n < 2 else _num(win.get("repeat_rates_high")),
                   processes=n, vs_baseline=_compared(c.vs_baseline), is_baseline=c.is_baseline,
                   runner_up=_compared(c.runner_up),
                   quickest_to_target=None if c.quickest is None else _side(c.quickest,
                                                                             c.quickest["time_to_target_s"]),
                   more_accurate=None if g is None else config_label(g.row),
                   accuracy_given_up_pp=None if g is None else _num(g.diff_pp), flags=list(c.flags),
                   limit=None if c.limit is None else str(c.limit["limit"]))
