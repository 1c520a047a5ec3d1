"""What limits a configuration's speed, in one sentence with its evidence and the lever that would help
(:mod:`bench.reporting.analysis.limits` labels it; this module only words it)."""

from __future__ import annotations

import math

import pandas as pd

from bench.reporting.analysis.limits import (
    COMPUTE,
    FIXED_SHARE,
    FROM_STAGE,
    HOST,
    HOST_SHARE,
    INPUT,
    KERNEL,
    MEMORY,
    MISSING_FLOOR,
    MIXED,
    NEIGHBOUR,
    NO_FLOORS,
    ONE_BATCH,
    PARTIAL_COUNT,
    PROCESSES_DIFFER,
    ROOF_SHARE,
    UNDETERMINED,
    agrees,
)
from bench.reporting.render.levers import lever_of
from bench.reporting.render.text import sig


def _ms(value: float) -> str:
    """Milliseconds in three significant figures; µs below 0.1 ms."""
    if value >= 1000:  # never in exponent notation
        return f"{sig(value / 1e3)} s"
    return f"{sig(1e3 * value)} µs" if value < 0.1 else f"{sig(value)} ms"


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


def _share(part: float, whole: float) -> str:
    """``67%``, ``0.0531%``: a floor's share of the step, a whole percent from 10 %, three significant figures below
    (docs/reports.md, *One rounding rule*)."""
    pct = 100 * part / whole
    return f"{sig(pct)}%" if pct < 10 else f"{pct:.0f}%"


def _floors(lim: pd.Series) -> str:
    """``its FLOPs at the measured peak take 0.77 µs (0.045%); no byte count``: each floor with its share of the
    step (a floor above the step is said to overstate it), then the floors these records lack."""
    step, said, lacking = lim["step_ms"], [], []
    for what, key, none in (("FLOPs at the measured peak", "compute_floor_ms", "no FLOP count or peak"),
                            ("bytes at the measured bandwidth", "memory_floor_ms", "no byte count")):
        floor = lim.get(key, math.nan)
        if not math.isfinite(floor):
            lacking.append(none)
            continue
        over = ", more than the step: the count overstates what moved" if floor > step else ""
        said.append(f"{what} take {_ms(floor)} ({_share(floor, step)}{over})")
    return "; ".join(p for p in (f"its {', '.join(said)}" if said else "", ", ".join(lacking)) if p)


def _fixed(lim: pd.Series) -> str:
    """``86% [62%, over 100%] of it fixed (1.71 ms at b128)``; '' without a second batch or a fixed share."""
    if not lim["batch2"] or not math.isfinite(lim.get("fixed_share", math.nan)):
        return ""
    extra = ", a short extra stage" if lim.get("batch2_from") == FROM_STAGE else ""
    low, high = _bound(lim["fixed_low"]), _bound(lim["fixed_high"])
    fixed = (f"{_point(lim['fixed_share'])} [{low}, {high}] of it fixed" if low != high else
             f"{_point(lim['fixed_share'])} of it fixed, {low} throughout its 95% interval")
    return f"{fixed} ({_ms(lim['step2_ms'])} at b{lim['batch2']}{extra})"


def _processes(lim: pd.Series) -> str:
    """How many processes the label rests on: ``one process a side: repeats=3 checks it``, ``5 of 5 processes
    alone say the same``, or the processes' own labels where they differ."""
    own = tuple(lim.get("process_labels") or ())
    if lim["limit"] == UNDETERMINED and lim.get("reason") == PROCESSES_DIFFER:
        counts = {label: own.count(label) for label in dict.fromkeys(own)}
        return "the processes' own labels differ: " + ", ".join(f"{n} {label}" for label, n in counts.items())
    if own:
        same = sum(agrees(label, lim["limit"]) for label in own)
        return f"{same} of {len(own)} processes alone say the same"
    one = int(lim.get("n_processes", 1) or 1) < 2 and lim["limit"] != UNDETERMINED
    return "read from one process a side: repeats=3 checks it" if one else ""


def _why(lim: pd.Series) -> str:
    """The label's reason in words: what the evidence says, before the lever."""
    label = lim["limit"]
    if label in (COMPUTE, MEMORY):
        return f"the {'FLOPs' if label == COMPUTE else 'bytes'} floor is past the {ROOF_SHARE:.0%} that marks a roof"
    if label == KERNEL:
        return (f"the step grows with the batch, yet no floor reaches {ROOF_SHARE:.0%} of it: the kernels run below "
                "the device's roofs")
    if label == HOST:
        where = ("the framework's per-step cost, the input, or kernels far below the CPU's peak"
                 if lim.get("device_kind") == "cpu" else "the framework's per-step cost or the input, on the host")
        return f"the device's floors explain under {HOST_SHARE:.0%} of the step: the time goes to {where}"
    if label == MIXED:
        return "fixed cost and device work both weigh"
    if label != UNDETERMINED:
        return ""
    reason = lim.get("reason")
    if reason == NEIGHBOUR:
        return (f"other processes kept {lim['others_busy']:.0%} of the machine's CPUs busy during the fit, so floors "
                "measured on a quiet machine do not hold")
    if reason == PARTIAL_COUNT:
        missed = ", ".join(lim["uncounted"][:3]) + (", …" if len(lim["uncounted"]) > 3 else "")
        return (f"the FLOP and byte counts do not see into {missed}, so the floors are lower bounds and cannot show "
                "the step far from a roof")
    if reason == ONE_BATCH:
        return "the records hold no other batch of this configuration, which is what tells fixed from per-example cost"
    if reason == NO_FLOORS:
        return "these records have no FLOP count or peak to say how far the step is from a roof"
    if reason == MISSING_FLOOR:
        lacking = "bytes (no byte count in the records)" if not math.isfinite(lim.get("memory_floor_ms", math.nan)) \
            else "FLOPs (no FLOP count or peak)"
        return f"without a floor for its {lacking}, nothing shows the step far from a roof"
    if reason == PROCESSES_DIFFER:
        return _processes(lim)
    return f"its fixed share's interval straddles {FIXED_SHARE:.0%} and no floor decides"


def _lever(lim: pd.Series) -> str:
    """The lever in the answer's few words, with the command that measures it."""
    lever = lever_of(lim)
    text = lever.short or lever.text
    if "backends=" in lever.command:  # the quickstart installs TensorFlow alone
        return f"{text} (`{lever.command}`, after `pip install -e .[jax,torch]`)"
    return f"{text} (`{lever.command}`)" if lever.command else text


def limit_evidence(lim: pd.Series) -> str:
    """What the findings add to :func:`limit_brief`: ``1.71 ms a step at b128, 61% [29%, over 100%] of it fixed
    (1.21 ms at b32); its FLOPs at the measured peak take 0.77 µs (0.045%); no byte count; <why> (<processes>)``,
    then the lever in full where it says more than the brief's."""
    label, lever = lim["limit"], lever_of(lim)
    more = lever.text if lever.short and lever.text != lever.short else ""
    more = more[len(lever.short):].lstrip(";, ") if more.startswith(lever.short) else more  # only what it adds
    if label == INPUT:  # the brief's share is the evidence
        return more
    said = ", ".join(p for p in (f"{_ms(lim['step_ms'])} a step at b{lim['global_batch_size']}", _fixed(lim)) if p)
    alone = "" if label == UNDETERMINED else _processes(lim)
    why = _why(lim)
    return "; ".join(p for p in (said, _floors(lim), f"{why} ({alone})" if why and alone else why or alone, more)
                     if p)


def limit_brief(lim: pd.Series) -> str:
    """What limits a configuration in one short clause for the opening answer (the full sentence, with every floor:
    :func:`limit_evidence` adds the rest): the label, the figure it rests on, the lever and its command."""
    label, step = lim["limit"], _ms(lim["step_ms"])
    if label == INPUT:
        return (f"**{label}**: it trains at {lim['input_share']:.0%} of its input pipeline's own rate; "
                f"{_lever(lim)}")
    floors = [f for f in (lim.get("compute_floor_ms", math.nan), lim.get("memory_floor_ms", math.nan))
              if math.isfinite(f)]
    device = max(floors) / lim["step_ms"] if floors else math.nan
    if label in (COMPUTE, MEMORY):
        what = "FLOPs at the measured peak" if label == COMPUTE else "bytes at the measured bandwidth"
        floor = lim["compute_floor_ms" if label == COMPUTE else "memory_floor_ms"]
        figure = f"its {what} take {_share(floor, lim['step_ms'])} of a {step} step"
    elif label in (KERNEL, HOST) and math.isfinite(device):
        figure = f"the device's floors explain {_share(device, 1.0)} of a {step} step"
        if label == KERNEL:
            figure += ", which grows with the batch"
    elif lim["batch2"] and math.isfinite(lim["fixed_share"]) and lim.get("reason") != PROCESSES_DIFFER:
        point = _point(lim["fixed_share"])
        why = {"all": "; the step took no longer at the other batch", "none": "; the step grew faster than the batch"}
        figure = (f"{point} of a {step} step is fixed cost ({_interval(lim['fixed_low'], lim['fixed_high'])}"
                  f"{why.get(point, '')})")
    elif lim.get("reason") == PROCESSES_DIFFER:
        figure = f"a {step} step; {_processes(lim)}"
    elif lim.get("reason") in (NEIGHBOUR, PARTIAL_COUNT, MISSING_FLOOR):
        figure = f"a {step} step, {_why(lim)}"
    elif lim.get("reason") == ONE_BATCH:
        figure = f"a {step} step, timed at one batch only"
    else:
        figure = f"a {step} step, {_why(lim)}"
    alone = " (one process a side)" if int(lim.get("n_processes", 1) or 1) < 2 and label != UNDETERMINED else ""
    return f"**{label}**: {figure}{alone}; {_lever(lim)}"
