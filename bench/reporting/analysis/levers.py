"""What a lever can be on the device that ran, and the lever bench measured beside a configuration: facts (codes and
numbers) that :mod:`bench.reporting.render.levers` words. **Narrow arithmetic** (whether the device multiplies faster
in 16 bits) and **the measured alternative** (the fastest configuration at the same settings under another backend
or compiler). Method: docs/reports.md, *What limits it* (Levers).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from bench.measure.datasheets import chip_of

LEVER_COLUMNS = ["device_kind", "backend", "narrow_math", "alt_strategy_id", "alt_ratio"]  # alt: -1 none
BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16", "bf16"})  # x86 (Linux names), ARM's ``bf16`` feature
FP16_FLAGS = frozenset({"avx512_fp16", "amx_fp16"})
# What the same settings are, across backends and compilers
SAME_SETTINGS = ["section", "host", "global_batch_size", "steps_per_execution", "precision", "device_kind",
                 "num_replicas"]


def narrow_math(row: Mapping[str, Any]) -> str:
    """``bf16`` or ``fp16`` (the narrower arithmetic the device multiplies faster in; bf16 where it has both),
    ``none``, or ``unknown`` (a GPU the datasheet table does not know, a CPU without recorded flags)."""
    kind = str(row.get("device_kind") or "")
    if kind == "tpu":
        return "bf16"
    if kind == "gpu":
        chip = chip_of("gpu", str(row.get("accelerator") or ""))
        if chip is None:
            return "unknown"
        fp32 = chip.peaks.get("fp32", math.inf)
        faster = [tag for tag in ("bf16", "fp16") if chip.peaks.get(tag, 0) > fp32]
        return faster[0] if faster else "none"
    flags = row.get("cpu_flags")
    if not isinstance(flags, tuple | list) or not flags:
        return "unknown"
    return "bf16" if BF16_FLAGS & set(flags) else "fp16" if FP16_FLAGS & set(flags) else "none"


def _learns(row: Mapping[str, Any]) -> bool:
    return not bool(row.get("not_learning"))


def lever_facts(ok: pd.DataFrame, plain: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per row of ``ok`` (finished configurations, index = position in ``plain``): :data:`LEVER_COLUMNS`."""
    out: list[dict[str, Any]] = [{} for _ in plain]
    key = [c for c in SAME_SETTINGS if c in ok.columns]  # a hand-made summary may lack the device's columns
    groups = ok.groupby(key, sort=False, dropna=False).groups if len(ok) else {}
    for index in groups.values():
        members = [plain[i] for i in index]
        for i in index:
            row = plain[i]
            others = [o for o in members if o["strategy_id"] != row["strategy_id"] and _learns(o)
                      and o.get("device_kind") == row.get("device_kind")]
            best = max(others, key=lambda o: o["examples_per_s"]) if others else None
            out[i] = {"device_kind": str(row.get("device_kind") or ""), "backend": str(row.get("backend") or ""),
                      "narrow_math": narrow_math(row),
                      "alt_strategy_id": -1 if best is None else int(best["strategy_id"]),
                      "alt_ratio": math.nan if best is None else best["examples_per_s"] / row["examples_per_s"]}
    return out
