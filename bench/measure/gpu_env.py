"""The NVIDIA GPU environment of a point, read from ``nvidia-smi`` (no framework): per GPU its name, memory, clock and
power limits, compute capability and form factor, and the driver; ``absent`` says why where it fails.
Fields: docs/records.md (GPU environment).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from typing import Any

QUERY = ("name", "driver_version", "memory.total", "clocks.max.sm", "power.limit", "compute_cap", "pci.bus_id")


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:  # "[N/A]", "[Not Supported]"
        return None


def form_factor(name: str) -> str:
    """``PCIe``, ``NVL`` or ``SXM`` from CUDA's product name: NVIDIA names the PCIe and NVL boards (``NVIDIA H100
    PCIe``, ``NVIDIA H200 NVL``) and not the SXM module (``NVIDIA H100 80GB HBM3``, ``NVIDIA H200``, ``NVIDIA
    B200``); ``unknown`` for other boards (``Tesla T4``, ``NVIDIA L4`` are PCIe cards whose names do not say so)."""
    if re.search(r"\bPCIe\b", name, re.IGNORECASE):
        return "PCIe"
    if re.search(r"\bNVL\b", name):
        return "NVL"
    if re.search(r"\b(H100|H200|B200|B300|GB200|A100-SXM4|V100-SXM2)\b", name):
        return "SXM"
    return "unknown"


def parse_query(text: str) -> list[dict[str, Any]]:
    """The GPUs of ``nvidia-smi --query-gpu=<QUERY> --format=csv,noheader,nounits`` output, one dict each."""
    gpus = []
    for line in text.strip().splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != len(QUERY):
            continue
        row = dict(zip(QUERY, cells, strict=True))
        gpus.append({"name": row["name"], "driver": row["driver_version"],
                     "memory_mib": _number(row["memory.total"]), "sm_clock_max_mhz": _number(row["clocks.max.sm"]),
                     "power_limit_w": _number(row["power.limit"]), "compute_capability": row["compute_cap"],
                     "form_factor": form_factor(row["name"]), "pci_bus_id": row["pci.bus_id"]})
    return gpus


def gpu_env(run: Callable[..., Any] = subprocess.run) -> dict[str, Any]:
    """``{"gpus": [...], "driver": ..., "cuda_driver": ...}`` from ``nvidia-smi``, or ``{"absent": why}``."""
    try:
        query = run(["nvidia-smi", f"--query-gpu={','.join(QUERY)}", "--format=csv,noheader,nounits"],
                    capture_output=True, text=True, timeout=20, check=True).stdout
        header = run(["nvidia-smi"], capture_output=True, text=True, timeout=20, check=False).stdout
    except FileNotFoundError:
        return {"absent": "nvidia-smi not found (no NVIDIA driver on this machine, or not on PATH)"}
    except (OSError, subprocess.SubprocessError) as e:
        return {"absent": f"nvidia-smi failed: {type(e).__name__}: {e}"[:200]}
    gpus = parse_query(query)
    if not gpus:
        return {"absent": "nvidia-smi listed no GPU"}
    cuda = re.search(r"CUDA Version:\s*([0-9.]+)", header or "")
    return {"gpus": gpus, "driver": gpus[0]["driver"], "cuda_driver": cuda.group(1) if cuda else None}

