"""Environment capture for records, without any framework: host, CPU, Python, bench's version and git
commit, and the allowlisted environment variables. A worker adds its engine's part
(the engine's ``framework_env``, :class:`bench.engines.Engine`: framework versions, accelerator)."""

from __future__ import annotations

import os
import platform
import socket
import subprocess
import time
from functools import cache
from pathlib import Path
from typing import Any

import bench

REPO = Path(__file__).resolve().parents[2]

#: Environment variables copied into every record's (and ``run.json``'s) ``env.env_vars``, by exact name.
#:
#: Records, manifests and reports are world-readable and shared publicly, so environment capture is an
#: ALLOWLIST, never a prefix match: ``TF_`` is also Terraform's prefix (``TF_VAR_password``,
#: ``TF_TOKEN_app_terraform_io``), and a CI or cloud machine's environment holds credentials
#: (``AWS_SECRET_ACCESS_KEY``, ``GITHUB_TOKEN``, ``HF_TOKEN`` ...). Only variables that change performance
#: or device selection and are not secret belong here; a new one must be added by its exact name (no
#: prefixes, no patterns). Only the ones that are set are recorded.
RECORDED_ENV_VARS: tuple[str, ...] = (
    # TensorFlow / XLA
    "TF_CPP_MIN_LOG_LEVEL", "TF_CPP_MAX_VLOG_LEVEL", "TF_CPP_VMODULE", "TF_ENABLE_ONEDNN_OPTS", "TF_XLA_FLAGS",
    "TF_NUM_INTEROP_THREADS", "TF_NUM_INTRAOP_THREADS", "TF_GPU_ALLOCATOR", "TF_FORCE_GPU_ALLOW_GROWTH",
    "TF_DETERMINISTIC_OPS", "TF_USE_LEGACY_KERAS",
    "XLA_FLAGS", "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_ALLOCATOR",
    # device selection
    "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
    "TPU_NAME", "TPU_ACCELERATOR_TYPE", "TPU_WORKER_ID", "TPU_PROCESS_ADDRESSES", "TPU_VISIBLE_CHIPS", "ISTPUVM",
    # framework / backend
    "KERAS_BACKEND", "JAX_PLATFORMS", "JAX_ENABLE_X64", "KERAS_TORCH_DEVICE",
    # PyTorch (what changes its kernels, compiler or memory: TorchInductor, the CUDA caching allocator)
    "TORCHINDUCTOR_MAX_AUTOTUNE", "TORCH_COMPILE_DISABLE", "PYTORCH_CUDA_ALLOC_CONF", "TORCHINDUCTOR_FREEZING",
    # CPU threading
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
    # hosted notebooks (the report prices their records by the free tier: bench.reporting.load.prices)
    "COLAB_RELEASE_TAG", "KAGGLE_KERNEL_RUN_TYPE",
    # test-only fault injection (bench.job.faults): makes a fault-injected record recognisable
    "BENCH_FAULT",
)


def recorded_env_vars() -> dict[str, str]:
    """The :data:`RECORDED_ENV_VARS` that are set, sorted by name (nothing else from the environment)."""
    return {k: os.environ[k] for k in sorted(RECORDED_ENV_VARS) if k in os.environ}


@cache
def git_info() -> tuple[str | None, bool | None]:
    """(short commit, dirty) of the bench checkout, or (None, None) outside git."""
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5, check=True).stdout.strip()
        return commit or None, bool(dirty)
    except (OSError, subprocess.SubprocessError):
        return None, None


def cpu_model() -> str:
    """The CPU's model name (Linux /proc/cpuinfo, else platform.processor())."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# CPU feature flags a record keeps (an allowlist, as for the environment variables): the vector and matrix units
# that decide whether a narrower arithmetic (bfloat16, float16) can run faster than float32 on this CPU
CPU_FLAGS = ("avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_fp16", "amx_int8",
             "asimd", "bf16", "sve")


def cpu_flags() -> list[str]:
    """The :data:`CPU_FLAGS` this CPU has (Linux /proc/cpuinfo ``flags``, ARM ``Features``), sorted; [] elsewhere."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return []
    have = next((set(line.split(":", 1)[1].split()) for line in lines
                 if line.split(":", 1)[0].strip() in ("flags", "Features") and ":" in line), set())
    return sorted(have & set(CPU_FLAGS))


def cpu_busy() -> tuple[float, float, float] | None:
    """(the machine's busy CPU seconds, all CPUs; this process's CPU seconds, all its threads; the CPUs): read before
    and after a span, :func:`others_busy` gives the share of the machine other processes kept busy. None off Linux."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
        ticks = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
    values = [int(v) for v in fields]
    busy = sum(values) - values[3] - (values[4] if len(values) > 4 else 0)  # all but idle and iowait
    own = os.times()
    return busy / ticks, own.user + own.system, float(os.cpu_count() or 1)


def process_started_at() -> float:
    """When this process started, in seconds since the epoch (``time.time()``'s scale): its start tick in
    ``/proc/self/stat`` against the uptime in ``/proc/uptime``, to 1/CLK_TCK s; NaN without /proc."""
    try:
        stat = Path("/proc/self/stat").read_text()
        ticks = int(stat[stat.rindex(")") + 2:].split()[19])  # field 22, counted after the command's ")"
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return time.time() - (uptime - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return float("nan")


def others_busy(before: tuple[float, float, float] | None, after: tuple[float, float, float] | None,
                wall_s: float) -> float | None:
    """The share of the machine's CPU time (0-1) that processes other than this one used over ``wall_s`` seconds
    between two :func:`cpu_busy` readings: a neighbour's load (None without both readings or a span)."""
    if before is None or after is None or not wall_s > 0:
        return None
    others = (after[0] - before[0]) - (after[1] - before[1])
    return min(1.0, max(0.0, others / (wall_s * after[2])))


def host_env() -> dict[str, Any]:
    """What can be known without TensorFlow: host, CPU model (``cpu``, shown in the report's environment
    table), versions, git commit and the allowlisted :data:`RECORDED_ENV_VARS` that are set."""
    commit, dirty = git_info()
    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpu_flags": cpu_flags(),  # allowlisted: CPU_FLAGS
        "bench_version": bench.__version__,
        "git_commit": commit,
        "git_dirty": dirty,
        "env_vars": recorded_env_vars(),  # allowlisted names only: see RECORDED_ENV_VARS
    }
