"""Vendor datasheet peaks (dense FLOP/s) and bandwidths of accelerators, without any framework: MFU against the
datasheet and the report's lower bounds read them. :data:`CHIPS` lists each chip with every name a framework reports
it by, the most specific first; the first whole-token match wins. Figures and sources: docs/reports.md, *Datasheet
figures*; docs/cost.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Chip:
    """One accelerator: ``kind`` (tpu | gpu), the ``model`` key prices and bounds use, the ``names`` frameworks
    report it by (whole tokens, case-insensitive), dense peaks per arithmetic (FLOP/s per chip or GPU), and the
    framework devices (replicas) one chip is seen as."""

    kind: str
    model: str
    names: tuple[str, ...]
    peaks: dict[str, float] = field(default_factory=dict)
    devices_per_chip: int = 1
    generation: str = ""  # the architecture (Volta, Turing, Ampere, Ada, Hopper, Blackwell; a TPU's own version)


# Sources: Google Cloud TPU system architecture pages (per chip, bf16: v2 45 TFLOPS, v3 123, v4 275, v5e 197, v5p
# 459, v6e 918, TPU7x 2307; v2/v3 chips are two TensorCores seen as two devices, v4/v5p one "megacore" device per
# chip, v5e/v6e one core per chip, TPU7x two TensorCores per chip, seen as two devices); JAX's tpu_info (v4i
# "TPU v4 lite" 137). NVIDIA datasheets, dense (the "with sparsity" figures are twice these): V100 SXM2 fp32 15.7,
# fp16 tensor 125; V100 PCIe 14 / 112; T4 fp32 8.1, fp16 65; A100 (SXM and PCIe) fp32 19.5, tf32 156, bf16/fp16
# 312; L4 fp32 30.3, tf32 60, fp16/bf16 121; H100 SXM fp32 67, tf32 495, bf16/fp16 989; H100 PCIe 51 / 378 / 756;
# H100 NVL 60 / 418 / 835; H200 SXM as H100 SXM; H200 NVL as H100 NVL; B200 (HGX, 1,000 W) fp32 75, tf32 1,100,
# bf16/fp16 2,250 (NVIDIA's HGX B200 table; torchtitan get_peak_flops 2.25e15, citing NVIDIA's Blackwell datasheet).
# Workstation and GeForce GPUs (fp16 is the tensor rate with float32 accumulation, what mixed-precision training
# uses; a GeForce card's is half its fp16-accumulate rate): Quadro RTX 8000 fp32 16.3, fp16 130.5 (Turing); A10
# 31.2 / tf32 62.5 / 125; RTX A6000 38.7 / 77.4 / 154.8; RTX 3090 35.6 / 35.6 / 71 (GA102 whitepaper); RTX 4090
# 82.6 / 82.6 / 165.2 (AD102 whitepaper); RTX 6000 Ada 91.1 / 182.2 / 364.4. Sources and when they were read:
# docs/predict.md, *Datasheet figures*.
def _gpu(fp32: float, tf32: float | None, half: float) -> dict[str, float]:
    peaks = {"fp32": fp32 * 1e12, "fp16": half * 1e12, "bf16": half * 1e12}
    if tf32 is not None:
        peaks["tf32"] = tf32 * 1e12
    return peaks


CHIPS: tuple[Chip, ...] = (
    Chip("tpu", "v2", ("TPU v2", "v2"), {"bf16": 45e12}, 2, "v2"),
    Chip("tpu", "v3", ("TPU v3", "v3"), {"bf16": 123e12}, 2, "v3"),
    Chip("tpu", "v4i", ("TPU v4 lite", "v4i"), {"bf16": 137e12}, 1, "v4"),
    Chip("tpu", "v4", ("TPU v4", "v4"), {"bf16": 275e12}, 1, "v4"),
    Chip("tpu", "v5e", ("TPU v5 lite", "TPU v5e", "v5litepod", "v5e", "v5lite"), {"bf16": 197e12}, 1, "v5"),
    Chip("tpu", "v5p", ("TPU v5p", "TPU v5", "v5p"), {"bf16": 459e12}, 1, "v5"),
    Chip("tpu", "v6e", ("TPU v6 lite", "TPU v6e", "v6e"), {"bf16": 918e12}, 1, "v6"),
    Chip("tpu", "7x", ("TPU7x", "tpu7x", "7x"), {"bf16": 2307e12}, 2, "7"),
    Chip("gpu", "V100 PCIe", ("V100-PCIE", "V100 PCIe"), {"fp32": 14e12, "fp16": 112e12}, 1, "Volta"),
    Chip("gpu", "V100", ("V100",), {"fp32": 15.7e12, "fp16": 125e12}, 1, "Volta"),
    Chip("gpu", "T4", ("T4",), {"fp32": 8.1e12, "fp16": 65e12}, 1, "Turing"),
    Chip("gpu", "Quadro RTX 8000", ("Quadro RTX 8000", "RTX 8000"), {"fp32": 16.3e12, "fp16": 130.5e12}, 1, "Turing"),
    Chip("gpu", "A100 80GB PCIe", ("A100 80GB PCIe", "A100-PCIE-80GB"), _gpu(19.5, 156, 312), 1, "Ampere"),
    Chip("gpu", "A100 80GB", ("A100-SXM4-80GB", "A100 80GB", "A100-80GB"), _gpu(19.5, 156, 312), 1, "Ampere"),
    Chip("gpu", "A100", ("A100",), _gpu(19.5, 156, 312), 1, "Ampere"),
    Chip("gpu", "A10", ("A10",), _gpu(31.2, 62.5, 125), 1, "Ampere"),
    Chip("gpu", "RTX A6000", ("RTX A6000", "A6000"), _gpu(38.7, 77.4, 154.8), 1, "Ampere"),
    Chip("gpu", "RTX 3090", ("RTX 3090",), _gpu(35.6, 35.6, 71), 1, "Ampere"),
    Chip("gpu", "L4", ("L4",), _gpu(30.3, 60, 121), 1, "Ada"),
    Chip("gpu", "RTX 4090", ("RTX 4090",), _gpu(82.6, 82.6, 165.2), 1, "Ada"),
    Chip("gpu", "RTX 6000 Ada", ("RTX 6000 Ada",), _gpu(91.1, 182.2, 364.4), 1, "Ada"),
    Chip("gpu", "H100 PCIe", ("H100 PCIe", "H100-PCIE", "H100 80GB PCIe"), _gpu(51, 378, 756), 1, "Hopper"),
    Chip("gpu", "H100 NVL", ("H100 NVL",), _gpu(60, 418, 835), 1, "Hopper"),
    Chip("gpu", "H100", ("H100",), _gpu(67, 495, 989), 1, "Hopper"),
    Chip("gpu", "H200 NVL", ("H200 NVL",), _gpu(60, 418, 835), 1, "Hopper"),
    Chip("gpu", "H200", ("H200",), _gpu(67, 495, 989), 1, "Hopper"),
    Chip("gpu", "B200", ("B200",), _gpu(75, 1100, 2250), 1, "Blackwell"),
)

# Memory bandwidth of one chip or GPU (bytes/s), for the memory floor, only where a source was read (docs/reports.md,
# *Datasheet figures*, names each source and when it was read): GPUs T4 320 GB/s, L4 300, A100 40 GB 1,555, A100
# 80 GB 2,039 (SXM; the PCIe card's 1,935 is lower, so its floor stays a floor), H100 SXM 3,350, H100 PCIe 2,000,
# H100 NVL 3,900, H200 and H200 NVL 4,800, B200 (HGX) 7,700; TPU v4 1,200, v5e 819, v5p 2,765, v6e 1,638 (the
# Cloud TPU pages), TPU7x 7,370 (no page quoted); V100 (both) 900, Quadro RTX 8000 672, A100 80GB PCIe 1,935, A10
# 600, RTX A6000 768, RTX 3090 936, RTX 4090 1,008, RTX 6000 Ada 960 (docs/predict.md). Others: none (no memory floor
# rather than a guess).
BANDWIDTH = {("gpu", "T4"): 320e9, ("gpu", "L4"): 300e9, ("gpu", "A100"): 1.555e12, ("gpu", "A100 80GB"): 2.039e12,
             ("gpu", "V100"): 900e9, ("gpu", "V100 PCIe"): 900e9, ("gpu", "Quadro RTX 8000"): 672e9,
             ("gpu", "A100 80GB PCIe"): 1.935e12, ("gpu", "A10"): 600e9, ("gpu", "RTX A6000"): 768e9,
             ("gpu", "RTX 3090"): 936e9, ("gpu", "RTX 4090"): 1.008e12, ("gpu", "RTX 6000 Ada"): 960e9,
             ("gpu", "H100"): 3.35e12, ("gpu", "H100 PCIe"): 2.0e12, ("gpu", "H100 NVL"): 3.9e12,
             ("gpu", "H200"): 4.8e12, ("gpu", "H200 NVL"): 4.8e12, ("gpu", "B200"): 7.7e12,
             ("tpu", "v4"): 1.2e12, ("tpu", "v5e"): 819e9, ("tpu", "v5p"): 2.765e12, ("tpu", "v6e"): 1.638e12,
             ("tpu", "7x"): 7.37e12}

# (kind, model, arithmetic) -> dense peak FLOP/s of one chip or GPU (the table above, flat)
DATASHEET_PEAK_FLOPS = {(c.kind, c.model, tag): v for c in CHIPS for tag, v in c.peaks.items()}

# TPU framework devices (replicas) per chip, for the models where that is not one
TPU_REPLICAS_PER_CHIP = {c.model: c.devices_per_chip for c in CHIPS if c.kind == "tpu" and c.devices_per_chip != 1}


# Cloud TPU type names (``v3-8``, ``v4-8``, ``v5litepod-8``, ``v6e-1``, ``tpu7x-8``): up to v5p the number counts
# TensorCores (a v4-8 is 4 chips), from v5e it counts chips (a v5litepod-8 is 8 chips); TPU7x is taken to count
# TensorCores as v5p does (its type names are newer than bench's sources)
TPU_TYPE = re.compile(r"(?:tpu-)?(v2|v3|v4|v5p|v5e|v5litepod|v6e|tpu7x|7x)-(\d+)")
CORES_NAMED = {"v2", "v3", "v4", "v5p", "7x"}
CORES_PER_CHIP = 2  # TensorCores of a v2, v3, v4, v5p and TPU7x chip


@dataclass(frozen=True)
class TpuSlice:
    """A Cloud TPU type: its chip, chips, the framework devices (replicas) it shows, and the matrix unit width."""

    chip: Chip
    chips: int
    replicas: int
    matrix: int  # rows x columns of a matrix unit: 128 up to v5, 256 from v6e (JAX's tpu_info mxu_column_size)


def tpu_slice(tpu_type: str) -> TpuSlice:
    """The slice a Cloud TPU type names (``v5litepod-1``, ``v4-8``, ``v3-8``, ...); ValueError naming the forms
    allowed when it is not one."""
    m = TPU_TYPE.fullmatch(tpu_type.strip().lower())
    if m is None:
        raise ValueError(f"{tpu_type!r} is not a Cloud TPU type; allowed: v2-N, v3-N, v4-N, v5p-N, v5e-N or "
                         "v5litepod-N, v6e-N, tpu7x-N (e.g. v5litepod-1 on Colab, v5litepod-8 on Kaggle, v3-8)")
    model, n = m.group(1), int(m.group(2))
    chip = chip_of("tpu", model)
    assert chip is not None  # every form of TPU_TYPE names a chip of the table
    chips = max(1, n // CORES_PER_CHIP) if chip.model in CORES_NAMED else n
    return TpuSlice(chip, chips, chips * chip.devices_per_chip, 256 if chip.model in ("v6e", "7x") else 128)


def _token(name: str, text: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(name.lower())}(?![a-z0-9])", text.lower()) is not None


def chip_of(device_kind: str, accelerator: str | None) -> Chip | None:
    """The chip an accelerator name reported by TensorFlow or JAX stands for (None when no entry names it)."""
    if not accelerator:
        return None
    return next((c for c in CHIPS if c.kind == device_kind and any(_token(n, accelerator) for n in c.names)), None)


def _tag(device_kind: str, precision: str, math_mode: str | None) -> str:
    if device_kind == "tpu":
        return "bf16"  # TPU matrix units compute in bfloat16
    return math_mode or {"float32": "fp32", "mixed_float16": "fp16", "mixed_bfloat16": "bf16"}[precision]


def datasheet_peak(device_kind: str, accelerator: str | None, precision: str,
                   num_replicas: int = 1, math_mode: str | None = None) -> float | None:
    """Vendor peak FLOP/s of all the strategy's devices (e.g. 'v3-8' x 8 cores, 'Tesla T4' x 1), if known, in the
    arithmetic that ran: ``math_mode`` (``fp32``, ``tf32``, ``fp16``, ``bf16``: a GPU running float32 with
    TensorFloat-32 is held against its TF32 peak, not the fp32 one), else the precision policy's.

    A replica is one framework device: the total is the chip's peak / devices per chip x replicas. Model names
    match as whole tokens ('L4' is not 'L40S'). :func:`why_no_peak` says why when this is None."""
    chip = chip_of(device_kind, accelerator)
    if chip is None:
        return None
    peak = chip.peaks.get(_tag(device_kind, precision, math_mode))
    return None if peak is None else peak / chip.devices_per_chip * num_replicas


def why_no_peak(device_kind: str | None, accelerator: str | None, precision: str, math_mode: str | None = None
                ) -> str | None:
    """Why a record carries no datasheet peak (None when it has one): a CPU, an accelerator name the table does
    not know, or a chip without a peak in the arithmetic that ran."""
    if device_kind not in ("tpu", "gpu"):
        return f"{device_kind or 'unknown'} device: vendors publish no datasheet peak for a host CPU"
    chip = chip_of(device_kind, accelerator)
    if chip is None:
        return (f"no datasheet entry names the accelerator {accelerator!r} (bench.measure.datasheets.CHIPS: add it "
                "with its source)")
    tag = _tag(device_kind, precision, math_mode)
    if tag not in chip.peaks:
        return f"{chip.model}'s datasheet gives no {tag} peak (it has {', '.join(sorted(chip.peaks))})"
    return None
