"""What limits a configuration's speed, in one sentence with its evidence and the lever that would help
(:mod:`bench.reporting.analysis.limits` labels it; this module only words it)."""

from __future__ import annotations

import math

import pandas as pd

from bench.reporting.analysis.limits import (
    FIXED_SHARE,
    INPUT,
    LEVERS,
    MIXED,
    UNDETERMINED,
)
from bench.reporting.frames.keys import CONFIG_KEY


def _ms(value: float) -> str:
    """Milliseconds in three significant figures; µs below 0.1 ms."""
    return f"{1e3 * value:.3g} µs" if value < 0.1 else f"{value:.3g} ms"


def limit_of(limits: pd.DataFrame, row: pd.Series) -> pd.Series | None:
    """The limits frame's row of the summary configuration ``row`` (None when it has none)."""
    if limits.empty:
        return None
    hit = limits[(limits[CONFIG_KEY] == pd.Series({k: row[k] for k in CONFIG_KEY})).all(axis=1)]
    return None if hit.empty else hit.iloc[0]


def limit_sentence(lim: pd.Series) -> str:
    """``overhead-bound: 1.21 ms a step at b32, 86 % [62, 102] of it fixed (1.71 ms at b128); …: <lever>``."""
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
                "second_batch=true, the default since 2026-11-28)")
    extra = ", a short extra stage" if lim.get("batch2_from") == "extra stage" else ""
    fixed = (f"{lim['fixed_share']:.0%} [{lim['fixed_low']:.0%}, {lim['fixed_high']:.0%}] of it fixed "
             f"({_ms(lim['step2_ms'])} at b{lim['batch2']}{extra})")
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
