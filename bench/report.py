"""Markdown report (tables + PNG figures) from point records only. Never imports TensorFlow.

``python -m bench report results/<run_id> [more folders …] [--out reports/NAME] [--baseline cpu]``

The markdown is deterministic: the same records give byte-identical ``report.md`` (everything sorted,
fixed number formats, no generation time, no absolute paths), so it can be golden-tested and diffed.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from bench import analysis as an
from bench import plots
from bench.records import LoadResult, load_records

HOW_TO_READ = (
    "How to read this: every figure comes from the point records alone. Epoch 1 is the **warm-up** epoch "
    "(tracing, XLA/TPU compilation, cache fill); the **steady state** is epochs 2..n. **examples/s** is the "
    "one measure that ranks configurations and gives speedups: training examples per second of the steady "
    "epochs (validation excluded), the median over a repeat's steady epochs, then the geometric mean over "
    "repeats (one repeat = one worker process). Training s/epoch is shown as median [IQR] over all steady "
    "epochs; warm-up is epoch 1 minus the steady median epoch time (training + validation). **Speedup** "
    "is examples/s over the baseline's at equal workload, dataset, global batch, steps_per_execution "
    "(spe) and precision, on the same host when possible. Repeats, not epochs, are the sample: with "
    "fewer than 3 repeats on a side a speedup is shown as `1.11x (n=1)`, with no interval and no claim; "
    "with 3 or more it gets a 95% interval (Welch's t on log throughput per repeat), `1.11x [1.02, 1.23]`, "
    "and a leading `~` when the interval contains 1 (not significant). A configuration **learns** when it is "
    "not flagged *not learning* (loss falls by 5%, accuracy clear of chance) and its final val accuracy is "
    "within the accuracy tolerance of the best any configuration of the workload reached (the parity "
    "tolerance or the validation set's 95% sampling error, whichever is larger); only those are ranked. "
    "**GFLOP/s** = analytic training FLOPs per example (3 x forward) x examples/s; **MFU** = GFLOP/s over "
    "the peak in *Peaks used for MFU* (a matmul probe on the device; the datasheet column uses the "
    "vendor's peak). Failed, skipped and diverged points are listed, never dropped."
)
DASH = "—"


class ReportError(ValueError):
    """Bad input for a report (no folder, a missing folder, no records at all)."""


def _cell(text: Any) -> str:
    """One markdown table cell: single line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _table(rows: list[dict[str, Any]] | pd.DataFrame) -> str:
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
    frame = frame.map(_cell)
    return frame.to_markdown(index=False, disable_numparse=True)


def _short(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def fmt_s(v: float) -> str:
    """Seconds with about three significant digits (``0.123``, ``2.46``, ``32.3``, ``130``)."""
    if not math.isfinite(v):
        return DASH
    for limit, digits in ((100, 0), (10, 1), (1, 2)):
        if abs(v) >= limit:
            return f"{v:.{digits}f}"
    return f"{v:.3f}"


def _fmt(v: float, spec: str) -> str:
    return format(v, spec) if isinstance(v, int | float) and math.isfinite(v) else DASH


def fmt_speedup(row: pd.Series) -> str:
    """``1.85x [1.70, 2.01]``, ``~`` when not significant, ``baseline`` for the baseline itself."""
    if row["status"] != "ok":
        return DASH
    if not row["baseline"]:
        return "n/a (no baseline)"
    if row["baseline"] == row["strategy"]:
        return "baseline"
    return an.speedup_ci(row).format()


def _config(row: pd.Series) -> str:
    return f"{row['strategy']} at {an.config_name(row)}"


def _flags(row: pd.Series) -> str:
    flags = []
    if row["status"] != "ok":
        flags.append(_short(f"{row['status']}: {row['error']}"))
    elif row["n_ok"] < row["n_points"]:
        flags.append(f"{row['n_points'] - row['n_ok']} of {row['n_points']} repeats not ok")
    if row["not_learning"]:
        flags.append("not learning")
    elif row.get("below_best", False):
        flags.append(f"below best accuracy ({row['accuracy_gap_pp']:.1f} pp)")
    if row["input_bound"]:
        flags.append("input-bound")
    if row.get("parity_flag", False):
        flags.append("parity")
    return "; ".join(flags)


def environment_table(records: list[dict[str, Any]]) -> str:
    """One row per distinct machine environment, with the runs that used it.

    A skipped point's record knows only the host (its worker never got the device), so it adds no row of
    its own when another record of the same host and run describes the full environment.
    """
    full = {(str((r.get("env") or {}).get("hostname")), r["run_id"]) for r in records if r["status"] != "skipped"}
    envs: dict[tuple[str, ...], set[str]] = {}
    for r in records:
        e = r.get("env") or {}
        if r["status"] == "skipped" and (str(e.get("hostname")), r["run_id"]) in full:
            continue
        commit = str(e.get("git_commit") or DASH) + ("+dirty" if e.get("git_dirty") else "")
        fields = ("hostname", "cpu", "cpu_count", "device_kind", "device_count", "accelerator", "python",
                  "tensorflow", "keras", "bench_version")
        key = (*(str(e.get(f)) if e.get(f) is not None else DASH for f in fields), commit)
        envs.setdefault(key, set()).add(str(r["run_id"]))
    cols = ["host", "CPU", "cores", "device kind", "devices", "accelerator", "Python", "TensorFlow", "Keras",
            "bench", "git commit", "runs"]
    return _table([dict(zip(cols, [*k, ", ".join(sorted(v))], strict=True)) for k, v in sorted(envs.items())])


def peaks_table(points: pd.DataFrame) -> str:
    """The peak FLOP/s behind every MFU figure: per host and strategy, the measured matmul peak (and what
    it covered) and the datasheet peak, per precision."""
    ok = points[points["status"] == "ok"] if not points.empty else points
    rows = []
    for (host, strategy, precision), g in ok.groupby(["host", "strategy", "precision"], sort=True):
        peak, sheet = an.finite_median(g["peak_flops_per_s"]), an.finite_median(g["datasheet_peak_flops_per_s"])
        if not (math.isfinite(peak) or math.isfinite(sheet)):
            continue
        scopes = sorted({str(v) for v in g["peak_scope"] if isinstance(v, str) and v})
        rows.append({"host": host, "strategy": strategy, "precision": precision,
                     "measured peak GFLOP/s": _fmt(peak / 1e9, ",.1f"),
                     "probe": ", ".join(scopes) or "matmul probe",
                     "datasheet peak GFLOP/s": _fmt(sheet / 1e9, ",.0f")})
    if not rows:
        return "No point recorded a peak (MFU is not shown)."
    return _table(rows)


def absent_strategies(summary: pd.DataFrame) -> pd.DataFrame:
    """Strategies every point of which was skipped (absent hardware): one row each, with the point count
    and the reason."""
    rows = []
    for strategy, g in summary.groupby("strategy", sort=True):
        if set(g["status"]) == {"skipped"}:
            rows.append({"strategy": strategy, "n_points": int(g["n_points"].sum()), "reason": g.iloc[0]["error"]})
    return pd.DataFrame(rows, columns=["strategy", "n_points", "reason"])


def results_table(summary: pd.DataFrame, baseline: str) -> str:
    """Strategy x global batch x spe table of one workload (every status, never dropped; a strategy whose
    every point was skipped is one row)."""
    has_flops = summary["gflops_per_s"].notna().any()
    has_sheet = summary["mfu_datasheet_pct"].notna().any()
    absent = absent_strategies(summary)
    rows = []
    for _, r in summary.iterrows():
        if r["strategy"] in set(absent["strategy"]):
            continue
        ok = r["status"] == "ok"
        known = isinstance(r["device_kind"], str) and pd.notna(r["num_replicas"]) and r["num_replicas"]
        devices = f"{r['device_kind']} x{int(r['num_replicas'])}" if known else DASH
        row = {
            "strategy": r["strategy"], "devices": devices, "global batch": r["global_batch_size"],
            "spe": r["steps_per_execution"], "precision": r["precision"],
            "status": r["status"] if ok else f"**{r['status']}**",
            "repeats": r["n_ok"] if r["n_ok"] == r["n_points"] else f"{r['n_ok']}/{r['n_points']}",
            "examples/s": _fmt(r["examples_per_s"], ",.0f"),
            f"speedup vs {baseline}": fmt_speedup(r),
            "train s/epoch median [IQR]":
                f"{fmt_s(r['train_s_median'])} [{fmt_s(r['train_s_iqr'])}]" if ok else DASH,
            "warm-up s": fmt_s(r["warmup_overhead_s"]),
            "final val acc": _fmt(r["final_val_accuracy"], ".3f"),
        }
        if has_flops:
            row["GFLOP/s"] = _fmt(r["gflops_per_s"], ".1f")
            row["MFU %"] = _fmt(r["mfu_pct"], ".1f")
        if has_sheet:
            row["MFU % (datasheet)"] = _fmt(r["mfu_datasheet_pct"], ".2f")
        row["flags"] = _flags(r)
        rows.append(row)
    for _, a in absent.iterrows():
        rows.append({"strategy": a["strategy"], "devices": DASH, "global batch": "all", "spe": "all",
                     "precision": "all", "status": "**skipped**", "repeats": f"0/{a['n_points']}",
                     "flags": _short(f"absent: {a['reason']}", 120)})
    return _table(pd.DataFrame(rows).fillna(DASH))


def _sentences(summary: pd.DataFrame, parity: pd.DataFrame) -> list[str]:
    out = []
    bound = summary[summary["input_bound"]]
    if not bound.empty:
        items = [f"{_config(r)} ({r['examples_per_s']:,.0f} of {r['input_examples_per_s']:,.0f} examples/s "
                 f"the input pipeline delivers alone, "
                 f"{100 * r['examples_per_s'] / r['input_examples_per_s']:.0f}%)"
                 for _, r in bound.iterrows()]
        out.append(f"**Input-bound** (training reaches ≥ {100 * an.INPUT_BOUND_FRACTION:.0f}% of the input "
                   "pipeline's own rate; fast accelerators starve on slow pipelines, so a faster pipeline, "
                   f"not a faster device, would help): {'; '.join(items)}.")
    learn = summary[summary["not_learning"] != ""]
    if not learn.empty:
        items = [f"{_config(r)} ({r['not_learning']})" for _, r in learn.iterrows()]
        out.append(f"**Not learning** (its speed says nothing about training): {'; '.join(items)}.")
    below = summary[summary["below_best"] & (summary["not_learning"] == "")]
    if not below.empty:
        first = below.iloc[0]
        items = [f"{_config(r)} ({r['final_val_accuracy']:.3f}, {r['accuracy_gap_pp']:.1f} pp below)"
                 for _, r in below.iterrows()]
        out.append(f"**Below the best accuracy** (more than {first['accuracy_tolerance_pp']:.1f} pp under the best "
                   f"final val accuracy of this workload, {first['best_val_accuracy']:.3f}; not ranked): "
                   f"{'; '.join(items)}.")
    if not parity.empty and parity["flag"].any():
        items = [f"{r['strategy']} at b{r['global_batch_size']} spe{r['steps_per_execution']} "
                 f"{r['precision']} seed {r['seed']} ({r['diff_pp']:+.1f} pp vs {r['baseline']}, tolerance "
                 f"{r['tolerance_pp']:.1f} pp)"
                 for _, r in parity[parity["flag"]].iterrows()]
        out.append(f"**Accuracy parity** broken (final val accuracy further from the baseline's than the "
                   f"tolerance): {'; '.join(items)}.")
    return out


def _of(frame: pd.DataFrame, workload: str, dataset: str) -> pd.DataFrame:
    """The rows of an analysis frame that belong to one workload and dataset (an empty frame stays empty)."""
    if frame.empty:
        return frame
    return frame[(frame["workload"] == workload) & (frame["dataset"] == dataset)]


def _winner(a: an.Analysis, workload: str, dataset: str) -> pd.Series | None:
    w = _of(a.winners, workload, dataset)
    return None if w.empty else w.iloc[0]


def best_section(a: an.Analysis, workload: str, dataset: str) -> list[str]:
    best = _of(a.best, workload, dataset)
    if best.empty:
        return ["No configuration of this workload learns: nothing is ranked.", ""]
    rows = [{"strategy": r["strategy"], "best configuration": an.config_name(r),
             "examples/s": f"{r['examples_per_s']:,.0f}", f"speedup vs {a.baseline}": fmt_speedup(r),
             "train s/epoch": fmt_s(r["train_s_median"]), "final val acc": _fmt(r["final_val_accuracy"], ".3f")}
            for _, r in best.iterrows()]
    win = _winner(a, workload, dataset)
    return [_table(rows), "",
            f"**Overall winner:** {_config(win)}, {win['examples_per_s']:,.0f} examples/s, final val accuracy "
            f"{win['final_val_accuracy']:.3f} (highest throughput among the configurations that learn).", ""]


def _best_baseline(a: an.Analysis, summary: pd.DataFrame, win: pd.Series) -> pd.Series | None:
    """The baseline's fastest learning configuration (on the winner's host when there is one)."""
    base = an.baseline_rows(summary, a.baseline)
    base = base[base["learns"]]
    local = base[base["host"] == win["host"]]
    base = local if not local.empty else base
    return None if base.empty else base.sort_values("examples_per_s", ascending=False, kind="mergesort").iloc[0]


def _vs_best_baseline(a: an.Analysis, b: pd.Series | None, win: pd.Series) -> str:
    """The winner against the baseline's best learning configuration ``b``."""
    if b is None:
        return f"no `{a.baseline}` configuration that learns to compare with"
    if b["strategy"] == win["strategy"] and an.config_name(b) == an.config_name(win):
        return f"it is the `{a.baseline}` baseline itself"
    ci = an.stats.repeat_ratio_ci(win["repeat_rates"], b["repeat_rates"])
    return (f"**{ci.format()}** the throughput of the best `{a.baseline}` configuration that learns "
            f"({_config(b)}, {b['examples_per_s']:,.0f} examples/s)")


def answer_section(a: an.Analysis, workload: str, dataset: str) -> list[str]:
    """A few lines a person reads first: the fastest configuration that learns and what to know about it."""
    summary = a.summary[(a.summary["workload"] == workload) & (a.summary["dataset"] == dataset)]
    lines = [f"### {workload} on {dataset}", ""]
    win = _winner(a, workload, dataset)
    if win is None:
        ok = summary[summary["status"] == "ok"]
        lines.append(f"- **No configuration learns** ({len(ok)} finished): speeds say nothing about training "
                     "here; see the flags below." if len(ok) else "- **No configuration finished.**")
    else:
        best_base = _best_baseline(a, summary, win)
        lines.append(f"- **Fastest configuration that learns:** {_config(win)}, {win['examples_per_s']:,.0f} "
                     f"examples/s; {_vs_best_baseline(a, best_base, win)}.")
        same = an.speedup_ci(win).format() if win["baseline"] not in ("", win["strategy"]) else ""
        if same and not (best_base is not None and an.config_name(best_base) == an.config_name(win)):
            lines.append(f"- Against `{win['baseline']}` at the same batch, spe and precision: {same}.")
        others = _of(a.best, workload, dataset)
        others = others[others["strategy"] != win["strategy"]] if not others.empty else others
        if not others.empty:
            items = [f"`{r['strategy']}` {an.config_name(r)} "
                     f"{an.stats.repeat_ratio_ci(r['repeat_rates'], win['repeat_rates']).format()}"
                     for _, r in others.iterrows()]
            lines.append(f"- **Every other strategy's best configuration that learns**, in throughput relative "
                         f"to it: {'; '.join(items)}.")
        gap = win["accuracy_gap_pp"]
        held = "held" if gap <= win["accuracy_tolerance_pp"] else "NOT held"
        lines.append(f"- **Accuracy {held}:** final val accuracy {win['final_val_accuracy']:.3f}, "
                     f"{gap:.1f} pp under the best any configuration reached ({win['best_val_accuracy']:.3f}; "
                     f"tolerance {win['accuracy_tolerance_pp']:.1f} pp).")
        be = _of(a.break_even, workload, dataset)
        be = be[be["strategy"] == win["strategy"]] if not be.empty else be
        payback = ""
        if not be.empty and be.iloc[0]["quick"] != be.iloc[0]["fast"] and be.iloc[0]["fast"] == an.config_name(win):
            n = be.iloc[0]["break_even_epochs"]
            payback = (f"; it pays back its extra warm-up over {be.iloc[0]['quick']} after {n} epochs"
                       if math.isfinite(n) else "")
        lines.append(f"- **Warm-up:** epoch 1 takes {fmt_s(win['warmup_overhead_s'])} s longer than a steady "
                     f"epoch{payback}.")
    findings = []
    for _, w in _of(a.wrappers, workload, dataset).iterrows():
        lo, hi = min(w["ratios"]), max(w["ratios"])
        spread = f"{lo:.2f}x" if len(w["ratios"]) == 1 else f"{lo:.2f}-{hi:.2f}x"
        findings.append(f"the `{w['wrapper']}` wrapper (a `tf.distribute.OneDeviceStrategy` scope) costs "
                        f"{spread} the time of plain `{w['plain']}` (no scope) on {w['n_configs']} matched "
                        "configuration(s)")
    bound = summary[summary["input_bound"]]
    if not bound.empty:
        findings.append(f"{len(bound)} configuration(s) are input-bound ({_config(bound.iloc[0])}, …)")
    excluded = summary[(summary["status"] == "ok") & ~summary["learns"]]
    if not excluded.empty and win is not None:
        findings.append(f"{len(excluded)} configuration(s) are not ranked because they do not learn or stay "
                        "below the best accuracy")
    absent = absent_strategies(summary)
    if not absent.empty:
        findings.append("absent: " + ", ".join(f"`{r['strategy']}` ({_short(r['reason'], 70)})"
                                               for _, r in absent.iterrows()))
    if findings:
        lines.append("- **Also:** " + "; ".join(findings) + ".")
    return [*lines, ""]


def break_even_section(be: pd.DataFrame) -> list[str]:
    if be.empty:
        return []
    rows = [{"strategy": r["strategy"],
             "quickest to start (warm-up s / epoch s)":
                 f"{r['quick']} ({fmt_s(r['quick_warmup_s'])} / {fmt_s(r['quick_epoch_s'])})",
             "fastest (warm-up s / epoch s)":
                 f"{r['fast']} ({fmt_s(r['fast_warmup_s'])} / {fmt_s(r['fast_epoch_s'])})",
             "break-even epochs": "no trade-off" if r["quick"] == r["fast"] else
             (str(r["break_even_epochs"]) if math.isfinite(r["break_even_epochs"]) else "never")}
            for _, r in be.iterrows()]
    return ["### Break-even epochs", "",
            "Among the configurations that learn: training n epochs costs warm-up + n x steady epoch time. "
            "Break-even is the smallest n from which a strategy's fastest configuration (examples/s) is no "
            "slower in total than its quickest-to-start one (it has paid back its extra warm-up).", "",
            _table(rows), ""]


def parity_section(parity: pd.DataFrame, tolerance: float) -> list[str]:
    lines = ["## Accuracy parity", "",
             "Final val accuracy per strategy at equal workload, dataset, global batch, spe, precision and "
             "seed (median over repeats). spread = max - min over strategies, in percentage points (pp); a "
             "strategy further from its baseline than the tolerance is flagged. The tolerance is the larger "
             f"of {tolerance:g} pp and the 95% sampling error of a difference of two accuracies on the "
             "validation set (1.96 x sqrt(2 p (1 - p) / n)): a small validation set cannot resolve 1 pp.", ""]
    if parity.empty:
        return [*lines, "No finished points to compare.", ""]
    for (workload, dataset), g in parity.groupby(["workload", "dataset"], sort=True):
        wide = g.pivot_table(index=[*an.MATCH_KEY[2:], "seed"], columns="strategy", values="val_accuracy",
                             aggfunc="first")
        rows = []
        for key, vals in wide.iterrows():
            sub = g[(g["global_batch_size"] == key[0]) & (g["steps_per_execution"] == key[1])
                    & (g["precision"] == key[2]) & (g["seed"] == key[3])]
            flagged = [f"{r['strategy']} {r['diff_pp']:+.1f} pp" for _, r in sub[sub["flag"]].iterrows()]
            rows.append({"global batch": key[0], "spe": key[1], "precision": key[2], "seed": key[3],
                         **{s: _fmt(v, ".3f") for s, v in vals.items()},
                         "spread pp": f"{sub['spread_pp'].iloc[0]:.1f}",
                         "tolerance pp": f"{sub['tolerance_pp'].max():.1f}", "flag": ", ".join(flagged)})
        lines += [f"### {workload} on {dataset}", "", _table(rows), ""]
    return lines


def problems_section(points: pd.DataFrame) -> list[str]:
    """Every point that is not ok; the points of a strategy that was skipped as a whole are one row."""
    bad = points[points["status"] != "ok"] if not points.empty else points
    lines = ["## Failed, skipped and diverged points", ""]
    if bad.empty:
        return [*lines, "None: every point finished.", ""]
    rows = []
    for (host, run, strategy), g in bad.groupby(["host", "run_id", "strategy"], sort=True):
        every = points[(points["host"] == host) & (points["run_id"] == run) & (points["strategy"] == strategy)]
        if set(every["status"]) == {"skipped"} and len(g) > 1:
            rows.append({"host": host, "run": run, "point": f"all {len(g)} points of {strategy}",
                         "status": "skipped", "reason": _short(g.iloc[0]["error"] or "(no reason recorded)", 200)})
            continue
        rows += [{"host": r["host"], "run": r["run_id"], "point": r["point_id"], "status": r["status"],
                  "reason": _short(r["error"] or "(no reason recorded)", 200)} for _, r in g.iterrows()]
    return [*lines, _table(rows), ""]


def skipped_files_section(loaded: LoadResult, dirs: Sequence[Path]) -> list[str]:
    lines = ["## Files skipped by the loader", ""]
    if not loaded.skipped:
        return [*lines, "None.", ""]
    rows = []
    for path, reason in sorted(loaded.skipped):
        p, name = Path(path), Path(path).name
        for d in dirs:
            if p == d or p.is_relative_to(d):
                name = (Path(d.name) / p.relative_to(d)).as_posix() if p != d else d.name
                break
        rows.append({"file": name, "reason": reason.removeprefix(f"{path}: ")})
    return [*lines, _table(rows), ""]


def render_markdown(a: an.Analysis, loaded: LoadResult, dirs: Sequence[Path],
                    figures: dict[tuple[str, str], dict[str, Path]]) -> str:
    """The whole report as markdown text (deterministic for equal inputs)."""
    s = a.summary
    hosts = sorted(set(a.points["host"]))
    workloads = list(s.groupby(["workload", "dataset"], sort=True).groups)
    lines = ["# bench report", "",
             f"{len(a.points)} point records from {a.points['run_id'].nunique()} run(s) on {len(hosts)} "
             f"host(s) ({', '.join(hosts)}); baseline strategy `{a.baseline}`; parity tolerance "
             f"{a.parity_tolerance_pp:g} pp; {len(loaded.skipped)} file(s) skipped by the loader.", "",
             "## The answer", ""]
    for workload, dataset in workloads:
        lines += answer_section(a, workload, dataset)
    lines += [HOW_TO_READ, "", "## Environment", "", environment_table(loaded.records), "",
              "### Peaks used for MFU", "", peaks_table(a.points), ""]
    for (workload, dataset), g in s.groupby(["workload", "dataset"], sort=True):
        par, be = _of(a.parity, workload, dataset), _of(a.break_even, workload, dataset)
        lines += [f"## {workload} on {dataset}", "", "### Results", "", results_table(g, a.baseline), ""]
        for sentence in _sentences(g, par):
            lines += [sentence, ""]
        lines += ["### Best configuration per strategy", "", *best_section(a, workload, dataset)]
        lines += break_even_section(be)
        figs = figures.get((workload, dataset), {})
        if figs:
            lines += ["### Figures", ""]
            lines += [f"![{name.replace('_', ' ')}]({path.name})" for name, path in figs.items()]
            lines.append("")
    lines += parity_section(a.parity, a.parity_tolerance_pp)
    lines += problems_section(a.points)
    lines += skipped_files_section(loaded, dirs)
    return "\n".join(lines).rstrip("\n") + "\n"


def build_report(record_dirs: list[Path], out_dir: Path, baseline: str = an.DEFAULT_BASELINE,
                 parity_tolerance_pp: float = an.PARITY_TOLERANCE_PP) -> Path:
    """Write ``out_dir/report.md`` and its PNG figures from the records under ``record_dirs``.

    Raises ReportError (and writes nothing) when no folder is given, a folder is missing, or no record
    loads. Returns the path of report.md.
    """
    dirs = [Path(d) for d in record_dirs]
    if not dirs:
        raise ReportError("no results folder given")
    missing = [str(d) for d in dirs if not d.exists()]
    if missing:
        raise ReportError(f"results folder not found: {', '.join(missing)}")
    loaded = load_records(dirs, warn=False)
    if not loaded.records:
        raise ReportError(f"no point records found under {', '.join(map(str, dirs))}"
                          f" ({len(loaded.skipped)} file(s) skipped as unreadable or foreign)")
    a = an.analyze(loaded.records, baseline=baseline, parity_tolerance_pp=parity_tolerance_pp)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = {}
    for (workload, dataset), pts in a.points.groupby(["workload", "dataset"], sort=True):
        summ = a.summary[(a.summary["workload"] == workload) & (a.summary["dataset"] == dataset)]
        figures[(workload, dataset)] = plots.plot_workload(
            pts, summ, f"{workload} on {dataset}", baseline, out_dir, plots.slug(f"{workload}-{dataset}"))
    path = out_dir / "report.md"
    path.write_text(render_markdown(a, loaded, dirs, figures), encoding="utf-8")
    return path


class CliError(Exception):
    """A command-line mistake; reported as one line on stderr with exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise CliError(message)


def hydra_style_args(argv: Sequence[str], keys: Sequence[str]) -> list[str]:
    """Turn Hydra-style ``key=value`` tokens for the known ``keys`` into ``--key value`` flags.

    ``parity_tolerance=2`` and ``parity-tolerance=2`` both become ``--parity-tolerance 2``; any other
    token (a folder, even one with ``=`` in its name) is passed through unchanged.
    """
    known = {k.replace("-", "_") for k in keys}
    out: list[str] = []
    for tok in argv:
        key, sep, value = tok.partition("=")
        if sep and not tok.startswith("-") and key.replace("-", "_") in known:
            out += [f"--{key.replace('_', '-')}", value]
        else:
            out.append(tok)
    return out


def report_main(argv: list[str]) -> int:
    """``python -m bench report DIR [DIR ...] [--out DIR] [--baseline NAME] [--parity-tolerance PP]``.

    Prints the path of report.md and returns 0; on bad input prints one line on stderr and returns 2.
    """
    parser = _Parser(prog="python -m bench report",
                     description="Build a markdown report (tables + PNG figures) from result folders.")
    parser.add_argument("dirs", nargs="*", type=Path,
                        help="result folders (results/<run_id>) or record files")
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default: reports/<name of the first folder>)")
    parser.add_argument("--baseline", default=an.DEFAULT_BASELINE,
                        help="baseline strategy name (default: cpu)")
    parser.add_argument("--parity-tolerance", type=float, default=an.PARITY_TOLERANCE_PP,
                        help="accuracy parity tolerance in percentage points (default: 1.0)")
    try:
        args = parser.parse_args(hydra_style_args(argv, ["out", "baseline", "parity_tolerance"]))
        if not args.dirs:
            raise CliError("no results folder given (usage: python -m bench report DIR [DIR ...])")
        if not (args.parity_tolerance >= 0):
            raise CliError(f"--parity-tolerance must be >= 0, got {args.parity_tolerance}")
        out = args.out or Path("reports") / args.dirs[0].resolve().name
        path = build_report(args.dirs, out, baseline=args.baseline, parity_tolerance_pp=args.parity_tolerance)
    except (CliError, ReportError) as e:
        print(f"bench report: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:  # --help
        return int(e.code or 0)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(report_main(sys.argv[1:]))
