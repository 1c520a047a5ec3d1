"""Runs a validated suite end to end: plan -> run folder (new or resumed) -> workers -> console table ->
report. Imports no framework (workers do).
"""

from __future__ import annotations

import dataclasses
import math
import shlex
import sys
import time
from collections import Counter
from pathlib import Path

from bench.config import SuiteConfig, is_raced, shard_of
from bench.job.point import Point
from bench.measure.env import process_started_at
from bench.records import load_records
from bench.reporting.render.console import summary_table
from bench.runner.inputs import clamp_warnings
from bench.runner.launcher import Interrupted, Launcher
from bench.runner.plan import plan
from bench.runner.progress import Progress
from bench.runner.rundir import find_run, new_run_id, points_to_run, record_parent, suite_of, write_manifest
from bench.runner.unsupported import announce, record_skipped, why_skipped

IMPORTED = time.time()  # the parent's start where /proc cannot tell it
EXIT_INTERRUPTED = 130


EXIT_NOTHING_SUCCEEDED = 1


def report_run(cfg: SuiteConfig, run_id: str, run_dir: Path, clock: dict[str, float] | None = None) -> list[dict]:
    """End of a run (finished or interrupted): console summary and, with ``report=true``, the report; returns the
    run's records. ``clock`` (when this process ran the workers: its start, ``before_workers_s`` and ``workers_s``)
    goes into ``run.json`` with the report's seconds and the wall time before the markdown is written."""
    report_started = time.time()

    def record_clock() -> None:
        if clock is not None:
            now = time.time()
            record_parent(run_dir, {"before_workers_s": clock["before_workers_s"], "workers_s": clock["workers_s"],
                                    **({"report_s": now - report_started} if cfg.report else {}),
                                    "wall_s": now - clock["started"]})

    records = [r for r in load_records([run_dir], warn=False).records]
    print(summary_table(records, cfg.baseline))
    missing = not_started(run_dir, records)
    if missing:
        more = f", … {len(missing) - 5} more" if len(missing) > 5 else ""
        print(f"not started: {len(missing)} of the {len(missing) + len(records)} planned points "
              f"({', '.join(missing[:5])}{more}); resuming the run runs them")
    print(f"\nrecords: {run_dir}")
    if cfg.report and records:
        from bench.reporting.build import build_report
        from bench.reporting.load.prices import load_table

        try:
            path = build_report([run_dir], Path(cfg.reports_dir) / run_id, baseline=cfg.baseline,
                                parity_margin_pp=cfg.parity_margin_pp,
                                prices=load_table(extra=Path(cfg.prices) if cfg.prices else None),
                                before_text=record_clock)
            print(f"report:  {path}")
        except Exception as e:  # a report bug must not hide the records the run produced
            print(f"bench: report failed ({type(e).__name__}: {e}); records are intact; rebuild with "
                  f"python -m bench report {run_dir}", file=sys.stderr)
    else:
        record_clock()
    return records


def not_started(run_dir: Path, records: list[dict]) -> list[str]:
    """The planned points of a run (its manifest) with no record yet, in planned order (an interrupted run's)."""
    import json

    from bench.records import RUN_MANIFEST

    try:
        planned = json.loads((run_dir / RUN_MANIFEST).read_text()).get("points", [])
    except (OSError, ValueError, AttributeError):
        return []
    done = {r.get("point_id") for r in records}
    return [p for p in planned if isinstance(p, str) and p not in done]


def nothing_succeeded(records: list[dict]) -> str:
    """The line that ends a run none of whose points succeeded ("" when one did, or when there are none)."""
    if not records or any(r.get("status") == "ok" for r in records):
        return ""
    counts = Counter(str(r.get("status")) for r in records)
    said = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    return f"no point of this run succeeded ({said}): the table above and the report say why"


def resume_command(cfg: SuiteConfig, run_id: str, argv: list[str] | None = None) -> str:
    """The command that resumes ``run_id``: this run's own overrides (from argv) plus ``resume=<run_id>``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not any(a.startswith(("suite=", "workloads=")) for a in args):  # not started from the command line
        from bench.workloads import run_name

        by_workloads = cfg.name == run_name(cfg.workloads)  # run without a suite: named by its workloads
        named = f"workloads=[{','.join(cfg.workloads)}]" if by_workloads else f"suite={cfg.name}"
        args = [named, f"results_dir={cfg.results_dir}"]
    args = [a for a in args if not a.startswith("resume=")] + [f"resume={run_id}"]
    return "python -m bench " + " ".join(shlex.quote(a) for a in args)


class ResumeError(ValueError):
    """``resume=`` names no run, or a run of another suite."""


def open_run(cfg: SuiteConfig, points: list[Point]) -> tuple[str, Path, list[Point]]:
    """The run folder (new, or the one ``resume`` names) and the points still to run there.

    A resumed run skips every point that already has an ok/skipped/diverged record of the identical
    configuration; records of points this configuration does not plan stay (with a warning).
    """
    results_dir = Path(cfg.results_dir)
    if not cfg.resume:
        shard = shard_of(cfg.shard)  # a shard's run id names it: N shards merged stay N runs, told apart
        run_id, run_dir = new_run_id(cfg.name + (f"-shard{shard[0]}of{shard[1]}" if shard else ""), results_dir)
        return run_id, run_dir, points
    try:
        run_dir = find_run(results_dir, cfg.resume, cfg.name)
    except FileNotFoundError as e:
        raise ResumeError(str(e)) from e
    run_id = run_dir.name
    previous = suite_of(run_dir)
    if previous != cfg.name:
        raise ResumeError(f"resume={cfg.resume}: {run_id} is a run of suite {previous!r}, not "
                          f"{cfg.name!r}; allowed: resume a run of the same suite")
    planned = {p.point_id for p in (plan(cfg) if is_raced(cfg) else points)}  # a race's later rounds too
    stale = sorted({r["point_id"] for r in load_records([run_dir], warn=False).records} - planned)
    if stale:
        print(f"bench: warning: {len(stale)} record(s) in {run_id} are not part of this configuration (e.g. "
              f"{stale[0]}); they stay in the folder and in its report", file=sys.stderr)
    todo = points_to_run(points, run_dir)
    print(f"resuming {run_id}: {len(points) - len(todo)} of {len(points)} points already recorded",
          file=sys.stderr)
    return run_id, run_dir, todo


def launch(cfg: SuiteConfig, todo: list[Point], run_id: str, run_dir: Path) -> None:
    """Run ``todo`` in worker processes (locally, or one task per worker group on a Dask cluster or SLURM jobs),
    with the progress line where asked; raises Interrupted on Ctrl-C or SIGTERM. Groups a cluster lost for good are
    said, with the command that runs their points again."""
    todo = record_skipped(cfg, run_id, run_dir, todo)  # what a backend cannot run: a reason, no worker
    show = cfg.progress == "on" or (cfg.progress == "auto" and sys.stderr.isatty())
    progress = Progress(total=len(todo), enabled=show)
    lost = 0
    try:
        if cfg.launcher == "local":
            Launcher(cfg, todo, run_id, run_dir, progress).run()
        else:  # a Dask cluster or SLURM jobs: one task per worker group, each holding a machine
            from bench.runner.dask_launcher import DaskLauncher

            lost = DaskLauncher(cfg, todo, run_id, run_dir, progress).run()
    finally:
        progress.close()
    if lost:
        print(f"bench: warning: {lost} worker group(s) lost their machine for good; their points without a record "
              f"are failed records (DaskTaskLost): run them again with  {resume_command(cfg, run_id)}",
              file=sys.stderr)


def tpu_backends(cfg: SuiteConfig, points: list[Point]) -> list[str]:
    """The backends with TPU points a worker will run: the doctor checks those before the run (a backend whose TPU
    points are recorded skipped, PyTorch's or any on a machine without a TPU, has nothing to check)."""
    return sorted({p.backend for p in points if p.strategy == "tpu" and not why_skipped(cfg, p)[1]})


def run_suite(cfg: SuiteConfig) -> int:
    """Run every point of ``cfg``; returns the exit status (0; 1 when no point succeeded; 2 when resume names no
    usable run; 128 + the signal's number when interrupted). The command's process started the run: its wall time
    counts from the process's start (interpreter, imports)."""
    started = process_started_at()
    return execute(cfg, started if math.isfinite(started) else IMPORTED)[0]


def execute(cfg: SuiteConfig, started: float | None = None) -> tuple[int, Path | None]:
    """:func:`run_suite`, also returning the run's folder (None when no run was opened); the run's wall time counts
    from ``started`` (``time.time()``), else from this call (a notebook's kernel started long before)."""
    started = time.time() if started is None else started
    for warning in clamp_warnings(cfg):
        print(f"bench: warning: {warning}", file=sys.stderr)
    points = plan(cfg, repeats=[0]) if is_raced(cfg) else plan(cfg)  # repeats=auto: round 0 first
    try:
        run_id, run_dir, todo = open_run(cfg, points)
    except ResumeError as e:
        print(f"bench: error: {e}", file=sys.stderr)
        return 2, None
    write_manifest(run_dir, run_id, cfg, points)
    announce(cfg, todo)
    checked = tpu_backends(cfg, todo)
    if checked:
        from bench.readiness.command import before_tpu_points

        before_tpu_points(dataclasses.replace(cfg, backends=checked), run_dir)
    status = 0
    clock = {"started": started, "before_workers_s": time.time() - started}
    try:
        if is_raced(cfg):
            from bench.runner.racing import run_race

            run_race(cfg, run_id, run_dir, points, todo, lambda pts: launch(cfg, pts, run_id, run_dir))
        else:
            launch(cfg, todo, run_id, run_dir)
    except Interrupted as e:
        status = e.exit_status  # 130 for Ctrl-C, 143 for SIGTERM
    clock["workers_s"] = time.time() - started - clock["before_workers_s"]
    try:
        failed = nothing_succeeded(report_run(cfg, run_id, run_dir, clock))
        if failed and status == 0:
            print(f"bench: {failed}", file=sys.stderr)
            status = EXIT_NOTHING_SUCCEEDED
    except KeyboardInterrupt:  # a second Ctrl-C stops the summary/report, never the records already written
        print("\nbench: report interrupted; rebuild it with  python -m bench report " + str(run_dir),
              file=sys.stderr)
        status = EXIT_INTERRUPTED
    if status > 128:
        print(f"interrupted: resume with  {resume_command(cfg, run_id)}", file=sys.stderr)
    return status, run_dir
