"""Runs a planned suite: one worker process per strategy group, with a per-point time limit.

A worker that dies (segfault, ``os._exit``, SIGKILL) or runs past ``point_timeout_s`` costs exactly the
point it was running: that point gets a ``failed`` record naming the cause, and a fresh worker takes the
rest of the group. The launcher never busy-waits: a reader thread turns the worker's event lines into a
queue, and the main thread blocks on it with a timeout (for the time limit and the progress display).

Imports no TensorFlow: workers do.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.config import SuiteConfig
from bench.env import git_info, host_env
from bench.plan import Point, groups
from bench.records import (
    RUN_MANIFEST,
    SCHEMA_VERSION,
    RecordError,
    atomic_write_json,
    load_records,
    read_record,
    write_record,
)

RESUMABLE = ("ok", "skipped", "diverged")  # failed points are retried on resume
STDERR_TAIL_LINES = 15
REAP_GRACE_S = 5.0  # seconds an exiting worker gets before its stdin is closed, then again before SIGKILL


class Interrupted(Exception):
    """Ctrl-C (SIGINT) or SIGTERM (``timeout``, a cancelled CI job): the point in flight was recorded as
    failed. ``exit_status`` is the shell convention, 128 + the signal's number (130 for SIGINT)."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.exit_status = 128 + int(signum)


def new_run_id(suite: str, results_dir: Path) -> tuple[str, Path]:
    """Create a fresh run folder ``<UTC time>-<suite>-<commit>`` atomically (``-2``, ``-3`` … on clashes).

    ``mkdir`` is atomic, so two runs started in the same second never share a folder.
    """
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    base = f"{stamp}-{suite}-{git_info()[0] or 'nogit'}"
    results_dir.mkdir(parents=True, exist_ok=True)
    for i in range(1, 1000):
        run_id = base if i == 1 else f"{base}-{i}"
        try:
            (results_dir / run_id).mkdir()
            return run_id, results_dir / run_id
        except FileExistsError:
            continue
    raise RuntimeError(f"could not create a run folder under {results_dir}")


def find_run(results_dir: Path, resume: str) -> Path:
    """The run folder to resume: ``latest`` (newest folder with a run.json) or a run_id."""
    if resume == "latest":
        runs = sorted((p for p in results_dir.glob("*/") if (p / RUN_MANIFEST).exists()),
                      key=lambda p: (p / RUN_MANIFEST).stat().st_mtime)
        if not runs:
            raise FileNotFoundError(f"resume=latest: no run under {results_dir} to resume")
        return runs[-1]
    path = results_dir / resume
    if not (path / RUN_MANIFEST).exists():
        raise FileNotFoundError(f"resume={resume}: no run folder {path} with a {RUN_MANIFEST}")
    return path


def finished_points(run_dir: Path) -> dict[str, str]:
    """point_id -> config_hash of the points that need no re-run (ok, skipped or diverged)."""
    loaded = load_records([run_dir], warn=False)
    return {r["point_id"]: r.get("config_hash", "") for r in loaded.records if r["status"] in RESUMABLE}


@dataclass
class Progress:
    """Live progress on a terminal: points done / total, current point, epoch, elapsed, ETA."""

    total: int
    enabled: bool
    done: int = 0
    current: str = ""
    epoch: str = ""
    started: float = field(default_factory=time.monotonic)
    point_times: list[float] = field(default_factory=list)
    _width: int = 0

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        remaining = self.total - self.done
        if self.point_times:
            eta = f"{_clock(sum(self.point_times) / len(self.point_times) * remaining)}"
        else:
            eta = "?"
        return (f"[{self.done}/{self.total}] {self.current} {self.epoch} | elapsed {_clock(elapsed)} "
                f"| ETA {eta}").rstrip()

    def show(self) -> None:
        if not self.enabled:
            return
        text = self.line()
        pad = max(0, self._width - len(text))
        self._width = len(text)
        sys.stderr.write("\r" + text + " " * pad)
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self._width:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


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
        self.proc: subprocess.Popen | None = None
        self.interrupted = False
        self.signum: int = signal.SIGINT
        self.resolved: dict[str, dict[str, Any]] = {}  # strategy name -> its worker's "ready" strategy record

    def interrupt(self, signum: int = signal.SIGINT, *_: Any) -> None:
        """SIGINT/SIGTERM handler: stop the worker now; :meth:`run_group` records the point and raises
        Interrupted."""
        self.interrupted = True
        self.signum = signum
        if self.proc is not None:
            _kill(self.proc)

    def run(self) -> None:
        sweep_tmp(self.run_dir)  # a resumed run may hold the temporary file of a write cut by SIGKILL
        in_main = threading.current_thread() is threading.main_thread()
        handled = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.signal(sig, self.interrupt) for sig in handled} if in_main else {}
        try:
            for strategy, pts in groups(self.points).items():
                if self.interrupted:
                    raise Interrupted(self.signum)
                self.run_group(strategy, pts)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _new_log(self, strategy: str) -> Path:
        """A fresh ``logs/<strategy>-worker<N>.log`` (never overwrites one a record may point to)."""
        self.log_dir.mkdir(exist_ok=True)
        for i in range(1, 100_000):
            path = self.log_dir / f"{strategy}-worker{i}.log"
            try:
                path.open("x").close()
                return path
            except FileExistsError:
                continue
        raise RuntimeError(f"too many worker logs in {self.log_dir}")

    def _spawn(self, strategy: str, pts: list[Point]) -> tuple[subprocess.Popen, Path]:
        log = self._new_log(strategy)
        spec = {"run_id": self.run_id, "run_dir": str(self.run_dir), "suite": self.cfg.name,
                "strategy": strategy, "config": asdict(self.cfg), "points": [p.as_dict() for p in pts]}
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": os.environ.get("TF_CPP_MIN_LOG_LEVEL", "2"),
               "PYTHONUNBUFFERED": "1"}
        with log.open("w") as err:
            # A new session: a Ctrl-C on the terminal reaches the launcher only, which then stops the worker.
            proc = subprocess.Popen([sys.executable, "-m", "bench.worker"], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=err, text=True, env=env,
                                    start_new_session=True)
        self.proc = proc
        try:
            # One line; stdin then stays open: its end-of-file (our exit, even by SIGKILL) stops the worker.
            proc.stdin.write(json.dumps(spec) + "\n")
            proc.stdin.flush()
        except OSError:
            pass  # the worker died before reading its spec: its exit status is recorded below
        return proc, log

    def run_group(self, strategy: str, pts: list[Point]) -> None:
        """Run a group's points, restarting a fresh worker after each crash or time-out."""
        remaining = list(pts)
        while remaining:
            if self.interrupted:
                raise Interrupted(self.signum)
            proc, log = self._spawn(strategy, remaining)
            events: queue.Queue = queue.Queue()
            threading.Thread(target=_read_events, args=(proc, events), daemon=True).start()
            in_flight: Point | None = None
            started = time.monotonic()  # the time limit covers start-up too (TF import, TPU connect)
            by_id = {p.point_id: p for p in remaining}
            cause = None
            try:
                while not self.interrupted:
                    left = self.cfg.point_timeout_s - (time.monotonic() - started)
                    if left <= 0:
                        cause = {"type": "TimeLimit", "limit_s": self.cfg.point_timeout_s, "message": (
                            f"point exceeded point_timeout_s={self.cfg.point_timeout_s:g} s "
                            "and its worker was killed")}
                        _kill(proc)
                        break
                    try:
                        ev = events.get(timeout=min(0.5, left))
                    except queue.Empty:
                        self.progress.show()
                        continue
                    if ev is _EOF:
                        break  # the worker closed its event stream: it has exited (or is exiting)
                    if ev.get("event") == "start":
                        in_flight = by_id.get(ev["point_id"])
                        started = time.monotonic()
                        self.progress.current, self.progress.epoch = ev["point_id"], ""
                    elif ev.get("event") == "epoch":
                        self.progress.epoch = f"epoch {ev['epoch']}/{ev['epochs']}"
                    elif ev.get("event") == "ready":
                        self.resolved[strategy] = ev.get("strategy")  # what auto resolved to, replicas …
                    elif ev.get("event") == "done":
                        point = by_id.get(ev["point_id"])
                        if point in remaining:
                            remaining.remove(point)
                        self.progress.done += 1
                        self.progress.point_times.append(time.monotonic() - started)
                        in_flight = None
                        started = time.monotonic()
                    self.progress.show()
            finally:
                if self.interrupted:
                    _kill(proc)
                _reap(proc)
                self.proc = None
            sweep_tmp(self.run_dir)  # no writer is left: drop a record write the worker's death cut short
            if self.interrupted:
                if in_flight is not None and not self._recorded(in_flight):
                    how = "Ctrl-C (SIGINT)" if self.signum == signal.SIGINT else signal.Signals(self.signum).name
                    self._fail(in_flight, {"type": "Interrupted", "message": f"stopped by {how}"}, log)
                raise Interrupted(self.signum)
            if not remaining:
                return
            point = in_flight or remaining[0]  # died before starting a point: charge the next one
            if not self._recorded(point):  # (a worker killed between its record and its "done" event)
                self._fail(point, cause or _exit_cause(proc.returncode), log)
            remaining.remove(point)
            self.progress.done += 1

    def _recorded(self, point: Point) -> bool:
        """True when this point already has an ok/skipped/diverged record of its exact configuration."""
        try:
            rec = read_record(self.run_dir / f"{point.point_id}.json")
        except RecordError:
            return False
        return rec["status"] in RESUMABLE and rec.get("config_hash") == point.config_hash

    def _fail(self, point: Point, cause: dict[str, Any], log: Path) -> None:
        """Write the ``failed`` record of a point whose worker died or was stopped."""
        from bench.worker import base_record, utc_now

        tail = _tail(log, STDERR_TAIL_LINES)
        # the strategy as its worker resolved it, if it got that far (so `auto` reads `auto (cpu)` here too)
        strategy = self.resolved.get(point.strategy) or {
            "requested": point.strategy, "name": point.strategy, "class": None, "num_replicas": None,
            "devices": [], "device_kind": None}
        replicas = strategy.get("num_replicas")
        rec = base_record({"run_id": self.run_id, "suite": self.cfg.name}, point, strategy, host_env(),
                          point.global_batch_size(replicas) if replicas else None, replicas)
        rec.update(status="failed", error={**cause, "stderr_tail": tail, "log": str(log)},
                   finished_at=utc_now())
        write_record(self.run_dir, rec)


_EOF = object()  # the reader's last item: the worker's event stream is closed


def _read_events(proc: subprocess.Popen, events: queue.Queue) -> None:
    try:
        for line in proc.stdout:
            try:
                events.put(json.loads(line))
            except json.JSONDecodeError:
                continue
    except (OSError, ValueError):
        pass
    finally:
        events.put(_EOF)


def _reap(proc: subprocess.Popen) -> None:
    """Wait for a worker to end; close its stdin (it exits on EOF) and kill it if it lingers."""
    try:
        proc.wait(timeout=REAP_GRACE_S)  # an exiting worker keeps its own exit status
    except subprocess.TimeoutExpired:
        pass
    with contextlib.suppress(OSError):
        proc.stdin.close()
    try:
        proc.wait(timeout=REAP_GRACE_S)
    except subprocess.TimeoutExpired:
        _kill(proc)
        proc.wait()
    with contextlib.suppress(OSError):
        proc.stdout.close()


def _kill(proc: subprocess.Popen) -> None:
    """SIGKILL the worker's whole session (process group), children included."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _exit_cause(code: int | None) -> dict[str, Any]:
    if code is not None and code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        return {"type": "WorkerCrashed", "message": f"worker killed by signal {name} during the point",
                "signal": name}
    return {"type": "WorkerCrashed", "message": f"worker exited with status {code} during the point",
            "exit_code": code}


def sweep_tmp(run_dir: Path) -> list[Path]:
    """Remove the temporary files of atomic writes cut short (``.<name>.json.<random>.tmp``)."""
    removed = []
    for f in Path(run_dir).glob(".*.tmp"):
        with contextlib.suppress(OSError):
            f.unlink()
            removed.append(f)
    return removed


def _tail(path: Path, n: int) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def write_manifest(run_dir: Path, run_id: str, cfg: SuiteConfig, points: list[Point]) -> None:
    """``run.json``: the resolved configuration and the planned points (resume and reports read it)."""
    atomic_write_json(run_dir / RUN_MANIFEST, {
        "schema_version": SCHEMA_VERSION, "run_id": run_id, "suite": cfg.name,
        "config": {k: v for k, v in asdict(cfg).items() if k != "defaults"},
        "points": [p.point_id for p in points], "host": host_env(),
        "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")})
