"""Analytic training FLOPs of a Keras model and vendor datasheet peaks (imports Keras, no framework).

Training FLOPs per example = 3 x forward (forward + 2 x forward for the backward pass), the usual MFU
convention: TensorFlow 2.21's profiler over-counts the train step by ~24 % but agrees with the analytic
forward count within ~1 % (checked when bench was built). One multiply-add counts as 2 FLOPs, a bias add
as 1. Embedding lookups, pooling and activations count zero (memory-bound, no multiply-adds).
"""

from __future__ import annotations

import re

import keras

# Vendor datasheet peaks (dense FLOP/s per chip/device) for the MFU column against the datasheet.
# Sources: Google Cloud TPU system architecture pages (v2: 45 TFLOPS bf16 per chip; v3: 123; v4: 275;
# v5e: 197; v5p: 459; v6e: 918), NVIDIA datasheets (V100 SXM2 fp32 15.7 TFLOPS; T4 fp32 8.1, fp16 65;
# A100 fp32 19.5, bf16/fp16 tensor 312; L4 fp32 30.3, fp16 tensor 121; H100 SXM fp32 67, bf16 989).
DATASHEET_PEAK_FLOPS = {
    ("tpu", "v2", "bf16"): 45e12, ("tpu", "v3", "bf16"): 123e12, ("tpu", "v4", "bf16"): 275e12,
    ("tpu", "v5litepod", "bf16"): 197e12, ("tpu", "v5e", "bf16"): 197e12, ("tpu", "v5p", "bf16"): 459e12,
    ("tpu", "v6e", "bf16"): 918e12,
    ("gpu", "V100", "fp32"): 15.7e12, ("gpu", "T4", "fp32"): 8.1e12, ("gpu", "T4", "fp16"): 65e12,
    ("gpu", "A100", "fp32"): 19.5e12, ("gpu", "A100", "fp16"): 312e12, ("gpu", "A100", "bf16"): 312e12,
    ("gpu", "L4", "fp32"): 30.3e12, ("gpu", "L4", "fp16"): 121e12, ("gpu", "L4", "bf16"): 121e12,
    ("gpu", "H100", "fp32"): 67e12, ("gpu", "H100", "fp16"): 989e12, ("gpu", "H100", "bf16"): 989e12,
}


# TPU replicas (TensorCores seen by TPUStrategy) per chip: v2/v3 have two cores per chip; v4/v5p run as one
# "megacore" per chip; v5e/v6e have one core per chip.
TPU_REPLICAS_PER_CHIP = {"v2": 2, "v3": 2}


def datasheet_peak(device_kind: str, accelerator: str | None, precision: str,
                   num_replicas: int = 1) -> float | None:
    """Vendor peak FLOP/s of all the strategy's devices (e.g. 'v3-8' x 8 cores, 'Tesla T4' x 1), if known.

    The table holds one chip's (TPU) or one GPU's peak; a TPU replica is one core, so the total is
    per-chip peak / cores per chip x replicas. Model names match as whole tokens ('L4' is not 'L40S').
    """
    if not accelerator or device_kind not in ("tpu", "gpu"):
        return None
    tag = {"float32": "fp32", "mixed_float16": "fp16", "mixed_bfloat16": "bf16"}[precision]
    if device_kind == "tpu":
        tag = "bf16"  # TPU matrix units compute in bfloat16
    for (kind, model, t), peak in DATASHEET_PEAK_FLOPS.items():
        if kind == device_kind and t == tag and re.search(rf"(?<![a-z0-9]){re.escape(model.lower())}(?![a-z0-9])",
                                                          accelerator.lower()):
            per_replica = peak / TPU_REPLICAS_PER_CHIP.get(model, 1) if kind == "tpu" else peak
            return per_replica * num_replicas
    return None


def forward_flops_per_example(model: keras.Model) -> int:
    """Analytic forward FLOPs for one example: Conv1D/Conv2D, DepthwiseConv2D and Dense layers (2 x
    multiply-adds + bias), including those of a model nested as a layer (a ``keras.applications`` backbone)."""
    total = 0
    for layer in model.layers:
        if isinstance(layer, keras.Model):
            total += forward_flops_per_example(layer)
        elif isinstance(layer, keras.layers.DepthwiseConv2D):
            _, h, w, cout = layer.output.shape  # cout = channels in x depth_multiplier, one kernel each
            kh, kw = layer.kernel_size
            total += (2 * kh * kw + layer.use_bias) * h * w * cout
        elif isinstance(layer, keras.layers.Conv2D):
            _, h, w, cout = layer.output.shape
            kh, kw = layer.kernel_size
            total += (2 * kh * kw * layer.input.shape[-1] + layer.use_bias) * h * w * cout
        elif isinstance(layer, keras.layers.Conv1D):
            _, length, cout = layer.output.shape
            total += (2 * layer.kernel_size[0] * layer.input.shape[-1] + layer.use_bias) * length * cout
        elif isinstance(layer, keras.layers.Dense):
            total += (2 * layer.input.shape[-1] + layer.use_bias) * layer.units
    return int(total)


def train_flops_per_example(model: keras.Model) -> int:
    """Training FLOPs per example: 3 x the analytic forward count."""
    return 3 * forward_flops_per_example(model)
