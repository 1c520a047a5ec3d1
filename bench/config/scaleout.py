"""Validation of the keys that take a run past one process or one machine: ``processes``, ``coordinator_port``,
``process_id`` and ``coordinator`` (one point in several JAX processes or hosts), ``launcher`` and its Dask and
SLURM settings (a sweep on a cluster). Each failure is one line naming the key and what is allowed."""

from __future__ import annotations

from bench.config.keys import LAUNCHERS, ConfigError, SuiteConfig, check_list, splits
from bench.records.backends import SPECS

MULTI = [name for name, b in SPECS.items() if b.multi_process]  # backends that run a point over processes


def check_processes(cfg: SuiteConfig) -> None:
    """``processes``: counts >= 1; more than one only under jax (TensorFlow's multi-worker strategy does not work
    with Keras 3) and only where a strategy splits into that many processes here (cpu_xN, N a multiple)."""
    check_list("processes", cfg.processes, "positive integers, e.g. [1,2]")
    for i, p in enumerate(cfg.processes):
        if not isinstance(p, int) or p < 1:
            raise ConfigError(f"processes[{i}]={p!r}: must be a positive integer (1 = one process per point)")
        if p == 1:
            continue
        if not set(cfg.backends) & set(MULTI):
            raise ConfigError(f"processes[{i}]={p}: more than one process per point runs under backends="
                              f"[{', '.join(MULTI)}] only (TensorFlow's MultiWorkerMirroredStrategy does not train "
                              f"Keras 3 models: keras-team/keras#20585); add {MULTI[0]} to backends, e.g. "
                              f"backends=[{MULTI[0]}]")
        if not any(splits(s, p, cfg.process_id >= 0) for s in cfg.strategies):
            raise ConfigError(f"processes[{i}]={p}: none of strategies={list(cfg.strategies)} splits into {p} "
                              f"processes on one machine; allowed: cpu_xN with N a multiple of {p}, e.g. "
                              f"strategies=[cpu_x{p}] (several hosts: docs/scale.md)")
    if not isinstance(cfg.coordinator_port, int) or not 0 <= cfg.coordinator_port <= 65535:
        raise ConfigError(f"coordinator_port={cfg.coordinator_port!r}: allowed: an integer 0..65535 (0 = a free port)")
    if cfg.process_id != -1 or cfg.coordinator:
        check_hosts(cfg)


def check_launcher(cfg: SuiteConfig) -> None:
    """``launcher`` and its settings: a Dask scheduler only with launcher=dask, SLURM settings with launcher=slurm
    (``cores`` and ``memory`` at least), never with one bench per host (its hosts are started by their own job)."""
    if cfg.launcher not in LAUNCHERS:
        raise ConfigError(f"launcher={cfg.launcher!r} is not allowed; allowed: {', '.join(LAUNCHERS)}")
    if not isinstance(cfg.dask_workers, int) or cfg.dask_workers < 1:
        raise ConfigError(f"dask_workers={cfg.dask_workers!r}: must be an integer >= 1")
    if cfg.dask_scheduler and cfg.launcher != "dask":
        raise ConfigError(f"dask_scheduler={cfg.dask_scheduler!r}: only with launcher=dask")
    if cfg.dask_scheduler and "://" not in cfg.dask_scheduler:
        raise ConfigError(f"dask_scheduler={cfg.dask_scheduler!r}: allowed: a scheduler address such as "
                          "tcp://10.0.0.2:8786, or '' (a LocalCluster on 127.0.0.1)")
    if cfg.slurm and cfg.launcher != "slurm":
        raise ConfigError(f"slurm={dict(cfg.slurm)}: only with launcher=slurm")
    if cfg.launcher == "slurm":
        missing = [k for k in ("cores", "memory") if k not in cfg.slurm]
        if missing:
            raise ConfigError(f"launcher=slurm needs {', '.join('slurm.' + k for k in missing)} (each job's CPU cores "
                              "and memory, e.g. +slurm.cores=16 +slurm.memory=64GB); other SLURMCluster settings: "
                              "+slurm.queue, +slurm.account, +slurm.walltime, +slurm.job_extra_directives")
    if cfg.launcher != "local" and cfg.process_id >= 0:
        raise ConfigError(f"launcher={cfg.launcher}: not with process_id (a multi-host job is one bench per host, "
                          "started by the hosts' own launcher)")
    if cfg.repeats == "auto" and cfg.process_id >= 0:
        raise ConfigError("repeats=auto: not with process_id (one bench per host: each host would decide its rounds "
                          "from records only host 0 writes); allowed: a whole number of repeats")
    if cfg.repeats == "auto" and cfg.shard:
        raise ConfigError("repeats=auto: not with shard (each shard would race its configurations alone, without "
                          "the baselines and leaders of the others); allowed: a whole number of repeats")
    if cfg.repeats == "auto" and cfg.repeat_seeds != "distinct":
        raise ConfigError(f"repeats=auto: not with repeat_seeds={cfg.repeat_seeds} (the race judges accuracy over "
                          "seeds); allowed: repeat_seeds=distinct")


def check_hosts(cfg: SuiteConfig) -> None:
    """One bench per host (``process_id=I coordinator=HOST:PORT``): every host must plan the same points, in the same
    order, each of them a multi-process JAX point."""
    n = cfg.processes[0]
    if len(cfg.processes) != 1 or n < 2:
        raise ConfigError(f"processes={list(cfg.processes)}: with process_id, one count of 2 or more, the job's "
                          "processes (one per host), e.g. processes=[4]")
    if not isinstance(cfg.process_id, int) or not 0 <= cfg.process_id < n:
        raise ConfigError(f"process_id={cfg.process_id!r}: allowed: 0 .. {n - 1} (this host's index in the job), "
                          "or -1 (bench starts every process here)")
    host, _, port = cfg.coordinator.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) <= 65535:
        raise ConfigError(f"coordinator={cfg.coordinator!r}: allowed: HOST:PORT of process 0's machine, e.g. "
                          "coordinator=10.0.0.2:8476 (needed with process_id)")
    if not set(cfg.backends) <= set(MULTI):
        raise ConfigError(f"backends={list(cfg.backends)}: a multi-host job runs backends=[{', '.join(MULTI)}] only")
    if cfg.resume:
        raise ConfigError(f"resume={cfg.resume!r}: not with process_id (every host must run the same points; "
                          "start the job again)")
