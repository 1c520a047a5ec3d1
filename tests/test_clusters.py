"""``launcher=slurm`` and ``launcher=dask`` against real daemons on 127.0.0.1 (issue 35): a one-node SLURM cluster
(``munged``, ``slurmctld``, ``slurmd`` from the Debian packages, a config written here) whose job is cancelled
mid-sweep, and a Dask cluster started from the command line as docs/scale.md says, one of whose workers is killed
mid-sweep. A lost machine costs at most the group it was running: every group ends ok, none is timed twice, no
record is replaced, and on one worker the groups run in the planned order. A missing package is an error naming its
install command, not a skip."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.cli import parse_config
from bench.runner.plan import groups, plan
from tests.conftest import REPO

SLURM_INSTALL = "apt-get install -y slurm-wlm munge"
# 2 worker groups (2 repeats) of 2 points (2 batch sizes), a few seconds a group: a fault lands inside a group
SWEEP = ["suite=smoke", "workloads=[fashion_cnn]", "backends=[jax]", "strategies=[cpu]", "batch_sizes=[32,64]",
         "steps_per_execution=[2]", "repeats=2", "n_train=256", "n_val=64", "epochs=2", "measure_peak=false",
         "measure_input=false", "second_batch=false", "report=false", "progress=off"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(what: str, check, timeout: float = 120.0, every: float = 0.5):
    """Poll ``check`` until it returns something true; AssertionError naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(every)
    raise AssertionError(f"{what}: not within {timeout:.0f} s")


def start_bench(tmp: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(REPO), "JAX_PLATFORMS": "cpu"}
    return subprocess.Popen([sys.executable, "-m", "bench", *SWEEP, *args, "results_dir=results"], cwd=tmp, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def point_records(tmp: Path) -> dict[str, dict]:
    runs = list((tmp / "results").glob("*/run.json"))
    if not runs:
        return {}
    out = {}
    for f in runs[0].parent.glob("*.json"):
        if f.name != "run.json":
            rec = json.loads(f.read_text())
            if "point_id" in rec:
                out[rec["point_id"]] = rec
    return out


def mid_group(tmp: Path) -> dict[str, dict]:
    """Every record so far, the run folder's and those a running group holds in its folder (a point's record lands
    there as the point ends, in the run folder when its group ends), once a group is half done — one point
    recorded in its folder, none sent on (else {}): a fault then lands in the middle of that group."""
    runs = list((tmp / "results").glob("*/tasks"))
    if not runs:
        return {}
    half = [g for g in runs[0].iterdir() if list(g.glob("*.json")) and not list(g.glob("*.sent"))]
    if not half:
        return {}
    held = {r["point_id"]: r for r in (json.loads(f.read_text()) for g in half for f in g.glob("*.json"))}
    return {**point_records(tmp), **held}


def check_one_sweep(tmp: Path, proc: subprocess.Popen, landed_early: dict[str, dict],
                    in_order: bool = False) -> tuple[dict[str, dict], str]:
    """Every planned point ok with one record, the records that had landed before the fault untouched (not run, nor
    timed, again), every record naming the Dask worker and group that ran it, and (``in_order``: one worker at a
    time) the groups run in the planned order."""
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    recs = point_records(tmp)
    planned = plan(parse_config(SWEEP))
    assert sorted(recs) == sorted(p.point_id for p in planned), err[-2000:]
    assert {r["status"] for r in recs.values()} == {"ok"}, {k: r.get("error") for k, r in recs.items()}
    for pid, rec in landed_early.items():  # recorded before the fault: not run again, its record kept
        assert recs[pid]["finished_at"] == rec["finished_at"] and recs[pid]["epochs"] == rec["epochs"], pid
    planned_groups = list(groups(planned).values())
    for r in recs.values():
        k = r["process"]["dask_group"]
        assert r["point_id"] in [p.point_id for p in planned_groups[k]] and r["process"]["dask_worker"], r["process"]
    if in_order:  # the planned (repeat-major) order, whichever job ran it
        ran = [r["process"]["dask_group"] for r in sorted(recs.values(), key=lambda r: r["started_at"])]
        assert ran == sorted(ran), ran
    return recs, out


# --- SLURM ---------------------------------------------------------------------------------------------------------

SLURM_CONF = """ClusterName=bench
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MpiDefault=none
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory_mb} State=UNKNOWN
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


@pytest.fixture(scope="module")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A one-node SLURM cluster on 127.0.0.1 (module docstring); yields the environment that reaches it."""
    missing = [t for t in ("munged", "slurmctld", "slurmd", "sbatch", "scancel", "squeue") if not shutil.which(t)]
    if missing:
        pytest.fail(f"the SLURM tests need {', '.join(missing)}: {SLURM_INSTALL} (as root; .ci/run does)")
    folder = tmp_path_factory.mktemp("slurm")
    for sub in ("state", "spool"):
        (folder / sub).mkdir()
    host = socket.gethostname().split(".")[0]
    memory_mb = int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20 * 0.8)
    conf = folder / "slurm.conf"
    conf.write_text(SLURM_CONF.format(host=host, dir=folder, cpus=os.cpu_count(), memory_mb=memory_mb,
                                      ctld_port=free_port(), d_port=free_port()))
    env = {**os.environ, "SLURM_CONF": str(conf)}
    if subprocess.run(["pgrep", "-x", "munged"], capture_output=True).returncode:
        Path("/run/munge").mkdir(parents=True, exist_ok=True)
        shutil.chown("/run/munge", "munge", "munge")
        subprocess.run(["su", "-s", "/bin/sh", "munge", "-c", "munged"], check=True)
    subprocess.run(["slurmctld", "-f", str(conf)], check=True, env=env)
    subprocess.run(["slurmd", "-f", str(conf)], check=True, env=env)
    try:
        wait_until("the SLURM node idle", lambda: "idle" in subprocess.run(
            ["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, env=env).stdout, timeout=60)
        yield env
    finally:
        subprocess.run(["scancel", "--partition", "debug"], env=env, capture_output=True)
        for pid_file in ("slurmd.pid", "slurmctld.pid"):
            pid = (folder / pid_file).read_text().strip() if (folder / pid_file).exists() else ""
            if pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(pid), signal.SIGTERM)


@pytest.mark.slow
def test_a_cancelled_slurm_job_costs_at_most_the_group_it_was_running(slurm, tmp_path: Path) -> None:
    """launcher=slurm end to end on a real SLURM cluster; the job is cancelled (scancel) in the middle of the second
    group (its first point recorded): a replacement job runs the rest, the interrupted group again for its
    unrecorded point only, and every point ends ok once, in the planned order."""
    proc = start_bench(tmp_path, "launcher=slurm", "+slurm.cores=2", "+slurm.memory=4GB", "+slurm.queue=debug",
                       "+slurm.interface=lo", "+slurm.walltime=00:20:00", "dask_workers=1",
                       env={"SLURM_CONF": slurm["SLURM_CONF"]})
    early = wait_until("a group half done", lambda: mid_group(tmp_path), timeout=300, every=0.2)
    jobs = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True, env=slurm).stdout.split()
    assert jobs, "no SLURM job is running the sweep"
    subprocess.run(["scancel", *jobs], check=True, env=slurm)
    recs, _ = check_one_sweep(tmp_path, proc, early, in_order=True)
    assert len({r["process"]["dask_worker"] for r in recs.values()}) >= 2  # a replacement job ran the rest


# --- Dask from the command line ------------------------------------------------------------------------------------

def command_line_cluster(tmp_path: Path, workers: int) -> tuple[str, list[subprocess.Popen]]:
    """``dask scheduler`` and ``workers`` x ``dask worker … --nworkers 1 --resources machine=1`` on 127.0.0.1, as
    docs/scale.md says: the scheduler's address and the processes."""
    dask = shutil.which("dask", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    if dask is None:
        pytest.fail("the Dask tests need the dask command: pip install 'bench[dask]'")
    address = f"tcp://127.0.0.1:{free_port()}"
    log = (tmp_path / "dask.log").open("w")
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
                               "--dashboard-address", ":0", "--no-show"], stdout=log, stderr=log)]
    procs += [subprocess.Popen([dask, "worker", address, "--host", "127.0.0.1", "--nworkers", "1", "--nthreads", "1",
                                "--resources", "machine=1", "--no-dashboard", "--name", f"machine{i}"],
                               stdout=log, stderr=log) for i in range(workers)]
    from distributed import Client

    with Client(address, timeout=60) as client:  # the scheduler answers (and every worker has joined)
        if workers:
            client.wait_for_workers(workers, timeout=60)
    return address, procs


def stop(procs: list[subprocess.Popen]) -> None:
    for p in reversed(procs):
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[str]:
    """A command-line Dask cluster of two workers (:func:`command_line_cluster`); yields the scheduler's address."""
    address, procs = command_line_cluster(tmp_path, 2)
    try:
        yield address
    finally:
        stop(procs)


@pytest.mark.slow
def test_a_killed_worker_of_a_command_line_dask_cluster_is_retried_and_nothing_is_timed_twice(
        dask_cluster: str, tmp_path: Path) -> None:
    from distributed import Client

    proc = start_bench(tmp_path, "launcher=dask", f"dask_scheduler={dask_cluster}")
    early = wait_until("a group half done", lambda: mid_group(tmp_path), timeout=300, every=0.2)
    with Client(dask_cluster, timeout=30) as client:
        busy = wait_until("a worker running a group", lambda: [w for w, keys in client.processing().items() if keys])
        pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
    os.kill(pid, signal.SIGKILL)  # the worker process, not its nanny: the nanny starts it again
    recs, out = check_one_sweep(tmp_path, proc, early)
    # records land in one run as on one machine: each group in its corner of the run folder (the results folder is
    # relative, as the default is: a relative run folder once gave every group a dangling init link), with the
    # run's one set of initial weights, its log there, its own copies not read twice; the whole run's table
    (run_dir,) = (tmp_path / "results").iterdir()
    assert (run_dir / "init" / "fashion_cnn-s0.npz").is_file() and (run_dir / "tasks/group0/init").is_symlink()
    assert (run_dir / "tasks/group0/init/fashion_cnn-s0.npz").is_file()
    for r in recs.values():
        assert r["process"]["log"].startswith(f"tasks/group{r['process']['dask_group']}/logs/")
        assert (run_dir / r["process"]["log"]).is_file() and r["initial_weights"]["sha256"]
    assert not list((run_dir / "tasks").rglob("*.json"))
    assert re.search(r"fashion_cnn +jax +cpu +64 ", out)


@pytest.mark.slow
def test_a_cluster_left_without_workers_is_failed_records_not_a_hang(tmp_path: Path) -> None:
    """A scheduler whose workers are gone for good (none here): after BENCH_DASK_NO_WORKER_S every group is a failed
    record naming why, and the run ends, saying how many groups were lost and how to run them again."""
    address, procs = command_line_cluster(tmp_path, 0)
    try:
        proc = start_bench(tmp_path, "launcher=dask", f"dask_scheduler={address}", "repeats=1",
                           env={"BENCH_DASK_NO_WORKER_S": "3"})
        _, err = proc.communicate(timeout=120)
    finally:
        stop(procs)
    recs = point_records(tmp_path)
    assert len(recs) == 2 and {r["status"] for r in recs.values()} == {"failed"}, err[-2000:]
    assert all("no Dask worker for 3 s" in r["error"]["message"] for r in recs.values())
    assert proc.returncode == 1 and "1 worker group(s) lost their machine for good" in err and "resume=" in err
