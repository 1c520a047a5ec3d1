"""The report's "What this model could reach": an epoch's FLOPs over the peak, its bytes over the bandwidth and its
steps at the fixed cost of a step, where it ran (measured) and on other accelerators (datasheets), by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from bench.reporting.analysis.cost import epoch_flops, lower_bound_s
from bench.reporting.analysis.floors import epoch_bytes, workload_floors
from bench.reporting.render.markdown.cost import bound_cell
from bench.reporting.render.markdown.reach import floors_section, reach_section
from tests.rows import identified


def test_the_bound_is_flops_over_peak() -> None:
    row = pd.Series({"flops_per_example": 2.0e6, "steps_per_epoch": 100, "global_batch_size": 64})
    assert epoch_flops(row) == 2.0e6 * 6400  # 12.8 GFLOP
    assert lower_bound_s(12.8e9, 197e12) == pytest.approx(6.497e-5, rel=1e-3)
    assert math.isnan(lower_bound_s(12.8e9, None)) and math.isnan(lower_bound_s(math.nan, 1e12))
    assert (bound_cell(6.497e-5), bound_cell(1.97e-4), bound_cell(2.5), bound_cell(math.nan)) == (
        "≥ 65.0 µs", "≥ 0.197 ms", "≥ 2.50 s", "—")
    assert bound_cell(1.234e-1) == "≥ 123 ms"  # three digits, never 1.2e+02


def _floors(g: pd.DataFrame, prices=None, limits=None) -> list[str]:
    """The folded floors table of the section, as :func:`reach_section` writes it."""
    return floors_section(workload_floors(g, prices, limits), prices is not None)


def _row(strategy: str, train_s: float, status: str = "ok") -> dict:
    return {"strategy": strategy, "status": status, "global_batch_size": 64, "steps_per_epoch": 100,
            "steps_per_execution": 1, "precision": "float32", "flops_per_example": 2.0e6,
            "train_s_median": train_s}


def _table(text: str) -> dict[str, dict[str, str]]:
    """The section's table as a reader reads it: device -> column -> cell."""
    lines = [x for x in text.splitlines() if x.startswith("| ")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = [[c.strip() for c in x.strip("|").split("|")] for x in lines[1:]]
    return {r[0]: dict(zip(head, r, strict=True)) for r in rows}


def _column(table: dict[str, dict[str, str]], starts: str) -> str:
    return next(c for c in next(iter(table.values())) if c.startswith(starts))


def test_the_section_bounds_the_fastest_configuration_and_says_it_is_a_bound() -> None:
    text = "\n".join(_floors(pd.DataFrame([_row("cpu", 3.0), _row("cpu_x2", 2.0), _row("gpu", 0.1, "failed")])))
    assert "Floors, not predictions" in text
    assert "cpu_x2 at b64 spe1 float32: 2.00 s of training an epoch" in text  # the fastest that ran, not the failed
    table = _table(text)
    compute = _column(table, "compute floor")
    assert table["TPU v5e chip (BF16)"][compute] == "≥ 65.0 µs"  # 12.8 GFLOP / 197 TFLOP/s (bf16: its matrix units)
    assert table["T4 (FP32)"][compute] == "≥ 1.58 ms"  # float32: 12.8 GFLOP / 8.1 TFLOP/s (no TF32), not its fp16 65
    assert table["A100 (TF32)"][compute] == "≥ 82.1 µs"  # 12.8 GFLOP / 156 TFLOP/s
    assert len(next(iter(table.values()))) <= 12  # devices as rows: the columns stay few
    uncounted = pd.DataFrame([{**_row("cpu", 3.0), "flops_per_example": math.nan}])
    assert _floors(uncounted) == [] and reach_section(uncounted) == []  # no count, nothing predicted: no section


def test_a_price_ranks_a_device_only_with_both_floors_and_its_host() -> None:
    """Every device in the table has a bandwidth, so with a byte count each gets its price at the larger floor; a
    price that does not say it pays for the machine (an override) or a missing floor gets none."""
    from bench.reporting.load.prices import load_table

    row = {**_row("cpu", 3.0), "bytes_per_example": 1e6, "weight_bytes_per_step": 4e6}
    table = _table("\n".join(_floors(pd.DataFrame([row]), load_table())))
    cost = _column(table, "USD per 1M")
    # TPU v5e: 6.8 GB an epoch / 819 GB/s = 8.30 ms (> its 65 µs compute floor); 156.25 epochs per 1M examples
    assert table["TPU v5e chip (BF16)"][cost] == f"≥ ${6.8e9 / 819e9 * 156.25 * 1.20 / 3600:.3g}"
    # T4: 6.8 GB / 320 GB/s = 21.25 ms, priced with its n1-highmem-4 host: $0.58661 an hour
    assert table["T4 (FP32)"][cost] == f"≥ ${6.8e9 / 320e9 * 156.25 * 0.58661 / 3600:.3g}"
    assert table["B200 (TF32)"][cost] == "—"  # no price shipped
    overridden = _table("\n".join(_floors(pd.DataFrame([row]), load_table(overrides={"gpu-t4": 0.35}))))
    assert overridden["T4 (FP32)"][cost] == "—"  # the override does not say whether its host is in it
    no_bytes = _table("\n".join(_floors(pd.DataFrame([_row("cpu", 3.0)]), load_table())))
    assert {r[cost] for r in no_bytes.values()} == {"—"}  # no memory floor anywhere: no device ranks on price


def _measured(**extra: float) -> dict:
    """A CPU configuration whose probes measured 100 GFLOP/s and 10 GB/s: 100 steps of 64, 2 MFLOP and 1 MB an
    example, 4 MB of weights a step, one compiled call 1 ms."""
    return {**_row("cpu", 3.0), "device_kind": "cpu", "peak_flops_per_s": 100e9, "peak_bytes_per_s": 10e9,
            "bytes_per_example": 1e6, "weight_bytes_per_step": 4e6, "dispatch_s": 1e-3, "num_replicas": 1, **extra}


def test_where_it_ran_the_floors_are_the_measured_peak_bandwidth_and_fixed_cost() -> None:
    """100 x 64 examples x 2 MFLOP = 12.8 GFLOP at 100 GFLOP/s: 0.128 s; 100 x (64 x 1 MB + 4 MB) = 6.8 GB at
    10 GB/s: 0.68 s; 100 steps x 1 ms (one call, spe 1): 0.1 s; the 3 s epoch is 4.4x the largest (memory)."""
    row = pd.Series(_measured())
    assert epoch_bytes(row) == 100 * (64 * 1e6 + 4e6) and epoch_bytes(row, 2) == 100 * (64 * 1e6 + 8e6)
    table = _table("\n".join(_floors(pd.DataFrame([_measured()]))))
    here = table["CPU, measured"]
    assert here[_column(table, "compute floor")] == "≥ 128 ms" and here[_column(table, "memory floor")] == "≥ 680 ms"
    host = _column(table, "host floor")
    assert "one compiled call" in host and here[host] == "≥ 100 ms"
    assert here["measured ÷ largest floor"] == "4.41x" and table["T4 (FP32)"]["measured ÷ largest floor"] == ""
    # an H200 chip: 6.8 GB at its datasheet 4.8 TB/s; a T4 at its 320 GB/s
    h200 = next(k for k in table if k.startswith("H200 ("))
    assert table[h200][_column(table, "memory floor")] == bound_cell(6.8e9 / 4.8e12)
    assert table["T4 (FP32)"][_column(table, "memory floor")] == bound_cell(6.8e9 / 320e9)


def test_the_host_floor_reads_the_fixed_share_of_the_step_when_two_batches_gave_one() -> None:
    """A limits row with a fixed share of 0.8 of a 25 ms step: 100 steps x 20 ms = 2 s."""
    limits = pd.DataFrame([identified({"workload": "w", "dataset": "d", "strategy": "cpu", "global_batch_size": 64,
                                       "steps_per_execution": 1, "precision": "float32", "fixed_share": 0.8,
                                       "step_ms": 25.0})])
    row = identified({**_measured(), "workload": "w", "dataset": "d"})
    table = _table("\n".join(_floors(pd.DataFrame([row]), limits=limits)))
    host = _column(table, "host floor")
    assert "fixed share" in host and table["CPU, measured"][host] == "≥ 2.00 s"
