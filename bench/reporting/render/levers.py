"""What would make a configuration faster, by its label (:mod:`bench.reporting.analysis.limits`) and what its device
can do (:mod:`bench.reporting.analysis.levers`): the lever as codes, the words, and the command that measures it.
A lever is one bench can measure on that device: mixed precision only where the device multiplies faster in 16 bits;
where bench measured another backend or compiler at the same settings, the words quote its measured effect."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from bench.records.backends import BACKENDS, declares
from bench.reporting.analysis.limits import (
    COMPUTE,
    HOST,
    INPUT,
    KERNEL,
    MEMORY,
    MISSING_FLOOR,
    MIXED,
    NEIGHBOUR,
    NO_FLOORS,
    ONE_BATCH,
    OVERHEAD,
    PARTIAL_COUNT,
    PROCESSES_DIFFER,
    STRADDLES,
)
from bench.reporting.render.text import sig

POLICY = {"bf16": "mixed_bfloat16", "fp16": "mixed_float16"}
WIDTH = {"bf16": "bfloat16", "fp16": "float16"}


@dataclass(frozen=True)
class Lever:
    """``codes``: what to change (batch, steps_per_execution, input_pipeline, precision, compiler, backend, device,
    repeats, second_batch, measure_peak); ``text``: it in words; ``command``: the keys that measure it (``''``:
    none)."""

    codes: tuple[str, ...]
    text: str
    command: str = ""
    short: str = ""  # the answer's few words (the text where it is short already)


def _device(lim: Any) -> str:
    return {"cpu": "CPU", "gpu": "GPU", "tpu": "TPU"}.get(str(lim.get("device_kind") or ""), "device")


def _precision(lim: Any) -> tuple[str, str, bool]:
    """(the words on mixed precision for this device, the command that measures it, whether it is a lever)."""
    narrow, device = str(lim.get("narrow_math") or "unknown"), _device(lim)
    if str(lim.get("precision", "float32")) != "float32":
        return f"it already runs {lim['precision']}", "", False
    if narrow in POLICY:
        return (f"mixed precision (this {device} multiplies {WIDTH[narrow]} faster than float32)",
                f"precisions=[float32,{POLICY[narrow]}]", True)
    if narrow == "none":
        return f"mixed precision would not: this {device} has no bfloat16 or float16 unit", "", False
    return ("whether mixed precision would, these records cannot say (no CPU flags recorded)",
            "precisions=[float32,mixed_bfloat16]", False)


def _always_compiles(lim: Any) -> bool:
    """Whether the configuration's backend compiles every step (no jit_compile lever: another backend is)."""
    return declares(lim.get("backend"), "always_compiles")


def _compilers(lim: Any) -> str:
    """The keys that try another compiler and backend from this configuration's."""
    others = f"backends=[{','.join(BACKENDS)}]"
    return others if _always_compiles(lim) else f"jit_compile=[false,true] {others}"


def measured_alternative(lim: Any) -> str:
    """``jax/cpu ran it 3.61x faster at the same settings``, or '' where bench measured no other backend or
    compiler at the same settings."""
    ratio, other = lim.get("alt_ratio", math.nan), str(lim.get("alt_strategy") or "")
    if not other or not (isinstance(ratio, float) and math.isfinite(ratio) and ratio > 0):
        return ""
    if ratio >= 1:
        return f"{other} ran it {sig(ratio, 3)}x faster at the same settings"
    return f"{other} ran it at {sig(ratio, 3)}x its speed at the same settings"


def _not_device(lim: Any) -> str:
    """What would not help a step whose time is not the device's arithmetic or bandwidth: a faster accelerator; on
    a CPU, whose cores also run the framework's own work, more cores."""
    return "more cores would not" if _device(lim) == "CPU" else f"a faster {_device(lim)} would not"


def lever_of(lim: Any) -> Lever:
    """The lever of a limits row (label, reason and device facts)."""
    label, b, spe = lim["limit"], int(lim["global_batch_size"]), int(lim.get("steps_per_execution", 1) or 1)
    nots = _not_device(lim)
    bigger = f"batch_sizes=[{b},{4 * b}] steps_per_execution=[{spe},{max(8, 4 * spe)}]"
    if label == INPUT:
        return Lever(("input_pipeline",), "a faster input pipeline (decoded data cached, more parallel reads), not "
                     "a faster device, would help", "input_pipelines=[default,cached,autotune]",
                     "a faster input pipeline would help")
    if label == OVERHEAD:
        return Lever(("batch", "steps_per_execution"), f"a larger batch or steps_per_execution would help; {nots}",
                     bigger, "a larger batch or steps_per_execution would help")
    if label == MIXED:
        return Lever(("batch", "steps_per_execution", "device"), "fixed cost and device work both weigh: a larger "
                     "batch or steps_per_execution, and a faster device, would each help some", bigger,
                     "a larger batch and a faster device would each help some")
    if label == HOST:
        share = lim.get("input_share", math.nan)
        if isinstance(share, float) and share < 0.5:  # the pipeline alone runs over twice as fast: not the input
            return Lever(("batch", "steps_per_execution"), "a larger batch or steps_per_execution would help (the "
                         f"input pipeline alone runs {sig(1 / share, trim=True)}x as fast as training); {nots}",
                         bigger, "a larger batch or steps_per_execution would help")
        return Lever(("batch", "steps_per_execution", "input_pipeline"), "a larger batch or steps_per_execution "
                     "would help if it is the per-step cost, a faster input pipeline if it is the input; "
                     f"{nots}", f"batch_sizes=[{b},{4 * b}]",
                     "a larger batch, or a faster input pipeline, would help")
    words, command, narrower = _precision(lim)
    if label == COMPUTE:
        text = f"a faster device, or {words}, would help" if narrower else f"a faster device would help; {words}"
        short = ("a faster device, or mixed precision, would help" if narrower else
                 "a faster device would help; mixed precision: measure it" if command else "a faster device would help")
        return Lever(("device", "precision") if command else ("device",), text, command, short)
    if label == MEMORY:
        fuse = f"backends=[{','.join(BACKENDS)}]" if _always_compiles(lim) else "jit_compile=[false,true]"
        narrow = "a narrower dtype, " if narrower else ""
        return Lever(("compiler", *(("precision",) if narrower else ()), "device"),
                     f"fewer bytes moved (a fusing compiler, {narrow}larger fused ops) or more bandwidth would help",
                     " ".join(c for c in (fuse, command if narrower else "") if c), "fewer bytes moved would help")
    if label == KERNEL:
        seen, ratio = measured_alternative(lim), lim.get("alt_ratio", math.nan)
        if seen and ratio < 1:  # the other backend measured here is slower: say so, not that it would help
            return Lever(("compiler", "batch"), f"the other backend measured is no faster ({seen}); another compiler "
                         "setting or larger ops might help; the device's peak is not what limits it", _compilers(lim),
                         "another compiler setting or larger ops might help")
        text = ("another backend or compiler, or larger ops, would help; the device's peak is not what limits it"
                + (f" ({seen})" if seen else ""))
        return Lever(("backend", "compiler"), text, _compilers(lim),
                     "another backend or compiler would help" + (f" ({seen})" if seen else ""))
    return _undetermined(lim, b)


def _undetermined(lim: Any, b: int) -> Lever:
    reason = str(lim.get("reason") or "")
    if reason == ONE_BATCH:
        return Lever(("batch",), "a second batch would tell (second_batch=true, the default, runs one)",
                     f"batch_sizes=[{b},{2 * b}]")
    if reason == NO_FLOORS:
        return Lever(("measure_peak",), "a measured peak and bandwidth would tell how far it is from the device's "
                     "roofs", "measure_peak=true")
    if reason == MISSING_FLOOR:
        if not math.isfinite(lim.get("memory_floor_ms", math.nan)):
            return Lever(("count",), "a run of today's bench, whose records carry the byte count, would tell")
        return Lever(("measure_peak",), "a measured peak would tell how far it is from the compute roof",
                     "measure_peak=true")
    if reason == PARTIAL_COUNT:
        return Lever(("count",), "a model of layers the counts see into (Dense, convolutions, normalisation, "
                     "embeddings) would give whole floors; a profiler's trace of the step shows where it goes")
    if reason == NEIGHBOUR:
        return Lever(("quiet",), "the same run with nothing else busy on the machine would tell", "repeats=3")
    if reason in (STRADDLES, PROCESSES_DIFFER):
        return Lever(("repeats",), "more processes on a quiet machine would tell", "repeats=5")
    return Lever((), "")
