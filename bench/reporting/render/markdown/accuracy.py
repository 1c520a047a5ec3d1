"""Accuracy as the report writes it: a configuration's accuracy over seeds, the answer's accuracy sentence and
the parity section (strategies and backends paired by seed).
"""

from __future__ import annotations

import math

import pandas as pd

from bench.reporting.analysis.seeds import NO_CLAIM
from bench.reporting.frames.keys import rows_of, sections
from bench.reporting.render.text import DASH, markdown_table, names_of, number, seconds, section_title, with_backend
from bench.reporting.render.words import accuracy_ref_text, runs, verdict_words
from bench.reporting.stats.sample import as_float


def accuracy_range(r: pd.Series) -> str:
    """Final validation accuracy over training runs: ``0.820 [0.664-0.922] over 5 training runs``, or ``0.946 (1
    training run)``."""
    n = int(r.get("n_seeds") or 0)
    if n <= 1 or not math.isfinite(as_float(r["val_acc_min"])):
        return f"{r['final_val_accuracy']:.3f} ({runs(n)})"
    return f"{r['final_val_accuracy']:.3f} [{r['val_acc_min']:.3f}-{r['val_acc_max']:.3f}] over {runs(n)}"


NO_CLAIM_HOW = "repeats=3 or more with distinct seeds give one"


def accuracy_evidence(r: pd.Series) -> str:
    """How a configuration's accuracy was judged, the findings' evidence after its final accuracy
    (:func:`bench.reporting.render.markdown.conclusions.accuracy`)."""
    n = int(r.get("n_seeds") or 0)
    if r["accuracy_test"] == "target":
        if not r["reached_target"]:
            return f"**target {r['target_accuracy']:.2f} NOT reached** ({r['n_reached']}/{n} training runs)"
        spread = (f" [{seconds(r['time_to_target_min_s'])}, {seconds(r['time_to_target_max_s'])}]"
                  if r["n_reached"] > 1 else "")
        claim = "" if n >= 3 else f"; {runs(n)}: no claim across training runs ({NO_CLAIM_HOW})"
        return (f"**reached the target {r['target_accuracy']:.2f}** in {r['n_reached']}/{n} training runs, after "
                f"{seconds(r['time_to_target_s'])} s{spread} of training (median epoch {r['epochs_to_target']:.0f}, "
                f"warm-up included){claim}")
    if r["accuracy_test"] == "seeds":
        if r["accuracy_verdict"] == NO_CLAIM:
            return (f"against `{accuracy_ref_text(r)}` paired by seed: no claim with {runs(int(r['accuracy_seeds']))} "
                    f"({NO_CLAIM_HOW})")
        return (f"against `{accuracy_ref_text(r)}` paired by seed: {r['accuracy_diff_pp']:+.1f} pp "
                f"[{r['accuracy_low_pp']:+.1f}, {r['accuracy_high_pp']:+.1f}] over {runs(int(r['accuracy_seeds']))}: "
                f"{verdict_words(r['accuracy_verdict'])}")
    if r.get("is_baseline"):
        return "it is the baseline, and the workload has no target here to judge it by"
    return "not judged (no target, and no baseline at this configuration)"


def accuracy_cell(r: pd.Series) -> str:
    """Final validation accuracy: the median over training runs with their range and count (``0.820 [0.664, 0.922]
    n=5``), one run's alone."""
    n = int(r.get("n_seeds") or 0) if r["status"] == "ok" else 0
    if n <= 1 or pd.isna(r["val_acc_min"]):
        return number(r["final_val_accuracy"], ".3f")
    return f"{r['final_val_accuracy']:.3f} [{r['val_acc_min']:.3f}, {r['val_acc_max']:.3f}] n={n}"


def parity_section(parity: pd.DataFrame, margin: float, show_backend: bool = False) -> list[str]:
    """One row per comparison of :func:`bench.reporting.analysis.accuracy.accuracy_parity`: a strategy against its
    baseline, or a backend against another on the same strategy (TensorFlow, else JAX), paired by seed."""
    lines = ["## Accuracy parity", "",
             "Each strategy against the baseline, and each backend against another on the same strategy, at equal "
             "settings, paired by training run (run r trains from seed + r). diff: the mean difference of final "
             "validation accuracies (pp), 95% interval Bonferroni over the workload's comparisons; **differs** when "
             f"it excludes 0, **equivalent** within ±{margin:g} pp, **inconclusive** otherwise, **no claim** under 3 "
             "runs. Same-seed agreement: the share of validation examples both models of a run got right or both "
             "wrong. Method: docs/reports.md, *Accuracy parity*.", ""]
    if parity.empty:
        return [*lines, "No finished points to compare.", ""]
    for s in sections(parity):
        g = rows_of(parity, s)
        rows = []
        for _, r in g.iterrows():
            claim = r["verdict"] != NO_CLAIM
            verdict = f"**{verdict_words(r['verdict'])}**" if r["flag"] else verdict_words(r["verdict"])
            rows.append({"global batch": r["global_batch_size"], "spe": r["steps_per_execution"],
                         "precision": r["precision"], "strategy": r["strategy"],
                         "vs": (f"{r['baseline_backend']}/{r['baseline_label']}" if show_backend else r["baseline"])
                         + (" (other backend)" if r["kind"] == "backend" else ""),
                         "training runs": r["seeds"],
                         "val acc (vs)": f"{number(r['val_accuracy'], '.3f')} "
                                         f"({number(r['baseline_val_accuracy'], '.3f')})",
                         "diff pp": (f"{r['diff_pp']:+.1f} [{r['low_pp']:+.1f}, {r['high_pp']:+.1f}]" if claim
                                     else number(r["diff_pp"], "+.1f")),
                         "p (adj.)": number(r["p"], ".2g") if claim else DASH,
                         "verdict": verdict,
                         "same-seed agreement %": number(100 * r["agreement"], ".1f")})
        table = markdown_table(with_backend(rows, show_backend, names_of(g)))
        lines += [f"### {section_title(g)}", "", table, ""]
    return lines
