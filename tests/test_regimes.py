"""What limits it, on real runs: the four workloads of examples/regimes.py, built to be input-, overhead-, compute- and
memory-bound, each run at two batches in five processes under TensorFlow and under JAX on this project's 2-core CPU
box (``python -m bench suite=regimes repeats=5 [backends=[jax]]``; the records are tests/data/regimes: input,
overhead and compute from 2026-11-28, memory (the ReLU stack) from 2026-12-02). Each gets its label from its records,
pooled over the five processes, and from each process alone (one process a side) in at least 4 of 5 (the fifth:
kernel-bound, for one JAX process of the ReLU stack whose bytes floor came to 39 % of its step). The overhead
workload (a tiny MLP at b8, 95-99 % of its step fixed) reads host-bound: its floors explain 0.01-0.08 % of the step,
and where the floors rule the device out, host-bound is the label whatever the fixed share (docs/reports.md).

A test of the labels read from real records, not a timed test: the runs themselves take ~8 minutes a backend."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bench.records import load_records
from bench.reporting.analysis.limits import COMPUTE, HOST, INPUT, MEMORY, limits_frame
from tests.rows import summarized

DATA = Path(__file__).parent / "data" / "regimes"
# each workload's label at the batch that makes the regime (its other batch is the partner that separates a fixed
# cost from one that grows with the batch)
EXPECTED = {("regime_input", 32): INPUT, ("regime_input", 128): INPUT, ("regime_overhead", 8): HOST,
            ("regime_compute", 2048): COMPUTE, ("regime_memory", 512): MEMORY}


def _labels(records: list) -> dict[tuple[str, int], str]:
    frame = limits_frame(summarized(records))
    return {(r["workload"], int(r["global_batch_size"])): r["limit"] for _, r in frame.iterrows()}


@pytest.mark.parametrize("backend", ["tensorflow", "jax"])
def test_each_regime_workload_gets_its_label_pooled_and_in_4_of_5_processes_alone(backend: str) -> None:
    records = load_records([DATA / backend]).records
    assert len(records) == 40 and {r["status"] for r in records} == {"ok"}
    assert {r["backend"] for r in records} == {backend}
    pooled = _labels(records)
    assert {k: pooled[k] for k in EXPECTED} == EXPECTED
    per_process: dict[tuple[str, int], Counter] = {k: Counter() for k in EXPECTED}
    for repeat in range(5):
        alone = _labels([r for r in records if r["point"]["repeat"] == repeat])
        for key in EXPECTED:
            per_process[key][alone[key]] += 1
    for key, label in EXPECTED.items():
        assert per_process[key][label] >= 4, (key, dict(per_process[key]))


def test_the_memory_bound_workload_moves_bytes_and_the_compute_bound_one_does_arithmetic() -> None:
    """The floors behind the two device labels, from the records' own counts: the LayerNorm stack's bytes at the
    probe's bandwidth take over 10x its FLOPs at the probe's peak; the Dense stack's FLOPs over 10x its bytes."""
    frame = limits_frame(summarized(load_records([DATA / "tensorflow"]).records)).set_index(
        ["workload", "global_batch_size"])
    memory, compute = frame.loc[("regime_memory", 512)], frame.loc[("regime_compute", 2048)]
    assert memory["memory_floor_ms"] > 10 * memory["compute_floor_ms"]
    assert compute["compute_floor_ms"] > 10 * compute["memory_floor_ms"]


LOADED = Path(__file__).parent / "data" / "regimes_loaded"


@pytest.mark.parametrize("backend", ["tensorflow", "jax"])
def test_under_a_neighbours_load_a_label_stays_or_says_why_not(backend: str) -> None:
    """The same runs beside a process spinning one of the two cores (2026-12-02, ``python -c "while True: pass"``):
    the records measure the neighbour (others_busy, about half the machine), every pooled label is its quiet one or
    undetermined with the reason, and no label moves to another regime. The labels a slower step does not move stay
    (input-bound: a ratio of two measurements under the same load; host-bound: floors far under 2 % of the step);
    those read against the floors near a roof, measured on a quiet machine, are undetermined (neighbour) rather than
    kernel-bound, which is what they read without the check (the step slows, the quiet roofs do not)."""
    from bench.reporting.analysis.limits import NEIGHBOUR, agrees

    records = load_records([LOADED / backend]).records
    assert len(records) == 40 and all(0.4 < r["others_busy"] < 0.7 for r in records)
    loaded = limits_frame(summarized(records)).set_index(["workload", "global_batch_size"])
    quiet = limits_frame(summarized(load_records([DATA / backend]).records)).set_index(
        ["workload", "global_batch_size"])
    assert len(loaded) == len(quiet) == 8
    for key, row in loaded.iterrows():
        assert row["limit"] in (quiet.loc[key, "limit"], "undetermined"), (key, row["limit"], quiet.loc[key, "limit"])
        if row["limit"] == "undetermined":
            assert row["reason"], key
        else:
            assert sum(agrees(own, row["limit"]) for own in row["process_labels"]) >= 4, (key, row["process_labels"])
    for key in (("regime_input", 32), ("regime_input", 128), ("regime_overhead", 8)):
        assert loaded.loc[key, "limit"] == EXPECTED[key], key
    for key in (("regime_compute", 2048), ("regime_memory", 512)):
        assert loaded.loc[key, "reason"] == NEIGHBOUR, key
