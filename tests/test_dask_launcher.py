"""``launcher=dask`` / ``launcher=slurm``: a sweep on Dask, one task per worker group holding a whole machine (issue
24): the settings, the SLURM job script dask-jobqueue writes, a two-worker LocalCluster bench starts on 127.0.0.1
(one group lost for good). The real SLURM cluster and the command-line Dask cluster: tests/test_clusters.py. No
timing is asserted."""

from __future__ import annotations

import importlib.util
import json

import pytest

from bench.cli import parse_config
from bench.config import ConfigError
from bench.records import load_records
from bench.runner.plan import plan
from tests.conftest import HAS_JAX, run_bench

HAS_DASK = importlib.util.find_spec("distributed") is not None
HAS_JOBQUEUE = importlib.util.find_spec("dask_jobqueue") is not None
dask_installed = pytest.mark.skipif(not HAS_DASK, reason="needs Dask (pip install 'bench[dask]')")


@pytest.mark.parametrize("overrides, message", [
    (["launcher=ray"], "launcher='ray' is not allowed; allowed: local, dask, slurm"),
    (["dask_scheduler=tcp://10.0.0.2:8786"], "dask_scheduler='tcp://10.0.0.2:8786': only with launcher=dask"),
    (["launcher=dask", "dask_scheduler=10.0.0.2"], "allowed: a scheduler address such as tcp://"),
    (["launcher=dask", "dask_workers=0"], "dask_workers=0: must be an integer >= 1"),
    (["launcher=slurm", "+slurm.cores=8"], "launcher=slurm needs slurm.memory"),
    (["+slurm.cores=8"], "only with launcher=slurm"),
])
def test_bad_launcher_settings_name_the_key(overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse_config(["suite=smoke", *overrides])


def test_a_missing_engine_is_refused_with_its_install_command(monkeypatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a))
    with pytest.raises(ConfigError, match=r"launcher=dask: distributed is not installed .* 'bench\[dask\]'"):
        parse_config(["suite=smoke", "launcher=dask"])
    with pytest.raises(ConfigError, match=r"pip install 'bench\[slurm\]'"):
        parse_config(["suite=smoke", "launcher=slurm", "+slurm.cores=8", "+slurm.memory=16GB"])


@pytest.mark.skipif(not HAS_JOBQUEUE, reason="needs dask-jobqueue (pip install 'bench[slurm]')")
def test_the_slurm_job_script_holds_one_machine_per_job_with_the_settings_given() -> None:
    from bench.runner.dask_launcher import slurm_cluster

    cfg = parse_config(["suite=smoke", "launcher=slurm", "+slurm.cores=16", "+slurm.memory=64GB", "+slurm.queue=gpu",
                        "+slurm.walltime='02:00:00'", "+slurm.account=proj42",
                        "+slurm.job_extra_directives=['--gpus-per-node=8']",
                        "+slurm.scheduler_options={host: 127.0.0.1, dashboard_address: '127.0.0.1:0'}"])
    cluster = slurm_cluster(cfg)
    try:
        script = cluster.job_script()
    finally:
        cluster.close()
    for line in ("#SBATCH -p gpu", "#SBATCH -A proj42", "#SBATCH -t 02:00:00", "#SBATCH --gpus-per-node=8",
                 "#SBATCH -n 1", "#SBATCH --cpus-per-task=16", "--resources machine=1"):
        assert line in script, f"{line!r} not in the job script:\n{script}"
    assert "--nworkers" not in script  # one Dask worker per job: the job's machine is one timed group's
    assert "tcp://127.0.0.1:" in script  # the workers dial the scheduler the driver started


@pytest.fixture(scope="module")
def dask_run(tmp_path_factory: pytest.TempPathFactory):
    """fashion_cnn's cpu_x4 group on a two-worker LocalCluster bench starts; the group's task kills its Dask worker
    (a lost machine) every time, before it starts a bench worker. (Sweeps that train, on clusters users run:
    tests/test_clusters.py.)"""
    tmp = tmp_path_factory.mktemp("dask")
    args = ["suite=smoke", "workloads=[fashion_cnn]", "backends=[jax]", "strategies=[cpu_x4]",
            "steps_per_execution=[4]", "launcher=dask", "dask_workers=2", "measure_peak=false", "measure_input=false",
            "second_batch=false",
            "report=false", "results_dir=results"]
    proc = run_bench(*args, cwd=tmp, env={"BENCH_FAULT": "exit:dask:fashion_cnn-jax-cpu_x4"}, timeout=300)
    (run_dir,) = (tmp / "results").iterdir()
    return args, run_dir, proc


@pytest.mark.slow
@dask_installed
@pytest.mark.skipif(not HAS_JAX, reason="needs JAX")
def test_a_group_whose_machine_is_lost_twice_is_a_failed_record_not_a_hang(dask_run) -> None:
    """The cpu_x4 group's task kills its Dask worker every time it starts: run again once on the restarted worker,
    lost again, then a failed record naming the cause; the run says so with the command that runs it again."""
    _, run_dir, proc = dask_run
    (lost,) = [r for r in load_records([run_dir]).records if r["strategy"]["requested"] == "cpu_x4"]
    assert lost["status"] == "failed" and lost["error"]["type"] == "DaskTaskLost"
    assert "KilledWorker" in lost["error"]["message"] and "lost twice" in lost["error"]["message"]
    assert "1 worker group(s) lost their machine for good" in proc.stderr
    assert f"resume={run_dir.name}" in proc.stderr and proc.returncode == 1  # nothing succeeded
    assert "LocalCluster of 2 workers runs 2 timed groups at once" in proc.stderr


@dask_installed
def test_a_task_computed_again_runs_only_what_has_no_record(tmp_path) -> None:
    """Dask computes a finished task again when the worker holding its result is lost before the driver took it
    (seen with one worker: the next group killed it). What the first computation landed in the shared run folder
    is not run, nor timed, a second time: the task returns those records and starts no worker."""
    from bench.runner.dask_launcher import run_group_task
    from tests.conftest import make_record

    cfg = parse_config(["suite=smoke", "workloads=[fashion_cnn]", "strategies=[cpu]", "steps_per_execution=[4]"])
    (point,) = plan(cfg)
    landed = make_record(point_id=point.point_id, config_hash=point.config_hash, status="ok",
                         epochs=[{"epoch": 1, "epoch_s": 2.0, "loss": 1.0}])
    (tmp_path / f"{point.point_id}.json").write_text(json.dumps(landed))
    assert run_group_task(cfg, [point.to_record()], "run", str(tmp_path), 0) == [landed]
    assert not (tmp_path / "tasks").exists()  # no group folder, no worker
