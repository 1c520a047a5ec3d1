"""The shortest a training epoch could possibly take on accelerators bench did not run on: its training FLOPs
(counted per layer, :mod:`bench.measure.flops`) over a chip's datasheet peak (:mod:`bench.measure.datasheets`).
A bound, not a prediction: no device runs at 100 % of its peak, and input pipelines, host calls and memory
traffic come on top. It says how much an accelerator could at most save before anyone rents it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from bench.measure.datasheets import best_peak
from bench.reporting.format import DASH, config_label, markdown_table, seconds, usd
from bench.reporting.prices import Price

# (column, device kind, model in the datasheet table, price key in suites/prices/cloud.yaml): one chip or GPU each
BOUND_DEVICES = (("TPU v4 chip", "tpu", "v4", "tpu-v4"), ("TPU v5e chip", "tpu", "v5e", "tpu-v5e"),
                 ("TPU v6e chip", "tpu", "v6e", "tpu-v6e"), ("T4", "gpu", "T4", "gpu-t4"),
                 ("L4", "gpu", "L4", "gpu-l4"), ("A100", "gpu", "A100", "gpu-a100"),
                 ("H100", "gpu", "H100", "gpu-h100"))


def epoch_flops(row: pd.Series) -> float:
    """Training FLOPs of one epoch of a configuration: FLOPs per example x examples trained per epoch."""
    examples = row["steps_per_epoch"] * row["global_batch_size"]
    return float(row["flops_per_example"] * examples)


def lower_bound_s(flops: float, peak: float | None) -> float:
    """Seconds ``flops`` take at ``peak`` FLOP/s (NaN without a peak or a count)."""
    return flops / peak if peak and math.isfinite(flops) and flops > 0 else math.nan


def bound_cell(s: float) -> str:
    """``≥ 2.1 µs`` / ``≥ 0.21 ms`` / ``≥ 1.52 s``: a bound in the unit that keeps its digits (a dash without one)."""
    if not math.isfinite(s):
        return DASH
    if s >= 1:
        return f"≥ {seconds(s)} s"
    return f"≥ {s * 1e3:.2g} ms" if s >= 1e-4 else f"≥ {s * 1e6:.2g} µs"


def bounds_section(g: pd.DataFrame, prices: Mapping[str, Price] | None = None) -> list[str]:
    """A workload's section: its fastest configuration measured here, and the shortest its training epoch could
    take on each accelerator of :data:`BOUND_DEVICES`, at 100 % of the chip's best dense datasheet peak; with
    ``prices``, a second row: what that shortest epoch would cost at the chip's hourly price (USD)."""
    ok = g[(g["status"] == "ok") & g["flops_per_example"].map(lambda v: math.isfinite(v) and v > 0)]
    ok = ok[ok["train_s_median"].map(math.isfinite)]
    if ok.empty:
        return []
    fastest = ok.sort_values("train_s_median", kind="stable").iloc[0]
    flops = epoch_flops(fastest)
    row = {"fastest measured": config_label(fastest), "train s/epoch": seconds(fastest["train_s_median"]),
           "GFLOP/epoch": f"{flops / 1e9:,.1f}"}
    cost = {"fastest measured": "USD per 1M training examples at that bound", "train s/epoch": "",
            "GFLOP/epoch": ""}
    per_million = 1e6 / (fastest["steps_per_epoch"] * fastest["global_batch_size"])  # epochs per 1M examples
    for name, kind, model, key in BOUND_DEVICES:
        bound = lower_bound_s(flops, best_peak(kind, model))
        row[name] = bound_cell(bound)
        price = prices[key].usd_per_hour if prices is not None and key in prices else None
        cost[name] = (f"≥ {usd(bound * per_million * price / 3600)}" if price is not None and math.isfinite(bound)
                      else DASH)
    return ["### Lower bound on other accelerators", "",
            "The shortest this training epoch could possibly take on one chip of each accelerator: its FLOPs "
            "over the chip's best dense datasheet peak, at 100 % of it. A bound, not a prediction: real epochs "
            "are longer (input pipeline, host calls, memory traffic, and no device runs at its peak). n chips "
            "divide it by n at best."
            + (" The second row prices it (*Prices used*): the least a million training examples could cost "
               "there." if prices is not None else ""), "",
            markdown_table([row, cost] if prices is not None else [row]), ""]
