"""The doctor's checks that need no framework: batch sizes against the replicas of a TPU and of every strategy
asked, where the data lives, and the precision asked. Each returns :class:`~bench.readiness.findings.Finding`s.

Facts behind them (sources in docs/doctor.md): a Cloud TPU host has 8 TensorCores as replicas (v2-8, v3-8,
v4-8's 4 chips x 2 cores are 8 replicas too, a v5e-8 has 8 chips of one core); XLA pads a per-replica batch
that is not a multiple of 8 and wastes the padding; a TPU's matrix units are 128 x 128 (v2-v5; 256 x 256 on
v6e), so a per-replica batch under 128 leaves them partly idle; only a TPU Node (the older architecture)
needs its data in Cloud Storage, a TPU VM (Colab and Kaggle since 2024, Cloud TPU VMs) reads local disk;
TPUs multiply natively in bfloat16. GPUs (asked with a ``gpu`` strategy): tensor cores multiply float16 and
bfloat16 (a T4: 65 TFLOP/s in float16 against 8.1 in float32; bfloat16 from the A100 on), and NVIDIA's
deep-learning performance guide asks for matrix dimensions, the batch among them, that are multiples of 8 in
float16.
"""

from __future__ import annotations

from bench.config import SuiteConfig
from bench.config.keys import CPU_X, axes_for
from bench.readiness.findings import FAIL, OK, WARN, Finding

TPU_REPLICAS = 8  # one TPU host: v2-8 / v3-8 / v4-8 (4 chips x 2 cores) / v5e-8
TPU_MATRIX = 128  # matrix unit width, v2-v5 (v6e: 256)
PAD_MULTIPLE = 8


def replicas(strategy: str) -> int | None:
    """Replicas of a strategy name on this kind of machine (None: depends on the machine, e.g. ``gpus``)."""
    m = CPU_X.fullmatch(strategy)
    if m:
        return int(m.group(1))
    if strategy in ("tpu",):
        return TPU_REPLICAS
    if strategy in ("cpu", "cpu_onedevice", "gpu", "gpu_onedevice", "default"):
        return 1
    return None


def batch_findings(cfg: SuiteConfig, workload: str, backend: str) -> list[Finding]:
    """Per-replica batch on one TPU host (8 replicas) and on every strategy asked: divisible, a multiple of 8,
    large enough to fill a TPU's matrix units."""
    out = []
    per_replica = cfg.batch_scaling == "per_replica"
    asked = {s: n for s in cfg.strategies if (n := replicas(s)) is not None}  # strategy -> its replicas
    asked.setdefault("tpu", TPU_REPLICAS)
    for b in axes_for(cfg, workload)["batch_sizes"]:
        bad = [f"{s} ({n} replicas)" for s, n in asked.items() if not per_replica and b % n]
        name = f"batch {b}" + (" per replica" if per_replica else "")
        if bad:
            out.append(Finding(workload, backend, "batch_divides", FAIL,
                               f"global batch {b} does not divide over {', '.join(bad)}",
                               f"a global batch that is a multiple of {PAD_MULTIPLE * TPU_REPLICAS} (8 x 8 replicas)"))
            continue
        core = b if per_replica else b // TPU_REPLICAS
        if core % PAD_MULTIPLE:
            out.append(Finding(workload, backend, "batch_multiple_of_8", WARN,
                               f"{name}: {core} per TPU core, not a multiple of {PAD_MULTIPLE} (XLA pads it)",
                               f"batch_sizes=[{_round_up(b, PAD_MULTIPLE * (1 if per_replica else TPU_REPLICAS))}]"))
        elif core < TPU_MATRIX:
            out.append(Finding(workload, backend, "batch_fills_matrix_units", WARN,
                               f"{name}: {core} per TPU core, under the {TPU_MATRIX} rows of a TPU matrix unit "
                               "(partly idle every step)",
                               f"per-core batch >= {TPU_MATRIX} (global {TPU_MATRIX * TPU_REPLICAS} on 8 cores) "
                               "if the model still learns at that size"))
        else:
            out.append(Finding(workload, backend, "batch", OK, f"{name}: {core} per TPU core, divides over "
                               f"{', '.join(sorted(asked))}"))
    return out


def _round_up(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple


def data_findings(workload: str, data: str, backend: str) -> list[Finding]:
    """Where the examples are read from, against what a TPU can read."""
    from bench.data.sources.base import is_synthetic, parse

    if is_synthetic(data):
        return [Finding(workload, backend, "data_location", OK, "generated in memory (synthetic)")]
    kind, rest = parse(data)
    if kind == "keras":
        return [Finding(workload, backend, "data_location", OK, f"{data}: arrays in memory")]
    if rest.startswith("gs://"):
        return [Finding(workload, backend, "data_location", OK, f"{kind}: Cloud Storage, readable by any TPU")]
    return [Finding(workload, backend, "data_location", WARN,
                    f"{kind}: a local path: a TPU VM (Colab, Kaggle, Cloud TPU VM) reads it, a TPU Node cannot",
                    "on a TPU Node copy the data to gs:// (python -m bench export-tfrecord, then gsutil cp)")]


def precision_findings(cfg: SuiteConfig, workload: str, backend: str) -> list[Finding]:
    """The precision policies asked, against what a TPU computes in."""
    if "mixed_float16" in cfg.precisions:
        return [Finding(workload, backend, "precision", WARN, "mixed_float16 asked: float16 is a GPU format",
                        "precisions=[mixed_bfloat16] on a TPU")]
    if "mixed_bfloat16" not in cfg.precisions:
        return [Finding(workload, backend, "precision", WARN,
                        f"precisions={list(cfg.precisions)}: a TPU multiplies natively in bfloat16",
                        "add mixed_bfloat16 to precisions (measure: the accuracy must hold)")]
    return [Finding(workload, backend, "precision", OK, "mixed_bfloat16 asked")]


GPU_STRATEGIES = ("gpu", "gpus", "gpu_onedevice")


def gpu_findings(cfg: SuiteConfig, workload: str, backend: str) -> list[Finding]:
    """For runs that ask a GPU strategy: the precision against tensor cores, and per-GPU batches that are
    multiples of 8 (one GPU's batch: the global batch, or the per-replica one with batch_scaling=per_replica)."""
    if not any(s in GPU_STRATEGIES for s in cfg.strategies):
        return []
    out = []
    if any(p.startswith("mixed_") for p in cfg.precisions):
        out.append(Finding(workload, backend, "gpu_precision", OK, f"{', '.join(cfg.precisions)} asked"))
    else:
        out.append(Finding(workload, backend, "gpu_precision", WARN,
                           f"precisions={list(cfg.precisions)}: a GPU's tensor cores multiply float16/bfloat16 "
                           "(T4: 65 TFLOP/s in float16, 8.1 in float32)",
                           "add mixed_float16 (T4, V100) or mixed_bfloat16 (A100, L4, H100) to precisions "
                           "(measure: the accuracy must hold)"))
    odd = [b for b in axes_for(cfg, workload)["batch_sizes"] if b % PAD_MULTIPLE]
    if odd:
        out.append(Finding(workload, backend, "gpu_batch_multiple_of_8", WARN,
                           f"batch {', '.join(map(str, odd))}: not a multiple of {PAD_MULTIPLE} (tensor cores "
                           "want multiples of 8 in float16)",
                           f"batch_sizes=[{', '.join(str(_round_up(b, PAD_MULTIPLE)) for b in odd)}]"))
    return out
