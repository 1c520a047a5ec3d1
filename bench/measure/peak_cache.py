"""The matmul and bandwidth probes' figures, cached per host, device, backend, framework versions and arithmetic under
``$BENCH_CACHE_DIR/peaks/`` (:data:`MAX_AGE_DAYS`), measured when absent in a child process
(:mod:`bench.measure.probe_child`) before the worker's framework starts, under a file lock. Framework-free (the key
comes from package metadata, ``/proc/cpuinfo`` and ``nvidia-smi``). Method: docs/statistics.md, *Measured once per
host, in a process of its own*.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from importlib import metadata
from pathlib import Path
from typing import IO, Any

from bench.measure.env import cpu_model
from bench.records.backends import spec

MAX_AGE_DAYS = 30  # an entry older than this is measured again (a driver or BIOS update, a new box behind a name)
PROBE_VERSION = 1  # bump when the probe's method changes: older entries are then measured again
CHILD_TIMEOUT_S = 600.0
BANDWIDTH = "bandwidth"  # the bandwidth probe's entry beside the precisions' (bench.measure.probes.stream_bandwidth)


class ProbeFailed(RuntimeError):
    """The probe's child process failed; the message has the end of its output."""


def cache_dir() -> Path:
    """``$BENCH_CACHE_DIR/peaks`` (default ``~/.cache/bench/peaks``)."""
    return Path(os.environ.get("BENCH_CACHE_DIR") or Path.home() / ".cache" / "bench") / "peaks"


def device_kind_of(strategy: str) -> str:
    """``cpu``, ``gpu`` or ``tpu`` from a strategy name (``cpu_x4`` -> ``cpu``, ``gpus`` -> ``gpu``); ``auto`` and
    ``default`` are whatever the process finds: ``gpu`` when ``nvidia-smi`` lists one, else ``cpu``."""
    for kind in ("cpu", "gpu", "tpu"):
        if strategy.startswith(kind):
            return kind
    return "gpu" if _gpu_names() else "cpu"


def _gpu_names() -> list[str]:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in out.splitlines() if line.strip()]


def _versions(backend: str) -> dict[str, str]:
    found = {}
    for package in b.packages if (b := spec(backend)) is not None else (backend,):
        with contextlib.suppress(metadata.PackageNotFoundError):
            found[package] = metadata.version(package)
    return found


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def probe_key(backend: str, device_kind: str, precision: str, float32_matmul: str = "framework") -> dict[str, Any]:
    """What a probe figure depends on: this host, its device (the CPU model and the CPUs this process may use; the
    first GPU's name), the backend's package versions, the precision, the float32 matmul setting, the probe."""
    device = (_gpu_names() or ["gpu"])[0] if device_kind == "gpu" else f"{cpu_model()} x {_cpus()} CPUs"
    return {"host": socket.gethostname(), "backend": backend, "versions": _versions(backend),
            "device_kind": device_kind, "device": device, "precision": precision, "float32_matmul": float32_matmul,
            "probe": PROBE_VERSION}


def _path(key: dict[str, Any]) -> Path:
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]
    return cache_dir() / f"{digest}.json"


def read_entry(key: dict[str, Any], not_before: datetime | None = None, now: datetime | None = None
               ) -> dict[str, Any] | None:
    """The cached entry for ``key`` when it exists, matches, is at most :data:`MAX_AGE_DAYS` old and was measured
    at or after ``not_before`` (``measure_peak=fresh``: the run's start); else None."""
    try:
        entry = json.loads(_path(key).read_text())
        measured = datetime.fromisoformat(entry["measured_at"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if entry.get("key") != key or (now or datetime.now(timezone.utc)) - measured > timedelta(days=MAX_AGE_DAYS):
        return None
    return None if not_before is not None and measured < not_before else entry


def write_entry(key: dict[str, Any], entry: dict[str, Any]) -> None:
    """Write ``entry`` (with its ``key``) atomically: a reader sees the old file or the new one."""
    path = _path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({**entry, "key": key}, indent=1, sort_keys=True))
    os.replace(tmp, path)


def _lock() -> IO[str]:
    """Hold the host's probe lock until the returned file is closed (one prober per host at a time: a second worker
    waits, then finds the entry written; a process that dies releases it)."""
    cache_dir().mkdir(parents=True, exist_ok=True)
    handle = open(cache_dir() / ".lock", "w")  # closed by the caller, which releases the lock
    fcntl.flock(handle, fcntl.LOCK_EX)
    return handle


def spawn_child(backend: str, device_kind: str, precisions: list[str], env: dict[str, str],
                float32_matmul: str = "framework") -> Callable[[], dict[str, Any]]:
    """Start :mod:`bench.measure.probe_child`: it imports its framework and makes its device, then waits for a line
    on stdin. The call returned sends that line and returns what the child printed: ``{"device", "peaks":
    {precision: {"flops_per_s", "probe"}}}``, per device (FLOP/s of one device); ProbeFailed with its output's end
    otherwise. Between the two the caller may import its own framework: the child measures once it is told."""
    args = json.dumps({"backend": backend, "device_kind": device_kind, "precisions": precisions,
                       "float32_matmul": float32_matmul})
    proc = subprocess.Popen([sys.executable, "-m", "bench.measure.probe_child", args, "--wait"], env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def result() -> dict[str, Any]:
        try:
            out, err = proc.communicate("measure\n", timeout=CHILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
        lines = [line for line in out.splitlines() if line.startswith("{")]
        if proc.returncode != 0 or not lines:
            raise ProbeFailed(f"the matmul probe's process exited {proc.returncode}: {(err or out)[-600:]}")
        return dict(json.loads(lines[-1]))

    return result


def start_peaks(backend: str, device_kind: str, precisions: list[str], env: dict[str, str],
                not_before: datetime | None = None, float32_matmul: str = "framework"
                ) -> Callable[[], dict[str, Any]]:
    """Per-device peaks for ``precisions``, in two halves: this one reads the cache and, for what it lacks, takes the
    host's lock and starts the child; the call returned waits for the child, caches its figures, releases the lock
    and gives ``{"peaks": {precision: entry}, "cached": bool, "measure_s": seconds spent in both halves, not what the
    caller did between them}``, each entry ``{"flops_per_s", "probe", "device", "measured_at", "measure_s"}``. From
    the cache where every precision has an entry (measured at or after ``not_before``: ``measure_peak=fresh`` passes
    the run's start, so its first worker measures and the others read); else measured by one child for the missing
    ones and cached."""
    t = time.perf_counter()
    keys = {p: probe_key(backend, device_kind, p, float32_matmul) for p in precisions}
    found = {p: e for p, k in keys.items() if (e := read_entry(k, not_before)) is not None}
    if len(found) == len(precisions):
        spent = time.perf_counter() - t
        return lambda: {"peaks": found, "cached": True, "measure_s": spent}
    lock = _lock()  # another worker may have measured them while this one waited
    found = {p: e for p, k in keys.items() if (e := read_entry(k, not_before)) is not None}
    missing = [p for p in precisions if p not in found]
    if not missing:  # another worker measured them while this one waited: read, not measured
        lock.close()
        spent = time.perf_counter() - t
        return lambda: {"peaks": found, "cached": True, "measure_s": spent}
    started = time.perf_counter()
    try:
        child = spawn_child(backend, device_kind, missing, env, float32_matmul)
    except BaseException:
        lock.close()
        raise
    spent = time.perf_counter() - t

    def finish() -> dict[str, Any]:
        t2 = time.perf_counter()
        with lock:  # released once the entries are written: a waiting worker reads them
            measured = child()
            now = datetime.now(timezone.utc).isoformat(timespec="seconds")
            for p in missing:
                entry = {**measured["peaks"][p], "device": measured["device"], "measured_at": now,
                         "measure_s": time.perf_counter() - started, "process": "bench.measure.probe_child"}
                write_entry(keys[p], entry)
                found[p] = entry
        return {"peaks": found, "cached": False, "measure_s": spent + time.perf_counter() - t2}

    return finish


def start_worker_peaks(backend: str, strategy: str, precisions: list[str], not_before: datetime | None,
                       environ: dict[str, str] | None = None, float32_matmul: str = "framework"
                       ) -> Callable[[], tuple[dict[str, Any], str]]:
    """A worker's per-device peaks for ``precisions`` and its bandwidth (:func:`start_peaks` with :data:`BANDWIDTH`,
    and ``device_kind``) and "", or ({}, why) when the probe failed; ({}, "") for a TPU (datasheet peak only), in two
    halves: a worker on a CPU imports its framework between them, beside the child's import, and calls the second
    once it is idle, so the child measures alone. The child gets the worker's environment for one device of the
    strategy's kind: no multi-process variables, no split of the host into logical devices."""
    from bench.engines import JOB_ADDRESSES, NUM_PROCESSES, PROCESS_ID, process_env

    kind = device_kind_of(strategy)
    if kind == "tpu":
        return lambda: ({}, "")
    env = {k: v for k, v in (environ if environ is not None else os.environ).items()
           if k not in (JOB_ADDRESSES, NUM_PROCESSES, PROCESS_ID)}
    env["XLA_FLAGS"] = " ".join(f for f in env.get("XLA_FLAGS", "").split() if "device_count" not in f)
    env.update(process_env(backend, kind, env))
    failed = (ProbeFailed, OSError, subprocess.SubprocessError)

    def note(e: BaseException) -> tuple[dict[str, Any], str]:
        return {}, f"no matmul peak probe: {type(e).__name__}: {e}"[:400]

    try:
        pending = start_peaks(backend, kind, [*precisions, BANDWIDTH], env, not_before, float32_matmul)
    except failed as e:
        noted = note(e)
        return lambda: noted

    def finish() -> tuple[dict[str, Any], str]:
        try:
            return {**pending(), "device_kind": kind}, ""
        except failed as e:
            return note(e)

    return finish


def run_start(run_id: str, spawned_at: float = 0.0) -> datetime:
    """When a run started (UTC): its run id's stamp (``20261127T225516Z-...``), else ``spawned_at`` (a time.time())."""
    try:
        return datetime.strptime(run_id[:16], "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)
    except ValueError:  # a run id not made by bench.runner.rundir
        return datetime.fromtimestamp(spawned_at or time.time(), timezone.utc)
