"""Reliability: isolation, failures as records, resume (time limits and signals: tests/test_reliability_signals.py).

Every test runs the real command line (``python -m bench …``) in a subprocess on a tiny configuration,
with faults injected into the worker through ``BENCH_FAULT`` (see :mod:`bench.job.faults`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.config import SuiteConfig
from bench.job.point_record import base_record
from bench.records import load_records, write_record
from bench.runner.plan import plan
from bench.runner.rundir import points_to_run
from bench.runner.session import resume_command
from tests.conftest import HAS_JAX, REPO

TINY = ["suite=smoke", "workloads=[fashion_cnn]", "strategies=[cpu]", "epochs=2", "n_train=256", "n_val=64",
        "report=false", "measure_peak=false", "measure_input=false", "second_batch=false"]
# What the launcher does with a failed point, a resume, a time limit or a signal does not depend on the backend (it
# imports none): those tests run under JAX where it is installed, whose worker starts in about half of TensorFlow's
# time; the failure kinds themselves are tested under each backend (failures_run, crash_run and the JAX test below).
ANY = f"backends=[{'jax' if HAS_JAX else 'tensorflow'}]"
P = "jax-" if HAS_JAX else ""  # that backend's prefix in point ids and log names


def bench_env(tag: str, fault: str | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "CUDA_VISIBLE_DEVICES": "", "BENCH_TEST_TAG": tag}
    env.pop("BENCH_FAULT", None)
    if fault:
        env["BENCH_FAULT"] = fault
    return env  # BENCH_CACHE_DIR comes from conftest's session fixture


def bench(results: Path, *overrides: str, fault: str | None = None, tag: str = "",
          timeout: float = 120) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "bench", *TINY, f"results_dir={results}", *overrides]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=results.parent, env=bench_env(tag, fault),
                          timeout=timeout)


def the_run(results: Path) -> Path:
    (run_dir,) = [p for p in results.iterdir() if p.is_dir()]
    return run_dir


def records(run_dir: Path) -> dict[str, dict]:
    loaded = load_records([run_dir], warn=False)
    assert loaded.skipped == []
    ids = [r["point_id"] for r in loaded.records]
    assert len(ids) == len(set(ids))
    return {r["point_id"]: r for r in loaded.records}


def planned(run_dir: Path) -> list[str]:
    return json.loads((run_dir / "run.json").read_text())["points"]


def assert_clean_tree(root: Path) -> None:
    """Every JSON file under ``root`` parses, and no temporary file of an atomic write is left behind."""
    files = [f for f in root.rglob("*") if f.is_file()]
    assert [f for f in files if f.name.endswith(".tmp") or f.name.startswith(".")] == []
    for f in files:
        if f.suffix == ".json":
            json.loads(f.read_text())


def wait_for(predicate, timeout: float, proc: subprocess.Popen | None = None, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"bench exited ({proc.returncode}) before {what}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.2)


# --- 2. failures are records (one worker: oom, nan, raise; absent hardware) ------------------------------------

@pytest.fixture(scope="module")
def failures_run(tmp_path_factory):
    results = tmp_path_factory.mktemp("failures") / "results"
    proc = bench(results, "strategies=[gpu,cpu]", "batch_sizes=[32,64]", "steps_per_execution=[1,2]",
                 "point_timeout_s=120", fault="oom:cpu-b32-spe1,nan:cpu-b32-spe2,raise:cpu-b64-spe1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    run_dir = the_run(results)
    return run_dir, records(run_dir), proc


@pytest.mark.slow
def test_oom_is_failed_with_type_and_message(failures_run) -> None:
    _, recs, _ = failures_run
    r = recs["fashion_cnn-cpu-b32-spe1-fp32-r0"]
    assert r["status"] == "failed"
    assert r["error"]["type"] == "ResourceExhaustedError" and r["error"]["kind"] == "out_of_memory"
    assert r["error"]["message"] == "OOM when allocating tensor (injected)"


@pytest.mark.slow
def test_nan_loss_is_diverged(failures_run) -> None:
    _, recs, _ = failures_run
    r = recs["fashion_cnn-cpu-b32-spe2-fp32-r0"]
    assert r["status"] == "diverged"
    assert r["error"] == {"type": "NonFiniteLoss", "message": "training loss became NaN/inf in epoch 1"}
    assert [e["epoch"] for e in r["epochs"]] == [1]  # training stopped at the first non-finite loss
    assert r["epochs"][0]["loss"] is None  # NaN stored as null: the record stays strict JSON


@pytest.mark.slow
def test_other_exception_is_failed_with_traceback_tail(failures_run) -> None:
    _, recs, _ = failures_run
    err = recs["fashion_cnn-cpu-b64-spe1-fp32-r0"]["error"]
    assert recs["fashion_cnn-cpu-b64-spe1-fp32-r0"]["status"] == "failed"
    assert err["type"] == "RuntimeError" and err["message"] == "injected failure"
    lines = err["traceback"].splitlines()
    assert 2 <= len(lines) <= 12 and lines[-1] == "RuntimeError: injected failure"
    assert any("faults.py" in line for line in lines)


@pytest.mark.slow
def test_absent_hardware_is_skipped_and_the_run_goes_on(failures_run) -> None:
    run_dir, recs, _ = failures_run
    gpu = [r for r in recs.values() if r["strategy"]["requested"] == "gpu"]
    assert len(gpu) == 4
    for r in gpu:
        assert r["status"] == "skipped"
        assert r["error"]["type"] == "StrategyUnavailable" and "no GPU on this machine" in r["error"]["message"]
    assert sorted(recs) == sorted(planned(run_dir))


@pytest.mark.slow
def test_in_process_failures_cost_only_their_point(failures_run) -> None:
    run_dir, recs, proc = failures_run
    r = recs["fashion_cnn-cpu-b64-spe2-fp32-r0"]
    assert r["status"] == "ok" and [e["epoch"] for e in r["epochs"]] == [1, 2]
    # exceptions do not take the worker down: one worker per group, no restart
    assert sorted(p.name for p in (run_dir / "logs").iterdir()) == ["cpu-worker1.log"]  # no worker for no GPU
    assert "injected failure" in proc.stdout  # the console table shows why
    assert_clean_tree(run_dir.parent)


@pytest.mark.slow
@pytest.mark.skipif(__import__("importlib").util.find_spec("jax") is None, reason="needs JAX")
def test_under_jax_every_failure_kind_is_a_record_and_the_rest_runs(tmp_path) -> None:
    """The same failure kinds under backends=jax: JAX's out-of-memory error -> failed/out_of_memory, NaN loss
    -> diverged, a segfault -> failed/WorkerCrashed with the group continuing in a fresh worker, a GPU
    this machine does not have -> skipped with the reason, no worker started. A worker that dies in XLA's CPU
    all-reduce (XLA's line, SIGABRT) does not cost its point: a fresh worker trains it again with one step in
    flight, and its record says so, quoting the line and the first worker's log."""
    results = tmp_path / "results"
    proc = bench(results, "backends=[jax]", "strategies=[gpu,cpu]", "batch_sizes=[32,64]",
                 "steps_per_execution=[1,2]", "point_timeout_s=120",
                 fault="oom:jax-cpu-b32-spe1,nan:jax-cpu-b32-spe2,segv:jax-cpu-b64-spe1,stall:jax-cpu-b64-spe2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    run_dir = the_run(results)
    recs = records(run_dir)
    assert sorted(recs) == sorted(planned(run_dir))
    oom = recs["fashion_cnn-jax-cpu-b32-spe1-fp32-r0"]
    assert oom["status"] == "failed" and oom["error"]["kind"] == "out_of_memory"
    assert oom["error"]["type"] == "JaxRuntimeError" and "RESOURCE_EXHAUSTED" in oom["error"]["message"]
    nan = recs["fashion_cnn-jax-cpu-b32-spe2-fp32-r0"]
    assert nan["status"] == "diverged" and nan["error"]["type"] == "NonFiniteLoss"
    crash = recs["fashion_cnn-jax-cpu-b64-spe1-fp32-r0"]
    assert crash["status"] == "failed" and crash["error"]["type"] == "WorkerCrashed"
    assert crash["error"]["signal"] == "SIGSEGV" and crash["backend"] == "jax"
    rerun = recs["fashion_cnn-jax-cpu-b64-spe2-fp32-r0"]
    assert rerun["status"] == "ok" and rerun["steps_in_flight"] == 1
    assert rerun["process"]["log"] == "logs/jax-cpu-worker3.log"  # the third worker, after the segfault and the stall
    (note,) = [n for n in rerun["notes"] if "one training step in flight" in n]
    assert "Expected 2 threads to join the rendezvous" in note and "(logs/jax-cpu-worker2.log)" in note
    assert "Termination timeout" in (run_dir / "logs" / "jax-cpu-worker2.log").read_text()
    assert all(r.get("steps_in_flight") is None for k, r in recs.items() if k != rerun["point_id"])
    gpu = [r for r in recs.values() if r["strategy"]["requested"] == "gpu"]
    assert len(gpu) == 4 and all(r["status"] == "skipped" and "no GPU on this machine" in r["error"]["message"]
                                 for r in gpu)
    assert sorted(p.name for p in (run_dir / "logs").iterdir()) == [f"jax-cpu-worker{i}.log" for i in (1, 2, 3)]
    assert_clean_tree(run_dir.parent)


# --- 1. isolation: a crashed or hung worker costs exactly its point -------------------------------------------

@pytest.fixture(scope="module")
def crash_run(tmp_path_factory):
    """TensorFlow's crash kinds, under OneDeviceStrategy (cpu_onedevice): what a worker's death costs does not depend
    on the strategy, and this is the run that trains the wrapper end to end (the repeats test runs under JAX)."""
    results = tmp_path_factory.mktemp("crashes") / "results"
    proc = bench(results, "strategies=[cpu_onedevice]", "batch_sizes=[32,64]", "steps_per_execution=[1,2]",
                 "point_timeout_s=120", fault="exit:b32-spe1,segv:b32-spe2,kill:b64-spe1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    run_dir = the_run(results)
    return run_dir, records(run_dir)


@pytest.mark.slow
@pytest.mark.parametrize(("point", "detail"), [
    ("b32-spe1", {"exit_code": 3, "message": "worker exited with status 3 during the point"}),
    ("b32-spe2", {"signal": "SIGSEGV", "message": "worker killed by signal SIGSEGV during the point"}),
    ("b64-spe1", {"signal": "SIGKILL", "message": "worker killed by signal SIGKILL during the point"}),
], ids=["os._exit", "segfault", "sigkill"])
def test_crash_is_failed_with_its_cause(crash_run, point, detail) -> None:
    """The cause, then the fatal line of the worker's log where it wrote one (the message quotes it); the log's path
    is relative to the run folder (records are shared: no machine's folders)."""
    run_dir, recs = crash_run
    r = recs[f"fashion_cnn-cpu_onedevice-{point}-fp32-r0"]
    assert r["status"] == "failed" and r["error"]["type"] == "WorkerCrashed"
    for k, v in detail.items():
        assert r["error"][k] == v if k != "message" else r["error"][k].startswith(v)
    if r["error"].get("fatal"):
        assert r["error"]["message"].endswith(f": {r['error']['fatal']}")
    assert not Path(r["error"]["log"]).is_absolute() and (run_dir / r["error"]["log"]).is_file()
    assert r["config_hash"] and r["point"]["steps_per_execution"] == r["steps_per_execution"]


@pytest.mark.slow
def test_after_a_crash_the_group_continues_in_a_fresh_worker(crash_run) -> None:
    run_dir, recs = crash_run
    assert sorted(recs) == sorted(planned(run_dir))  # exactly one record per planned point
    ok = recs["fashion_cnn-cpu_onedevice-b64-spe2-fp32-r0"]
    assert ok["status"] == "ok" and ok["strategy"]["class"] == "OneDeviceStrategy"
    assert ok["strategy"]["device_pipeline_autotune"] == "off"  # the wrapper's per-device pipeline, observed
    assert sorted(p.name for p in (run_dir / "logs").iterdir()) == [f"cpu_onedevice-worker{i}.log"
                                                                     for i in range(1, 5)]
    assert_clean_tree(run_dir.parent)


# --- 3. resume -----------------------------------------------------------------------------------------------

def _fake_record(point, run_id: str, status: str) -> dict:
    rec = base_record(run_id, "t", point, {"requested": "cpu", "name": "cpu"}, {}, None, None).to_json()
    rec["status"] = status
    return rec


def test_resume_keeps_ok_skipped_diverged_of_the_same_config_and_retries_the_rest(tmp_path) -> None:
    cfg = SuiteConfig(name="t", workloads=["fashion_cnn"], batch_sizes=[32, 64], steps_per_execution=[1, 2, 4],
                      n_train=256, n_val=64, epochs=2)
    points = plan(cfg)
    assert len(points) == 6
    run = tmp_path / "run"
    for p, status in zip(points[:4], ["ok", "skipped", "diverged", "failed"], strict=True):
        write_record(run, _fake_record(p, "run", status))
    stale = _fake_record(points[4], "run", "ok")
    stale["config_hash"] = "0" * 16  # recorded under another configuration (e.g. other epochs)
    write_record(run, stale)
    (run / "garbage.json").write_text("{not json")
    todo = points_to_run(points, run)
    assert todo == [points[3], points[4], points[5]]  # failed, changed configuration, never run
    other = plan(SuiteConfig(name="t", workloads=["fashion_cnn"], batch_sizes=[32, 64], steps_per_execution=[1, 2, 4],
                             n_train=256, n_val=64, epochs=3))
    assert points_to_run(other, run) == other  # epochs changed: nothing is identical, everything runs


def test_resume_command_repeats_the_overrides() -> None:
    cfg = SuiteConfig(name="smoke", results_dir="/r")
    argv = ["suite=smoke", "batch_sizes=[32,64]", "resume=latest", "results_dir=/r"]
    assert resume_command(cfg, "RUN", argv) == ("python -m bench suite=smoke 'batch_sizes=[32,64]' results_dir=/r "
                                                "resume=RUN")


@pytest.mark.slow
def test_failed_points_are_retried_on_resume_and_finished_ones_are_not(tmp_path) -> None:
    results = tmp_path / "results"
    args = (ANY, "batch_sizes=[64]", "steps_per_execution=[1,2]", "point_timeout_s=120")
    first = bench(results, *args, fault="raise:spe2")
    assert first.returncode == 0, first.stderr[-3000:]
    run_dir = the_run(results)
    assert {k: r["status"] for k, r in records(run_dir).items()} == {
        f"fashion_cnn-{P}cpu-b64-spe1-fp32-r0": "ok", f"fashion_cnn-{P}cpu-b64-spe2-fp32-r0": "failed"}
    ok_bytes = (run_dir / f"fashion_cnn-{P}cpu-b64-spe1-fp32-r0.json").read_bytes()
    again = bench(results, *args, f"resume={run_dir.name}")
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"resuming {run_dir.name}: 1 of 2 points already recorded" in again.stderr
    assert the_run(results) == run_dir  # no new run folder
    recs = records(run_dir)
    assert {k: r["status"] for k, r in recs.items()} == {
        f"fashion_cnn-{P}cpu-b64-spe1-fp32-r0": "ok", f"fashion_cnn-{P}cpu-b64-spe2-fp32-r0": "ok"}
    assert (run_dir / f"fashion_cnn-{P}cpu-b64-spe1-fp32-r0.json").read_bytes() == ok_bytes  # not re-run
    assert_clean_tree(results)


def test_a_run_in_which_no_point_succeeded_exits_1_with_a_line_saying_so(tmp_path) -> None:
    """Issue 39: every point failed (here the only one) -> the records, the table and exit 1, never a silent 0."""
    results = tmp_path / "results"
    proc = bench(results, ANY, "batch_sizes=[64]", "steps_per_execution=[1]", fault="raise:cpu")
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "bench: no point of this run succeeded (1 failed): the table above and the report say why" in proc.stderr
    assert [r["status"] for r in records(the_run(results)).values()] == ["failed"]


def test_a_run_whose_every_point_was_skipped_still_writes_its_report(tmp_path) -> None:
    """Issue 76: strategies=[gpu,tpu] on a box without either: every point is recorded skipped (no worker starts),
    the report is written and its path printed, each workload's section says why nothing finished, exit 1."""
    if Path("/dev/nvidia0").exists() or os.environ.get("TPU_NAME"):
        pytest.skip("this machine has a GPU or a TPU: its points would run")
    results = tmp_path / "results"
    proc = bench(results, ANY, "strategies=[gpu,tpu]", "batch_sizes=[64]", "steps_per_execution=[1]", "report=true",
                 f"reports_dir={tmp_path / 'reports'}")
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "report failed" not in proc.stderr and "no point of this run succeeded (2 skipped)" in proc.stderr
    report = tmp_path / "reports" / the_run(results).name / "report.md"
    assert f"report:  {report.relative_to(tmp_path)}" in proc.stdout or f"report:  {report}" in proc.stdout
    text = report.read_text(encoding="utf-8")
    assert "nothing finished (2 skipped)" in text and "### Nothing finished" in text
    assert text.count("StrategyUnavailable") >= 2  # each strategy's reason, in the section and the problems table


def test_nothing_succeeded_counts_the_statuses() -> None:
    from bench.runner.session import nothing_succeeded

    assert nothing_succeeded([]) == ""  # nothing ran (a resumed, finished run): not a failure
    assert nothing_succeeded([{"status": "ok"}, {"status": "failed"}]) == ""
    assert nothing_succeeded([{"status": "failed"}, {"status": "skipped"}, {"status": "failed"}]).startswith(
        "no point of this run succeeded (2 failed, 1 skipped)")


def test_a_worker_that_ends_without_teardown_keeps_what_it_wrote_and_its_status() -> None:
    """``end_now`` (a finished single-process worker's exit, no interpreter teardown) flushes both streams first:
    the launcher reads the last event from a block-buffered pipe, and the log's last lines say how the worker ended."""
    code = ("import sys; from bench.worker.main import end_now; sys.stdout.write('last event\\n'); "
            "sys.stderr.write('last log line'); end_now(3)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # stdout a block-buffered pipe
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (3, "last event\n", "last log line")


def test_a_dead_workers_reason_quotes_the_fatal_line_of_its_log(tmp_path) -> None:
    """XLA's CPU all-reduce giving up on its rendezvous aborts the process (SIGABRT): the reason says why, not the
    signal alone; the log's path stays relative; a log without a fatal line leaves the message as it was."""
    from bench.runner.processes import crash_error, exit_cause, fatal_line

    log = tmp_path / "logs" / "jax-cpu_x2-worker1.log"
    log.parent.mkdir()
    rendezvous = ("F1202 05:01:02.345678 1234 rendezvous.cc:127] Termination timeout for `all reduce` of 40 seconds "
                  "exceeded. Exiting to ensure a consistent program state. Expected 2 threads to join the "
                  "rendezvous, but only 1 of them arrived on time.")
    log.write_text(f"I1202 05:00:00 starting\n{rendezvous}\n*** Check failure stack trace: ***\n    @ 0x7f abort\n")
    error = crash_error(exit_cause(-6), log, tmp_path)
    assert error["signal"] == "SIGABRT" and error["log"] == "logs/jax-cpu_x2-worker1.log"
    assert error["message"].startswith("worker killed by signal SIGABRT during the point: F1202")
    assert "Expected 2 threads to join the rendezvous" in error["message"] and error["fatal"].startswith("F1202")
    quiet = tmp_path / "quiet.log"
    quiet.write_text("I1202 nothing wrong\n")
    assert crash_error(exit_cause(3), quiet, tmp_path)["message"] == "worker exited with status 3 during the point"
    assert fatal_line("x\nFatal Python error: Segmentation fault\ny") == "Fatal Python error: Segmentation fault"
    assert crash_error(exit_cause(3), quiet, tmp_path / "elsewhere")["log"] == "quiet.log"  # never an absolute path


def test_a_report_over_older_records_quotes_the_fatal_line_of_the_log_beside_them(tmp_path) -> None:
    """Issue 74 item 6: a record written before bench quoted a dead worker's log ("WorkerCrashed: worker killed by
    signal SIGABRT" alone, its worker log in the run folder) reads with XLA's line in report.md and report.json; a
    log path that leaves the run folder is not read; the point that never reported its environment adds no row of
    dashes to the Environment table."""
    import shutil

    from bench.reporting.build import build_report

    source = Path(__file__).parent / "data" / "quickstart_2026_12_02"
    run = tmp_path / "run"
    shutil.copytree(source, run)
    line = ("F1205 03:14:15.926535 4242 rendezvous.cc:127] Termination timeout for `all reduce` of 40 seconds "
            "exceeded. Expected 2 threads to join the rendezvous, but only 1 of them arrived on time.")
    (run / "logs").mkdir()
    (run / "logs" / "cpu_x2-worker3.log").write_text(f"I1205 starting\n{line}\n*** Check failure stack ***\n")
    (tmp_path / "outside.log").write_text(f"{line.replace('all reduce', 'outside')}\n")
    for name, log in (("fashion_cnn-cpu_x2-b32-spe8-fp32-r0.json", "logs/cpu_x2-worker3.log"),
                      ("fashion_cnn-cpu_x2-b32-spe1-fp32-r0.json", "../outside.log")):
        path = run / name
        rec = json.loads(path.read_text())
        rec.update(status="failed", epochs=[], env={"hostname": rec["env"]["hostname"]},
                   error={"type": "WorkerCrashed", "message": "worker killed by signal SIGABRT during the point",
                          "log": log})
        path.write_text(json.dumps(rec))
    md = build_report([run], tmp_path / "out")
    text, data = md.read_text(), json.loads((md.parent / "report.json").read_text())
    assert "Termination timeout for \\`all reduce\\` of 40 seconds exceeded" in text  # quoted, inert
    assert "`outside`" not in text and "outside\\`" not in text  # the path out of the run folder was not read
    reasons = [c["reason"] for c in data["configurations"] if c["reason"]]
    assert any("Termination timeout" in str(r) for r in reasons), reasons
    env = text[text.index("## Environment"):text.index("### Peaks used")]
    rows = [r for r in env.splitlines() if r.startswith("| ") and not r.startswith("| host")]
    assert rows and all(r.split("|")[2].strip() != "—" for r in rows)  # no row of dashes beside the host


def test_a_jax_point_whose_worker_died_in_xla_all_reduce_is_run_again_once_with_one_step_in_flight(tmp_path) -> None:
    """The launcher's choice after a worker died mid-point: XLA's all-reduce line in a JAX worker's log puts the point
    in the next worker's job as one to train with one step in flight, with the line and the log; only once per point,
    never for another backend or another fatal line (those are the point's record)."""
    from types import SimpleNamespace

    from bench.cli import parse_config
    from bench.job.faults import STALL_LINE
    from bench.job.point import WorkerJob
    from bench.runner.launcher import Launcher
    from bench.runner.plan import plan
    from bench.runner.processes import stalled
    from bench.runner.progress import Progress

    line = STALL_LINE  # XLA's line, as the stall fault writes it
    (tmp_path / "logs").mkdir()
    log, other = tmp_path / "logs" / "jax-cpu_x2-worker1.log", tmp_path / "logs" / "jax-cpu_x2-worker2.log"
    log.write_text(f"I1202 starting\n{line}\n*** Check failure stack trace: ***\n")
    other.write_text("Fatal Python error: Segmentation fault\n")
    assert stalled(log) == line and stalled(other) == ""
    points = {}
    for backend in ("jax", "tensorflow"):
        cfg = parse_config([f"backends=[{backend}]", "strategies=[cpu_x2]", "workloads=[fashion_cnn]",
                            "batch_sizes=[32]", "steps_per_execution=[1]"])
        (points[backend],) = plan(cfg)
    launcher = Launcher(cfg, list(points.values()), "run", tmp_path, Progress(total=2, enabled=False))
    jax = points["jax"]
    assert not launcher.rerun_stalled(jax, SimpleNamespace(in_flight=jax, cause=None, log=other))
    assert not launcher.rerun_stalled(points["tensorflow"], SimpleNamespace(in_flight=points["tensorflow"], cause=None,
                                                                            log=log))
    assert launcher.rerun_stalled(jax, SimpleNamespace(in_flight=jax, cause=None, log=log))
    assert not launcher.rerun_stalled(jax, SimpleNamespace(in_flight=jax, cause=None, log=log))  # once only
    job = WorkerJob.for_group(cfg, "run", str(tmp_path), [jax], one_step=launcher.one_step)
    assert WorkerJob.from_json(job.to_json()).one_step == {jax.point_id: f"{line} (logs/jax-cpu_x2-worker1.log)"}
    assert WorkerJob.for_group(cfg, "run", str(tmp_path), [points["tensorflow"]], one_step=launcher.one_step).one_step \
        == {}
