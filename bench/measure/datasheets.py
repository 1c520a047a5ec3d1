"""Vendor datasheet peaks of accelerators (dense FLOP/s), without any framework: the worker's MFU against the
datasheet (:mod:`bench.measure.flops`) and the report's lower bounds (:mod:`bench.reporting.bounds`) read them."""

from __future__ import annotations

import re

# Vendor datasheet peaks (dense FLOP/s per chip/device) for the MFU column against the datasheet.
# Sources: Google Cloud TPU system architecture pages (v2: 45 TFLOPS bf16 per chip; v3: 123; v4: 275;
# v5e: 197; v5p: 459; v6e: 918), NVIDIA datasheets (V100 SXM2 fp32 15.7 TFLOPS; T4 fp32 8.1, fp16 65;
# A100 fp32 19.5, tf32 tensor 156, bf16/fp16 tensor 312; L4 fp32 30.3, tf32 60, fp16 tensor 121; H100/H200 SXM
# fp32 67, tf32 495, bf16 989). Dense figures: the datasheets' "with sparsity" ones are twice these.
DATASHEET_PEAK_FLOPS = {
    ("tpu", "v2", "bf16"): 45e12, ("tpu", "v3", "bf16"): 123e12, ("tpu", "v4", "bf16"): 275e12,
    ("tpu", "v5litepod", "bf16"): 197e12, ("tpu", "v5e", "bf16"): 197e12, ("tpu", "v5p", "bf16"): 459e12,
    ("tpu", "v6e", "bf16"): 918e12,
    ("gpu", "V100", "fp32"): 15.7e12, ("gpu", "T4", "fp32"): 8.1e12, ("gpu", "T4", "fp16"): 65e12,
    ("gpu", "A100", "fp32"): 19.5e12, ("gpu", "A100", "tf32"): 156e12, ("gpu", "A100", "fp16"): 312e12,
    ("gpu", "A100", "bf16"): 312e12,
    ("gpu", "L4", "fp32"): 30.3e12, ("gpu", "L4", "tf32"): 60e12, ("gpu", "L4", "fp16"): 121e12,
    ("gpu", "L4", "bf16"): 121e12,
    ("gpu", "H100", "fp32"): 67e12, ("gpu", "H100", "tf32"): 495e12, ("gpu", "H100", "fp16"): 989e12,
    ("gpu", "H100", "bf16"): 989e12,
    ("gpu", "H200", "fp32"): 67e12, ("gpu", "H200", "tf32"): 495e12, ("gpu", "H200", "fp16"): 989e12,
    ("gpu", "H200", "bf16"): 989e12,
}


# TPU replicas (TensorCores seen by TPUStrategy) per chip: v2/v3 have two cores per chip; v4/v5p run as one
# "megacore" per chip; v5e/v6e have one core per chip.
TPU_REPLICAS_PER_CHIP = {"v2": 2, "v3": 2}


def datasheet_peak(device_kind: str, accelerator: str | None, precision: str,
                   num_replicas: int = 1, math_mode: str | None = None) -> float | None:
    """Vendor peak FLOP/s of all the strategy's devices (e.g. 'v3-8' x 8 cores, 'Tesla T4' x 1), if known, in the
    arithmetic that ran: ``math_mode`` (``fp32``, ``tf32``, ``fp16``, ``bf16``: a GPU running float32 with
    TensorFloat-32 is held against its TF32 peak, not the fp32 one), else the precision policy's.

    The table holds one chip's (TPU) or one GPU's peak; a TPU replica is one core, so the total is
    per-chip peak / cores per chip x replicas. Model names match as whole tokens ('L4' is not 'L40S').
    """
    if not accelerator or device_kind not in ("tpu", "gpu"):
        return None
    tag = math_mode or {"float32": "fp32", "mixed_float16": "fp16", "mixed_bfloat16": "bf16"}[precision]
    if device_kind == "tpu":
        tag = "bf16"  # TPU matrix units compute in bfloat16
    for (kind, model, t), peak in DATASHEET_PEAK_FLOPS.items():
        if kind == device_kind and t == tag and re.search(rf"(?<![a-z0-9]){re.escape(model.lower())}(?![a-z0-9])",
                                                          accelerator.lower()):
            per_replica = peak / TPU_REPLICAS_PER_CHIP.get(model, 1) if kind == "tpu" else peak
            return per_replica * num_replicas
    return None


def best_peak(device_kind: str, model: str) -> float | None:
    """The highest dense peak (FLOP/s) of one ``model`` chip or GPU in any arithmetic in the table (None when the
    table has none): nothing of that device runs faster, whatever the precision."""
    peaks = [v for (kind, m, _), v in DATASHEET_PEAK_FLOPS.items() if kind == device_kind and m == model]
    return max(peaks) if peaks else None
