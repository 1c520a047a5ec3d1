"""Runs a planned suite: one worker process per group (backend, strategy, repeat), with a per-point time limit. A worker
that dies or runs past ``point_timeout_s`` costs exactly its point (a ``failed`` record naming the cause) and a fresh
worker takes the rest of the group; a JAX worker dead in XLA's CPU all-reduce has its point run again with one step
in flight. Never busy-waits (a reader thread queues the worker's events). Imports no framework.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.config import SuiteConfig, race_settings
from bench.engines import multi_process_env, process_env, unresolved_strategy
from bench.job.point import Point, WorkerJob
from bench.job.point_record import base_record, process_record, utc_now
from bench.measure.env import host_env
from bench.records import ErrorInfo, write_record
from bench.records.backends import declares
from bench.runner import processes
from bench.runner.plan import groups
from bench.runner.processes import EOF, crash_error, ended_badly, exit_cause, group_coordinator, kill, read_events, reap
from bench.runner.progress import Progress
from bench.runner.rundir import is_recorded, sweep_tmp


class Interrupted(Exception):
    """Ctrl-C (SIGINT) or SIGTERM (``timeout``, a cancelled CI job): the point in flight was recorded as
    failed. ``exit_status`` is the shell convention, 128 + the signal's number (130 for SIGINT)."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.exit_status = 128 + int(signum)


@dataclass
class Attempt:
    """One worker process of a group (or the cooperating processes of a multi-process group, process 0 first):
    their logs, the point it was running when it ended, and why it ended (``cause``: the time limit, or another
    process's death; None when it exited by itself)."""

    procs: list[subprocess.Popen]
    logs: list[Path]
    group: tuple[str, str]  # (backend, strategy)
    worker: int = 0  # the worker's index in the run (records name it, with its pid)
    in_flight: Point | None = None
    cause: dict[str, Any] | None = None
    started: float = field(default_factory=time.monotonic)  # of the current point (start-up counts too)

    @property
    def proc(self) -> subprocess.Popen:
        """The worker (process 0: the one that writes the records)."""
        return self.procs[0]

    @property
    def log(self) -> Path:
        return self.logs[0]

    def who(self, index: int) -> str:
        """How messages name process ``index``: ``worker`` alone, ``process 1 of 2`` in a multi-process point."""
        n = len(self.procs)
        return "worker" if n == 1 else f"process {index} of {n} (pid {self.procs[index].pid})"


class Launcher:
    """Runs the points of one run folder, group by group, in worker processes.

    Ctrl-C: while :meth:`run` is active, SIGINT only calls :meth:`interrupt` (no KeyboardInterrupt can
    land in the middle of a record write or a spawn). It kills the worker; the group loop then records the
    point in flight as failed (``Interrupted``) and raises :class:`Interrupted`. Nothing new is started.
    """

    def __init__(self, cfg: SuiteConfig, points: list[Point], run_id: str, run_dir: Path,
                 progress: Progress) -> None:
        self.cfg = cfg
        self.points = points
        self.run_id = run_id
        self.run_dir = run_dir
        self.progress = progress
        self.log_dir = run_dir / "logs"
        self.procs: list[subprocess.Popen] = []  # the group's running worker process(es)
        self.interrupted = False
        self.signum: int = signal.SIGINT
        self.resolved: dict[tuple[str, str], dict[str, Any]] = {}  # (backend, strategy) -> its "ready" record
        self.one_step: dict[str, str] = {}  # point id -> why its rerun trains with one step in flight
        # worker indices go on from a resumed run's: one log per worker process ever started in this folder
        self.next_worker = len(list(self.log_dir.glob("*.log"))) if self.log_dir.is_dir() else 0

    def interrupt(self, signum: int = signal.SIGINT, *_: Any) -> None:
        """SIGINT/SIGTERM handler: stop the worker now; :meth:`run_group` records the point and raises
        Interrupted."""
        self.interrupted = True
        self.signum = signum
        for proc in self.procs:
            kill(proc)

    def run(self) -> None:
        """Run every group in turn, with SIGINT/SIGTERM routed to :meth:`interrupt`."""
        sweep_tmp(self.run_dir)  # a resumed run may hold the temporary file of a write cut by SIGKILL
        in_main = threading.current_thread() is threading.main_thread()
        handled = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.signal(sig, self.interrupt) for sig in handled} if in_main else {}
        try:
            for k, pts in enumerate(groups(self.points).values()):
                if self.interrupted:
                    raise Interrupted(self.signum)
                self.run_group(pts, k)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def run_group(self, pts: list[Point], k: int = 0) -> None:
        """Run a group's points (``k``: its index in the run), restarting a fresh worker after each crash or
        time-out. One process of a multi-host job (``process_id``) gives up the rest of the group instead, as
        every other host does, so that all go on to the next group (and its coordinator port) together."""
        remaining = list(pts)
        while remaining:
            if self.interrupted:
                raise Interrupted(self.signum)
            coordinator, refused = group_coordinator(self.cfg, pts[0].processes, k)
            if refused is not None:  # the port asked for is taken: every point of the group fails, nothing starts
                self._fail_all(remaining, refused)
                return
            attempt = self._spawn(remaining, coordinator or "")
            try:
                self._watch(attempt, remaining)
            finally:
                for proc in attempt.procs if self.interrupted or attempt.cause else ():
                    kill(proc)  # Ctrl-C, or one process died: the others would wait for it in a collective
                for proc in attempt.procs:
                    reap(proc)
                self.procs = []
            sweep_tmp(self.run_dir)  # no writer is left: drop a record write the worker's death cut short
            if self.interrupted:
                self._record_interrupted(attempt)
                raise Interrupted(self.signum)
            if remaining:
                self._record_lost_point(attempt, remaining)
            if remaining and self.cfg.process_id >= 0:
                self._fail_all(remaining, {"type": "JobLostProcess", "message": (
                    "a process of the multi-host job ended during this worker group: its other points are not run "
                    "on any host, so that every host goes on to the next group together")})

    def _fail_all(self, points: list[Point], cause: dict[str, Any]) -> None:
        """A ``failed`` record for each of ``points``, none of which ran; they leave the list."""
        for point in list(points):
            if not is_recorded(self.run_dir, point):
                self._fail(point, cause, None)
            points.remove(point)
            self.progress.done += 1

    def _spawn(self, pts: list[Point], coordinator: str = "") -> Attempt:
        """Start a worker for ``pts`` (its environment set for the backend and strategy before Keras is
        imported there) and send it its job; a multi-process group's ``processes`` workers, process 0 first,
        each told its index and the coordinator's address (``127.0.0.1:PORT``)."""
        n, worker = pts[0].processes, self.next_worker
        self.next_worker += 1
        attempt = Attempt([], [], (pts[0].backend, pts[0].strategy), worker)
        # one process per host (process_id): only this host's; else every process of the point, here
        for i in [self.cfg.process_id] if self.cfg.process_id >= 0 else range(n):
            log = processes.new_log(self.log_dir, pts[0].backend,
                                    pts[0].strategy if n == 1 else f"{pts[0].strategy}-p{n}-proc{i}")
            job = WorkerJob.for_group(self.cfg, self.run_id, str(self.run_dir), pts, worker,
                                      str(log.relative_to(self.run_dir)), time.time(), i, coordinator, self.one_step)
            env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": os.environ.get("TF_CPP_MIN_LOG_LEVEL", "2"),
                   "PYTHONUNBUFFERED": "1", **process_env(job.backend, job.strategy, os.environ, n),
                   **multi_process_env(coordinator, n, i)}
            with log.open("w") as err:
                # A new session: a Ctrl-C on the terminal reaches the launcher only, which then stops the worker.
                proc = subprocess.Popen([sys.executable, "-m", "bench.worker"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=err, text=True, env=env,
                                        start_new_session=True)
            self.procs.append(proc)
            attempt.procs.append(proc)
            attempt.logs.append(log)
            try:
                # One line; stdin then stays open: its end-of-file (our exit, even by SIGKILL) stops the worker.
                assert proc.stdin is not None  # Popen(stdin=PIPE)
                proc.stdin.write(job.to_json() + "\n")
                proc.stdin.flush()
            except OSError:
                pass  # the worker died before reading its job: its exit status is recorded below
        return attempt

    def _watch(self, attempt: Attempt, remaining: list[Point]) -> None:
        """Follow the worker's events until it exits, is interrupted, or runs past the time limit (then
        kill it and set ``attempt.cause``). Finished points leave ``remaining``."""
        events: queue.Queue = queue.Queue()
        for i, proc in enumerate(attempt.procs):
            threading.Thread(target=read_events, args=(proc, events, i), daemon=True).start()
        by_id = {p.point_id: p for p in remaining}
        limit = self.cfg.point_timeout_s
        while not self.interrupted:
            left = limit - (time.monotonic() - attempt.started)
            if left <= 0:
                attempt.cause = {"type": "TimeLimit", "limit_s": limit, "message": (
                    f"point exceeded point_timeout_s={limit:g} s and its worker was killed")}
                kill(attempt.proc)
                return
            try:
                index, ev = events.get(timeout=min(0.5, left))
            except queue.Empty:
                self.progress.show()
                continue
            if ev is EOF and index == 0:
                return  # the worker closed its event stream: it has exited (or is exiting)
            if ev is EOF:  # another process of a multi-process point: done with its points, or dead
                if ended_badly(attempt.procs[index]):
                    attempt.cause = {**exit_cause(attempt.procs[index].returncode, attempt.who(index)),
                                     "process_id": index}
                    return
                continue
            if index == 0:  # process 0 speaks for a multi-process point (the others run the same points)
                self._on_event(ev, attempt, by_id, remaining)
            self.progress.show()

    def _on_event(self, ev: dict[str, Any], attempt: Attempt, by_id: dict[str, Point],
                  remaining: list[Point]) -> None:
        kind = ev.get("event")
        if kind == "start":
            attempt.in_flight = by_id.get(ev["point_id"])
            attempt.started = time.monotonic()
            self.progress.current, self.progress.epoch = ev["point_id"], ""
        elif kind == "epoch":
            self.progress.epoch = f"epoch {ev['epoch']}/{ev['epochs']}"
        elif kind == "ready":
            self.resolved[attempt.group] = ev.get("strategy") or {}  # what auto resolved to, replicas …
        elif kind == "done":
            point = by_id.get(ev["point_id"])
            if point in remaining:
                remaining.remove(point)
            self.progress.done += 1
            self.progress.point_times.append(time.monotonic() - attempt.started)
            attempt.in_flight = None
            attempt.started = time.monotonic()

    def _record_interrupted(self, attempt: Attempt) -> None:
        """The point in flight at Ctrl-C/SIGTERM gets a ``failed`` record (unless its record was written)."""
        point = attempt.in_flight
        if point is not None and not is_recorded(self.run_dir, point):
            how = "Ctrl-C (SIGINT)" if self.signum == signal.SIGINT else signal.Signals(self.signum).name
            self._fail(point, {"type": "Interrupted", "message": f"stopped by {how}"}, attempt)

    def _record_lost_point(self, attempt: Attempt, remaining: list[Point]) -> None:
        """A worker ended with points left: the one it was running (or, if it died before starting one, the
        next) is recorded as failed and leaves ``remaining``; a fresh worker takes the rest."""
        point = attempt.in_flight or remaining[0]
        if self.rerun_stalled(point, attempt):
            return  # it stays: the fresh worker runs it again, with one step in flight
        if not is_recorded(self.run_dir, point):  # (a worker killed between its record and its "done" event)
            self._fail(point, attempt.cause or exit_cause(attempt.proc.returncode, attempt.who(0)), attempt)
        remaining.remove(point)
        self.progress.done += 1

    def rerun_stalled(self, point: Point, attempt: Attempt) -> bool:
        """True when a JAX worker died in XLA's CPU all-reduce (:func:`bench.runner.processes.stalled`) while running
        ``point`` for the first time: the point is then noted in :attr:`one_step` (the line and the log), to run again
        with one step in flight. Once only: a second death is the point's record."""
        stalls = declares(point.backend, "stalls_in_cpu_all_reduce")
        if not stalls or point.point_id in self.one_step or attempt.cause is not None:
            return False
        if attempt.in_flight is None or is_recorded(self.run_dir, point):
            return False
        fatal = processes.stalled(attempt.log)
        if not fatal:
            return False
        self.one_step[point.point_id] = f"{fatal} ({attempt.log.relative_to(self.run_dir)})"
        return True

    def _fail(self, point: Point, cause: dict[str, Any], attempt: Attempt | None) -> None:
        """Write the ``failed`` record of a point whose worker died or was stopped (naming that worker), or never
        started (``attempt`` None). In a multi-host job only process 0's host writes records."""
        if self.cfg.process_id > 0:
            return
        # the strategy as its worker resolved it, if it got that far (so `auto` reads `auto (cpu)` here too)
        strategy = self.resolved.get((point.backend, point.strategy)) or unresolved_strategy(point.strategy)
        replicas = strategy.get("num_replicas")
        gb = point.global_batch(replicas) if replicas else None
        rec = base_record(self.run_id, self.cfg.name, point, strategy, host_env(), gb, replicas,
                          race_settings(self.cfg))
        rec.status = "failed"
        if attempt is None:
            rec.error = ErrorInfo.model_validate(cause)
        else:
            rec.process = process_record(attempt.worker, attempt.proc.pid, attempt.log.relative_to(self.run_dir))
            log = attempt.logs[cause.get("process_id", 0)]  # a multi-process point: the log of the one that died
            rec.error = ErrorInfo.model_validate(crash_error(cause, log, self.run_dir))
        rec.finished_at = utc_now()
        write_record(self.run_dir, rec)
