"""Worker processes as the launcher sees them: their event stream, their end (reaped, or killed with their whole
session), why they ended, the tail of their log, and the coordinator port of a multi-process point. Imports no
framework."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import socket
import subprocess
from pathlib import Path
from typing import Any

from bench.config import SuiteConfig
from bench.records.backends import BACKENDS
from bench.records.fatal import FATAL_LINES, fatal_line

REAP_GRACE_S = 5.0  # seconds an exiting worker gets before its stdin is closed, then again before SIGKILL
LOOPBACK = "127.0.0.1"  # where bench starts a multi-process point's processes and their coordinator


EOF = object()  # the reader's last item: the worker's event stream is closed


def read_events(proc: subprocess.Popen, events: queue.Queue, index: int = 0) -> None:
    """Put the worker's event lines on ``events`` as ``(index, event)``, then ``(index, EOF)`` when its stream
    closes (``index``: the process's index in a multi-process point, 0 otherwise)."""
    try:
        assert proc.stdout is not None  # Popen(stdout=PIPE)
        for line in proc.stdout:
            try:
                events.put((index, json.loads(line)))
            except json.JSONDecodeError:
                continue
    except (OSError, ValueError):
        pass
    finally:
        events.put((index, EOF))


def reap(proc: subprocess.Popen) -> None:
    """Wait for a worker to end; close its stdin (it exits on EOF) and kill it if it lingers."""
    try:
        proc.wait(timeout=REAP_GRACE_S)  # an exiting worker keeps its own exit status
    except subprocess.TimeoutExpired:
        pass
    with contextlib.suppress(OSError):
        if proc.stdin is not None:
            proc.stdin.close()
    try:
        proc.wait(timeout=REAP_GRACE_S)
    except subprocess.TimeoutExpired:
        kill(proc)
        proc.wait()
    with contextlib.suppress(OSError):
        if proc.stdout is not None:
            proc.stdout.close()


def kill(proc: subprocess.Popen) -> None:
    """SIGKILL the worker's whole session (process group), children included."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def exit_cause(code: int | None, who: str = "worker") -> dict[str, Any]:
    """The ``error`` of a point whose worker (``who``: "process 1 of 2" in a multi-process point) ended with
    ``code`` (negative: killed by that signal) while running it."""
    if code is not None and code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        return {"type": "WorkerCrashed", "message": f"{who} killed by signal {name} during the point",
                "signal": name}
    return {"type": "WorkerCrashed", "message": f"{who} exited with status {code} during the point",
            "exit_code": code}


def coordinator_address(port: int) -> tuple[str | None, dict[str, Any] | None]:
    """(``127.0.0.1:PORT`` for a multi-process point's JAX coordinator, None) or (None, the points' error when the
    port asked for is taken). ``port`` 0: a free port chosen by the system."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((LOOPBACK, port))
        except OSError as e:
            return None, {"type": "CoordinatorPortInUse", "message": (
                f"coordinator port {LOOPBACK}:{port} is in use ({e.strerror}): no process of the point was started; "
                "choose another with coordinator_port=N, or coordinator_port=0 for a free one")}
        return f"{LOOPBACK}:{sock.getsockname()[1]}", None


# XLA's CPU all-reduce giving up on its rendezvous. Under JAX, Keras keeps many steps in flight, and XLA:CPU's pool
# (a thread a core) can fill with one device's parts of different steps, so the other device's part never runs
# (docs/findings.md).
STALLED = re.compile(r"threads to join the rendezvous|Termination timeout for `?all.?reduce", re.IGNORECASE)


def stalled(log: Path) -> str:
    """The fatal line of a worker's log where it says XLA's CPU all-reduce timed out (:data:`STALLED`); ''
    otherwise."""
    line = fatal_line(tail(log, FATAL_LINES))
    return line if STALLED.search(line) else ""


def new_log(log_dir: Path, backend: str, strategy: str) -> Path:
    """A fresh ``log_dir/<strategy>-worker<N>.log`` (``jax-<strategy>-…`` under JAX; never overwrites one a
    record may point to)."""
    log_dir.mkdir(exist_ok=True)
    prefix = strategy if backend == BACKENDS[0] else f"{backend}-{strategy}"
    for i in range(1, 100_000):
        path = log_dir / f"{prefix}-worker{i}.log"
        try:
            path.open("x").close()
            return path
        except FileExistsError:
            continue
    raise RuntimeError(f"too many worker logs in {log_dir}")


def relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` (a run folder), else its name alone: a record never holds the machine's
    folders."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return path.name


STDERR_TAIL_LINES = 15


def crash_error(cause: dict[str, Any], log: Path, run_dir: Path) -> dict[str, Any]:
    """A dead worker's point's ``error``: ``cause`` (:func:`exit_cause`) with the fatal line of its log quoted in
    the message, the log's last lines and its path relative to the run folder."""
    fatal = fatal_line(tail(log, FATAL_LINES)) if cause.get("type") == "WorkerCrashed" else ""
    said = {"message": f"{cause['message']}: {fatal}", "fatal": fatal} if fatal else {}
    return {**cause, **said, "stderr_tail": tail(log, STDERR_TAIL_LINES), "log": relative(log, run_dir)}


def tail(path: Path, n: int) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def group_coordinator(cfg: SuiteConfig, processes: int, k: int) -> tuple[str, dict[str, Any] | None]:
    """The coordinator address of worker group ``k``'s processes ('' for one process): a free loopback port (or
    ``coordinator_port``) when bench starts them all here; ``coordinator`` with its port + k on every host of a
    multi-host job (``process_id``). Or the group's error when that port cannot be had."""
    if processes == 1:
        return "", None
    if cfg.process_id < 0:
        address, refused = coordinator_address(cfg.coordinator_port)
        return address or "", refused
    host, _, port = cfg.coordinator.rpartition(":")
    if int(port) + k > 65535:
        return "", {"type": "CoordinatorPortInUse", "message": (
            f"worker group {k} would listen on port {int(port) + k} (coordinator port + group index), past 65535; "
            "give a lower port in coordinator=HOST:PORT")}
    return f"{host}:{int(port) + k}", None


def ended_badly(proc: subprocess.Popen) -> bool:
    """A process whose event stream closed: True unless it exits with status 0 (it had run all its points)."""
    try:
        return proc.wait(timeout=REAP_GRACE_S) != 0
    except subprocess.TimeoutExpired:
        return True  # it closed its events but did not exit: as good as dead to the point
