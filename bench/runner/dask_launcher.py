"""A sweep spread over machines by Dask: ``launcher=dask`` (a cluster by address, or a ``LocalCluster`` on 127.0.0.1)
and ``launcher=slurm`` (Dask workers as SLURM jobs, dask-jobqueue). Each worker group is one Dask task holding a
whole machine (a ``machine`` resource), run by the local launcher in ``tasks/group<k>``; a lost machine costs at most
its group, run again once (:func:`rescue`). Method: docs/scale.md, *A sweep on a cluster*. Imports Dask on first use.
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
from bench.job.point import Point
from bench.job.point_record import base_record, utc_now
from bench.measure.env import host_env
from bench.records import DOCTOR_FILE, ErrorInfo, parse, write_record
from bench.runner.launcher import Interrupted, Launcher
from bench.runner.plan import groups
from bench.runner.progress import Progress
from bench.runner.rundir import is_recorded

MACHINE = "machine"  # the resource each Dask worker has one of, and each task holds: a whole machine
TASK_FAULT = "dask:"  # test-only: a BENCH_FAULT rule ``exit:dask:<point id>`` kills the Dask worker in the task


def run_group_task(cfg: SuiteConfig, points: list[dict[str, Any]], run_id: str, run_dir: str,
                   k: int) -> list[dict[str, Any]]:
    """Run worker group ``k`` (``points`` as the plan wrote them) inside a Dask worker, through the local
    launcher; writes the group's records into the run folder when this machine sees it, and returns them (their
    ``process.log`` relative to the run folder) for the driver to write where it does not."""
    from bench.job.faults import Faults

    pts = [Point.from_record(p) for p in points]
    if Faults.parse(os.environ.get("BENCH_FAULT", "")).kind_for(TASK_FAULT + pts[0].point_id) == "exit":
        os._exit(3)  # the Dask worker dies with the task (a lost machine)
    shared, who = Path(run_dir), dask_worker_name()
    if shared.is_dir():  # a shared folder: the group's own corner of the run, the run's initial weights
        here = shared / "tasks" / f"group{k}"
        if here.is_dir():
            rescue(here, shared, k)  # what an earlier attempt of this group recorded before its machine was lost
        landed = [p for p in pts if is_recorded(shared, p)]  # Dask computes a task again when the worker that
        if landed:  # held its result is lost before the driver took it: what landed then is not run (timed) twice
            pts = [p for p in pts if p not in landed]
            if not pts:
                return [json.loads((shared / f"{p.point_id}.json").read_text()) for p in landed]
        here.mkdir(parents=True, exist_ok=True)
        (here / WORKER_FILE).write_text(who)
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
            rec = ran_by(json.loads(path.read_text()), prefix, who, k)
            stored.append(rec)
            if shared.is_dir():
                write_record(shared, parse(rec))  # now: a result held by a worker that dies later is lost
            path.rename(path.with_suffix(".sent"))  # no reader counts this copy twice
    return stored


WORKER_FILE = "dask_worker.txt"  # in a group's folder: the Dask worker of its latest attempt


def ran_by(rec: dict[str, Any], prefix: str, who: str, k: int) -> dict[str, Any]:
    """A group's record as the run folder keeps it: its log relative to the run folder (``prefix``), the Dask worker
    (``who``) and group (``k``) that ran it."""
    process = dict(rec.get("process") or {})
    if process.get("log"):
        process["log"] = prefix + process["log"]
    rec["process"] = {**process, "dask_worker": who, "dask_group": k}
    return rec


def rescue(here: Path, shared: Path, k: int) -> None:
    """Records an earlier attempt of group ``k`` wrote in its folder before its machine was lost (a point's record
    lands there as the point ends, in the run folder when the group ends): moved into the run folder now, so the
    attempt that follows runs only the points without one and none is timed twice."""
    who = (here / WORKER_FILE).read_text() if (here / WORKER_FILE).exists() else ""
    for path in sorted(here.glob("*.json")):
        with contextlib.suppress(OSError, ValueError):  # a record cut short by the loss: its point runs again
            write_record(shared, parse(ran_by(json.loads(path.read_text()), f"tasks/group{k}/", who, k)))
            path.rename(path.with_suffix(".sent"))


def dask_worker_name() -> str:
    """The Dask worker process running this task: its address, after its name where it has one
    (``SLURMCluster-0 tcp://127.0.0.1:40127``: a replacement job keeps the name, not the address); "" outside one."""
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
        return ""
    return f"{worker.name} {worker.address}" if worker.name not in (None, "", worker.address) else worker.address


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


RETRIES = 1  # a group whose machine is lost runs again once (only its points without a record), then fails them
LOST_WORKER_S = 2.0  # how soon bench's own cluster lets go of a lost worker's job (then it can start another)
POLL_S = 2.0  # how often the driver looks at the cluster while it waits for groups
NO_WORKER_S = float(os.environ.get("BENCH_DASK_NO_WORKER_S", "600"))  # no worker this long: the rest are lost


class DaskLauncher:
    """Runs the points of one run folder as Dask tasks, one per worker group (module docstring)."""

    def __init__(self, cfg: SuiteConfig, points: list[Point], run_id: str, run_dir: Path,
                 progress: Progress) -> None:
        self.cfg, self.points, self.run_id, self.run_dir, self.progress = cfg, points, run_id, run_dir, progress
        self.started = 0.0  # time.time() when the run submits its tasks
        self.lost = 0  # groups whose machine was lost for good (their points without a record: failed records)

    def run(self) -> int:
        """Submit every group in the planned order (Dask priorities: on one worker the groups run repeat-major, as
        planned), write each group's records as its task ends, keep bench's own cluster at its size (a lost SLURM
        job is replaced); Ctrl-C cancels what is left. Returns how many groups were lost for good."""
        import dask
        from distributed import Client

        if self.cfg.dask_workers > 1 and not self.cfg.dask_scheduler and self.cfg.launcher == "dask":
            print(f"bench: warning: a LocalCluster of {self.cfg.dask_workers} workers runs {self.cfg.dask_workers} "
                  "timed groups at once on this one machine: a functional check, not a measurement", file=sys.stderr)
        settings = {"distributed.scheduler.allowed-failures": RETRIES,  # bench's own scheduler; a cluster by
                    "distributed.deploy.lost-worker-timeout": f"{LOST_WORKER_S}s"}  # address keeps its own
        with dask.config.set(settings):
            cluster = make_cluster(self.cfg)
            client = Client(cluster if cluster is not None else self.cfg.dask_scheduler)
            try:
                self.wait_all(client, cluster, self.submit(client))
            finally:
                client.close()
                if cluster is not None:
                    with contextlib.suppress(Exception):
                        cluster.close()
        return self.lost

    def submit(self, client: Any) -> dict[Any, list[Point]]:
        """One task per group, the first planned with the highest priority."""
        planned = list(groups(self.points).values())
        futures = {}
        self.started = time.time()  # records written after this are this run's (a task may write before it dies)
        for k, pts in enumerate(planned):
            fut = client.submit(run_group_task, self.cfg, [p.to_record() for p in pts], self.run_id,
                                str(self.run_dir.absolute()), k, resources={MACHINE: 1}, pure=False,
                                key=f"bench-{self.run_id}-group{k}", priority=len(planned) - k)
            futures[fut] = pts
        return futures

    def wait_all(self, client: Any, cluster: Any, futures: dict[Any, list[Point]]) -> None:
        """Land each group as it ends; a cluster with no worker for :data:`NO_WORKER_S` loses the rest."""
        from distributed import wait

        self.progress.show()
        alone_since: float | None = None
        try:
            while futures:
                with contextlib.suppress(TimeoutError):
                    wait(list(futures), timeout=POLL_S, return_when="FIRST_COMPLETED")
                for fut in [f for f in futures if f.done()]:
                    self.land(futures.pop(fut), fut)
                    fut.release()  # a result kept on a worker that is lost later would be computed (timed) again
                workers = len(client.scheduler_info().get("workers", {}))
                if cluster is not None and self.cfg.launcher == "slurm" and workers < self.cfg.dask_workers:
                    cluster.scale(jobs=self.cfg.dask_workers)  # a lost job is replaced once the cluster let it go
                alone_since = None if workers else alone_since or time.monotonic()
                if futures and alone_since is not None and time.monotonic() - alone_since > NO_WORKER_S:
                    client.cancel(list(futures))
                    for pts in futures.values():
                        self.lost += 1
                        self.fail_unrecorded(pts, {"type": "DaskTaskLost", "message": (
                            f"no Dask worker for {NO_WORKER_S:.0f} s: the cluster lost its machines and none came "
                            "back; resume runs the point again")})
                    futures.clear()
        except KeyboardInterrupt:
            client.cancel(list(futures))
            raise Interrupted(signal.SIGINT) from None

    def land(self, pts: list[Point], fut: Any) -> None:
        """Write a finished task's records into the run folder; a task that failed (its Dask worker lost) fails
        each of its points that has no record."""
        try:
            stored, cause = fut.result(), None
        except Exception as e:  # KilledWorker, a scheduler gone, an error in the task itself
            self.lost += 1
            lost = "its machine was lost twice" if type(e).__name__ == "KilledWorker" else "the task could not run"
            stored, cause = [], {"type": "DaskTaskLost", "message": (
                f"the Dask task of this worker group failed ({type(e).__name__}: {str(e)[:300]}): {lost} (a group "
                f"runs again once after a lost machine); resume runs the point again")}
        for stored_rec in stored:  # the task's own outcome replaces a failed record an earlier attempt left
            write_record(self.run_dir, parse(stored_rec))
        self.fail_unrecorded(pts, cause or {"type": "DaskTaskLost", "message": "the task returned no record"})

    def fail_unrecorded(self, pts: list[Point], cause: dict[str, Any]) -> None:
        """A failed record for each point of a group that this run's tasks left without one."""
        for point in pts:
            path = self.run_dir / f"{point.point_id}.json"
            if not (path.exists() and path.stat().st_mtime >= self.started):  # not written by this run's task
                self._fail(point, cause)
        self.progress.done += len(pts)
        self.progress.show()

    def _fail(self, point: Point, cause: dict[str, Any]) -> None:
        rec = base_record(self.run_id, self.cfg.name, point, unresolved_strategy(point.strategy), host_env(),
                          point.global_batch_size, None, race_settings(self.cfg))
        rec.status = "failed"
        rec.error = ErrorInfo.model_validate(cause)
        rec.finished_at = utc_now()
        write_record(self.run_dir, rec)
