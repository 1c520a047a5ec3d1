"""The matmul probe's cache (issue 50 item 6): one measurement per host, device, backend, framework versions and
arithmetic, in a process of its own, dated, re-measured when old or asked (``measure_peak=fresh``), shared by the
workers of a host through a lock. The child itself runs in every tox run's smoke run (tests/test_e2e.py)."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone

import pytest

from bench.cli import parse_config
from bench.config import ConfigError
from bench.measure import peak_cache
from bench.measure.peak_cache import (
    MAX_AGE_DAYS,
    ProbeFailed,
    probe_key,
    read_entry,
    run_start,
    start_peaks,
    start_worker_peaks,
    write_entry,
)


@pytest.fixture
def child(monkeypatch, tmp_path):
    """A stand-in for the probe's child process, counting its runs (it takes 0.2 s, as a short probe would)."""
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path))
    calls: list[list[str]] = []

    def fake(backend, device_kind, precisions, env, float32_matmul="framework"):
        calls.append(list(precisions))
        time.sleep(0.2)
        return {"device": "cpu:0", "peaks": {p: {"flops_per_s": 1e11 * (1 + len(calls)), "probe": {"n": 1024.0}}
                                             for p in precisions}}

    monkeypatch.setattr(peak_cache, "spawn_child", lambda *a, **k: lambda: fake(*a, **k))
    return calls


def test_a_host_measures_once_and_its_workers_read_the_figure(child) -> None:
    first = start_peaks("jax", "cpu", ["float32"], {})()
    assert child == [["float32"]] and first["cached"] is False and first["measure_s"] >= 0.2
    entry = first["peaks"]["float32"]
    assert entry["flops_per_s"] == 2e11 and entry["device"] == "cpu:0" and entry["process"]
    assert datetime.fromisoformat(entry["measured_at"]) <= datetime.now(timezone.utc)
    again = start_peaks("jax", "cpu", ["float32"], {})()
    assert child == [["float32"]] and again["cached"] is True and again["measure_s"] < 0.2
    assert again["peaks"]["float32"]["flops_per_s"] == 2e11
    # a precision not measured yet: only it is measured, and the worker's figures are not all cached
    mixed = start_peaks("jax", "cpu", ["float32", "mixed_bfloat16"], {})()
    assert child[-1] == ["mixed_bfloat16"] and mixed["cached"] is False
    # another backend, another entry; another float32 arithmetic, another entry
    start_peaks("torch", "cpu", ["float32"], {})()
    assert child[-1] == ["float32"] and len(child) == 3
    assert start_peaks("jax", "cpu", ["float32"], {}, float32_matmul="highest")()["cached"] is False
    assert len(child) == 4


def test_fresh_measures_once_per_run_and_host(child) -> None:
    start_peaks("jax", "cpu", ["float32"], {})()
    # a run that starts after the entry was written (run ids and entries are stamped to the second)
    started = (datetime.now(timezone.utc) + timedelta(seconds=1)).replace(microsecond=0)
    time.sleep(1.1)
    assert start_peaks("jax", "cpu", ["float32"], {}, not_before=started)()["cached"] is False
    assert len(child) == 2
    assert start_peaks("jax", "cpu", ["float32"], {}, not_before=started)()["cached"] is True  # the run's next worker
    assert len(child) == 2


def test_workers_of_one_host_wait_for_the_one_that_measures(child) -> None:
    found: list[dict] = []
    threads = [threading.Thread(target=lambda: found.append(start_peaks("jax", "cpu", ["float32"], {})()))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(child) == 1 and len(found) == 3
    assert sorted(f["cached"] for f in found) == [False, True, True]  # the two that waited read, measured nothing
    assert {f["peaks"]["float32"]["flops_per_s"] for f in found} == {2e11}


def test_an_old_or_foreign_entry_is_not_read(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path))
    key = probe_key("jax", "cpu", "float32")
    assert key["versions"]["jax"] and key["device"].endswith("CPUs") and key["probe"] == peak_cache.PROBE_VERSION
    measured = datetime(2026, 11, 1, tzinfo=timezone.utc)
    write_entry(key, {"flops_per_s": 1.0, "measured_at": measured.isoformat()})
    assert read_entry(key, now=measured + timedelta(days=MAX_AGE_DAYS))["flops_per_s"] == 1.0
    assert read_entry(key, now=measured + timedelta(days=MAX_AGE_DAYS, seconds=1)) is None
    assert read_entry(key, not_before=measured + timedelta(seconds=1), now=measured) is None
    assert read_entry({**key, "float32_matmul": "highest"}, now=measured) is None  # another arithmetic
    assert read_entry({**key, "versions": {"jax": "0.0.1"}}, now=measured) is None  # another framework version


def test_a_failed_probe_is_a_note_and_a_tpu_has_none(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path))

    def fails():
        raise ProbeFailed("the matmul probe's process exited 1: boom")

    monkeypatch.setattr(peak_cache, "spawn_child", lambda *a, **k: fails)
    assert start_worker_peaks("jax", "cpu_x4", ["float32"], None, {})() == (
        {}, "no matmul peak probe: ProbeFailed: the matmul probe's process exited 1: boom")
    assert start_worker_peaks("jax", "tpu", ["float32"], None, {})() == ({}, "")


def test_the_child_gets_one_device_of_the_strategys_kind(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path))
    seen = {}

    def fake(backend, device_kind, precisions, env, float32_matmul="framework"):
        seen.update(env)
        return {"device": "cpu:0", "peaks": {p: {"flops_per_s": 1.0, "probe": {}} for p in precisions}}

    monkeypatch.setattr(peak_cache, "spawn_child", lambda *a, **k: lambda: fake(*a, **k))
    environ = {"XLA_FLAGS": "--xla_force_host_platform_device_count=4 --xla_dump_to=x", "HOME": "/h",
               "KERAS_DISTRIBUTION_NUM_PROCESSES": "2", "KERAS_DISTRIBUTION_PROCESS_ID": "1"}
    found, note = start_worker_peaks("jax", "cpu_x4", ["float32"], None, environ)()
    assert note == "" and found["device_kind"] == "cpu" and found["peaks"]["float32"]["flops_per_s"] == 1.0
    assert seen["XLA_FLAGS"] == "--xla_dump_to=x" and seen["KERAS_BACKEND"] == "jax" and seen["HOME"] == "/h"
    assert not any(k.startswith("KERAS_DISTRIBUTION") for k in seen)


def test_fresh_is_a_value_of_measure_peak_and_a_typo_is_refused() -> None:
    assert parse_config(["suite=smoke", "measure_peak=fresh"]).measure_peak == "fresh"
    assert parse_config(["suite=smoke", "measure_peak=false"]).measure_peak is False
    assert parse_config(["suite=smoke"]).measure_peak is True
    with pytest.raises(ConfigError, match="measure_peak='fersh' is not allowed; allowed: true, false, fresh"):
        parse_config(["suite=smoke", "measure_peak=fersh"])


def test_a_run_starts_at_its_run_ids_stamp() -> None:
    assert run_start("20261127T225516Z-smoke-5a28ece") == datetime(2026, 11, 27, 22, 55, 16, tzinfo=timezone.utc)
    assert run_start("mine", spawned_at=0.0) <= datetime.now(timezone.utc)


def test_float32_matmul_sets_each_frameworks_own_switches() -> None:
    """What ``float32_matmul`` changes in each framework (the GPU arithmetic these switches select is what
    ``arithmetic`` reads back; on this CPU only the switches themselves can be seen); restored afterwards."""
    jax = pytest.importorskip("jax")
    torch = pytest.importorskip("torch")
    from bench.engines.jax.device import set_float32_matmul as jax_set
    from bench.engines.torch.device import set_float32_matmul as torch_set

    before = (jax.config.jax_default_matmul_precision, torch.get_float32_matmul_precision(),
              torch.backends.cudnn.allow_tf32)
    try:
        jax_set("framework"), torch_set("framework")
        assert (jax.config.jax_default_matmul_precision, torch.get_float32_matmul_precision(),
                torch.backends.cudnn.allow_tf32) == before
        jax_set("tf32"), torch_set("tf32")
        assert jax.config.jax_default_matmul_precision == "tensorfloat32"
        assert torch.get_float32_matmul_precision() == "high" and torch.backends.cudnn.allow_tf32 is True
        jax_set("highest"), torch_set("highest")
        assert jax.config.jax_default_matmul_precision == "highest"
        assert torch.get_float32_matmul_precision() == "highest" and torch.backends.cudnn.allow_tf32 is False
    finally:
        jax.config.update("jax_default_matmul_precision", before[0])
        torch.set_float32_matmul_precision(before[1])
        torch.backends.cudnn.allow_tf32 = before[2]


def test_float32_matmul_is_a_setting_with_a_stated_default() -> None:
    assert parse_config(["suite=smoke"]).float32_matmul == "framework"
    assert parse_config(["suite=smoke", "float32_matmul=highest"]).float32_matmul == "highest"
    with pytest.raises(ConfigError, match="float32_matmul='fp32' is not allowed; allowed: framework, tf32, highest"):
        parse_config(["suite=smoke", "float32_matmul=fp32"])
