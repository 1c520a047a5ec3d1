"""End to end: ``python -m bench suite=smoke`` in a subprocess writes valid records, a table and a report."""

from __future__ import annotations

import json

import pytest

from bench.records import load_records, parse
from tests.conftest import run_bench
from tests.test_record_schema import undeclared


@pytest.mark.slow
def test_smoke_writes_one_valid_record_per_point(smoke_run) -> None:
    _, run_dir, _ = smoke_run
    loaded = load_records([run_dir])
    assert loaded.skipped == []
    manifest = json.loads((run_dir / "run.json").read_text())
    assert sorted(r["point_id"] for r in loaded.records) == sorted(manifest["points"])
    assert len(loaded.records) == 2 * 4 * 2  # workloads x strategies x spe
    by_status = {}
    for r in loaded.records:
        by_status.setdefault(r["status"], []).append(r)
    assert set(by_status) == {"ok", "skipped"}
    assert {r["strategy"]["requested"] for r in by_status["skipped"]} == {"gpu"}
    assert all("no GPU visible" in r["error"]["message"] for r in by_status["skipped"])
    for r in loaded.records:  # the worker writes only what the typed record declares
        assert undeclared(parse(r)) == [], r["point_id"]
    for r in by_status["ok"]:
        assert r["run_id"] == run_dir.name and r["suite"] == "smoke"
        assert [e["epoch"] for e in r["epochs"]] == [1, 2]
        steps = r["steps_per_epoch"]
        assert steps == 512 // 64
        for e in r["epochs"]:
            # exact steps from optimizer.iterations, whatever steps_per_execution
            assert e["steps"] == steps and e["examples"] == steps * 64
            assert e["epoch_s"] == pytest.approx(e["train_s"] + e["val_s"])
            assert 0 <= e["val_accuracy"] <= 1 and e["loss"] > 0
        assert r["fit_wall_s"] >= sum(e["epoch_s"] for e in r["epochs"])
        assert r["env"]["tensorflow"].startswith("2.") and r["env"]["keras"].startswith("3.")
        assert r["strategy"]["num_replicas"] == (2 if r["strategy"]["name"] == "cpu_x2" else 1)
        # no fit pays tf.data's autotune teardown race: autotune is off in every pipeline, the per-device ones
        # of a strategy included, as observed during the point (the time it cost: tests/benchmarks/test_teardown.py)
        assert r["teardown_s"] is not None and r["teardown_s"] >= 0
        if r["strategy"]["name"] != "cpu":
            assert r["strategy"]["device_pipeline_autotune"] == "off"
        assert r["per_replica_batch_size"] * r["strategy"]["num_replicas"] == 64


@pytest.mark.slow
def test_same_seed_same_accuracy_across_strategies(smoke_run) -> None:
    _, run_dir, _ = smoke_run
    from bench.reporting.learning import accuracy_tolerance_pp

    runs = {}
    for r in load_records([run_dir]).records:
        if r["status"] == "ok":
            runs.setdefault((r["workload"], r["steps_per_execution"]), {})[r["strategy"]["name"]] = r
    assert runs
    for key, by in runs.items():
        cpu, x2 = by["cpu"], by["cpu_x2"]
        # same initial weights, same data order, same global batch: the first epoch's mean training loss
        # agrees closely (no scope vs MirroredStrategy differ only in float rounding) ...
        assert cpu["epochs"][0]["loss"] == pytest.approx(x2["epochs"][0]["loss"], rel=5e-3), key
        # ... and the final accuracies agree within what the validation set can resolve (the report's rule)
        acc = cpu["epochs"][-1]["val_accuracy"]
        n_val = cpu["validation_steps"] * cpu["global_batch_size"]
        assert 100 * abs(acc - x2["epochs"][-1]["val_accuracy"]) <= accuracy_tolerance_pp(acc, n_val), key


@pytest.mark.slow
def test_console_table_run_folder_and_report(smoke_run) -> None:
    tmp, run_dir, proc = smoke_run
    assert "train s/epoch" in proc.stdout and "examples/s" in proc.stdout
    assert "ETA" not in proc.stderr  # the live display stays quiet when stderr is not a terminal
    assert f"records: {run_dir}" in proc.stdout
    report = tmp / "reports" / run_dir.name / "report.md"
    assert f"report:  {report}" in proc.stdout
    text = report.read_text()
    assert "fashion_cnn" in text and "reuters_textcnn" in text and "skipped" in text
    assert not list(run_dir.rglob("*.tmp"))


@pytest.mark.slow
def test_every_repeat_is_its_own_process_interleaved_across_strategies(tmp_path) -> None:
    """repeats=2 under cpu and cpu_x2: four worker processes, two per strategy, started repeat-major (cpu r0,
    cpu_x2 r0, cpu r1, cpu_x2 r1); each record names its process and the peak its process probed. 256 examples at
    batch 32 are 8 steps: steps_per_execution=3 runs (and is named) as 2. The stored per-example predictions
    reproduce Keras' own final val_accuracy."""
    from bench.predictions import decode

    proc = run_bench("suite=smoke", "workloads=[fashion_cnn]", "strategies=[cpu,cpu_x2]", "batch_sizes=[32]",
                     "steps_per_execution=[3]", "repeats=2", "epochs=2", "n_train=256", "n_val=128",
                     "measure_input=false", "report=false", f"results_dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "steps_per_execution=3 does not divide the 8 steps" in proc.stderr
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    records = load_records([run_dir]).records
    assert len(records) == 4 and all(r["status"] == "ok" for r in records)
    by_worker = sorted(records, key=lambda r: r["process"]["worker"])
    assert [(r["strategy"]["name"], r["repeat"]) for r in by_worker] == [
        ("cpu", 0), ("cpu_x2", 0), ("cpu", 1), ("cpu_x2", 1)]
    assert len({r["process"]["pid"] for r in records}) == 4  # four processes, none reused
    for r in records:
        assert r["point_id"].endswith(f"-b32-spe2-fp32-r{r['repeat']}")
        assert r["steps_per_execution"] == r["effective_steps_per_execution"] == 2
        assert r["requested_steps_per_execution"] == 3
        assert (run_dir / r["process"]["log"]).is_file() and r["process"]["startup_s"] > 0
        assert r["point_wall_s"] >= r["fit_wall_s"] > 0
        assert r["peak_flops_per_s"]["float32"] > 0  # its own process's probe
        assert "target_accuracy" not in r  # 256 examples are not the reduced sizes the target was set for
        predictions = decode(r["val_predictions"])
        assert predictions.n == 128 and predictions.accuracy == pytest.approx(r["epochs"][-1]["val_accuracy"],
                                                                              abs=1e-6)
