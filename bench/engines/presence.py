"""Whether a GPU or TPU can be on this machine at all, read from device files and the environment without a framework:
a point whose device is surely absent is ``skipped`` before any worker starts (DESIGN.md, *Decisions that bind*);
any sign of a device leaves the answer to the worker's framework."""

from __future__ import annotations

import glob
import os
import sys

TPU_ENV = ("TPU_NAME", "TPU_ACCELERATOR_TYPE", "ISTPUVM", "KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS", "TPU_CONFIG",
           "COLAB_TPU_ADDR")
TPU_FILES = ("/dev/accel*", "/dev/vfio/[0-9]*")  # TPU VMs: v2-v4 / v5e and later
GPU_FILES = ("/dev/nvidia[0-9]*", "/dev/kfd", "/dev/dxg")  # CUDA, ROCm, WSL2's GPU


def looks_like_tpu_vm() -> bool:
    """A hint, not proof: TPU VMs expose /dev/accel* (v2-v4) or /dev/vfio/N (v5e+), or set TPU env vars."""
    return bool(glob.glob(TPU_FILES[0]) or glob.glob(TPU_FILES[1])
                or os.environ.get("TPU_ACCELERATOR_TYPE") or os.environ.get("ISTPUVM"))


def absent(kind: str, tpu: str = "") -> str:
    """Why no ``kind`` (``gpu``, ``tpu``) device can be on this machine, or '' when one may be (``tpu``: a
    configured TPU address; any other kind: the worker decides). Linux only: elsewhere (macOS' MPS) ''."""
    if not sys.platform.startswith("linux"):
        return ""
    if kind == "tpu":
        if tpu or any(os.environ.get(k) for k in TPU_ENV) or any(glob.glob(f) for f in TPU_FILES):
            return ""
        return (f"no TPU on this machine (none of {', '.join(TPU_FILES)} exists and none of {', '.join(TPU_ENV)} "
                "is set; no worker started: python -m bench doctor checks the workloads for a TPU)")
    if kind == "gpu":
        if any(glob.glob(f) for f in GPU_FILES):
            return ""
        return f"no GPU on this machine (none of {', '.join(GPU_FILES)} exists; no worker started)"
    return ""
