"""The report's opening answer, in a screen: per workload, in sentences a newcomer reads without the glossary, on
which devices and backends it ran, its fastest configuration that learns, that configuration's speedup over the
baseline's best in throughput and in time to the target side by side, what limits it, what an epoch and the target
cost, how sure each number is, and a link to the section with the evidence (its *Findings* say every verdict in
full: :mod:`bench.reporting.render.markdown.findings`). Never imports TensorFlow.

Budget (issue 53): the answer of a report of four workloads within :data:`ANSWER_LINES` lines, none over
:data:`LINE_CHARS` characters (tests/test_report_screen.py renders the quickstart's and the H200 run's records).
"""

from __future__ import annotations

import math

import pandas as pd

from bench.reporting.frames.keys import row_of, rows_of, same_config, same_settings
from bench.reporting.frames.labels import split_label
from bench.reporting.frames.speedups import baseline_rows, ratio_ci
from bench.reporting.render.markdown.findings import BACKEND_NAMES, backend_contrast
from bench.reporting.render.markdown.limits import limit_brief
from bench.reporting.render.text import anchor, seconds, sig, usd, workload_title
from bench.reporting.stats.ratio import RatioCI
from bench.reporting.verdicts import Analysis, absent_strategies, best_baseline, fastest_to_target, winner

ANSWER_LINES = 40  # the answer section's lines, heading to the next section
LINE_CHARS = 300  # no line of the answer longer


def backend_name(row: pd.Series) -> str:
    """``JAX``, ``PyTorch (torch.compile)``, ``TensorFlow``: the backend a configuration ran under, and compiler."""
    name = BACKEND_NAMES.get(str(row.get("backend") or split_label(str(row["strategy"]))[0]), str(row["backend"]))
    mark = str(row.get("compiler_mark") or "").strip()
    return f"{name} {mark}" if mark else name


def device_words(row: pd.Series, whole: bool = False) -> str:
    """``1 NVIDIA H200``, ``8 TPU v5 lite``, ``the 16-core CPU as 2 devices``: what a configuration trained on
    (``whole``: a CPU without its split into logical devices)."""
    kind, n = str(row.get("device_kind") or ""), int(row.get("num_replicas") or 1)
    accelerator = str(row.get("accelerator") or "").strip()
    if kind == "cpu" or not kind:
        cores = row.get("cpu_count")
        core = f"{int(cores)}-core " if isinstance(cores, int | float) and math.isfinite(cores) and cores else ""
        split = f" as {n} devices" if n > 1 and not whole else ""
        return f"the {core}CPU{split}"
    return f"{n} {accelerator or kind.upper()}" + ("" if accelerator or n == 1 else "s")


def plain_config(row: pd.Series, with_device: bool = True) -> str:
    """``JAX on 1 NVIDIA H200, batch 128, 8 steps a call, float32 (tf32)``: a configuration in words."""
    spe = int(row["steps_per_execution"])
    maths = str(row.get("arithmetic") or "").split(" (")[0]
    maths = "" if maths == "fp32" and row["precision"] == "float32" else maths  # said only where it is not plain
    where = f"{backend_name(row)} on {device_words(row)}, " if with_device else ""
    return (f"{where}batch {int(row['global_batch_size'])}, {spe} step{'s' if spe != 1 else ''} a call, "
            f"{row['precision']}{f' ({maths})' if maths else ''}")


def sureness(ci: RatioCI) -> str:
    """How sure a throughput ratio is, in words: its 95% interval over processes, or why it has none."""
    if not math.isfinite(ci.ratio):
        return ""
    if not ci.has_interval:
        n = f"{ci.n_num} process{'es' if ci.n_num != 1 else ''}"
        sides = f"{n} each" if ci.n_num == ci.n_den else f"{ci.n_num} vs {ci.n_den} processes"
        return f"{sides}: no interval"
    said = "" if ci.significant else ", not told apart from 1x"
    return f"95% interval {sig(ci.low)}-{sig(ci.high)}x over {ci.n_num} vs {ci.n_den} processes{said}"


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


def _runs(n: int, m: int | None = None) -> str:
    """``1 training run each``, ``3 vs 2 training runs``, ``3 training runs``."""
    if m is None:
        return f"{n} training run{'s' if n != 1 else ''}"
    return f"{_runs(n)} each" if n == m else f"{n} vs {m} training runs"


def _quickest(summary: pd.DataFrame, win: pd.Series) -> list[str]:
    """The quickest configuration to the target, where that is not the winner (and not a tie with it)."""
    quick = fastest_to_target(summary)
    if quick is None or same_config(quick, win) or (
            win["reached_target"] and quick["time_to_target_s"] >= 0.95 * win["time_to_target_s"]):
        return []
    return [f"- Quickest to the target {quick['target_accuracy']:.2f}: {plain_config(quick)}, "
            f"{seconds(quick['time_to_target_s'])} s of training ({_runs(int(quick['n_reached']))})."]


def _time_to_target(b: pd.Series | None, win: pd.Series) -> tuple[str, str]:
    """The winner's own time to the target against the baseline configuration ``b``'s (the quickest of the baseline to
    it): (the claim, in bold beside the throughput, and its figures); ("", a sentence) where none is compared."""
    target = win.get("target_accuracy", math.nan)
    if not math.isfinite(target):
        return "", "no target accuracy is set to time (`Workload(..., target_accuracy=...)`)"
    if not win["reached_target"]:
        return "", f"it did not reach the target {target:.2f} ({int(win['n_reached'])} of {int(win['n_seeds'])} runs)"
    mine = f"{seconds(win['time_to_target_s'])} s"
    if b is None:
        return "", f"it reached the target {target:.2f} after {mine} of training, the baseline never did"
    if same_config(b, win):
        return "", f"it reached the target {target:.2f} after {mine} of training ({_runs(int(win['n_reached']))})"
    ratio = b["time_to_target_s"] / win["time_to_target_s"]
    said = f"{sig(ratio, 2)}x sooner" if ratio >= 1 else f"{sig(1 / ratio, 2)}x later"
    theirs = seconds(b["time_to_target_s"])
    return (f"{said} to the target {target:.2f}", f"{mine} vs the baseline's quickest {theirs} s of training, "
            f"{_runs(int(win['n_reached']), int(b['n_reached']))}")


def _against_baseline(a: Analysis, summary: pd.DataFrame, win: pd.Series) -> list[str]:
    """Throughput and time to the target against the baseline's best configurations that learn, side by side."""
    b = best_baseline(a, summary, win)
    base = baseline_rows(summary, a.baseline)
    base = base[base["learns"] & base["reached_target"]] if len(base) else base
    quick_base = base.sort_values("time_to_target_s", kind="mergesort").iloc[0] if len(base) else None
    claim, figures = _time_to_target(quick_base, win)
    if b is None:
        return [f"- No `{a.baseline}` configuration that learns ran beside it: no speedup; {figures}."]
    if same_config(b, win):  # another of the baseline's configurations may still reach the target sooner
        said = f"{claim} than the `{a.baseline}` configuration quickest to it ({figures})" if claim else figures
        return [f"- It is the `{a.baseline}` baseline itself; {said}."]
    ci = ratio_ci(win, b)
    if not claim:
        return [f"- Against the best `{a.baseline}` configuration that learns ({plain_config(b)}): **{sig(ci.ratio)}x "
                f"the throughput** ({sureness(ci)}); {figures}."]
    return [f"- Against the best `{a.baseline}` configuration that learns ({plain_config(b)}): **{sig(ci.ratio)}x "
            f"the throughput, {claim}** ({sureness(ci)}; {figures})."]


def _next_best(a: Analysis, summary: pd.DataFrame, win: pd.Series) -> list[str]:
    """The best other strategy or backend against the winner at equal settings: at the winner's own where it ran
    them, else at its own best against the winner's strategy there; else with the settings named."""
    learns = summary[summary["learns"]]
    others = learns[(learns["strategy"] != win["strategy"])
                    & ~learns["strategy"].isin(set(baseline_rows(summary, a.baseline)["strategy"]))]
    if others.empty:
        return []
    top = others.sort_values("examples_per_s", ascending=False, kind="mergesort").iloc[0]
    pairs = [(r, win) for _, r in others[others["strategy"] == top["strategy"]].iterrows() if same_settings(r, win)]
    pairs += [(top, w) for _, w in learns[learns["strategy"] == win["strategy"]].iterrows() if same_settings(top, w)]
    r, w = pairs[0] if pairs else (top, win)
    ci = ratio_ci(r, w)
    if not pairs:
        return [f"- Next: {backend_name(r)} on {device_words(r)}, at its best "
                f"{plain_config(r, with_device=False)} (the fastest ran {plain_config(win, with_device=False)}): "
                f"{sig(ci.ratio, 2)}x its throughput ({sureness(ci)})."]
    who = f"{backend_name(w)} on {device_words(w)}" if r["strategy"] != w["strategy"] else "it"
    return [f"- Next: {backend_name(r)} on {device_words(r)}, at {plain_config(r, with_device=False)} (the same "
            f"settings): {sig(ci.ratio, 2)}x the throughput of {who} there ({sureness(ci)})."]


def _cost(priced: pd.DataFrame | None, win: pd.Series) -> str:
    """What a steady epoch and the target cost at the winner's price."""
    row = None if priced is None else row_of(priced, win)  # the priced summary's row of it (by its key)
    if row is None or not math.isfinite(row.get("usd_per_hour", math.nan)):
        return "- Cost: no price for its device (`price.KEY=USD` an hour sets one; *Prices used*)."
    target = (f", {usd(row['usd_to_target'])} to the target" if math.isfinite(row.get("usd_to_target", math.nan))
              else "")
    return (f"- Cost: {usd(row['usd_per_epoch'])} a steady epoch{target}, at {usd(row['usd_per_hour'])}/h, priced "
            f"as {row['priced_as']}.")


def _accuracy(win: pd.Series) -> str:
    """Its final accuracy and how many training runs it rests on."""
    n = int(win.get("n_seeds") or 0)
    acc = f"{win['final_val_accuracy']:.3f}"
    if n > 1 and math.isfinite(win.get("val_acc_min", math.nan)):
        acc += f" (range {win['val_acc_min']:.3f}-{win['val_acc_max']:.3f} over {n} training runs)"
    else:
        acc += f" ({n} training run{'s' if n != 1 else ''}: no interval)"
    return f"final val accuracy {acc}"


def _workload_lines(a: Analysis, summary: pd.DataFrame, priced: pd.DataFrame | None, win: pd.Series) -> list[str]:
    n = int(win.get("n_repeats") or 0)
    lines = [f"- Fastest that learns: **{plain_config(win)}**, {win['examples_per_s']:,.0f} examples/s over {n} "
             f"process{'es' if n != 1 else ''}; {_accuracy(win)}.", *_against_baseline(a, summary, win),
             *_quickest(summary, win), *_next_best(a, summary, win)]
    lim = row_of(a.limits, win)
    if lim is not None:
        lines.append(f"- What limits it: {limit_brief(lim)}.")
    lines.append(_cost(priced, win))
    return lines


def answer_section(a: Analysis, workload: str, dataset: str, priced: pd.DataFrame | None = None) -> list[str]:
    """A workload's answer: a line naming it, what ran and a link to its section, then a few sentences."""
    summary = rows_of(a.summary, workload, dataset)
    title = workload_title(workload, dataset)
    absent = absent_strategies(summary)
    missing = f"; absent: {', '.join(f'`{s}`' for s in absent['strategy'])}" if not absent.empty else ""
    lines = [f"**{title}** ([evidence](#{anchor(title)})): ran {ran_on(summary)}{missing}."]
    lines += backend_contrast(summary)
    win = winner(a, workload, dataset)
    t = a.tradeoffs.get((workload, dataset))
    if win is None:
        ok = int((summary["status"] == "ok").sum())
        lines.append(f"- **No configuration learns** ({ok} finished): its speeds say nothing about training; why and "
                     "what to try: its section, *Does not learn*." if ok else "- **No configuration finished.**")
    elif t is not None and not t.settled:
        fast, best = t.fastest, t.most_accurate
        lines.append(f"- **No single answer**: the fastest that learns ({plain_config(fast)}) ends at "
                     f"{fast['final_val_accuracy']:.3f}, the most accurate ({plain_config(best)}) "
                     f"at {best['final_val_accuracy']:.3f}; a target accuracy would decide (*Findings*).")
    else:
        lines += _workload_lines(a, summary, priced, win)
    return [*lines, ""]

