"""The report's "What this model could reach": an epoch's FLOPs over the peak, its bytes over the bandwidth and its
steps at the fixed cost of a step, where it ran (measured) and on other accelerators (datasheets), by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from bench.measure.datasheets import best_peak
from bench.reporting.analysis.cost import epoch_flops, lower_bound_s
from bench.reporting.render.markdown.cost import bound_cell
from bench.reporting.render.markdown.reach import epoch_bytes, reach_section


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
    text = "\n".join(reach_section(pd.DataFrame([_row("cpu", 3.0), _row("cpu_x2", 2.0), _row("gpu", 0.1, "failed")])))
    assert "Floors, not predictions" in text
    assert "cpu_x2 at b64 spe1 float32" in text and "| 2.00 " in text  # the fastest that ran, not the failed one
    assert "≥ 65.0 µs" in text  # TPU v5e: 12.8 GFLOP / 197 TFLOP/s (bf16: its matrix units)
    assert "≥ 1.58 ms" in text  # T4, float32: 12.8 GFLOP / 8.1 TFLOP/s (it has no TF32), not its fp16 65
    assert "| A100 (TF32) " in text and "≥ 82.1 µs" in text  # 12.8 GFLOP / 156 TFLOP/s
    assert reach_section(pd.DataFrame([{**_row("cpu", 3.0), "flops_per_example": math.nan}])) == []


def test_with_prices_the_bound_gets_its_least_cost_per_million_examples() -> None:
    from bench.reporting.load.prices import load_table

    text = "\n".join(reach_section(pd.DataFrame([_row("cpu", 3.0)]), load_table()))
    row = next(line for line in text.splitlines() if line.startswith("| USD per 1M training examples"))
    # TPU v5e: 6.497e-5 s per 6,400-example epoch -> 156.25 epochs per 1M examples -> 0.010152 s x $1.20/h
    assert "≥ $0.00000338" in row
    assert row.rstrip(" |").endswith("—")  # H100: no price shipped, no figure


def _measured(**extra: float) -> dict:
    """A CPU configuration whose probes measured 100 GFLOP/s and 10 GB/s: 100 steps of 64, 2 MFLOP and 1 MB an
    example, 4 MB of weights a step, one compiled call 1 ms."""
    return {**_row("cpu", 3.0), "device_kind": "cpu", "peak_flops_per_s": 100e9, "peak_bytes_per_s": 10e9,
            "bytes_per_example": 1e6, "weight_bytes_per_step": 4e6, "dispatch_s": 1e-3, "num_replicas": 1, **extra}


def _cells(text: str, first: str) -> list[str]:
    line = next(x for x in text.splitlines() if x.startswith(f"| {first}"))
    return [c.strip() for c in line.strip("|").split("|")]


def test_where_it_ran_the_floors_are_the_measured_peak_bandwidth_and_fixed_cost() -> None:
    """100 x 64 examples x 2 MFLOP = 12.8 GFLOP at 100 GFLOP/s: 0.128 s; 100 x (64 x 1 MB + 4 MB) = 6.8 GB at
    10 GB/s: 0.68 s; 100 steps x 1 ms (one call, spe 1): 0.1 s; the 3 s epoch is 4.4x the largest (memory)."""
    row = pd.Series(_measured())
    assert epoch_bytes(row) == 100 * (64 * 1e6 + 4e6) and epoch_bytes(row, 2) == 100 * (64 * 1e6 + 8e6)
    text = "\n".join(reach_section(pd.DataFrame([_measured()])))
    head = text.splitlines()[2]  # the table follows its heading (its legend is under it)
    here = [c.strip() for c in head.strip("|").split("|")].index("CPU, measured")
    assert _cells(text, "cpu at b64")[here] == "≥ 128 ms"
    assert _cells(text, "memory floor")[here] == "≥ 680 ms" and _cells(text, "memory floor")[3] == ""
    assert _cells(text, "host floor (steps × fixed cost of a step: one compiled call")[here] == "≥ 100 ms"
    assert _cells(text, "measured ÷ largest floor")[here] == "4.4x"
    # an H200 chip: 6.8 GB at its datasheet 4.8 TB/s; a T4 has no bandwidth source here: no memory floor
    h200 = next(i for i, c in enumerate([c.strip() for c in head.strip("|").split("|")]) if c.startswith("H200 ("))
    t4 = next(i for i, c in enumerate([c.strip() for c in head.strip("|").split("|")]) if c.startswith("T4 ("))
    assert _cells(text, "memory floor")[h200] == bound_cell(6.8e9 / 4.8e12) and _cells(text, "memory floor")[t4] == "—"


def test_the_host_floor_reads_the_fixed_share_of_the_step_when_two_batches_gave_one() -> None:
    """A limits row with a fixed share of 0.8 of a 25 ms step: 100 steps x 20 ms = 2 s."""
    limits = pd.DataFrame([{"workload": "w", "dataset": "d", "strategy": "cpu", "global_batch_size": 64,
                            "steps_per_execution": 1, "precision": "float32", "fixed_share": 0.8, "step_ms": 25.0}])
    row = {**_measured(), "workload": "w", "dataset": "d"}
    text = "\n".join(reach_section(pd.DataFrame([row]), limits=limits))
    line = _cells(text, "host floor (steps × fixed cost of a step: fixed share")
    assert "≥ 2.00 s" in line
