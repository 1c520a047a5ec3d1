"""What limits a configuration's speed, in one sentence with its evidence and the lever that would help
(:mod:`bench.reporting.analysis.limits` labels it; this module only words it)."""

from __future__ import annotations

import math

import pandas as pd

from bench.reporting.analysis.limits import (
    COMPUTE,
    FIXED_SHARE,
    INPUT,
    MEMORY,
    MIXED,
    UNDETERMINED,
)
from bench.reporting.render.words import LEVERS


def _ms(value: float) -> str:
    """Milliseconds in three significant figures; µs below 0.1 ms."""
    if value >= 1000:  # never in exponent notation
        return f"{value / 1e3:.3g} s"
    return f"{1e3 * value:.3g} µs" if value < 0.1 else f"{value:.3g} ms"


def _bound(share: float) -> str:
    """An end of a fixed share's interval: ``38%``, ``over 100%``, ``below 0%``."""
    return "over 100%" if round(100 * share) > 100 else "below 0%" if round(100 * share) < 0 else f"{share:.0%}"


def _point(share: float) -> str:
    """A fixed share as a reader can take it literally: the estimate from two step times leaves 0-100 % when noise
    makes the step shrink at the bigger batch ("all") or it grows faster than the batch ("none")."""
    said = _bound(share)
    return {"over 100%": "all", "below 0%": "none"}.get(said, said)


def _interval(low: float, high: float) -> str:
    """A fixed share's 95 % interval in words: ``95% interval 38% to over 100%``, ``below 0% throughout its 95%
    interval`` when both ends lie past the same edge."""
    a, b = _bound(low), _bound(high)
    return f"95% interval {a} to {b}" if a != b else f"{a} throughout its 95% interval"


def limit_sentence(lim: pd.Series) -> str:
    """``overhead-bound: 1.21 ms a step at b32, 86% [62%, over 100%] of it fixed (1.71 ms at b128); …: <lever>``."""
    label, step = lim["limit"], lim["step_ms"]
    floor = (f"; its FLOPs at the measured peak take {_ms(lim['compute_floor_ms'])}"
             if math.isfinite(lim["compute_floor_ms"]) else "")
    memory = lim.get("memory_floor_ms", math.nan)
    floor += (f"{', its' if floor else '; its'} bytes at the measured bandwidth {_ms(memory)}"
              if math.isfinite(memory) else "")
    if label == INPUT:
        return (f"**{label}**: training runs at {lim['input_share']:.0%} of the rate its input pipeline delivers "
                f"alone; {LEVERS[INPUT]}")
    if not lim["batch2"]:
        return (f"**{UNDETERMINED}**: {_ms(step)} a step at b{lim['global_batch_size']}{floor}; the records hold no "
                "other batch of this configuration, which is what tells fixed from per-example cost (sweep "
                f"batch_sizes=[{lim['global_batch_size']},{2 * lim['global_batch_size']}], or run with "
                "second_batch=true, the default)")
    extra = ", a short extra stage" if lim.get("batch2_from") == "extra stage" else ""
    low, high = _bound(lim["fixed_low"]), _bound(lim["fixed_high"])
    fixed = (f"{_point(lim['fixed_share'])} [{low}, {high}] of it fixed" if low != high else
             f"{_point(lim['fixed_share'])} of it fixed, {low} throughout its 95% interval")
    fixed += f" ({_ms(lim['step2_ms'])} at b{lim['batch2']}{extra})"
    said = f"{_ms(step)} a step at b{lim['global_batch_size']}, {fixed}{floor}"
    if label in LEVERS:
        return f"**{label}**: {said}: {LEVERS[label]}"
    if label == MIXED:
        return f"**{label}**: {said}: fixed cost and device work both weigh"
    why = (f"its fixed share's interval straddles {FIXED_SHARE:.0%} (more repeats would tell)"
           if lim["fixed_low"] < FIXED_SHARE <= lim["fixed_high"] else
           "the step grows with the batch and its compute floor explains under half of it; these records have no "
           "memory floor (bandwidth probe or byte count) to tell memory traffic from uncounted work")
    return f"**{UNDETERMINED}**: {said}; {why}"


def limit_brief(lim: pd.Series) -> str:
    """What limits a configuration in one short clause for the opening answer (the full sentence, with every floor:
    :func:`limit_sentence`): the label, the one figure it rests on with its interval, the lever."""
    label, step = lim["limit"], _ms(lim["step_ms"])
    if label == INPUT:
        return f"**{label}**: it trains at {lim['input_share']:.0%} of its input pipeline's own rate; {LEVERS[INPUT]}"
    if not lim["batch2"]:
        return (f"**{UNDETERMINED}**: these records time one batch only, and fixed cost is told from per-example "
                "cost by a second (`second_batch=true`, the default today, measures one)")
    point = _point(lim["fixed_share"])
    why = {"all": "; the step took no longer at the other batch", "none": "; the step grew faster than the batch"}
    share = (f"{point} of a {step} step is fixed cost ({_interval(lim['fixed_low'], lim['fixed_high'])}"
             f"{why.get(point, '')})")
    floors = {COMPUTE: ("FLOPs at the measured peak", lim["compute_floor_ms"]),
              MEMORY: ("bytes at the measured bandwidth", lim.get("memory_floor_ms", math.nan))}
    what, floor = floors.get(label, ("", math.nan))
    if math.isfinite(floor):
        share += f", its {what} take {_ms(floor)}"
    if label in LEVERS:
        return f"**{label}**: {share}; {LEVERS[label]}"
    if label == MIXED:
        return f"**{label}**: {share}; fixed cost and device work both weigh"
    straddles = lim["fixed_low"] < FIXED_SHARE <= lim["fixed_high"]
    return f"**{label}**: {share}; {'more repeats would tell' if straddles else 'no memory floor to tell more'}"
