"""Each conclusion of a workload worded once: the fastest that learns, its accuracy, it against the baseline, the
quickest to the target, the trade-off and what limits it. :mod:`bench.reporting.claims` holds them as numbers and
codes; the answer states each of these sentences, and the findings state the same sentence and add their evidence
around it (tested: tests/test_findings.py). A ratio in a sentence is :func:`ratio_words` everywhere.
"""

from __future__ import annotations

import math

import pandas as pd

from bench.reporting.claims import Claims
from bench.reporting.render.markdown.limits import limit_brief
from bench.reporting.render.text import seconds, sig
from bench.reporting.render.words import plain_config, runs, sureness, target_claim
from bench.reporting.stats.ratio import RatioCI
from bench.reporting.verdicts import Analysis


def ratio_words(ci: RatioCI) -> str:
    """``1.06x (1 process each: no interval)``, ``1.11x (95% interval 1.02-1.23x over 3 vs 3 processes)``: a
    throughput ratio in a sentence (a table cell is :func:`bench.reporting.render.text.ratio_text`)."""
    said = sureness(ci)
    return f"{sig(ci.ratio)}x ({said})" if said else f"{sig(ci.ratio)}x"


def throughput(win: pd.Series) -> str:
    """``135,000 examples/s over 3 processes (121,000-162,000)``: its throughput and its range over processes."""
    n = int(win.get("n_repeats") or 0)
    lo, hi = win.get("repeat_rates_low", math.nan), win.get("repeat_rates_high", math.nan)
    spread = f" ({sig(lo)}-{sig(hi)})" if n >= 2 and math.isfinite(lo) and math.isfinite(hi) else ""
    return f"{sig(win['examples_per_s'])} examples/s over {n} process{'es' if n != 1 else ''}{spread}"


def fastest(win: pd.Series) -> str:
    """``Fastest that learns: **TensorFlow on the 2-core CPU, batch 32, ...**, 283 examples/s over 1 process``."""
    return f"Fastest that learns: **{plain_config(win)}**, {throughput(win)}"


def accuracy(win: pd.Series) -> str:
    """``final val accuracy 0.969 (1 training run: no interval)``: its final accuracy and the training runs it rests
    on, with their range from two."""
    n = int(win.get("n_seeds") or 0)
    acc = f"{win['final_val_accuracy']:.3f}"
    if n > 1 and math.isfinite(win.get("val_acc_min", math.nan)):
        acc += f" (range {win['val_acc_min']:.3f}-{win['val_acc_max']:.3f} over {runs(n)})"
    else:
        acc += f" ({runs(n)}: no interval)"
    return f"final val accuracy {acc}"


def against_baseline(a: Analysis, c: Claims) -> str:
    """Throughput and time to the target against the baseline's best configuration that learns: one pair (or why
    there is no speedup)."""
    p = c.vs_baseline
    if p is None:
        win = c.winner
        assert win is not None
        target = win.get("target_accuracy", math.nan)
        reached = (f"; it reached the target {target:.2f} after {seconds(win['time_to_target_s'])} s of training"
                   if math.isfinite(target) and win["reached_target"] else "")
        return f"No `{a.baseline}` configuration that learns ran beside it: no speedup{reached}"
    if c.is_baseline:
        target = p.a.get("target_accuracy", math.nan)
        reached = (f"; it reached the target {target:.2f} after {seconds(p.a_target_s)} s of training "
                   f"({runs(p.a_reached)})" if p.a_reached else "")
        return f"It is the best `{a.baseline}` configuration itself: no speedup{reached}"
    claim, figures = target_claim(p, "the baseline")
    both = f"{sig(p.ratio.ratio)}x the throughput" + (f", {claim}" if claim else "")
    return (f"Against the best `{a.baseline}` configuration that learns ({plain_config(p.b)}): **{both}** "
            f"({sureness(p.ratio)}; {figures})")


def quickest(c: Claims) -> str:
    """The quickest configuration to the target where that is not the winner ('' where it is, or none reached)."""
    quick = c.quickest
    if quick is None:
        return ""
    return (f"Quickest to the target {quick['target_accuracy']:.2f}: {plain_config(quick)}, "
            f"{seconds(quick['time_to_target_s'])} s of training ({runs(int(quick['n_reached']))})")


def tradeoff(fast: pd.Series, best: pd.Series) -> str:
    """No target, and the fastest that learns is not the most accurate: no single answer."""
    return (f"**No single answer**: the fastest that learns ({plain_config(fast)}) ends at "
            f"{fast['final_val_accuracy']:.3f}, the most accurate ({plain_config(best)}) at "
            f"{best['final_val_accuracy']:.3f}; a target accuracy would decide")


def limit(lim: pd.Series) -> str:
    """``What limits it: **compute-bound**: ...; a faster device would help``: the label, the figure it rests on
    and the lever (the findings add the evidence: :func:`bench.reporting.render.markdown.limits.limit_evidence`)."""
    return f"What limits it: {limit_brief(lim)}"
