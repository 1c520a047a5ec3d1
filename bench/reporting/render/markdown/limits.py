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
    OVERHEAD,
    UNDETERMINED,
)
from bench.reporting.frames.keys import CONFIG_KEY

LEVERS = {
    INPUT: "a faster input pipeline (decoded data cached, more parallel reads), not a faster device, would help",
    OVERHEAD: "a larger batch or steps_per_execution would help; a faster device would not",
    COMPUTE: "a faster device, or a narrower arithmetic (mixed precision), would help",
    MEMORY: "fewer bytes moved (fusion, a narrower dtype) or more bandwidth would help",
}


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
    if label == INPUT:
        return (f"**{label}**: training runs at {lim['input_share']:.0%} of the rate its input pipeline delivers "
                f"alone; {LEVERS[INPUT]}")
    if not lim["batch2"]:
        return (f"**{UNDETERMINED}**: {_ms(step)} a step at b{lim['global_batch_size']}{floor}; the records hold no "
                "other batch of this configuration, which is what tells fixed from per-example cost (sweep "
                f"batch_sizes=[{lim['global_batch_size']},{2 * lim['global_batch_size']}])")
    fixed = (f"{lim['fixed_share']:.0%} [{lim['fixed_low']:.0%}, {lim['fixed_high']:.0%}] of it fixed "
             f"({_ms(lim['step2_ms'])} at b{lim['batch2']})")
    said = f"{_ms(step)} a step at b{lim['global_batch_size']}, {fixed}{floor}"
    if label in LEVERS:
        return f"**{label}**: {said}: {LEVERS[label]}"
    if label == MIXED:
        return f"**{label}**: {said}: fixed cost and device work both weigh"
    why = (f"its fixed share's interval straddles {FIXED_SHARE:.0%} (more repeats would tell)"
           if lim["fixed_low"] < FIXED_SHARE <= lim["fixed_high"] else
           "the step grows with the batch, and neither counted floor explains it (memory traffic or uncounted "
           "work: a profiler would tell)")
    return f"**{UNDETERMINED}**: {said}; {why}"
