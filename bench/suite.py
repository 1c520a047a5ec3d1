"""Runs a validated suite end to end: plan -> (resume) -> workers -> summary table -> report.

Imports no TensorFlow (workers do).
"""

from __future__ import annotations

import shlex
import statistics
import sys
from pathlib import Path
from typing import Any

from tabulate import tabulate

from bench.config import SuiteConfig, clamp_warnings
from bench.launcher import Interrupted, Launcher, Progress, find_run, finished_points, new_run_id, write_manifest
from bench.plan import Point, plan
from bench.records import load_records, steady_epochs

EXIT_INTERRUPTED = 130


def points_to_run(points: list[Point], run_dir: Path) -> list[Point]:
    """Points without an ok/skipped/diverged record of the identical resolved configuration."""
    done = finished_points(run_dir)
    return [p for p in points if done.get(p.point_id) != p.config_hash]


def summary_rows(records: list[dict[str, Any]]) -> list[list[Any]]:
    """One row per point (repeats pooled): the end-of-run console table.

    ``steady epoch s`` is the median ``epoch_s`` of epochs 2..n; ``examples/s`` is examples over
    ``train_s`` (validation excluded), median over the same epochs.
    """
    grouped: dict[tuple, list[dict[str, Any]]] = {}
    for r in records:
        key = (r["workload"], r["strategy"].get("requested") or r["strategy"].get("name"),
               r.get("global_batch_size") or r.get("point", {}).get("batch_size"), r["steps_per_execution"],
               r["precision"])
        grouped.setdefault(key, []).append(r)
    rows = []
    def order(kv: tuple) -> tuple:  # numbers sort as numbers (32 before 128), the rest as text
        return tuple((0, k, "") if isinstance(k, int | float) else (1, 0, str(k)) for k in kv[0])

    for key, recs in sorted(grouped.items(), key=order):
        steady = [e for r in recs if r["status"] == "ok" for e in steady_epochs(r)]
        statuses = sorted({r["status"] for r in recs})
        epoch_s = statistics.median(e["epoch_s"] for e in steady) if steady else None
        ex_s = statistics.median(e["examples"] / e["train_s"] for e in steady if e["train_s"] > 0) if steady else None
        final = [r["epochs"][-1].get("val_accuracy") for r in recs if r["status"] == "ok" and r["epochs"]]
        final = [v for v in final if v is not None]
        status = "/".join(statuses)
        if statuses != ["ok"]:
            errs = [r["error"]["message"] for r in recs if r.get("error")]
            if errs:
                status += f": {errs[0][:70]}"
        rows.append([*key[:4], _fmt(epoch_s, ".3f"), _fmt(ex_s, ",.0f"),
                     _fmt(statistics.mean(final) if final else None, ".3f"), status])
    return rows


def _fmt(v: float | None, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def print_summary(records: list[dict[str, Any]], out: Any = sys.stdout) -> None:
    """Plain-text table: workload, strategy, batch, spe, steady epoch s, examples/s, val accuracy, status.

    A strategy whose every point was skipped (absent hardware) gets one line with the reason instead.
    """
    by_strategy: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_strategy.setdefault(r["strategy"].get("requested") or r["strategy"].get("name"), []).append(r)
    skipped = {s: rs for s, rs in by_strategy.items() if all(r["status"] == "skipped" for r in rs)}
    shown = [r for s, rs in by_strategy.items() if s not in skipped for r in rs]
    headers = ["workload", "strategy", "batch", "spe", "steady epoch s", "examples/s", "val acc", "status"]
    if shown:
        print(tabulate(summary_rows(shown), headers=headers, disable_numparse=True), file=out)
    for s, rs in skipped.items():
        print(f"skipped {s} ({len(rs)} points): {(rs[0].get('error') or {}).get('message', '')}", file=out)


def report_run(cfg: SuiteConfig, run_id: str, run_dir: Path) -> None:
    """End of a run (finished or interrupted): console summary and, with ``report=true``, the report."""
    records = [r for r in load_records([run_dir], warn=False).records]
    print_summary(records)
    print(f"\nrecords: {run_dir}")
    if cfg.report and records:
        from bench.report import build_report

        try:
            path = build_report([run_dir], Path(cfg.reports_dir) / run_id, baseline=cfg.baseline)
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
    except Interrupted:
        status = EXIT_INTERRUPTED
    finally:
        progress.close()
    try:
        report_run(cfg, run_id, run_dir)
    except KeyboardInterrupt:  # a second Ctrl-C stops the summary/report, never the records already written
        print("\nbench: report interrupted; rebuild it with  python -m bench report " + str(run_dir),
              file=sys.stderr)
        status = EXIT_INTERRUPTED
    if status == EXIT_INTERRUPTED:
        print(f"interrupted: resume with  {resume_command(cfg, run_id)}", file=sys.stderr)
    return status
