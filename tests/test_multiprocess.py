"""``processes=N``: one JAX point run by N cooperating processes that share the strategy's devices (issue 24).

The real runs start every process, and the JAX coordinator, on 127.0.0.1 only. One run covers training, parity,
a dead process and the restart after it; the port test starts no process at all.
"""

from __future__ import annotations

import json
import math
import socket

import pytest

from bench.cli import parse_config
from bench.config import ConfigError
from bench.engines import multi_process_env, process_env
from bench.job.faults import Faults
from bench.job.point import Point
from bench.records import load_records
from bench.runner.plan import groups, plan
from bench.runner.processes import coordinator_address
from tests.conftest import HAS_JAX, run_bench

jax_installed = pytest.mark.skipif(not HAS_JAX, reason="needs JAX (pip install 'bench[jax]')")
SMALL = ["suite=smoke", "workloads=[fashion_cnn]", "backends=[jax]", "strategies=[cpu_x2]", "report=false",
         "measure_peak=false", "second_batch=false"]  # no test here reads the extra stage


@jax_installed
def test_processes_plan_their_own_points_and_groups_and_keep_old_ids() -> None:
    cfg = parse_config(["suite=smoke", "workloads=[fashion_cnn]", "backends=[tensorflow,jax]",
                        "strategies=[cpu,cpu_x2,cpu_x4]", "processes=[1,2]", "steps_per_execution=[4]"])
    points = plan(cfg)
    ids = [p.point_id for p in points]
    # two processes only where they run: jax, and a strategy whose devices split into two (not cpu, not tensorflow)
    assert [i for i in ids if "-p2-" in i] == ["fashion_cnn-jax-cpu_x2-p2-b64-spe4-fp32-r0",
                                               "fashion_cnn-jax-cpu_x4-p2-b64-spe4-fp32-r0"]
    assert len(ids) == 3 + 3 + 2  # tensorflow x 3 strategies, jax x 3 in one process, jax x 2 in two
    assert ("jax", "cpu_x2", 2, 0, False) in groups(points) and ("jax", "cpu_x2", 1, 0, False) in groups(points)
    one = next(p for p in points if p.point_id == "fashion_cnn-jax-cpu_x2-b64-spe4-fp32-r0")
    two = next(p for p in points if p.processes == 2)
    assert "processes" not in one.to_record()  # one process: the point, and its hash, as bench always wrote them
    assert two.to_record()["processes"] == 2 and Point.from_record(two.to_record()) == two
    assert one.config_hash != two.config_hash


@pytest.mark.parametrize("overrides, message", [
    (["backends=[tensorflow]", "processes=[1,2]"], "processes[1]=2: more than one process per point runs under "
                                                    "backends=[jax] only"),
    (["backends=[jax]", "strategies=[cpu]", "processes=[2]"], "none of strategies=['cpu'] splits into 2 processes"),
    (["backends=[jax]", "strategies=[cpu_x2]", "processes=[3]"], "allowed: cpu_xN with N a multiple of 3"),
    (["backends=[jax]", "processes=[0]"], "processes[0]=0: must be a positive integer"),
    (["backends=[jax]", "processes=[]"], "processes: must not be empty"),
    (["backends=[jax]", "coordinator_port=70000"], "coordinator_port=70000: allowed: an integer 0..65535"),
])
def test_bad_processes_name_the_key_and_what_is_allowed(overrides: list[str], message: str) -> None:
    if "backends=[jax]" in overrides and not HAS_JAX:
        pytest.skip("needs JAX")
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")):
        parse_config(["suite=smoke", *overrides])


def test_each_process_gets_its_share_of_the_devices_and_the_coordinator() -> None:
    env = process_env("jax", "cpu_x4", {}, processes=2)
    assert env["XLA_FLAGS"] == "--xla_force_host_platform_device_count=2"
    assert multi_process_env("127.0.0.1:1234", 2, 1) == {"KERAS_DISTRIBUTION_JOB_ADDRESSES": "127.0.0.1:1234",
                                                         "KERAS_DISTRIBUTION_NUM_PROCESSES": "2",
                                                         "KERAS_DISTRIBUTION_PROCESS_ID": "1"}
    assert multi_process_env("127.0.0.1:1234", 1, 0) == {}


def test_a_fault_can_name_one_process() -> None:
    assert Faults.parse("kill@1:-p2-", process_id=1).kind_for("x-p2-b64") == "kill"
    assert Faults.parse("kill@1:-p2-", process_id=0).kind_for("x-p2-b64") is None
    assert Faults.parse("raise:b64", process_id=1).kind_for("x-b64") == "raise"  # no @: every process
    with pytest.raises(ValueError, match="BENCH_FAULT process 'x'"):
        Faults.parse("kill@x:p2")


def test_a_taken_coordinator_port_is_an_error_and_a_free_one_is_found() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        address, error = coordinator_address(port)
        assert address is None and error is not None and error["type"] == "CoordinatorPortInUse"
        assert f"127.0.0.1:{port} is in use" in error["message"] and "coordinator_port=" in error["message"]
    address, error = coordinator_address(0)
    assert error is None and address is not None and address.startswith("127.0.0.1:")


@jax_installed
def test_each_process_feeds_its_own_rows_of_the_same_global_batches() -> None:
    """Process i of n makes rows i*b/n .. (i+1)*b/n of every global batch, with their augmentation draws: the
    processes' parts, stacked, are the one-process batch."""
    import numpy as np

    from bench.engines.jax.pipelines import Batches
    from bench.workloads import Workload

    wl = Workload(name="w", build_model=lambda: None, shape=(4, 4, 1), classes=3, augment=("flip", "brightness"))
    x = np.random.default_rng(0).integers(0, 255, (64, 4, 4, 1), dtype=np.uint8)
    y = np.arange(64) % 3
    whole = Batches(wl, x, y, 16, seed=5, augment=wl.augment, workers=0)
    parts = [Batches(wl, x, y, 16, seed=5, augment=wl.augment, workers=0, part=(i, 2)) for i in range(2)]
    for i in range(len(whole)):
        xs, ys = zip(*(p[i] for p in parts), strict=True)
        np.testing.assert_array_equal(np.concatenate(xs), whole[i][0])
        np.testing.assert_array_equal(np.concatenate(ys), whole[i][1])


@pytest.fixture(scope="module")
def two_process_run(tmp_path_factory: pytest.TempPathFactory):
    """fashion_cnn under jax cpu_x2 in one process and in two, at steps_per_execution 1 and 4, 3 epochs; process
    1 of the two-process spe4 point (the group's last) is killed: that point must fail, the spe1 one train."""
    tmp = tmp_path_factory.mktemp("mp")
    proc = run_bench(*SMALL, "processes=[1,2]", "steps_per_execution=[1,4]", "epochs=3",
                     f"results_dir={tmp / 'results'}", env={"BENCH_FAULT": "kill@1:-p2-b64-spe4-"}, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (run_dir,) = (tmp / "results").iterdir()
    return run_dir, proc, {r["point_id"]: r for r in load_records([run_dir]).records}


@pytest.mark.slow
@jax_installed
def test_two_processes_train_the_one_process_model_on_the_same_batches(two_process_run) -> None:
    """Same start, same global batches: the two-process point's every epoch's loss and validation accuracy are the
    one-process DataParallel point's; both processes end with the same weights; the record names the topology, is
    timed by the slowest process and keeps each process's timings; the console shows it as its own configuration."""
    run_dir, proc, recs = two_process_run
    one, two = recs["fashion_cnn-jax-cpu_x2-b64-spe1-fp32-r0"], recs["fashion_cnn-jax-cpu_x2-p2-b64-spe1-fp32-r0"]
    assert one["status"] == two["status"] == "ok"
    assert one["initial_weights"]["sha256"] == two["initial_weights"]["sha256"]
    for a, b in zip(one["epochs"], two["epochs"], strict=True):
        assert b["loss"] == pytest.approx(a["loss"], rel=1e-5)
        assert b["val_loss"] == pytest.approx(a["val_loss"], rel=1e-5)
        assert b["val_accuracy"] == a["val_accuracy"] and b["steps"] == a["steps"] and b["examples"] == a["examples"]
    topo = two["topology"]
    assert topo["processes"] == 2 and topo["devices_per_process"] == 1 and topo["launched_by"] == "bench"
    assert topo["coordinator"].startswith("127.0.0.1:")
    assert two["strategy"]["num_replicas"] == 2 and two["strategy"]["class"] == "DataParallel"
    # each process fed 32 rows; the global batch the train step saw is 64 rows over both processes' devices
    assert two["placement"]["batch"] == one["placement"]["batch"] == "64 rows sharded over 2 devices, 32 each"
    shares = topo["per_process"]
    assert [s["process_id"] for s in shares] == [0, 1] and shares[0]["pid"] == two["process"]["pid"]
    assert shares[0]["pid"] != shares[1]["pid"]
    assert shares[0]["final_weights_sha256"] == shares[1]["final_weights_sha256"]  # the same model in both
    for k, epoch in enumerate(two["epochs"]):  # the slowest process's time, to float32 rounding
        for name in ("epoch_s", "train_s", "val_s"):
            assert epoch[name] == max(s[name][k] for s in shares)
    assert two["input_examples_per_s"] == pytest.approx(2 * min(s["input_examples_per_s"] for s in shares))
    assert not math.isclose(shares[0]["input_examples_per_s"], two["input_examples_per_s"])
    assert "val_predictions" not in two and any("no per-example predictions" in n for n in two["notes"])
    assert sorted(p.name for p in (run_dir / "logs").iterdir()) == [
        "jax-cpu_x2-p2-proc0-worker1.log", "jax-cpu_x2-p2-proc1-worker1.log", "jax-cpu_x2-worker1.log"]
    assert "cpu_x2 (2 processes)" in proc.stdout


@pytest.mark.slow
@jax_installed
def test_a_dead_process_fails_its_point_and_stops_the_others(two_process_run) -> None:
    """Process 1 dies before the point's first collective; process 0 would wait for it there: the launcher stops it
    and records the point (fresh processes for a group's later points: the one-process path, test_reliability)."""
    run_dir, _, recs = two_process_run
    dead = recs["fashion_cnn-jax-cpu_x2-p2-b64-spe4-fp32-r0"]
    assert dead["status"] == "failed" and dead["error"]["type"] == "WorkerCrashed"
    assert dead["error"]["message"].startswith("process 1 of 2 (pid ") and dead["error"]["signal"] == "SIGKILL"
    assert dead["error"]["log"].endswith("jax-cpu_x2-p2-proc1-worker1.log") and dead["error"]["process_id"] == 1
    manifest = json.loads((run_dir / "run.json").read_text())
    assert sorted(recs) == sorted(manifest["points"])


@jax_installed
def test_a_taken_coordinator_port_fails_the_points_without_starting_a_process(tmp_path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = run_bench(*SMALL, "processes=[2]", "steps_per_execution=[1,4]", f"coordinator_port={port}",
                         f"results_dir={tmp_path}", timeout=120)
    assert proc.returncode == 1, proc.stderr[-2000:]  # every point failed: exit 1 with a line (issue 39)
    assert "bench: no point of this run succeeded (2 failed)" in proc.stderr
    (run_dir,) = tmp_path.iterdir()
    recs = load_records([run_dir]).records
    assert len(recs) == 2 and {r["error"]["type"] for r in recs} == {"CoordinatorPortInUse"}
    assert not (run_dir / "logs").exists() or not any((run_dir / "logs").iterdir())  # nothing was started


@pytest.mark.slow
@jax_installed
def test_one_bench_per_host_runs_the_same_job_and_host_0_writes_the_records(two_process_run, tmp_path) -> None:
    """The multi-host recipe on one machine: two ``python -m bench`` processes, as a TPU slice's or SLURM's hosts
    would start them, each given its ``process_id`` and process 0's address. They train the one model of the
    bench-started two-process point; only process 0's run folder holds records."""
    import subprocess
    import sys

    from tests.conftest import REPO

    _, _, recs = two_process_run
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    hosts = []
    for i in range(2):
        args = [*SMALL, "processes=[2]", "steps_per_execution=[4]", "epochs=3", f"process_id={i}",
                f"coordinator=127.0.0.1:{port}", f"results_dir={tmp_path / f'host{i}'}"]
        hosts.append(subprocess.Popen([sys.executable, "-m", "bench", *args], cwd=REPO, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    outs = [h.communicate(timeout=240) for h in hosts]
    assert [h.returncode for h in hosts] == [0, 0], outs[0][1][-2000:] + outs[1][1][-2000:]
    (run0,) = (tmp_path / "host0").iterdir()
    (run1,) = (tmp_path / "host1").iterdir()
    assert not list(run1.glob("*.json"))[1:] and [p.name for p in run1.glob("*.json")] == ["run.json"]
    (rec,) = load_records([run0]).records
    assert rec["status"] == "ok" and rec["topology"]["launched_by"] == "one bench per host"
    assert rec["topology"]["coordinator"] == f"127.0.0.1:{port}"
    shares = rec["topology"]["per_process"]
    assert shares[0]["final_weights_sha256"] == shares[1]["final_weights_sha256"]
    one = recs["fashion_cnn-jax-cpu_x2-b64-spe4-fp32-r0"]
    for a, b in zip(one["epochs"], rec["epochs"], strict=True):
        assert b["loss"] == pytest.approx(a["loss"], rel=1e-5) and b["val_accuracy"] == a["val_accuracy"]


@pytest.mark.parametrize("overrides, message", [
    (["process_id=0", "processes=[2]"], "coordinator='': allowed: HOST:PORT of process 0's machine"),
    (["process_id=2", "processes=[2]", "coordinator=h:1"], "process_id=2: allowed: 0 .. 1"),
    (["process_id=0", "processes=[1,2]", "coordinator=h:1"], "processes=[1, 2]: with process_id, one count"),
    (["process_id=1", "processes=[2]", "coordinator=h:1", "resume=latest"], "resume='latest': not with process_id"),
])
def test_bad_multi_host_settings_name_the_key(overrides: list[str], message: str) -> None:
    if not HAS_JAX:
        pytest.skip("needs JAX")
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")):
        parse_config(["suite=smoke", "backends=[jax]", "strategies=[cpu_x2]", *overrides])


@jax_installed
def test_a_multi_host_job_plans_gpus_and_tpu_points_too() -> None:
    cfg = parse_config(["suite=smoke", "workloads=[fashion_cnn]", "backends=[jax]", "strategies=[cpu,tpu,gpus]",
                        "processes=[4]", "process_id=3", "coordinator=10.0.0.2:8476", "steps_per_execution=[4]"])
    assert [p.point_id for p in plan(cfg)] == ["fashion_cnn-jax-tpu-p4-b64-spe4-fp32-r0",
                                               "fashion_cnn-jax-gpus-p4-b64-spe4-fp32-r0"]
