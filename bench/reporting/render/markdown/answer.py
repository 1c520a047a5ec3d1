"""The report's opening answer, in a screen: per workload, the fastest configuration that learns, against the
baseline's best, what limits it, what it costs and how sure each number is, linking to its *Findings*. Budget:
:data:`ANSWER_LINES` lines, :data:`LINE_CHARS` characters (``tests/test_report_screen.py``). Docs: docs/reports.md,
*The answer*.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from bench.reporting.analysis.predict import PREDICTED, DevicePrediction, Pick, picks
from bench.reporting.claims import NONE_FINISHED, NONE_LEARNS, TRADEOFF, Claims
from bench.reporting.claims import claims as workload_claims
from bench.reporting.frames.keys import row_of, rows_of
from bench.reporting.render.labels import absent
from bench.reporting.render.markdown import conclusions
from bench.reporting.render.markdown.findings import backend_contrast
from bench.reporting.render.text import anchor, seconds, section_title, sig, usd
from bench.reporting.render.words import (
    BACKEND_NAMES,
    backend_name,
    caveats,
    device_name,
    device_words,
    earlier_note,
    none_learns,
    plain_config,
    priced_as,
    sureness,
    target_claim,
)
from bench.reporting.verdicts import Analysis

ANSWER_LINES = 40  # the answer section's lines, heading to the next section
LINE_CHARS = 300  # no line of the answer longer


def ran_on(summary: pd.DataFrame) -> str:
    """``JAX on 1 NVIDIA H200 and the 16-core CPU; PyTorch on 1 NVIDIA H200``: what ran (finished points), each
    device once (a CPU split into logical devices is the same CPU), accelerators first."""
    ok = summary[summary["status"] == "ok"]
    where: dict[str, list[str]] = {}
    for _, r in ok.sort_values("device_kind", key=lambda k: k == "cpu", kind="mergesort").iterrows():
        words = device_words(r, whole=True)
        name = BACKEND_NAMES.get(str(r["backend"]), str(r["backend"]))
        if words not in where.setdefault(name, []):
            where[name].append(words)
    return "; ".join(f"{b} on {_listed(d)}" for b, d in where.items()) or "nothing finished"


def _listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _next_best(c: Claims) -> list[str]:
    """The runner-up: the best configuration of the fastest other strategy (not the baseline's), against the
    winner, best against best, with both times to the target."""
    p = c.runner_up
    if p is None:
        return []
    r, win = p.a, p.b
    settings = ("the same settings" if p.same_settings else
                f"the fastest ran {plain_config(win, with_device=False)}")
    claim, figures = target_claim(p, "the fastest")
    said = f"; {claim} ({figures})" if claim else f"; {figures}" if math.isfinite(r["target_accuracy"]) else ""
    return [f"- Next: {backend_name(r)} on {device_words(r)}, at its best {plain_config(r, with_device=False)} "
            f"({settings}): {sig(p.ratio.ratio)}x the fastest's throughput ({sureness(p.ratio)}){said}."]


def _cost(priced: pd.DataFrame | None, win: pd.Series) -> str:
    """What a steady epoch and the target cost at the winner's price."""
    row = None if priced is None else row_of(priced, win)  # the priced summary's row of it (by its key)
    if row is None or not math.isfinite(row.get("usd_per_hour", math.nan)):
        return "- Cost: no price for its device (`price.KEY=USD` an hour sets one; *Prices used*)."
    target = (f", {usd(row['usd_to_target'])} to the target" if math.isfinite(row.get("usd_to_target", math.nan))
              else "")
    return (f"- Cost: {usd(row['usd_per_epoch'])} a steady epoch{target}, at {usd(row['usd_per_hour'])}/h, priced "
            f"as {priced_as(row)}.")


def _workload_lines(a: Analysis, priced: pd.DataFrame | None, c: Claims) -> list[str]:
    win = c.winner
    assert win is not None
    quick = conclusions.quickest(c)
    lines = [f"- {conclusions.fastest(win)}; {conclusions.accuracy(win)}.",
             *([f"- Read with: {said}."] if (said := caveats(a, c)) else []),
             f"- {conclusions.against_baseline(a, c)}.", *([f"- {quick}."] if quick else []), *_next_best(c)]
    if c.limit is not None:
        lines.append(f"- {conclusions.limit(c.limit)}.")
    lines.append(_cost(priced, win))
    return lines


def _pick_text(p: Pick) -> str:
    money = p.figure != "train_s"
    shown = usd if money else (lambda v: f"{seconds(v)} s")
    what = {"train_s": "an epoch", "usd_to_target": "to the target", "usd_per_epoch": "an epoch"}[p.figure]
    first = device_name(p.tied[0].device, kind=p.tied[0].kind)
    figure = f"{shown(p.value)} {what} [{shown(p.low)}, {shown(p.high)}]"
    if len(p.tied) == 1:
        return f"{p.what}: {first}, {figure}"
    rest = [device_name(d.device, kind=d.kind) for d in p.tied[1:]]
    return f"{p.what}: {first} ({figure}) not told apart from {_listed(rest)}"


def predicted_line(devices: Sequence[DevicePrediction]) -> list[str]:
    """For a workload that ran on no GPU: the fastest and the cheapest GPU predicted, or the devices whose
    intervals overlap ([] where nothing is predicted, or a GPU ran)."""
    found = picks(list(devices))
    if not found or not all(d.basis != PREDICTED for d in devices):
        return []
    return ["- Before you pay (GPUs predicted, no GPU run; 90% intervals, *What this model could reach*): "
            + "; ".join(_pick_text(p) for p in found) + "."]


def answer_section(a: Analysis, section: int, priced: pd.DataFrame | None = None,
                   claims: Claims | None = None, devices: Sequence[DevicePrediction] = ()) -> list[str]:
    """A workload's answer: a line naming it, what ran and a link to its section, then a few sentences
    (``devices``: its predictions, :func:`bench.reporting.analysis.predict.predict_workload`)."""
    summary = rows_of(a.summary, section)
    title = section_title(summary)
    gone = absent(summary)
    missing = f"; absent: {', '.join(f'`{s}`' for s in gone['strategy'])}" if not gone.empty else ""
    c = claims if claims is not None else workload_claims(a, section)
    if c.outcome == NONE_FINISHED:  # what was asked and why: its section, not a speed
        n = summary.groupby("status")["n_points"].sum()
        said = ", ".join(f"{int(k)} {status}" for status, k in sorted(n.items()))
        return [f"**{title}** ([evidence](#{anchor(title)})): nothing finished ({said}){missing}.",
                f"{none_learns(c)}{earlier_note(c)} Each point's reason: its section, *Nothing finished*.", ""]
    lines = [f"**{title}** ([evidence](#{anchor(title)})): ran {ran_on(summary)}{missing}."]
    lines += backend_contrast(summary)
    t = a.tradeoffs.get(section)
    if c.outcome == NONE_LEARNS:
        lines.append(none_learns(c))
    elif t is not None and c.outcome == TRADEOFF:
        lines.append(f"- {conclusions.tradeoff(t.fastest, t.most_accurate)} (*Findings*)." + earlier_note(c))
    else:
        lines += _workload_lines(a, priced, c)
    if c.outcome != NONE_LEARNS:
        lines += predicted_line(devices)
    return [*lines, ""]

