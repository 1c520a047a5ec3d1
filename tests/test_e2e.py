"""End to end: ``python -m bench suite=smoke`` in a subprocess writes valid records, a table and a report."""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timezone

import pytest

from bench.measure.env import RECORDED_ENV_VARS
from bench.records import load_records, parse
from tests.conftest import HAS_JAX, SECRETS, SMOKE_BACKENDS, run_bench, table_rows
from tests.rows import analyzed
from tests.test_record_schema import undeclared


@pytest.mark.slow
def test_smoke_writes_one_valid_record_per_point(smoke_run) -> None:
    _, run_dir, _ = smoke_run
    loaded = load_records([run_dir])
    assert loaded.skipped == []
    manifest = json.loads((run_dir / "run.json").read_text())
    assert sorted(r["point_id"] for r in loaded.records) == sorted(manifest["points"])
    assert len(loaded.records) == 2 * len(SMOKE_BACKENDS) * 2  # workloads x backends x strategies
    by_status = {}
    for r in loaded.records:
        by_status.setdefault(r["status"], []).append(r)
    assert set(by_status) == {"ok"}
    for r in loaded.records:  # the worker writes only what the typed record declares
        assert undeclared(parse(r)) == [], r["point_id"]
    for backend in {r["backend"] for r in by_status["ok"]}:  # one probe per host and backend, read by the rest
        recs = [r for r in by_status["ok"] if r["backend"] == backend]
        assert len({r["peak_flops_per_s"]["float32"] for r in recs}) == 1, backend
        assert len({r["process"]["pid"] for r in recs if not r["peak_cached"]}) <= 1, backend
    for r in by_status["ok"]:
        assert r["run_id"] == run_dir.name and r["suite"] == "smoke"
        assert r["workload_revision"] == 2  # a built-in reading logits (bench.records.revisions.LOGITS_SINCE)
        assert [e["epoch"] for e in r["epochs"]] == [1, 2]
        steps = r["steps_per_epoch"]
        assert steps == 512 // 64
        for e in r["epochs"]:
            # exact steps from optimizer.iterations, whatever steps_per_execution
            assert e["steps"] == steps and e["examples"] == steps * 64
            assert e["epoch_s"] == pytest.approx(e["train_s"] + e["val_s"])
            assert 0 <= e["val_accuracy"] <= 1 and e["loss"] > 0
        assert r["fit_wall_s"] >= sum(e["epoch_s"] for e in r["epochs"])
        assert r["env"]["keras"].startswith("3.")
        assert r["env"]["tensorflow"].startswith("2.") if r["backend"] == "tensorflow" else r["env"]["jax"]
        assert r["strategy"]["num_replicas"] == (2 if r["strategy"]["name"] == "cpu_x2" else 1)
        # no fit pays tf.data's autotune teardown race: autotune is off in every pipeline, the per-device ones
        # of a strategy included, as observed during the point (the time it cost: tests/benchmarks/test_teardown.py)
        assert r["teardown_s"] is not None and r["teardown_s"] >= 0
        if r["backend"] == "tensorflow" and r["strategy"]["name"] != "cpu":
            assert r["strategy"]["device_pipeline_autotune"] == "off"
        assert r["per_replica_batch_size"] * r["strategy"]["num_replicas"] == 64
        assert r["memory"]["peak_rss_bytes"] > 0 and r["memory"]["device_peak_bytes"] is None  # CPU: no device memory
        assert r["peak_flops_per_s"]["float32"] > 0 and r["memory"]["probe_in_process"] is False  # a child probed
        assert datetime.fromisoformat(r["peak_measured_at"]) <= datetime.now(timezone.utc) and r["peak_cached"] in (
            True, False)
        assert r["arithmetic"] == {"matmul": "fp32", "conv": "fp32"}  # read from the framework, per op class
        # what ran on the devices, read back before the fit was timed (issue 38): every point of a worker, not only
        # its first, split its batch over both replicas of cpu_x2; the compiler that ran, never Keras' "auto"
        split = ("64 rows sharded over 2 devices, 32 each" if r["backend"] == "jax" else
                 "64 rows split over 2 replica(s), 32 each")
        one = "64 rows, whole (no strategy splits it)" if r["backend"] == "tensorflow" else "64 rows on cpu:0"
        assert r["placement"]["batch"] == (split if r["strategy"]["name"] == "cpu_x2" else one), r["point_id"]
        assert r["compiler"] == ("XLA (jax.jit)" if r["backend"] == "jax" else "TensorFlow graph (tf.function, no XLA)")
        assert r["input_threads"] >= 1
        # issue 52: the bandwidth probe beside the matmul probe, the step's byte count, and, the smoke suite sweeping
        # one batch, the extra stage at half it: 512 examples at b32 are 16 steps, the most it times (4 executions)
        assert r["peak_bytes_per_s"] > 1e8 and r["bandwidth_probe"]["n"] == 2**26
        assert r["bytes_per_example"] > 0 and r["weight_bytes_per_step"] > 0 and r["byte_count"]
        second = r["second_batch"]
        assert (second["global_batch_size"], second["steps"]) == (32, 16) and second["step_s"] > 0, r["point_id"]


@pytest.mark.slow
@pytest.mark.skipif(not HAS_JAX, reason="needs JAX")
def test_a_jax_points_memory_is_its_own_compiled_step_not_the_process_peak(smoke_run) -> None:
    """JAX cannot reset its allocator's peak (the H200 records all read bench's probe: 1,480,590,592 bytes), so
    each JAX point records XLA's analysis of the train step it compiled, one device's share. Redone by hand: the
    step's donated state is float32 weights and Adam's two moments (12 bytes a parameter, plus a few scalars:
    counters, metric totals); its other arguments are the batch, rows per device x (example + label) x 4 bytes.
    Nothing of the matmul probe is in it (it runs in a process of its own, before these workers start). Two
    models in one worker get their own figures: reuters_textcnn (332,856 parameters) needs more state than
    fashion_cnn (108,810)."""
    _, run_dir, _ = smoke_run
    jax_recs = [r for r in load_records([run_dir]).records if r["backend"] == "jax"]
    assert jax_recs
    state = {}
    for r in jax_recs:
        m = r["memory"]
        assert m["step_source"] == "XLA memory analysis of the compiled train step, one device", r["point_id"]
        assert 12 * r["params"] <= m["step_alias_bytes"] <= 12 * r["params"] + 256, r["point_id"]
        per_example = 1 + math.prod(r["dataset"]["shape"])  # float32 pixels or int32 tokens, and an int32 label
        assert m["step_argument_bytes"] - m["step_alias_bytes"] == r["per_replica_batch_size"] * per_example * 4
        assert m["step_bytes"] == (m["step_argument_bytes"] + m["step_output_bytes"] - m["step_alias_bytes"]
                                   + m["step_temp_bytes"])
        assert 0 <= m["step_measure_s"] < 5  # the executable fit compiled, read from JAX's cache
        assert m["probe_in_process"] is False  # and no allocator figure of these workers holds the probe's matrices
        state[r["workload"]] = m["step_alias_bytes"]
        # XLA's cost analysis of the same executable against the layer rules (issue 74: 1.21x for fashion_cnn,
        # 1.04x for reuters_textcnn at b32 on 2026-12-05: elementwise ops, the loss and Adam's updates)
        assert 0.9 <= r["compiled_flops_per_example"] / r["flops_per_example"] <= 1.3, r["point_id"]
    assert state["reuters_textcnn"] > 2 * state["fashion_cnn"]
    for r in load_records([run_dir]).records:
        if r["backend"] != "jax":
            assert r["memory"].get("step_bytes") is None  # TensorFlow resets its peak per point: no analysis


@pytest.mark.slow
def test_where_the_time_went_accounts_for_the_whole_wall_time(smoke_run) -> None:
    """The run's own process wrote its seconds to run.json; the report's table reads them: its rows (bench before its
    workers, their start-ups, inside fit, outside fit, between workers, the report) add up to the wall time it prints,
    which is what the test's own clock saw of the command, less the markdown's writing and the interpreter's exit."""
    tmp, run_dir, proc = smoke_run
    parent = json.loads((run_dir / "run.json").read_text())["parent"]
    assert set(parent) == {"before_workers_s", "workers_s", "report_s", "wall_s"}
    assert 0.85 * proc.wall_s <= parent["wall_s"] <= proc.wall_s
    text = (tmp / "reports" / run_dir.name / "report.md").read_text()
    rows = {r["where"]: r[run_dir.name] for r in table_rows(text[text.index("### Where the time went"):])}
    wall = float(rows["wall time"])
    assert wall == pytest.approx(parent["wall_s"], rel=0.005)
    parts = ["bench before its workers (imports, plan, checks)", "worker start-up (interpreter, imports, device)",
             "inside `fit`", "points outside `fit` (data, model, compile, predictions)",
             "bench between workers (starting, ending them)", "report and figures"]
    seconds = [float(rows[p].split()[0].replace(",", "")) for p in parts]
    assert sum(seconds) == pytest.approx(wall, rel=0.01)  # each cell has 3 significant figures
    assert sum(int(rows[p].split("(")[1].rstrip("%)")) for p in parts) in range(98, 103)  # shares, rounded


@pytest.mark.slow
def test_no_secret_reaches_records_logs_or_reports(smoke_run) -> None:
    """The smoke run ran with secrets in its environment (tests/conftest.py SECRETS): none is in a record,
    run.json, a worker log, the report or the console; the allowlisted variables are still captured."""
    tmp, run_dir, proc = smoke_run
    files = [p for root in (tmp / "results", tmp / "reports") for p in root.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert "run.json" in names and "report.md" in names, sorted(names)
    assert any(p.suffix == ".log" for p in files) and any(p.name.startswith("fashion_cnn-cpu") for p in files)
    for path in files:
        data = path.read_bytes()
        for value in SECRETS.values():
            assert value.encode() not in data, f"{value!r} leaked into {path}"
    for value in SECRETS.values():
        assert value not in proc.stdout and value not in proc.stderr
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["host"]["env_vars"]["TF_CPP_MIN_LOG_LEVEL"] == "2"
    records = [json.loads(p.read_text()) for p in run_dir.glob("fashion_cnn-cpu*.json")]
    assert records and all(r["status"] == "ok" for r in records)
    for r in records:
        assert r["env"]["env_vars"]["TF_CPP_MIN_LOG_LEVEL"] == "2"
        assert set(r["env"]["env_vars"]) <= set(RECORDED_ENV_VARS)
        assert r["env"]["cpu"]


@pytest.mark.slow
def test_same_seed_same_accuracy_across_strategies(smoke_run) -> None:
    _, run_dir, _ = smoke_run
    from tests.conftest import accuracy_tolerance_pp

    runs = {}
    for r in load_records([run_dir]).records:
        if r["status"] == "ok":
            runs.setdefault((r["backend"], r["workload"], r["steps_per_execution"]), {})[r["strategy"]["name"]] = r
    assert len(runs) == len(SMOKE_BACKENDS) * 2
    for key, by in runs.items():
        cpu, x2 = by["cpu"], by["cpu_x2"]
        # same initial weights, same data order, same global batch: the first epoch's mean training loss
        # agrees closely (no scope vs MirroredStrategy / DataParallel differ only in float rounding) ...
        assert cpu["epochs"][0]["loss"] == pytest.approx(x2["epochs"][0]["loss"], rel=5e-3), key
        # ... and the final accuracies agree within what the validation set can resolve (the report's rule)
        acc = cpu["epochs"][-1]["val_accuracy"]
        n_val = cpu["validation_steps"] * cpu["global_batch_size"]
        assert 100 * abs(acc - x2["epochs"][-1]["val_accuracy"]) <= accuracy_tolerance_pp(acc, n_val), key


@pytest.mark.slow
@pytest.mark.skipif(not HAS_JAX, reason="needs JAX (pip install 'bench[jax]')")
def test_both_backends_run_the_smoke_suite_from_the_same_weights_to_the_same_accuracy(smoke_run) -> None:
    """jax ``cpu`` and ``cpu_x2`` (forced host devices) run as worker processes beside TensorFlow's, every
    point of a workload starts from the run's one set of initial weights and sees the same batches, and each
    workload ends within 2 pp validation accuracy across backends (here it agrees far closer: same data, same
    weights)."""
    tmp, run_dir, _ = smoke_run
    recs = {r["point_id"]: r for r in load_records([run_dir]).records if r["status"] == "ok"}
    x2 = recs["fashion_cnn-jax-cpu_x2-b64-spe4-fp32-r0"]["strategy"]
    assert x2["class"] == "DataParallel" and x2["num_replicas"] == 2 and x2["devices"] == ["cpu:0", "cpu:1"]
    assert sorted(p.name for p in (run_dir / "logs").iterdir()) == sorted(
        f"{prefix}{s}-worker1.log" for prefix in ("", "jax-") for s in ("cpu", "cpu_x2"))

    # parity: one weights file per workload, created by the first point and loaded by all; same losses, same accuracy
    assert sorted(p.name for p in (run_dir / "init").iterdir()) == ["fashion_cnn-s0.npz", "reuters_textcnn-s0.npz"]
    for workload in ("fashion_cnn", "reuters_textcnn"):
        mine = [r for r in recs.values() if r["workload"] == workload]
        assert len({r["initial_weights"]["sha256"] for r in mine}) == 1
        assert sum(r["initial_weights"]["created"] for r in mine) == 1
        for s in ("cpu", "cpu_x2"):
            tf_e = recs[f"{workload}-{s}-b64-spe4-fp32-r0"]["epochs"]
            jax_e = recs[f"{workload}-jax-{s}-b64-spe4-fp32-r0"]["epochs"]
            assert abs(tf_e[-1]["val_accuracy"] - jax_e[-1]["val_accuracy"]) <= 0.02
            if workload == "fashion_cnn":  # same batches from the same start: the same first-epoch loss
                assert jax_e[0]["loss"] == pytest.approx(tf_e[0]["loss"], rel=1e-3)
                # reuters_textcnn's differs by about 1 % (3.681 under JAX, 3.635 under TensorFlow, plain cpu,
                # 2026-11-23): TensorFlow's Adam step on an Embedding id seen twice in a batch is sqrt(2) times
                # JAX's (docs/findings.md, tests/test_findings.py): accuracy parity only
    report = (tmp / "reports" / run_dir.name / "report.md").read_text()
    assert re.search(r"\| jax +\| cpu_x2 +\| cpu x2 ", report)  # a backend column beside strategy
    from bench.reporting.render.report_json import ReportData

    data = ReportData.model_validate(json.loads((tmp / "reports" / run_dir.name / "report.json").read_text()))
    assert {c.backend for c in data.configurations} == set(SMOKE_BACKENDS)
    assert all(p.verdict == "no_claim" and p.seeds == 1 for c in data.configurations for p in c.parity)


@pytest.mark.slow
def test_every_repeat_is_its_own_process_a_seeded_training_run_and_parity_is_judged_across_seeds(tmp_path) -> None:
    """repeats=3 under JAX's cpu and cpu_x2 (its worker starts in about half of TensorFlow's time; the smoke run
    covers both backends): six worker processes, three per strategy, started repeat-major (cpu r0, cpu_x2 r0, cpu
    r1, ...); each record names its process and the peak its process probed. 256 examples at batch 32 are 8
    steps: steps_per_execution=3 runs (and is named) as 2, and every epoch trains its 8 steps. The stored
    per-example predictions reproduce the final val_accuracy, over all 144 validation examples.

    Each repeat is a training run from its own seed (issue 33): its own initial weights, shared by both strategies
    at that seed, and the parity row pairs the three seeds (the fewest that make a claim); it says "differs" only
    when its interval excludes 0. (This run replaced a catsdogs_cnn run of its own, 134 s of tox's budget.)"""
    from bench.predictions import decode

    proc = run_bench("suite=smoke", "workloads=[fashion_cnn]", "backends=[jax]", "strategies=[cpu,cpu_x2]",
                     "batch_sizes=[32]",
                     "steps_per_execution=[3]", "repeats=3", "epochs=2", "n_train=256", "n_val=144",
                     "measure_input=false", "second_batch=false", "report=false", f"results_dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "steps_per_execution=3 does not divide the 8 steps" in proc.stderr
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    records = load_records([run_dir]).records
    assert len(records) == 6 and all(r["status"] == "ok" for r in records)
    by_worker = sorted(records, key=lambda r: r["process"]["worker"])
    assert [(r["strategy"]["name"], r["repeat"]) for r in by_worker] == [
        (s, k) for k in range(3) for s in ("cpu", "cpu_x2")]
    assert len({r["process"]["pid"] for r in records}) == 6  # six processes, none reused
    for r in records:
        assert r["point_id"].endswith(f"-b32-spe2-fp32-r{r['repeat']}") and r["backend"] == "jax"
        assert r["steps_per_execution"] == r["effective_steps_per_execution"] == 2
        assert r["requested_steps_per_execution"] == 3 and [e["steps"] for e in r["epochs"]] == [8, 8]
        assert (run_dir / r["process"]["log"]).is_file() and r["process"]["startup_s"] > 0
        assert r["point_wall_s"] >= r["fit_wall_s"] > 0
        assert r["peak_flops_per_s"]["float32"] > 0  # its own process's probe
        assert "target_accuracy" not in r  # 256 examples are not the reduced sizes the target was set for
        predictions = decode(r["val_predictions"])
        # every validation example scored (issue 39): 4 whole batches of 32 and the 16 left, predicted after the epoch
        last = r["epochs"][-1]
        assert predictions.n == last["val_examples"] == 144 and last["val_rest_s"] > 0
        assert predictions.accuracy == pytest.approx(last["val_accuracy"], abs=1e-6)
    by = {(r["strategy"]["name"], r["repeat"]): r for r in records}
    for k in range(3):
        assert by[("cpu", k)]["seed"] == by[("cpu_x2", k)]["seed"] == k
        assert by[("cpu", k)]["initial_weights"]["sha256"] == by[("cpu_x2", k)]["initial_weights"]["sha256"]
    assert len({by[("cpu_x2", k)]["initial_weights"]["sha256"] for k in range(3)}) == 3  # three starts, not clones
    for s in ("cpu", "cpu_x2"):
        assert len({by[(s, k)]["epochs"][-1]["loss"] for k in range(3)}) == 3  # three different training runs

    (row,) = [r for _, r in analyzed(records, baseline="cpu").parity.iterrows()]
    assert (row["strategy"], row["baseline"], row["seeds"]) == ("jax/cpu_x2", "jax/cpu", 3)
    assert [s for s, _ in row["per_seed"]] == [0, 1, 2]
    assert row["verdict"] in ("differs", "equivalent", "inconclusive")
    assert (row["verdict"] == "differs") == (row["low_pp"] > 0 or row["high_pp"] < 0)
    assert row["flag"] == (row["verdict"] == "differs")
