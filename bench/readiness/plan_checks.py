"""The doctor's checks that need no framework: batch sizes against the replicas of a TPU (by its type:
:func:`bench.measure.datasheets.tpu_slice`) and of every strategy asked, where the data lives, the precision asked,
and on GPUs precision and batch multiples. Each returns :class:`~bench.readiness.findings.Finding`s.
Facts and sources: docs/doctor.md, *The checks*.
"""

from __future__ import annotations

import contextlib
import os

from bench.config import SuiteConfig
from bench.config.keys import axes_for, strategy_replicas
from bench.measure.datasheets import TpuSlice, tpu_slice
from bench.readiness.findings import FAIL, OK, WARN, Finding
from bench.records.backends import declares

ASSUMED_TPU = "v5litepod-8"  # without tpu_type or TPU_ACCELERATOR_TYPE: Kaggle's TPU (8 chips of one core)
PAD_MULTIPLE = 8


def tpu_host(cfg: SuiteConfig) -> tuple[TpuSlice, str]:
    """The TPU the batches are checked against, and how it was chosen: ``tpu_type``, else the TPU VM's own
    ``TPU_ACCELERATOR_TYPE``, else :data:`ASSUMED_TPU` (the doctor runs on a CPU and cannot see one)."""
    env = os.environ.get("TPU_ACCELERATOR_TYPE", "")
    if cfg.tpu_type:
        return tpu_slice(cfg.tpu_type), f"tpu_type={cfg.tpu_type}"
    with contextlib.suppress(ValueError):
        if env:
            return tpu_slice(env), f"TPU_ACCELERATOR_TYPE={env}"
    return tpu_slice(ASSUMED_TPU), f"{ASSUMED_TPU} assumed; tpu_type=v5litepod-1 for Colab's"


def batch_findings(cfg: SuiteConfig, workload: str, backend: str) -> list[Finding]:
    """Per-replica batch on the TPU (:func:`tpu_host`: its replicas, its matrix unit) and on every strategy asked:
    divisible, a multiple of 8, large enough to fill a TPU's matrix units."""
    out = []
    tpu, told = tpu_host(cfg)
    n_tpu = tpu.replicas
    per_replica = cfg.batch_scaling == "per_replica"
    asked = {s: n for s in cfg.strategies if s != "tpu" and (n := strategy_replicas(s)) is not None}
    asked["tpu"] = n_tpu
    for b in axes_for(cfg, workload)["batch_sizes"]:
        bad = [f"{s} ({n} replica{'s' if n != 1 else ''})" for s, n in asked.items() if not per_replica and b % n]
        name = f"batch {b}" + (" per replica" if per_replica else "")
        too_large = _larger_than_data(cfg, workload, b, asked)
        if too_large:
            out.append(Finding(workload, backend, "batch_fits_data", FAIL, too_large,
                               "a smaller batch, or more data (n_train=/n_val=, data_scale=full): the run refuses it"))
            continue
        if bad:
            out.append(Finding(workload, backend, "batch_divides", FAIL,
                               f"global batch {b} does not divide over {', '.join(bad)} ({told})",
                               f"a global batch that is a multiple of {PAD_MULTIPLE * n_tpu} "
                               f"({PAD_MULTIPLE} x {n_tpu} replicas)"))
            continue
        core = b if per_replica else b // n_tpu
        if core % PAD_MULTIPLE:
            out.append(Finding(workload, backend, "batch_multiple_of_8", WARN,
                               f"{name}: {core} per TPU core, not a multiple of {PAD_MULTIPLE} (XLA pads it; "
                               f"{told})",
                               f"batch_sizes=[{_round_up(b, PAD_MULTIPLE * (1 if per_replica else n_tpu))}]"))
        elif core < tpu.matrix:
            out.append(Finding(workload, backend, "batch_fills_matrix_units", WARN,
                               f"{name}: {core} per TPU core, under the {tpu.matrix} rows of a {tpu.chip.model} "
                               f"matrix unit (partly idle every step; {told})",
                               f"per-core batch >= {tpu.matrix} (global {tpu.matrix * n_tpu} on {n_tpu} "
                               f"replica{'s' if n_tpu != 1 else ''}) if the model still learns at that size"))
        else:
            out.append(Finding(workload, backend, "batch", OK, f"{name}: {core} per TPU core, divides over "
                               f"{', '.join(sorted(asked))} ({told})"))
    return out


def _larger_than_data(cfg: SuiteConfig, workload: str, batch: int, replicas: dict[str, int]) -> str:
    """Why global batch ``batch`` (per replica under ``batch_scaling=per_replica``) does not fit the workload's
    splits at this run's sizes under one of the strategies ("" when it fits): the run's own refusal, said before
    the doctor calls the batch fine."""
    from bench.config import global_batch
    from bench.workloads import batch_misfit, dataset_size

    n_train, n_val = dataset_size(workload, cfg.data_scale, cfg.n_train, cfg.n_val, cfg.data)
    found = (batch_misfit(workload, global_batch(batch, cfg.batch_scaling, n), s, n_train, n_val, cfg.data_scale)
             for s, n in replicas.items())
    return next((m for m in found if m), "")


SPE_ADVICE = 32  # a steps_per_execution to measure beside 1 (Keras' TPU advice: 32 or more)


def spe_findings(cfg: SuiteConfig, workload: str, backend: str) -> list[Finding]:
    """steps_per_execution against a TPU: with 1 only, every step is a host round trip and the TPU waits on Python
    between steps (the classic slow TPU run); under JAX, what an execution is in this Keras."""
    values = sorted(set(axes_for(cfg, workload)["steps_per_execution"]))
    jax = ""
    if declares(backend, "spe_python_loop"):
        from importlib import metadata

        try:
            version = metadata.version("keras")
        except metadata.PackageNotFoundError:
            version = "?"
        jax = (f"; under JAX, Keras {version} runs an execution as a Python loop of jitted steps (fewer host "
               "callbacks, not one compiled program: docs/findings.md)")
    if values == [1]:
        return [Finding(workload, backend, "steps_per_execution", WARN,
                        f"steps_per_execution=[1]: one host call per step, so a TPU waits on Python between "
                        f"steps{jax}",
                        f"steps_per_execution=[1,{SPE_ADVICE}] (measure both; one longer than an epoch runs as the "
                        "epoch's steps)")]
    return [Finding(workload, backend, "steps_per_execution", OK,
                    f"steps_per_execution={values}: up to {values[-1]} steps per host call{jax}")]


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
