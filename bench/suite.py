"""Runs a validated suite end to end: plan -> (resume) -> workers -> summary table -> report.

Imports no TensorFlow (workers do).
"""

from __future__ import annotations

import json
import math
import shlex
import sys
from pathlib import Path
from typing import Any

import pandas as pd
from tabulate import tabulate

from bench.config import SuiteConfig, clamp_warnings
from bench.launcher import Interrupted, Launcher, Progress, find_run, finished_points, new_run_id, write_manifest
from bench.plan import Point, plan
from bench.records import RUN_MANIFEST, load_records

EXIT_INTERRUPTED = 130


def points_to_run(points: list[Point], run_dir: Path) -> list[Point]:
    """Points without an ok/skipped/diverged record of the identical resolved configuration."""
    done = finished_points(run_dir)
    return [p for p in points if done.get(p.point_id) != p.config_hash]


def summary_table(records: list[dict[str, Any]], baseline: str = "cpu") -> str:
    """The end-of-run console table, from :func:`bench.analysis.summarize` (the report's own numbers).

    One row per configuration: examples/s = training throughput of the steady epochs (the report's one
    ranking measure, geometric mean over repeats); train s = median steady ``train_s``; speedup vs
    ``baseline`` formatted as in the report (an interval and ``~`` only with >= 3 repeats a side); flags:
    not learning, below the best accuracy, input-bound. A strategy whose every point was skipped (absent
    hardware) gets one line with the reason instead of a row per point.
    """
    from bench.analysis import add_learning, speedup_ci, summarize

    summary = summarize(records, baseline=baseline)
    if not summary.empty:
        summary = add_learning(summary)
    if summary.empty:
        return "no records"
    all_skipped = summary.groupby("strategy")["status"].agg(lambda s: set(s) == {"skipped"})
    lines = []
    rows = []
    for _, r in summary.sort_values(["workload", "strategy", "global_batch_size", "steps_per_execution"]).iterrows():
        if all_skipped[r["strategy"]]:
            continue
        ok = r["status"] == "ok"
        flags = [f for f, on in (("not learning", r["not_learning"]),
                                 ("below best accuracy", r["below_best"] and not r["not_learning"]),
                                 ("input-bound", r["input_bound"])) if on]
        status = r["status"] if ok else f"{r['status']}: {str(r['error'])[:80]}"
        speedup = "-"
        if ok and r["baseline"] not in ("", r["strategy"]) and pd.notna(r["speedup"]):
            speedup = speedup_ci(r).format()
        rows.append([r["workload"], r["strategy"], int(r["global_batch_size"]), int(r["steps_per_execution"]),
                     _fmt(r["examples_per_s"] if ok else None, ",.0f"),
                     _fmt(r["train_s_median"] if ok else None, ".3f"),
                     _fmt(r["final_val_accuracy"] if ok else None, ".3f"), speedup,
                     ", ".join([status, *flags])])
    if rows:
        lines.append(tabulate(rows, headers=["workload", "strategy", "batch", "spe", "examples/s", "train s/epoch",
                                             "val acc", f"vs {baseline}", "status"], disable_numparse=True))
    for strategy in sorted(s for s, skipped in all_skipped.items() if skipped):
        first = summary[summary["strategy"] == strategy].iloc[0]
        n = int(summary.loc[summary["strategy"] == strategy, "n_points"].sum())
        lines.append(f"skipped {strategy} ({n} points): {first['error']}")
    return "\n".join(lines)


def _fmt(v: float | None, spec: str) -> str:
    return "-" if v is None or not math.isfinite(v) else format(v, spec)


def report_run(cfg: SuiteConfig, run_id: str, run_dir: Path) -> None:
    """End of a run (finished or interrupted): console summary and, with ``report=true``, the report."""
    records = [r for r in load_records([run_dir], warn=False).records]
    print(summary_table(records, cfg.baseline))
    print(f"\nrecords: {run_dir}")
    if cfg.report and records:
        from bench.report import build_report

        try:
            path = build_report([run_dir], Path(cfg.reports_dir) / run_id, baseline=cfg.baseline,
                                parity_tolerance_pp=cfg.parity_tolerance_pp)
            print(f"report:  {path}")
        except Exception as e:  # a report bug must not hide the records the run produced
            print(f"bench: report failed ({type(e).__name__}: {e}); records are intact; rebuild with "
                  f"python -m bench report {run_dir}", file=sys.stderr)


def resume_command(cfg: SuiteConfig, run_id: str, argv: list[str] | None = None) -> str:
    """The command that resumes ``run_id``: this run's own overrides (from argv) plus ``resume=<run_id>``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not any(a.startswith("suite=") for a in args):  # not started from the command line: rebuild it
        args = [f"suite={cfg.name}", f"results_dir={cfg.results_dir}"]
    args = [a for a in args if not a.startswith("resume=")] + [f"resume={run_id}"]
    return "python -m bench " + " ".join(shlex.quote(a) for a in args)


def run_suite(cfg: SuiteConfig) -> int:
    """Run every point of ``cfg``; returns the exit status (0, or 130 when interrupted)."""
    results_dir = Path(cfg.results_dir)
    for warning in clamp_warnings(cfg):
        print(f"bench: warning: {warning}", file=sys.stderr)
    points = plan(cfg)
    if cfg.resume:
        try:
            run_dir = find_run(results_dir, cfg.resume)
        except FileNotFoundError as e:
            print(f"bench: error: {e}", file=sys.stderr)
            return 2
        run_id = run_dir.name
        previous = json.loads((run_dir / RUN_MANIFEST).read_text())
        if previous.get("suite") != cfg.name:
            print(f"bench: error: resume={cfg.resume}: {run_id} is a run of suite {previous.get('suite')!r}, not "
                  f"{cfg.name!r}; allowed: resume a run of the same suite", file=sys.stderr)
            return 2
        planned = {p.point_id for p in points}
        stale = sorted({r["point_id"] for r in load_records([run_dir], warn=False).records} - planned)
        if stale:
            print(f"bench: warning: {len(stale)} record(s) in {run_id} are not part of this configuration (e.g. "
                  f"{stale[0]}); they stay in the folder and in its report", file=sys.stderr)
        todo = points_to_run(points, run_dir)
        print(f"resuming {run_id}: {len(points) - len(todo)} of {len(points)} points already recorded",
              file=sys.stderr)
    else:
        run_id, run_dir = new_run_id(cfg.name, results_dir)
        todo = points
    write_manifest(run_dir, run_id, cfg, points)
    show = cfg.progress == "on" or (cfg.progress == "auto" and sys.stderr.isatty())
    progress = Progress(total=len(todo), enabled=show)
    status = 0
    try:
        Launcher(cfg, todo, run_id, run_dir, progress).run()
    except Interrupted as e:
        status = e.exit_status  # 130 for Ctrl-C, 143 for SIGTERM
    finally:
        progress.close()
    try:
        report_run(cfg, run_id, run_dir)
    except KeyboardInterrupt:  # a second Ctrl-C stops the summary/report, never the records already written
        print("\nbench: report interrupted; rebuild it with  python -m bench report " + str(run_dir),
              file=sys.stderr)
        status = EXIT_INTERRUPTED
    if status > 128:
        print(f"interrupted: resume with  {resume_command(cfg, run_id)}", file=sys.stderr)
    return status
