"""The GPU environment a GPU point records (bench.measure.gpu_env) and the line the report prints for it, once per
host. The figures are those of the first GPU run (one H200, 2026-11-27: docs/findings.md)."""

from __future__ import annotations

import subprocess
from types import SimpleNamespace

from bench.measure.gpu_env import form_factor, gpu_env, parse_query
from bench.reporting.render.markdown.tables import environment_table, gpu_summary
from tests.conftest import make_record

H200_QUERY = "NVIDIA H200, 580.159.04, 143771, 1980, 700.00, 9.0, 00000000:18:00.0\n"
H200_HEADER = "| NVIDIA-SMI 580.159.04    Driver Version: 580.159.04    CUDA Version: 13.0     |\n"


def _smi(query: str, header: str = H200_HEADER):
    def run(cmd, **kw):
        if any(a.startswith("--query-gpu=") for a in cmd):
            return SimpleNamespace(stdout=query)
        return SimpleNamespace(stdout=header)
    return run


def test_nvidia_smi_is_read_per_gpu_with_driver_cuda_and_form_factor() -> None:
    env = gpu_env(_smi(H200_QUERY * 2))
    assert env["driver"] == "580.159.04" and env["cuda_driver"] == "13.0" and len(env["gpus"]) == 2
    assert env["gpus"][0] == {"name": "NVIDIA H200", "driver": "580.159.04", "memory_mib": 143771.0,
                              "sm_clock_max_mhz": 1980.0, "power_limit_w": 700.0, "compute_capability": "9.0",
                              "form_factor": "SXM", "pci_bus_id": "00000000:18:00.0"}
    assert gpu_summary(env) == ("2 x NVIDIA H200 (SXM, 143,771 MiB, 700 W, SM 1,980 MHz, cc 9.0), driver 580.159.04, "
                                "CUDA 13.0")
    odd = parse_query("Tesla T4, 535.1, 15360, [N/A], [Not Supported], 7.5, 0:0:4.0\nnot, a, row\n")
    assert len(odd) == 1 and odd[0]["power_limit_w"] is None and odd[0]["form_factor"] == "unknown"


def test_the_board_is_told_from_cudas_name() -> None:
    assert [form_factor(n) for n in ("NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H100 NVL", "NVIDIA H200 NVL",
                                     "NVIDIA B200", "NVIDIA A100-SXM4-40GB", "NVIDIA L4")] == [
        "SXM", "PCIe", "NVL", "NVL", "SXM", "SXM", "unknown"]


def test_without_nvidia_smi_the_record_says_why() -> None:
    def missing(cmd, **kw):
        raise FileNotFoundError(cmd[0])

    def failing(cmd, **kw):
        raise subprocess.CalledProcessError(9, cmd)

    assert gpu_env(missing) == {"absent": "nvidia-smi not found (no NVIDIA driver on this machine, or not on PATH)"}
    assert gpu_env(failing)["absent"].startswith("nvidia-smi failed: CalledProcessError")
    assert gpu_env(_smi(""))["absent"] == "nvidia-smi listed no GPU"
    assert gpu_summary(gpu_env(missing)).startswith("not read: nvidia-smi not found")


def test_the_report_shows_each_hosts_gpu_once_and_says_when_older_records_have_none() -> None:
    gpu = gpu_env(_smi(H200_QUERY))
    recs = [make_record(point_id=f"p{i}-gpu-b8-spe1-fp32-r0", run_id="r",
                        env={"hostname": "h200-vm", "device_kind": "gpu", "accelerator": "NVIDIA H200", "gpu": gpu})
            for i in range(3)]
    recs.append(make_record(point_id="q-gpu-b8-spe1-fp32-r0", run_id="old",
                            env={"hostname": "older-vm", "device_kind": "gpu", "accelerator": "NVIDIA H200"}))
    text = environment_table(recs)
    assert text.count("GPU on h200-vm: 1 x NVIDIA H200 (SXM, 143,771 MiB, 700 W") == 1
    assert "GPU on older-vm: not recorded (records from an older bench" in text
