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
    "(tracing, XLA/TPU compilation, cache fill); the **steady state** is epochs 2..n, pooled over repeats. "
    "Steady epoch time is shown as median [IQR] in seconds (training + validation); examples/s is the "
    "median training throughput of the steady epochs (validation excluded); warm-up is epoch 1 minus the "
    "steady median. Speedup is the baseline's median steady epoch time over this configuration's, at "
    "equal workload, dataset, global batch, steps_per_execution (spe) and precision, on the same host "
    "when possible, with a 95% bootstrap interval; `~` marks a ratio whose interval contains 1 "
    "(not significant: it cannot be told apart from noise). Failed, skipped and diverged points are "
    "listed, never dropped."
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
    ci = an.stats.RatioCI(row["speedup"], row["speedup_low"], row["speedup_high"], 0, 0)
    return ci.format()


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
    if row["input_bound"]:
        flags.append("input-bound")
    if row.get("parity_flag", False):
        flags.append("parity")
    return "; ".join(flags)


def environment_table(records: list[dict[str, Any]]) -> str:
    """One row per distinct machine environment, with the runs that used it."""
    envs: dict[tuple[str, ...], set[str]] = {}
    for r in records:
        e = r.get("env") or {}
        commit = str(e.get("git_commit") or DASH) + ("+dirty" if e.get("git_dirty") else "")
        fields = ("hostname", "device_kind", "device_count", "accelerator", "python", "tensorflow", "keras",
                  "bench_version")
        key = (*(str(e.get(f)) if e.get(f) is not None else DASH for f in fields), commit)
        envs.setdefault(key, set()).add(str(r["run_id"]))
    cols = ["host", "device kind", "devices", "accelerator", "Python", "TensorFlow", "Keras", "bench",
            "git commit", "runs"]
    return _table([dict(zip(cols, [*k, ", ".join(sorted(v))], strict=True)) for k, v in sorted(envs.items())])


def results_table(summary: pd.DataFrame, baseline: str) -> str:
    """Strategy x global batch x spe table of one workload (every status, never dropped)."""
    has_flops = summary["gflops_per_s"].notna().any()
    has_sheet = summary["mfu_datasheet_pct"].notna().any()
    rows = []
    for _, r in summary.iterrows():
        ok = r["status"] == "ok"
        known = isinstance(r["device_kind"], str) and pd.notna(r["num_replicas"]) and r["num_replicas"]
        devices = f"{r['device_kind']} x{int(r['num_replicas'])}" if known else DASH
        row = {
            "strategy": r["strategy"], "devices": devices, "global batch": r["global_batch_size"],
            "spe": r["steps_per_execution"], "precision": r["precision"],
            "status": r["status"] if ok else f"**{r['status']}**",
            "repeats": r["n_ok"] if r["n_ok"] == r["n_points"] else f"{r['n_ok']}/{r['n_points']}",
            "steady epoch s median [IQR]":
                f"{fmt_s(r['epoch_s_median'])} [{fmt_s(r['epoch_s_iqr'])}]" if ok else DASH,
            "examples/s": _fmt(r["examples_per_s"], ",.0f"), "warm-up s": fmt_s(r["warmup_overhead_s"]),
            f"speedup vs {baseline} [95% CI]": fmt_speedup(r),
            "final val acc": _fmt(r["final_val_accuracy"], ".3f"),
        }
        if has_flops:
            row["GFLOP/s"] = _fmt(r["gflops_per_s"], ".1f")
            row["MFU %"] = _fmt(r["mfu_pct"], ".1f")
        if has_sheet:
            row["MFU % (datasheet)"] = _fmt(r["mfu_datasheet_pct"], ".2f")
        row["flags"] = _flags(r)
        rows.append(row)
    return _table(rows)


def _sentences(summary: pd.DataFrame, parity: pd.DataFrame, tolerance: float) -> list[str]:
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
    if not parity.empty and parity["flag"].any():
        items = [f"{r['strategy']} at b{r['global_batch_size']} spe{r['steps_per_execution']} "
                 f"{r['precision']} seed {r['seed']} ({r['diff_pp']:+.1f} pp vs {r['baseline']})"
                 for _, r in parity[parity["flag"]].iterrows()]
        out.append(f"**Accuracy parity** broken (final val accuracy more than {tolerance:g} pp from the "
                   f"baseline): {'; '.join(items)}.")
    return out


def best_section(a: an.Analysis, summary: pd.DataFrame, workload: str, dataset: str) -> list[str]:
    best = a.best[(a.best["workload"] == workload) & (a.best["dataset"] == dataset)]
    if best.empty:
        return ["No configuration of this workload finished.", ""]
    rows = [{"strategy": r["strategy"], "best configuration": an.config_name(r),
             "examples/s": f"{r['examples_per_s']:,.0f}", "steady epoch s": fmt_s(r["epoch_s_median"]),
             f"speedup vs {a.baseline}": fmt_speedup(r)} for _, r in best.iterrows()]
    win = a.winners[(a.winners["workload"] == workload) & (a.winners["dataset"] == dataset)].iloc[0]
    why = ("no configuration of this workload learns, so this is merely the fastest" if win["not_learning"]
           else "highest throughput among the configurations that learn")
    return [_table(rows), "",
            f"**Overall winner:** {_config(win)}, {win['examples_per_s']:,.0f} examples/s, steady epoch "
            f"{fmt_s(win['epoch_s_median'])} s ({why}).", ""]


def break_even_section(be: pd.DataFrame) -> list[str]:
    if be.empty:
        return []
    rows = [{"strategy": r["strategy"],
             "quickest to start (warm-up s / epoch s)":
                 f"{r['quick']} ({fmt_s(r['quick_warmup_s'])} / {fmt_s(r['quick_epoch_s'])})",
             "fastest steady (warm-up s / epoch s)":
                 f"{r['fast']} ({fmt_s(r['fast_warmup_s'])} / {fmt_s(r['fast_epoch_s'])})",
             "break-even epochs": "no trade-off" if r["quick"] == r["fast"] else
             (str(r["break_even_epochs"]) if math.isfinite(r["break_even_epochs"]) else "never")}
            for _, r in be.iterrows()]
    return ["### Break-even epochs", "",
            "Training n epochs costs warm-up + n x steady epoch time. Break-even is the smallest n from "
            "which a strategy's fastest steady configuration is no slower in total than its "
            "quickest-to-start one (it has paid back its extra warm-up).", "", _table(rows), ""]


def parity_section(parity: pd.DataFrame, tolerance: float) -> list[str]:
    lines = ["## Accuracy parity", "",
             "Final val accuracy per strategy at equal workload, dataset, global batch, spe, precision and "
             f"seed (median over repeats). spread = max - min over strategies, in percentage points (pp); a "
             f"strategy more than {tolerance:g} pp from its baseline is flagged.", ""]
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
                         "spread pp": f"{sub['spread_pp'].iloc[0]:.1f}", "flag": ", ".join(flagged)})
        lines += [f"### {workload} on {dataset}", "", _table(rows), ""]
    return lines


def problems_section(points: pd.DataFrame) -> list[str]:
    bad = points[points["status"] != "ok"] if not points.empty else points
    lines = ["## Failed, skipped and diverged points", ""]
    if bad.empty:
        return [*lines, "None: every point finished.", ""]
    rows = [{"host": r["host"], "run": r["run_id"], "point": r["point_id"], "status": r["status"],
             "reason": _short(r["error"] or "(no reason recorded)", 200)} for _, r in bad.iterrows()]
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
    lines = ["# bench report", "", HOW_TO_READ, "",
             f"{len(a.points)} point records from {a.points['run_id'].nunique()} run(s) on {len(hosts)} "
             f"host(s) ({', '.join(hosts)}); baseline strategy `{a.baseline}`; parity tolerance "
             f"{a.parity_tolerance_pp:g} pp; {len(loaded.skipped)} file(s) skipped by the loader.", "",
             "## Environment", "", environment_table(loaded.records), ""]
    for (workload, dataset), g in s.groupby(["workload", "dataset"], sort=True):
        par = a.parity[(a.parity["workload"] == workload) & (a.parity["dataset"] == dataset)] \
            if not a.parity.empty else a.parity
        be = a.break_even[(a.break_even["workload"] == workload) & (a.break_even["dataset"] == dataset)] \
            if not a.break_even.empty else a.break_even
        lines += [f"## {workload} on {dataset}", "", "### Results", "", results_table(g, a.baseline), ""]
        for sentence in _sentences(g, par, a.parity_tolerance_pp):
            lines += [sentence, ""]
        lines += ["### Best configuration per strategy", "", *best_section(a, g, workload, dataset)]
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
