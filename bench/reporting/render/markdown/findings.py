"""A workload section's *Findings*: every verdict about its fastest configuration that learns, each in full (its
limit with the evidence, accuracy held, warm-up, other strategies and backends, compilers, wrappers, absent
hardware). The report's opening answer (:mod:`bench.reporting.render.markdown.answer`) says the essentials in a
screen and links here. Never imports TensorFlow."""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import pandas as pd

from bench.reporting.analysis.seeds import DIFFERS, NO_CLAIM
from bench.reporting.analysis.tradeoff import Tradeoff
from bench.reporting.claims import (
    NONE_FINISHED,
    NONE_LEARNS,
    TRADEOFF,
    Claims,
    Pair,
    backend_bests,
    strategy_bests,
    tradeoff_pairs,
)
from bench.reporting.claims import claims as workload_claims
from bench.reporting.frames.keys import compared_spe, config_key, rows_of, same_config, same_settings
from bench.reporting.frames.learning import PROBABILITY_CODES
from bench.reporting.frames.speedups import speedup_ci
from bench.reporting.render.markdown import conclusions
from bench.reporting.render.markdown.accuracy import NO_CLAIM_HOW, accuracy_evidence, accuracy_range
from bench.reporting.render.markdown.conclusions import ratio_words
from bench.reporting.render.markdown.learning import PROBABILITY_LOSS
from bench.reporting.render.markdown.limits import limit_evidence
from bench.reporting.render.text import (
    config_label,
    config_name,
    counted,
    flag,
    markdown_table,
    number,
    rate,
    ratio_text,
    seconds,
    sig,
    with_backend,
)
from bench.reporting.render.words import (
    BACKEND_NAMES,
    arithmetic_words,
    caveats,
    codes_of,
    none_learns,
    not_learning_text,
    runs,
    verdict_words,
)
from bench.reporting.verdicts import Analysis, winner


def _vs_best_cell(p: Pair | None, named: bool) -> str:
    """A strategy's best against the baseline's best (both examples/s in the table), that one ``named`` (a host's)."""
    if p is None:
        return "n/a (no baseline)"
    if same_config(p.a, p.b):
        return "baseline"
    return f"{ratio_text(p.ratio)} vs {p.b['strategy']}" if named else ratio_text(p.ratio)


def best_section(a: Analysis, section: int) -> list[str]:
    """A section's best configuration per strategy and its winner."""
    bests = strategy_bests(a, section)
    if not bests:
        return ["No configuration of this workload learns: nothing is ranked.", ""]
    named = sum(p is not None and same_config(p.a, p.b) for _, p in bests) > 1
    rows = [{"strategy": r["strategy"], "best configuration": config_name(r),
             "examples/s": rate(r['examples_per_s']), f"vs the best {a.baseline}": _vs_best_cell(p, named),
             "train s/epoch": seconds(r["train_s_median"]), "final val acc": number(r["final_val_accuracy"], ".3f")}
            for r, p in bests]
    names = [(r["backend"], r["strategy_label"]) for r, _ in bests]
    win = winner(a, section)
    if win is None:  # best configurations exist only where a winner does
        return [markdown_table(with_backend(rows, a.show_backend, names)), ""]
    t = a.tradeoffs.get(section)
    if t is not None and not t.settled:
        return [markdown_table(with_backend(rows, a.show_backend, names)), "",
                f"**Fastest that learns:** {config_label(win)}, {sig(win['examples_per_s'])} examples/s, final val "
                f"accuracy {win['final_val_accuracy']:.3f}; no overall winner: without a target it is not the most "
                "accurate (the trade-off is in the answer above).", ""]
    return [markdown_table(with_backend(rows, a.show_backend, names)), "",
            f"**Overall winner:** {config_label(win)}, {sig(win['examples_per_s'])} examples/s, final val accuracy "
            f"{win['final_val_accuracy']:.3f} (highest throughput among the configurations that learn).", ""]


def _winner_lines(a: Analysis, summary: pd.DataFrame, c: Claims) -> list[str]:
    """The bullets about the winner: its throughput against the baseline, every other strategy's best, accuracy,
    the fastest to the target (when that is another configuration) and warm-up."""
    win = c.winner
    assert win is not None
    lines = [f"- {conclusions.fastest(win)}, the tables' {config_label(win)}. {conclusions.against_baseline(a, c)}."]
    said = caveats(a, c)
    lines += [f"- **Read with:** {said}."] if said else []
    if c.limit is not None:
        evidence = limit_evidence(c.limit)
        lines += [f"- {conclusions.limit(c.limit)}.", *([f"  - The evidence: {evidence}."] if evidence else [])]
    same = ratio_words(speedup_ci(win)) if win["baseline"] and not win["is_baseline"] else ""
    if same and not (c.vs_baseline is not None and same_settings(c.vs_baseline.b, win)):
        lines.append(f"- Against `{win['baseline']}` at its own batch, spe and precision (the results table's "
                     f"speedup column): {same}.")
    if c.others:
        items = [f"`{p.a['strategy']}` {config_name(p.a)} {ratio_words(p.ratio)}" for p in c.others]
        lines.append(f"- **Every other strategy's best configuration that learns**, in throughput relative "
                     f"to it: {'; '.join(items)}.")
    lines += _backend_line(a, c.section)
    lines.append(f"- **Accuracy:** {conclusions.accuracy(win)}; {accuracy_evidence(win)}.")
    quick = conclusions.quickest(c)
    if quick:
        lines.append(f"- {quick}. The highest throughput does not always reach an accuracy first: a larger batch "
                     "takes fewer, bigger steps.")
    be = rows_of(a.break_even, c.section)
    be = be[be["strategy_id"] == win["strategy_id"]] if not be.empty else be
    payback = ""
    if not be.empty and be.iloc[0]["quick_key"] != be.iloc[0]["fast_key"] and be.iloc[0]["fast_key"] == config_key(win):
        n = be.iloc[0]["break_even_epochs"]
        over = config_name(be.iloc[0]["quick"])
        payback = f"; it pays back its extra warm-up over {over} after {counted(n, 'epoch')}" if math.isfinite(n) \
            else ""
    later = (" (measured in a worker process that had run other points first: a fresh process's first epoch is "
             "longer)" if flag(win.get("warmup_after_others")) else "")
    lines.append(f"- **Warm-up:** epoch 1 trains {seconds(win['warmup_overhead_s'])} s longer than a steady "
                 f"epoch{later}{payback}.")
    lines += _compiler_lines(rows_of(a.compilers, c.section))
    return lines


def _compiler_lines(pairs: pd.DataFrame) -> list[str]:
    """Each compiler variant weighed (:func:`bench.reporting.verdicts.compiler_break_even`): throughput, warm-up."""
    out = []
    for _, p in pairs.iterrows():
        n = p["break_even_epochs"]
        when = f"ahead in total after {counted(n, 'epoch')}" if math.isfinite(n) else "never ahead in total"
        out.append(f"- **Compiler:** {config_label(p['fast'])} runs {sig(p['throughput_ratio'])}x the throughput of "
                   f"{config_label(p['quick'])} "
                   f"after {seconds(p['extra_warmup_s'])} s more warm-up: {when} (shorter runs are quicker without "
                   "it).")
    return out


def _backend_id(row: Any) -> str:
    """``torch``, ``torch (torch.compile)``: a backend with the compiler that ran, so that a ratio is named by the
    configuration it belongs to."""
    mark = str(row.get("compiler_mark") or "").strip()
    return f"{row['backend']} ({mark})" if mark else str(row["backend"])


def _backend_line(a: Analysis, section: int) -> list[str]:
    """The fastest backend on each strategy that ran under two or more (:func:`~bench.reporting.claims.backend_bests`):
    its configuration and throughput, then every other backend's best relative to it, per process."""
    parts = []
    for name, top, pairs in backend_bests(a, section):
        rest = ", ".join(f"{_backend_id(p.a)} at {config_name(p.a)} {ratio_words(p.ratio)}" for p in pairs)
        maths = {str(r["backend"]): arithmetic_words(r) for r in (top, *(p.a for p in pairs))}
        differ = (f" — at different arithmetic ({'; '.join(f'{b} {m}' for b, m in maths.items())}), not only "
                  "different code" if len(set(maths.values())) > 1 and all(maths.values()) else "")
        parts.append(f"`{name}`: **{_backend_id(top)}** ({config_label(top)}, {sig(top['examples_per_s'])} "
                     f"examples/s), then {rest}{differ}")
    return [f"- **Fastest backend per strategy:** {'; '.join(parts)}."] if parts else []


def _gap_text(t: Tradeoff) -> str:
    """The most accurate member of the front against the fastest, paired by seed."""
    g = t.gap
    if g is None or g.verdict == NO_CLAIM:
        n = 0 if g is None else g.seeds
        return f"paired by seed: no claim with {runs(n)} ({NO_CLAIM_HOW})"
    said = "clearly more accurate" if g.verdict == DIFFERS and g.mean_pp > 0 else verdict_words(g.verdict)
    return (f"paired by seed: {g.mean_pp:+.1f} pp [{g.low_pp:+.1f}, {g.high_pp:+.1f}] over {runs(g.seeds)}, "
            f"{said}")


def _tradeoff_vs_baseline(a: Analysis, fast: Pair | None, best: Pair | None) -> list[str]:
    """Both ends of the trade-off against the baseline's fastest configuration that learns."""
    if fast is None or best is None:
        return []
    base = fast.b
    return [f"- **Against `{a.baseline}`:** the fastest runs at **{ratio_words(fast.ratio)}**, the most accurate at "
            f"**{ratio_words(best.ratio)}** the throughput of the best `{a.baseline}` configuration that learns "
            f"({config_label(base)}, {sig(base['examples_per_s'])} examples/s)."]


def _augmentation_layers(a: Analysis, section: int) -> list[str]:
    """The Keras augmentation layers the workload's records name (their class names, once each)."""
    points = rows_of(a.points, section)
    if points.empty or "augmentation_layers" not in points:
        return []
    return sorted({str(name) for names in points["augmentation_layers"] for name in names})


def tradeoff_lines(a: Analysis, summary: pd.DataFrame, t: Tradeoff) -> list[str]:
    """No target and the fastest configuration that learns is not the most accurate: no single answer, the
    trade-off (:mod:`bench.reporting.analysis.tradeoff`) and how to get one."""
    fast, best = t.fastest, t.most_accurate
    front, fast_vs_base, best_vs_base = tradeoff_pairs(a, t)
    ratio = next(p.ratio.ratio for p in front if same_config(p.a, best))
    rows = [{"configuration": config_label(p.a), "examples/s": rate(p.a['examples_per_s']),
             "throughput vs fastest": f"{sig(p.ratio.ratio)}x",
             "final val acc [runs' range]": accuracy_range(p.a)} for p in front]
    example = math.floor(20 * best["final_val_accuracy"]) / 20
    return [f"- {conclusions.tradeoff(fast, best)}: no target says which accuracy counts. {config_label(fast)} "
            f"({sig(fast['examples_per_s'])} examples/s) ends at "
            f"{accuracy_range(fast)}; {config_label(best)} ends at {accuracy_range(best)} at {sig(ratio)}x its "
            f"throughput; {_gap_text(t)}. The trade-off, each configuration slower and more accurate than the one "
            f"before it by more than the ±{a.parity_margin_pp:g} pp margin:", "",
            *["  " + line for line in markdown_table(rows).splitlines()], "",
            *_tradeoff_vs_baseline(a, fast_vs_base, best_vs_base),
            f"- **For a single answer**, declare the validation accuracy that counts as trained: "
            f"`Workload(..., target_accuracy={example:.2f})` (for example); the answer then names the configuration "
            "fastest to it."]


def backend_contrast(summary: pd.DataFrame) -> list[str]:
    """A line per configuration that learns under one backend and not under another (same strategy, batch, spe and
    precision: the same seed, initial weights and batches; PyTorch's spe1 beside the spe it was asked for,
    :func:`~bench.reporting.frames.keys.compared_spe`), with the likely cause when the reasons name it."""
    ok = summary[summary["status"] == "ok"]
    failing = ok["not_learning"].map(bool)
    if not failing.any() or failing.all():  # a contrast needs a configuration that learns and one that does not
        return []
    groups: dict[tuple[Any, ...], list[dict[Hashable, Any]]] = {}  # to_dict's rows: column label -> value
    for row, spe in zip(ok.to_dict("records"), compared_spe(ok), strict=True):
        backend, name = row["backend"], row["strategy_label"]
        row |= {"_backend": backend}
        groups.setdefault((name, row["global_batch_size"], spe, row["precision"]), []).append(row)
    lines = []
    for key in sorted(groups):
        learns = [r for r in groups[key] if not r["not_learning"]]
        fails = [r for r in groups[key] if r["not_learning"]]
        if not learns or not fails:
            continue
        names = list(dict.fromkeys(BACKEND_NAMES.get(r["_backend"], r["_backend"]) for r in learns))
        yes = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        for no in fails:
            probability = bool(set(codes_of(no["not_learning"])) & set(PROBABILITY_CODES))
            cause = f" Likely cause: {PROBABILITY_LOSS}." if probability else ""
            why = not_learning_text(no["not_learning"])
            lines.append(f"- **Learns under {yes}, not under {BACKEND_NAMES.get(no['_backend'], no['_backend'])}**, "
                         f"from the same seed and batches: {config_label(pd.Series(no))} ({why}).{cause}")
    return lines


def backend_agreement(a: Analysis, section: int) -> list[str]:
    """In words, per pair of backends compared by seed: how many validation examples got the same class from both,
    summed over their configurations (each configuration's share too when there are several)."""
    rows = rows_of(a.parity, section)
    rows = rows[(rows["kind"] == "backend") & (rows["compared"] > 0)] if len(rows) else rows
    out = []
    pairs = [tuple(BACKEND_NAMES.get(b, b) for b in (r["baseline_backend"], r["backend"])) for _, r in rows.iterrows()]
    for pair in dict.fromkeys(pairs):
        g = rows[[p == pair for p in pairs]]
        same, total = int(g["same_predictions"].sum()), int(g["compared"].sum())
        if len(g) == 1:
            r = g.iloc[0]
            where = f"{r['strategy_label']} at b{r['global_batch_size']} spe{r['steps_per_execution']} {r['precision']}"
        else:
            shares = 100 * g["same_predictions"] / g["compared"]
            where = f"{len(g)} configurations, {sig(shares.min())}-{sig(shares.max())}% each"
        out.append(f"{pair[0]} and {pair[1]} gave the same prediction on {same:,} of {total:,} validation examples "
                   f"from the same seed ({where})")
    return out


def findings_section(a: Analysis, section: int, claims: Claims | None = None) -> list[str]:
    """A workload's findings, each in full: the fastest configuration that learns and what to know about it (without
    a target, the throughput/accuracy trade-off when the fastest is not the most accurate)."""
    summary = rows_of(a.summary, section)
    lines = ["### Findings", ""]
    c = claims if claims is not None else workload_claims(a, section)
    win = c.winner
    t = a.tradeoffs.get(section)
    lines += backend_contrast(summary)  # first: the same model trained on one backend and not on another
    if c.outcome in (NONE_LEARNS, NONE_FINISHED):
        lines.append(none_learns(c))
    elif t is not None and c.outcome == TRADEOFF:
        lines += tradeoff_lines(a, summary, t)
    else:
        lines += _winner_lines(a, summary, c)
    findings = backend_agreement(a, section)
    for _, w in rows_of(a.wrappers, section).iterrows():
        lo, hi = min(w["ratios"]), max(w["ratios"])
        spread = f"{sig(lo)}x" if len(w["ratios"]) == 1 else f"{sig(lo)}-{sig(hi)}x"
        findings.append(f"the `{w['wrapper']}` wrapper (a `tf.distribute.OneDeviceStrategy` scope) costs "
                        f"{spread} the time of plain `{w['plain']}` (no scope) on {w['n_configs']} matched "
                        "configuration(s)")
    bound = summary[summary["input_bound"]]
    if not bound.empty:
        findings.append(f"{len(bound)} configuration(s) are input-bound ({config_label(bound.iloc[0])}, …)")
    excluded = summary[(summary["status"] == "ok") & ~summary["learns"]]
    if not excluded.empty and win is not None:
        findings.append(f"{len(excluded)} configuration(s) are not ranked because they do not learn, miss the target "
                        "or are significantly less accurate than the baseline")
    layers = _augmentation_layers(a, section)
    if layers:
        findings.append(f"the model holds Keras augmentation layers ({', '.join(layers)}): a TPU cannot compile "
                        "the projective ones under TensorFlow and JAX needs TensorFlow for any; `python -m bench "
                        "doctor` checks them, `Workload(..., augment=...)` moves them into the input pipeline")
    if findings:
        lines.append("- **Also:** " + "; ".join(findings) + ".")
    return [*lines, ""]
