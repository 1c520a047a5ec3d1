"""A sweep spread over machines on an engine that exists: ``launcher=dask`` (a Dask cluster by address, or a
``LocalCluster`` bench starts on 127.0.0.1) and ``launcher=slurm`` (Dask workers started as SLURM jobs by
dask-jobqueue). bench schedules nothing itself.

Each worker group (backend, strategy, processes, repeat) becomes **one Dask task that holds a whole machine**: every
Dask worker declares one ``machine`` resource and every task asks for it, so no two timed groups ever share a
machine. Inside the task the local launcher runs the group as it does on one machine (worker processes, time limits,
a crash as a ``failed`` record, a fresh worker for the rest), in a folder of its own: ``tasks/group<k>`` of the run
folder when the Dask worker sees it (a shared file system; the run's ``init/`` weights are shared through it), else
a temporary folder on that machine. The task writes its records into the run folder as soon as its group ends (a
result held by a Dask worker is lost with it) and returns them, for the driver to write where the run folder is not
shared; its own copies are renamed ``*.sent``. Records land in one run either way. A task that dies with its Dask
worker (a lost machine, a killed job) is a ``failed`` record for each point of its group that had none, never a
hang.

Imports Dask only here, on first use: the extras ``bench[dask]`` and ``bench[slurm]``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.config import SuiteConfig, race_settings
from bench.engines import unresolved_strategy
from bench.measure.env import host_env
from bench.records import DOCTOR_FILE, ErrorInfo, parse, write_record
from bench.runner.launcher import Interrupted, Launcher
from bench.runner.plan import Point, groups
from bench.runner.point_record import base_record, utc_now
from bench.runner.progress import Progress
from bench.runner.rundir import is_recorded

MACHINE = "machine"  # the resource each Dask worker has one of, and each task holds: a whole machine
TASK_FAULT = "dask:"  # test-only: a BENCH_FAULT rule ``exit:dask:<point id>`` kills the Dask worker in the task


def run_group_task(cfg: SuiteConfig, points: list[dict[str, Any]], run_id: str, run_dir: str,
                   k: int) -> list[dict[str, Any]]:
    """Run worker group ``k`` (``points`` as the plan wrote them) inside a Dask worker, through the local
    launcher; writes the group's records into the run folder when this machine sees it, and returns them (their
    ``process.log`` relative to the run folder) for the driver to write where it does not."""
    from bench.runner.faults import Faults

    pts = [Point.from_record(p) for p in points]
    if Faults.parse(os.environ.get("BENCH_FAULT", "")).kind_for(TASK_FAULT + pts[0].point_id) == "exit":
        os._exit(3)  # the Dask worker dies with the task (a lost machine)
    shared = Path(run_dir)
    if shared.is_dir():  # a shared folder: the group's own corner of the run, the run's initial weights
        landed = [p for p in pts if is_recorded(shared, p)]  # Dask computes a task again when the worker that
        if landed:  # held its result is lost before the driver took it: what landed then is not run (timed) twice
            pts = [p for p in pts if p not in landed]
            if not pts:
                return [json.loads((shared / f"{p.point_id}.json").read_text()) for p in landed]
        here = shared / "tasks" / f"group{k}"
        here.mkdir(parents=True, exist_ok=True)
        (shared / "init").mkdir(exist_ok=True)
        if not (here / "init").is_symlink():  # relative: right wherever the shared folder is mounted
            (here / "init").symlink_to(Path("..", "..", "init"), target_is_directory=True)
        if (shared / DOCTOR_FILE).exists():
            shutil.copy(shared / DOCTOR_FILE, here / DOCTOR_FILE)
        prefix = f"tasks/group{k}/"
    else:  # this machine cannot see the run folder: a folder of its own; its logs stay here
        here = Path(tempfile.mkdtemp(prefix=f"bench-{run_id}-group{k}-"))
        prefix = f"{os.uname().nodename}:{here}/"
    Launcher(cfg, pts, run_id, here, Progress(total=len(pts), enabled=False)).run_group(pts, k)
    stored = []
    for p in pts:
        path = here / f"{p.point_id}.json"
        if path.exists():
            rec = json.loads(path.read_text())
            if (rec.get("process") or {}).get("log"):
                rec["process"]["log"] = prefix + rec["process"]["log"]
            stored.append(rec)
            if shared.is_dir():
                write_record(shared, parse(rec))  # now: a result held by a worker that dies later is lost
            path.rename(path.with_suffix(".sent"))  # no reader counts this copy twice
    return stored


def make_cluster(cfg: SuiteConfig) -> Any:
    """The cluster bench starts for the run: SLURM jobs (``launcher=slurm``), a ``LocalCluster`` on 127.0.0.1
    (``launcher=dask`` without ``dask_scheduler``), or None (a cluster that already runs, by address)."""
    if cfg.launcher == "slurm":
        cluster = slurm_cluster(cfg)
        cluster.scale(jobs=cfg.dask_workers)
        return cluster
    if cfg.dask_scheduler:
        return None
    from distributed import LocalCluster

    return LocalCluster(n_workers=cfg.dask_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                        resources={MACHINE: 1}, dashboard_address=None)


def slurm_cluster(cfg: SuiteConfig) -> Any:
    """dask-jobqueue's ``SLURMCluster`` from the ``slurm.*`` settings (``cores``, ``memory``, ``queue``,
    ``account``, ``walltime``, ``job_extra_directives``, ...): one Dask worker per job, holding the job's machine."""
    from dask_jobqueue import SLURMCluster

    settings = dict(cfg.slurm)
    settings["processes"] = 1  # one Dask worker per job: the job is the machine a group is timed on
    settings["worker_extra_args"] = [*settings.get("worker_extra_args", []), "--resources", f"{MACHINE}=1"]
    return SLURMCluster(**settings)


class DaskLauncher:
    """Runs the points of one run folder as Dask tasks, one per worker group (module docstring)."""

    def __init__(self, cfg: SuiteConfig, points: list[Point], run_id: str, run_dir: Path,
                 progress: Progress) -> None:
        self.cfg, self.points, self.run_id, self.run_dir, self.progress = cfg, points, run_id, run_dir, progress
        self.started = 0.0  # time.time() when the run submits its tasks

    def run(self) -> None:
        """Submit every group, write each group's records as its task ends; Ctrl-C cancels what is left."""
        import dask
        from distributed import Client, as_completed

        if self.cfg.dask_workers > 1 and not self.cfg.dask_scheduler and self.cfg.launcher == "dask":
            print(f"bench: warning: a LocalCluster of {self.cfg.dask_workers} workers runs {self.cfg.dask_workers} "
                  "timed groups at once on this one machine: a functional check, not a measurement", file=sys.stderr)
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}):  # a lost machine fails its task once
            cluster = make_cluster(self.cfg)
            client = Client(cluster if cluster is not None else self.cfg.dask_scheduler)
        futures: dict[Any, list[Point]] = {}
        self.started = time.time()  # records written after this are this run's (a task may write before it dies)
        try:
            for k, pts in enumerate(groups(self.points).values()):
                fut = client.submit(run_group_task, self.cfg, [p.to_record() for p in pts], self.run_id,
                                    str(self.run_dir.absolute()), k, resources={MACHINE: 1}, pure=False,
                                    key=f"bench-{self.run_id}-group{k}")
                futures[fut] = pts
            self.progress.show()
            for fut in as_completed(list(futures)):
                self.land(futures.pop(fut), fut)
                fut.release()  # a result kept on a worker that is lost later would be computed (timed) again
        except KeyboardInterrupt:
            client.cancel(list(futures))
            raise Interrupted(signal.SIGINT) from None
        finally:
            client.close()
            if cluster is not None:
                with contextlib.suppress(Exception):
                    cluster.close()

    def land(self, pts: list[Point], fut: Any) -> None:
        """Write a finished task's records into the run folder; a task that failed (its Dask worker lost) fails
        each of its points that has no record."""
        try:
            stored, cause = fut.result(), None
        except Exception as e:  # KilledWorker, a scheduler gone, an error in the task itself
            stored, cause = [], {"type": "DaskTaskLost", "message": (
                f"the Dask task of this worker group failed ({type(e).__name__}: {str(e)[:300]}): its machine was "
                "lost or the task could not run; resume runs the point again")}
        for stored_rec in stored:  # the task's own outcome replaces a failed record an earlier attempt left
            write_record(self.run_dir, parse(stored_rec))
        for point in pts:
            path = self.run_dir / f"{point.point_id}.json"
            if not (path.exists() and path.stat().st_mtime >= self.started):  # not written by this run's task
                self._fail(point, cause or {"type": "DaskTaskLost", "message": "the task returned no record"})
        self.progress.done += len(pts)
        self.progress.show()

    def _fail(self, point: Point, cause: dict[str, Any]) -> None:
        rec = base_record(self.run_id, self.cfg.name, point, unresolved_strategy(point.strategy), host_env(),
                          point.global_batch_size, None, race_settings(self.cfg))
        rec.status = "failed"
        rec.error = ErrorInfo.model_validate(cause)
        rec.finished_at = utc_now()
        write_record(self.run_dir, rec)
