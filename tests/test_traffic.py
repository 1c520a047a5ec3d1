"""The memory floor's two halves (issue 52): the analytic bytes a training step moves, counted here by hand, and the
bandwidth probe, run on this CPU; then the floor itself as the limits stage reads it from a summary row."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bench.engines import StrategyInfo
from bench.measure.probes import scaled_peaks
from bench.reporting.analysis.limits import MEMORY, Evidence, classify, memory_floor_s


def test_the_byte_count_is_the_one_written_out_by_hand() -> None:
    """Input 8 -> Flatten (a view: nothing) -> Dense 4 (relu) -> Dense 2, float32, Adam.

    Per example: Dense 4 reads 8 and writes 4 forward (12 elements); it trains but nothing upstream does, so backward
    it reads its output's gradient (4) and its saved input (8) and writes no input gradient (12). Dense 2: forward
    4 + 2 = 6; backward 2 + 4 + 4 (a gradient flows into it: Dense 4 trains upstream) = 10. 40 elements x 4 bytes.
    Per step: 46 weights x 4 bytes x 6 (forward read, backward read, gradient write, the update's 3) = 1,104 bytes,
    plus Adam's 2 slots read and written once built (46 x 2 x 2 x 4 = 736)."""
    keras = pytest.importorskip("keras")
    from bench.measure.traffic import bytes_per_example, weight_bytes_per_step

    model = keras.Sequential([keras.Input((2, 4)), keras.layers.Flatten(), keras.layers.Dense(4, activation="relu"),
                              keras.layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    assert bytes_per_example(model) == 40 * 4
    assert weight_bytes_per_step(model) == 1104  # no optimizer given: no slots
    model.fit(np.zeros((4, 2, 4), "float32"), np.zeros((4, 2), "float32"), verbose=0)
    assert weight_bytes_per_step(model, model.optimizer) == 1104 + 736
    model.layers[1].trainable = False  # frozen first Dense: read once forward; no backward through it
    assert bytes_per_example(model) == 4 * (12 + 6 + 2 + 4 + 0)  # Dense 2 trains, nothing upstream does
    assert weight_bytes_per_step(model) == 36 * 4 + 6 * 10 * 4


def test_the_bandwidth_probe_counts_its_bytes_and_lands_in_a_plausible_range() -> None:
    """On this CPU (TensorFlow's engine, a 4 M-element vector: above its L2, a quick test): 8 bytes an element a
    pass and the final sum's 4, between 0.5 GB/s and 1 TB/s."""
    pytest.importorskip("tensorflow")
    from bench.engines import load
    from bench.measure.probes import stream_bandwidth

    engine = load("tensorflow")
    rate, sized = stream_bandwidth(engine, "/CPU:0", n=1 << 22)
    assert sized["n"] == 1 << 22 and sized["chained"] >= 1 and sized["region_s"] > 0
    assert rate == pytest.approx((8 * sized["chained"] + 4) * sized["n"] / sized["region_s"])
    assert 0.5e9 < rate < 1e12


def test_a_probe_entry_for_the_bandwidth_is_kept_apart_from_the_peaks() -> None:
    """GPUs are separate devices: two of them have twice one's bandwidth; logical CPUs share the host's."""
    found = {"peaks": {"float32": {"flops_per_s": 1e12, "probe": {"n": 8192.0}, "measured_at": "2026-11-28"},
                       "bandwidth": {"bytes_per_s": 3e12, "probe": {"n": 2.0**26}, "measured_at": "2026-11-28"}},
             "measure_s": 0.1, "cached": True}
    gpus = scaled_peaks(found, StrategyInfo("gpus", "gpus", "MirroredStrategy", 2, ["gpu:0", "gpu:1"], "gpu"))
    assert gpus.flops_per_s == {"float32": 2e12} and gpus.bytes_per_s == 6e12 and "bandwidth" not in gpus.probe
    cpus = scaled_peaks(found, StrategyInfo("cpu_x2", "cpu_x2", "MirroredStrategy", 2, ["cpu:0", "cpu:1"], "cpu"))
    assert cpus.bytes_per_s == 3e12 and cpus.bandwidth_probe == {"n": 2.0**26}
    one_cpu = StrategyInfo("cpu", "cpu", "OneDeviceStrategy", 1, ["cpu:0"], "cpu")
    old = scaled_peaks({**found, "peaks": {"float32": found["peaks"]["float32"]}}, one_cpu)
    assert old.bytes_per_s is None  # a cache entry from before the bandwidth probe


def test_the_memory_floor_is_the_batch_and_every_replicas_weights_over_the_bandwidth() -> None:
    row = pd.Series({"peak_bytes_per_s": 10e9, "bytes_per_example": 1e6, "weight_bytes_per_step": 4e6,
                     "num_replicas": 2})
    assert memory_floor_s(row, 64) == pytest.approx((64e6 + 8e6) / 10e9)
    assert math.isnan(memory_floor_s(row.drop("peak_bytes_per_s"), 64))  # records from before the probe


def test_a_step_whose_bytes_take_most_of_it_is_memory_bound_and_one_far_from_both_roofs_is_not() -> None:
    grows = {"batch": 64, "step_s": 0.025, "batch2": 256, "step2_s": 0.100}  # proportional: fixed share 0
    assert classify(Evidence(**grows, compute_floor_s=0.0004, memory_floor_s=0.0125)).label == MEMORY  # 50 %
    assert classify(Evidence(**grows, compute_floor_s=0.0004, memory_floor_s=0.0025)).label == "kernel-bound"  # 10 %
    assert classify(Evidence(**grows, compute_floor_s=0.02, memory_floor_s=0.0025)).label == "compute-bound"
