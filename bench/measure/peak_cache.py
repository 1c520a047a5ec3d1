"""The matmul probe's figures, cached per host, device and framework version, measured in a process of their own.

The first GPU run (one H200, 2026-11-27) paid the probe in every worker (7-9 s of each JAX worker's start, 36 % of
a three-worker run's worker time), and under JAX the probe's 8192 x 8192 float32 matrices were what the
allocator's peak counter showed for every point after it (JAX cannot reset it): 1,412 MiB for a 1 M-parameter
model. Now a worker reads the figure from ``$BENCH_CACHE_DIR/peaks/`` (default ``~/.cache/bench``) when this host
measured it for the same device, backend, framework versions and arithmetic within :data:`MAX_AGE_DAYS`; otherwise
it measures it in a short child process (:mod:`bench.measure.probe_child`) *before its own framework starts*, so
the worker's allocator never holds the probe's buffers and a framework that takes the whole GPU when it starts
(TensorFlow) has not taken it yet. A file lock lets one worker of a host measure while the others wait and read.
``measure_peak=fresh`` measures again (once per run and host) and replaces the entry. Each entry says when it was
measured (UTC), how long it took and in which process; the record keeps when, and whether it was read.

Framework-free: the key is read from package metadata, ``/proc/cpuinfo`` and ``nvidia-smi``.
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
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.measure.env import cpu_model

MAX_AGE_DAYS = 30  # an entry older than this is measured again (a driver or BIOS update, a new box behind a name)
PROBE_VERSION = 1  # bump when the probe's method changes: older entries are then measured again
CHILD_TIMEOUT_S = 600.0
BANDWIDTH = "bandwidth"  # the bandwidth probe's entry beside the precisions' (bench.measure.probes.stream_bandwidth)
PACKAGES = {"tensorflow": ("tensorflow", "keras"), "jax": ("jax", "jaxlib", "keras"), "torch": ("torch", "keras")}


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
    for package in PACKAGES.get(backend, (backend,)):
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


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """One prober per host at a time (a second worker waits, then finds the entry written)."""
    cache_dir().mkdir(parents=True, exist_ok=True)
    with open(cache_dir() / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def probe_in_child(backend: str, device_kind: str, precisions: list[str], env: dict[str, str],
                   float32_matmul: str = "framework") -> dict[str, Any]:
    """Run :mod:`bench.measure.probe_child` and return what it printed: ``{"device", "peaks": {precision:
    {"flops_per_s", "probe"}}}``, per device (FLOP/s of one device); ProbeFailed with its output's end otherwise."""
    args = json.dumps({"backend": backend, "device_kind": device_kind, "precisions": precisions,
                       "float32_matmul": float32_matmul})
    proc = subprocess.run([sys.executable, "-m", "bench.measure.probe_child", args], capture_output=True, text=True,
                          env=env, timeout=CHILD_TIMEOUT_S, check=False)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise ProbeFailed(f"the matmul probe's process exited {proc.returncode}: {(proc.stderr or proc.stdout)[-600:]}")
    return dict(json.loads(lines[-1]))


def cached_peaks(backend: str, device_kind: str, precisions: list[str], env: dict[str, str],
                 not_before: datetime | None = None, float32_matmul: str = "framework") -> dict[str, Any]:
    """Per-device peaks for ``precisions``: ``{"peaks": {precision: entry}, "cached": bool, "measure_s": seconds this
    process spent (reading, or waiting for the child)}``, each entry ``{"flops_per_s", "probe", "device",
    "measured_at", "measure_s"}``. From the cache where every precision has an entry (measured at or after
    ``not_before``: ``measure_peak=fresh`` passes the run's start, so its first worker measures and the others
    read); else measured by one child for the missing ones and cached."""
    t = time.perf_counter()
    keys = {p: probe_key(backend, device_kind, p, float32_matmul) for p in precisions}
    found = {p: e for p, k in keys.items() if (e := read_entry(k, not_before)) is not None}
    cached = len(found) == len(precisions)
    if not cached:
        with _locked():  # another worker may have measured them while this one waited
            found = {p: e for p, k in keys.items() if (e := read_entry(k, not_before)) is not None}
            missing = [p for p in precisions if p not in found]
            cached = not missing  # another worker measured them while this one waited: read, not measured
            if missing:
                started = time.perf_counter()
                child = probe_in_child(backend, device_kind, missing, env, float32_matmul)
                now = datetime.now(timezone.utc).isoformat(timespec="seconds")
                for p in missing:
                    entry = {**child["peaks"][p], "device": child["device"], "measured_at": now,
                             "measure_s": time.perf_counter() - started, "process": "bench.measure.probe_child"}
                    write_entry(keys[p], entry)
                    found[p] = entry
    return {"peaks": found, "cached": cached, "measure_s": time.perf_counter() - t}


def worker_peaks(backend: str, strategy: str, precisions: list[str], not_before: datetime | None,
                 environ: dict[str, str] | None = None, float32_matmul: str = "framework"
                 ) -> tuple[dict[str, Any], str]:
    """A worker's per-device peaks for ``precisions`` and its bandwidth (:func:`cached_peaks` with :data:`BANDWIDTH`,
    and ``device_kind``) and "", or ({}, why) when the probe
    failed; ({}, "") for a TPU (datasheet peak only). The child gets the worker's environment for one device of
    the strategy's kind: no multi-process variables, no split of the host into logical devices."""
    from bench.engines import JOB_ADDRESSES, NUM_PROCESSES, PROCESS_ID, process_env

    kind = device_kind_of(strategy)
    if kind == "tpu":
        return {}, ""
    env = {k: v for k, v in (environ if environ is not None else os.environ).items()
           if k not in (JOB_ADDRESSES, NUM_PROCESSES, PROCESS_ID)}
    env["XLA_FLAGS"] = " ".join(f for f in env.get("XLA_FLAGS", "").split() if "device_count" not in f)
    env.update(process_env(backend, kind, env))
    try:
        return {**cached_peaks(backend, kind, [*precisions, BANDWIDTH], env, not_before, float32_matmul),
                "device_kind": kind}, ""
    except (ProbeFailed, OSError, subprocess.SubprocessError) as e:
        return {}, f"no matmul peak probe: {type(e).__name__}: {e}"[:400]


def run_start(run_id: str, spawned_at: float = 0.0) -> datetime:
    """When a run started (UTC): its run id's stamp (``20261127T225516Z-...``), else ``spawned_at`` (a time.time())."""
    try:
        return datetime.strptime(run_id[:16], "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)
    except ValueError:  # a run id not made by bench.runner.rundir
        return datetime.fromtimestamp(spawned_at or time.time(), timezone.utc)
