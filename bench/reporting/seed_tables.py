"""The report's accuracy tables with the training run as the unit (:mod:`bench.reporting.seeds`): a configuration's
accuracy over seeds, and the parity of strategies and backends paired by seed; and the backend column every table
with a strategy gets (:func:`with_backend`)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from bench.reporting.format import DASH, markdown_table, number
from bench.reporting.frame import split_label


def with_backend(rows: list[dict[str, Any]], show: bool) -> list[dict[str, Any]]:
    """Table rows with a ``backend`` column before ``strategy`` when ``show`` (the strategy label then loses
    its ``jax/`` prefix); unchanged otherwise."""
    if not show:
        return rows
    out = []
    for row in rows:
        backend, strategy = split_label(str(row["strategy"]))
        new: dict[str, Any] = {}
        for k, v in row.items():
            if k == "strategy":
                new["backend"] = backend
                v = strategy
            new[k] = v
        out.append(new)
    return out


def accuracy_cell(r: pd.Series) -> str:
    """Final validation accuracy: the median over seeds with the seeds' range and count (``0.820 [0.664, 0.922]
    n=5``), one seed's alone."""
    n = int(r.get("n_seeds") or 0) if r["status"] == "ok" else 0
    if n <= 1 or pd.isna(r["val_acc_min"]):
        return number(r["final_val_accuracy"], ".3f")
    return f"{r['final_val_accuracy']:.3f} [{r['val_acc_min']:.3f}, {r['val_acc_max']:.3f}] n={n}"


def parity_section(parity: pd.DataFrame, margin: float, show_backend: bool = False) -> list[str]:
    """One row per comparison of :func:`bench.reporting.accuracy.accuracy_parity`: a strategy against its
    baseline, or a backend against TensorFlow on the same strategy, paired by seed."""
    lines = ["## Accuracy parity", "",
             "Each strategy against the baseline, and each backend against TensorFlow on the same strategy, at "
             "equal workload, dataset, global batch, spe and precision. The unit is the training run: repeat r "
             "trains from seed + r under every strategy, so the runs pair by seed. diff = the mean over seeds of "
             "the difference of final validation accuracies (pp), with a 95% interval (Student's t, "
             "Bonferroni-corrected over the workload's comparisons); **differs** when it excludes 0, "
             f"**equivalent** when it lies within ±{margin:g} pp (`parity_margin_pp`), **inconclusive** otherwise, "
             "**no claim** with fewer than 3 seeds. Same-seed agreement = share of validation examples the two "
             "models from one seed both got right or both got wrong (median over seeds): whether the strategies "
             "compute the same model from the same start, not whether one trains better.", ""]
    if parity.empty:
        return [*lines, "No finished points to compare.", ""]
    for (workload, dataset), g in parity.groupby(["workload", "dataset"], sort=True):
        rows = []
        for _, r in g.iterrows():
            claim = r["verdict"] != "no claim"
            verdict = f"**{r['verdict']}**" if r["flag"] else r["verdict"]
            rows.append({"global batch": r["global_batch_size"], "spe": r["steps_per_execution"],
                         "precision": r["precision"], "strategy": r["strategy"],
                         "vs": ("/".join(split_label(r["baseline"])) if show_backend else r["baseline"])
                         + (" (other backend)" if r["kind"] == "backend" else ""),
                         "seeds": r["seeds"], "val acc": number(r["val_accuracy"], ".3f"),
                         "vs val acc": number(r["baseline_val_accuracy"], ".3f"),
                         "diff pp": (f"{r['diff_pp']:+.1f} [{r['low_pp']:+.1f}, {r['high_pp']:+.1f}]" if claim
                                     else number(r["diff_pp"], "+.1f")),
                         "p (adj.)": number(r["p"], ".2g") if claim else DASH,
                         "verdict": verdict,
                         "same-seed agreement %": number(100 * r["agreement"], ".1f")})
        lines += [f"### {workload} on {dataset}", "", markdown_table(with_backend(rows, show_backend)), ""]
    return lines
