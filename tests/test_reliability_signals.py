"""Reliability under time limits and signals: a hung point, a point that never ends, SIGKILL of the launcher,
Ctrl-C and SIGTERM, two runs into one folder. Every test runs the real command line in a subprocess (helpers:
tests/test_reliability.py; the ``tag`` fixture: tests/conftest.py). A module of its own, so that the two test
processes share the reliability tests' time."""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import workers_of
from tests.test_reliability import (
    ANY,
    TINY,
    P,
    assert_clean_tree,
    bench,
    bench_env,
    planned,
    records,
    the_run,
    wait_for,
)

# --- 1. isolation: a hung worker costs exactly its point --------------------------------------------------

@pytest.mark.slow
def test_hang_past_the_time_limit_is_failed_and_the_rest_continues(tmp_path, tag) -> None:
    results = tmp_path / "results"
    t0 = time.monotonic()
    # the limit covers a fresh worker's start and its first point: 20 s is twice what the spe2 point takes here
    # with the other half of the test run beside it (the hung point waits it out once; 30 s until 2026-11-23)
    proc = bench(results, ANY, "batch_sizes=[64]", "steps_per_execution=[1,2]", "point_timeout_s=20",
                 fault="hang:spe1",
                 tag=tag)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr[-3000:]
    recs = records(the_run(results))
    hung = recs[f"fashion_cnn-{P}cpu-b64-spe1-fp32-r0"]
    assert hung["status"] == "failed" and hung["error"]["type"] == "TimeLimit"
    assert hung["error"]["limit_s"] == 20 and "point_timeout_s=20" in hung["error"]["message"]
    assert recs[f"fashion_cnn-{P}cpu-b64-spe2-fp32-r0"]["status"] == "ok"
    assert elapsed >= 20
    assert workers_of(tag) == []  # the hung worker was killed, not left behind


@pytest.mark.slow
def test_time_limit_holds_while_a_point_keeps_reporting_epochs(tmp_path) -> None:
    """A point that never ends but keeps sending epoch events (no quiet moment) is still stopped."""
    results = tmp_path / "results"
    t0 = time.monotonic()
    # 20 s: past a fresh worker's start even beside other tests, so epochs are flowing when the limit strikes.
    # 100,000 one-step epochs take minutes; a million took the TensorFlow pipeline 20 s to plan (it draws every
    # epoch's order up front), so the point was killed before its first epoch and the test proved nothing
    proc = bench(results, ANY, "batch_sizes=[64]", "steps_per_execution=[1]", "n_train=64", "n_val=64",
                 "epochs=100000", "point_timeout_s=20", "progress=on")
    elapsed = time.monotonic() - t0
    assert proc.returncode == 1, proc.stderr[-3000:]  # its only point failed: the run says so (issue 39)
    assert "bench: no point of this run succeeded (1 failed)" in proc.stderr
    (r,) = records(the_run(results)).values()
    assert r["status"] == "failed" and r["error"]["type"] == "TimeLimit"
    # no wall-clock bound here (CI machines differ): a limit that did not hold would run 100,000 epochs,
    # and the subprocess's own timeout would fail the test
    assert elapsed >= 20
    assert re.search(r"epoch \d+/100000 ", proc.stderr)  # the point was sending epochs (the live display shows them)


# --- 3. resume after SIGKILL --------------------------------------------------------------------------------

@pytest.mark.slow
def test_sigkill_of_the_main_process_loses_at_most_the_point_in_flight(tmp_path, tag) -> None:
    results = tmp_path / "results"
    args = [ANY, "batch_sizes=[32,64]", "steps_per_execution=[1,2]", "point_timeout_s=120"]
    cmd = [sys.executable, "-m", "bench", *TINY, f"results_dir={results}", *args]
    with (tmp_path / "out").open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path,
                                env=bench_env(tag, "hang:b64-spe1"))  # the third of four points never ends
        try:
            wait_for(lambda: len(list(results.glob("*/fashion_cnn-*.json"))) >= 2, 90, proc, "two records")
            wait_for(lambda: workers_of(tag), 10, proc, "the worker of the third point")
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    # the orphaned worker (its own session, so nobody signals it) notices its launcher is gone and exits
    wait_for(lambda: not workers_of(tag), 10, what="the orphaned worker to exit")
    run_dir = the_run(results)
    before = records(run_dir)
    assert sorted(before) == [f"fashion_cnn-{P}cpu-b32-spe1-fp32-r0", f"fashion_cnn-{P}cpu-b32-spe2-fp32-r0"]
    assert all(r["status"] == "ok" for r in before.values())
    assert_clean_tree(results)
    kept = {p: (run_dir / f"{p}.json").read_bytes() for p in before}
    # what a SIGKILL in the middle of an atomic write leaves: resume must clear it away
    (run_dir / f".fashion_cnn-{P}cpu-b64-spe1-fp32-r0.json.k1ll3d.tmp").write_text('{"schema_version": 1, "ru')

    again = bench(results, *args, "resume=latest", tag=tag)
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"resuming {run_dir.name}: 2 of 4 points already recorded" in again.stderr
    assert the_run(results) == run_dir
    recs = records(run_dir)
    assert sorted(recs) == sorted(planned(run_dir)) and len(recs) == 4  # exactly one record per point
    assert all(r["status"] == "ok" for r in recs.values())
    assert {p: (run_dir / f"{p}.json").read_bytes() for p in before} == kept  # not re-run
    assert_clean_tree(results)
    assert workers_of(tag) == []


# --- 4. Ctrl-C -------------------------------------------------------------------------------------------------

def signal_hanging_run(tmp_path: Path, tag: str, sig: int, overrides: list[str],
                       in_flight: str = f"fashion_cnn-{P}cpu-b32-spe2-fp32-r0") -> tuple[int, str]:
    """Start a run whose spe2 point hangs, send ``sig`` once the launcher shows that point running, and
    return (exit status, stderr)."""
    cmd = [sys.executable, "-m", "bench", *TINY, ANY, *overrides, "batch_sizes=[32]", "point_timeout_s=120",
           "progress=on"]
    err_file = tmp_path / "stderr"
    with err_file.open("w") as err, (tmp_path / "stdout").open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=tmp_path, env=bench_env(tag, "hang:spe2"))
        try:
            # the progress line names the point the launcher knows to be running
            wait_for(lambda: in_flight in err_file.read_text(), 90, proc, "the hanging point to start")
            proc.send_signal(sig)
            status = proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return status, err_file.read_text()


@pytest.mark.slow
def test_ctrl_c_records_the_point_in_flight_reports_and_exits_130(tmp_path, tag) -> None:
    results, reports = tmp_path / "results", tmp_path / "reports"
    in_flight = f"fashion_cnn-{P}cpu-b32-spe2-fp32-r0"
    status, stderr = signal_hanging_run(tmp_path, tag, signal.SIGINT, [
        f"results_dir={results}", f"reports_dir={reports}", "report=true", "steps_per_execution=[1,2,4]"])
    assert status == 130, stderr[-3000:]
    run_dir = the_run(results)
    recs = records(run_dir)
    assert sorted(recs) == [f"fashion_cnn-{P}cpu-b32-spe1-fp32-r0", in_flight]  # nothing new started (no spe4)
    assert recs[f"fashion_cnn-{P}cpu-b32-spe1-fp32-r0"]["status"] == "ok"
    assert recs[in_flight]["status"] == "failed" and recs[in_flight]["error"]["type"] == "Interrupted"
    assert (reports / run_dir.name / "report.md").is_file()  # the report of what exists
    # the table's points, and the one never started named under it (issue 39)
    assert (f"not started: 1 of the 3 planned points (fashion_cnn-{P}cpu-b32-spe4-fp32-r0); resuming the run runs them"
            in (tmp_path / "stdout").read_text())
    assert workers_of(tag) == []
    assert_clean_tree(results)
    (hint,) = [line for line in stderr.splitlines() if line.startswith("interrupted: resume with  ")]
    resume = shlex.split(hint.removeprefix("interrupted: resume with  "))
    assert resume[:3] == ["python", "-m", "bench"] and resume[-1] == f"resume={run_dir.name}"

    # the printed command resumes the run: the interrupted point and the one never started run now
    ok_bytes = (run_dir / f"fashion_cnn-{P}cpu-b32-spe1-fp32-r0.json").read_bytes()
    again = subprocess.run([sys.executable, *resume[1:]], capture_output=True, text=True, cwd=tmp_path,
                           env=bench_env(tag), timeout=120)
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"resuming {run_dir.name}: 1 of 3 points already recorded" in again.stderr
    recs = records(run_dir)
    assert sorted(recs) == sorted(planned(run_dir)) and len(recs) == 3
    assert all(r["status"] == "ok" for r in recs.values())
    assert (run_dir / f"fashion_cnn-{P}cpu-b32-spe1-fp32-r0.json").read_bytes() == ok_bytes


# --- 6. concurrent runs ----------------------------------------------------------------------------------------

@pytest.mark.slow
def test_two_runs_into_the_same_results_folder_do_not_clobber_each_other(tmp_path, tag) -> None:
    results = tmp_path / "results"
    cmd = [sys.executable, "-m", "bench", *TINY, ANY, f"results_dir={results}", "batch_sizes=[64]",
           "steps_per_execution=[1,2]", "point_timeout_s=120"]
    env = bench_env(tag)
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
             for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1][-2000:] for o in outs]
    runs = sorted(p for p in results.iterdir() if p.is_dir())
    assert len(runs) == 2  # distinct run folders (atomic mkdir), even when started in the same second
    for run_dir in runs:
        recs = records(run_dir)
        assert sorted(recs) == sorted(planned(run_dir)) and len(recs) == 2
        assert all(r["run_id"] == run_dir.name and r["status"] == "ok" for r in recs.values())
        assert json.loads((run_dir / "run.json").read_text())["run_id"] == run_dir.name
    assert {f"records: {r}" for r in runs} == {line for o in outs for line in o[0].splitlines()
                                               if line.startswith("records: ")}
    assert_clean_tree(results)


@pytest.mark.slow
def test_sigterm_is_handled_like_ctrl_c_and_exits_143(tmp_path, tag) -> None:
    # `timeout`, a cancelled CI job or a batch scheduler sends SIGTERM, not SIGINT
    results = tmp_path / "results"
    in_flight = f"fashion_cnn-{P}cpu-b32-spe2-fp32-r0"
    status, stderr = signal_hanging_run(tmp_path, tag, signal.SIGTERM, [
        f"results_dir={results}", "report=false", "steps_per_execution=[1,2]"])
    assert status == 143, stderr[-3000:]
    recs = records(the_run(results))
    assert recs[in_flight]["status"] == "failed"
    assert recs[in_flight]["error"] == {**recs[in_flight]["error"], "type": "Interrupted",
                                        "message": "stopped by SIGTERM"}
    assert workers_of(tag) == []
    assert "interrupted: resume with  " in stderr
