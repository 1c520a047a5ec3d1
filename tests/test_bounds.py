"""The report's lower bound on other accelerators: FLOPs per epoch over a chip's datasheet peak, by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from bench.measure.datasheets import best_peak
from bench.reporting.analysis.cost import epoch_flops, lower_bound_s
from bench.reporting.render.markdown.cost import bound_cell, bounds_section


def test_the_best_peak_of_a_device_is_its_fastest_arithmetic() -> None:
    assert best_peak("gpu", "T4") == 65e12 and best_peak("gpu", "A100") == 312e12  # fp16 / bf16 tensor cores
    assert best_peak("tpu", "v5e") == 197e12 and best_peak("gpu", "no such GPU") is None


def test_the_bound_is_flops_over_peak() -> None:
    row = pd.Series({"flops_per_example": 2.0e6, "steps_per_epoch": 100, "global_batch_size": 64})
    assert epoch_flops(row) == 2.0e6 * 6400  # 12.8 GFLOP
    assert lower_bound_s(12.8e9, 197e12) == pytest.approx(6.497e-5, rel=1e-3)
    assert math.isnan(lower_bound_s(12.8e9, None)) and math.isnan(lower_bound_s(math.nan, 1e12))
    assert (bound_cell(6.497e-5), bound_cell(1.97e-4), bound_cell(2.5), bound_cell(math.nan)) == (
        "≥ 65.0 µs", "≥ 0.197 ms", "≥ 2.50 s", "—")
    assert bound_cell(1.234e-1) == "≥ 123 ms"  # three digits, never 1.2e+02


def _row(strategy: str, train_s: float, status: str = "ok") -> dict:
    return {"strategy": strategy, "status": status, "global_batch_size": 64, "steps_per_epoch": 100,
            "steps_per_execution": 1, "precision": "float32", "flops_per_example": 2.0e6,
            "train_s_median": train_s}


def test_the_section_bounds_the_fastest_configuration_and_says_it_is_a_bound() -> None:
    text = "\n".join(bounds_section(pd.DataFrame([_row("cpu", 3.0), _row("cpu_x2", 2.0), _row("gpu", 0.1, "failed")])))
    assert "A bound, not a prediction" in text
    assert "cpu_x2 at b64 spe1 float32" in text and "| 2.00 " in text  # the fastest that ran, not the failed one
    assert "≥ 65.0 µs" in text  # TPU v5e: 12.8 GFLOP / 197 TFLOP/s (bf16: its matrix units)
    assert "≥ 1.58 ms" in text  # T4, float32: 12.8 GFLOP / 8.1 TFLOP/s (it has no TF32), not its fp16 65
    assert "| A100 (TF32) " in text and "≥ 82.1 µs" in text  # 12.8 GFLOP / 156 TFLOP/s
    assert bounds_section(pd.DataFrame([{**_row("cpu", 3.0), "flops_per_example": math.nan}])) == []


def test_with_prices_the_bound_gets_its_least_cost_per_million_examples() -> None:
    from bench.reporting.load.prices import load_table

    text = "\n".join(bounds_section(pd.DataFrame([_row("cpu", 3.0)]), load_table()))
    row = next(line for line in text.splitlines() if line.startswith("| USD per 1M training examples"))
    # TPU v5e: 6.497e-5 s per 6,400-example epoch -> 156.25 epochs per 1M examples -> 0.010152 s x $1.20/h
    assert "≥ $0.00000338" in row
    assert row.rstrip(" |").endswith("—")  # H100: no price shipped, no figure
