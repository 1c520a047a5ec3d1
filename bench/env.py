"""Environment capture for records: host, CPU, versions, accelerator, git commit."""

from __future__ import annotations

import os
import platform
import socket
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import bench

REPO = Path(__file__).resolve().parent.parent


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


def host_env() -> dict[str, Any]:
    """What can be known without TensorFlow."""
    commit, dirty = git_info()
    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "bench_version": bench.__version__,
        "git_commit": commit,
        "git_dirty": dirty,
        "env_vars": {k: v for k, v in sorted(os.environ.items())
                     if k.startswith(("TF_", "XLA_", "TPU_")) or k in ("CUDA_VISIBLE_DEVICES",)},
    }


def capture_env(device_kind: str, device_count: int) -> dict[str, Any]:
    """Full environment of a worker (imports TensorFlow): versions and the accelerator in use."""
    import keras
    import tensorflow as tf

    accelerator = None
    if device_kind == "gpu":
        gpus = tf.config.list_physical_devices("GPU")
        details = tf.config.experimental.get_device_details(gpus[0]) if gpus else {}
        accelerator = details.get("device_name", "GPU")
    elif device_kind == "tpu":
        accelerator = os.environ.get("TPU_ACCELERATOR_TYPE") or "TPU"
    return {**host_env(), "tensorflow": tf.__version__, "keras": keras.__version__,
            "accelerator": accelerator, "device_kind": device_kind, "device_count": device_count}
