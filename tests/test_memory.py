"""Memory a point used: the worker's peak resident memory (reset per point) and peak device memory where the
framework reports it."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from bench.engines import StrategyInfo
from bench.measure.probes import memory_record, peak_rss_bytes, reset_peak_rss


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM reset is Linux-only")
def test_peak_rss_is_reset_per_point_so_an_earlier_point_does_not_inflate_it() -> None:
    big = np.ones(600 * 2**20 // 8)  # 600 MiB touched
    before = peak_rss_bytes()
    assert before is not None and before >= big.nbytes
    del big
    assert reset_peak_rss()
    after = peak_rss_bytes()
    assert after is not None and before - after >= 500 * 2**20  # the 600 MiB no longer count
    rec = memory_record(True, False, None)
    assert rec.rss_scope == "point" and rec.peak_rss_bytes is not None and rec.peak_rss_bytes >= after
    assert rec.device_peak_bytes is None and rec.device_scope is None


def test_device_peak_is_the_largest_device_with_its_scope() -> None:
    rec = memory_record(False, False, [3_000, 5_000])
    assert (rec.device_peak_bytes, rec.per_device, rec.device_scope) == (5_000, [3_000, 5_000], "process")
    assert memory_record(False, True, [7]).device_scope == "point"


def test_jax_device_peaks_come_from_memory_stats_and_are_none_on_cpu(monkeypatch) -> None:
    pytest.importorskip("jax")
    from bench.engines.jax import device

    class Dev:
        def __init__(self, stats):
            self.stats = stats

        def memory_stats(self):
            return self.stats

    info = StrategyInfo("gpus", "gpus", "DataParallel", 2, ["gpu:0", "gpu:1"], "gpu")
    devs = {"gpu:0": Dev({"peak_bytes_in_use": 10, "bytes_in_use": 1}), "gpu:1": Dev({"peak_bytes_in_use": 20})}
    monkeypatch.setattr(device, "_device", devs.__getitem__)
    assert device.peak_memory_bytes(info) == [10, 20] and device.reset_peak_memory(info) is False
    devs["gpu:1"] = Dev(None)  # JAX's CPU devices report no memory stats
    assert device.peak_memory_bytes(info) is None


def test_tensorflow_reports_no_device_memory_for_cpu_and_names_gpus_as_it_wants() -> None:
    from bench.engines.tensorflow import device

    info = StrategyInfo("cpu", "cpu", "_DefaultDistributionStrategy", 1, ["/cpu:0"], "cpu")
    assert device.peak_memory_bytes(info) is None and device.reset_peak_memory(info) is False
    assert device._memory_name("/job:localhost/replica:0/task:0/device:GPU:1") == "GPU:1"
    assert device._memory_name("/gpu:0") == "GPU:0"
