"""The keys of a run: :class:`SuiteConfig` (each key's help is its field's metadata), the allowed values, and the
arithmetic a key's value implies without hardware or data (replicas of a strategy name, a global batch, the
steps_per_execution that divides an epoch). Imports no framework and reads no data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any

from omegaconf import MISSING

from bench.records.backends import BACKENDS, declares

PRECISIONS = ("float32", "mixed_float16", "mixed_bfloat16")
PRECISION_TAGS = {"float32": "fp32", "mixed_float16": "mp16", "mixed_bfloat16": "bf16"}
BATCH_SCALINGS = ("global", "per_replica")
DATA_SCALES = ("reduced", "full")
ALL_REDUCES = ("auto", "hierarchical_copy", "reduce_to_one", "nccl", "collective")
PROGRESS = ("auto", "on", "off")
INPUT_PIPELINES = ("default", "cached", "slow_decode", "autotune", "numpy")
USER_PIPELINE = "user"  # the input pipeline of a workload with its own input_fn (never asked for: it has no other)
REPEAT_SEEDS = ("same", "distinct")
AUTO_REPEATS = "auto"  # repeats=auto: adaptive repeats (bench.reporting.analysis.race)
FIXED_STRATEGIES = ("cpu", "cpu_onedevice", "gpu", "gpu_onedevice", "gpus", "tpu", "default", "auto")
# Names of TensorFlow's MultiWorkerMirroredStrategy: refused (a finding, not a hack). Keras 3 cannot train under it
# (keras-team/keras#20585, open since 2024-12; tensorflow#72388): model.fit fails in _maybe_symbolic_build with
# "Attempt to convert a value (PerReplica...)", reproduced with two localhost workers by tests/test_mwms.py, a
# strict xfail that flips the day Keras fixes it.
MULTI_WORKER_STRATEGIES = ("multi_worker", "multi_worker_mirrored", "multiworkermirrored", "mwms")
MULTI_WORKER_REFUSAL = (
    "TensorFlow's MultiWorkerMirroredStrategy does not train Keras 3 models (keras-team/keras#20585, open: fit "
    "fails with 'Attempt to convert a value (PerReplica...)', reproduced by bench's tests/test_mwms.py); data "
    "parallel on one host: gpus, tpu or cpu_xN")
# strategies that are tf.distribute wrappers and mean nothing under the JAX backend
TF_ONLY_STRATEGIES = ("cpu_onedevice", "gpu_onedevice", "default")
LAUNCHERS = ("local", "dask", "slurm")
DASK_INSTALL = "pip install 'bench[dask]'"
SLURM_INSTALL = "pip install 'bench[slurm]'"
JIT_COMPILE = ("auto", "true", "false")  # the values of the jit_compile key (Keras' own, as text)
MEASURE_PEAK = ("true", "false", "fresh")  # the values of the measure_peak key
FLOAT32_MATMUL = ("framework", "tf32", "highest")  # the values of the float32_matmul key
STRATEGY_HELP = ("cpu, cpu_onedevice, cpu_xN (N >= 2 logical CPUs, e.g. cpu_x2), gpu, gpu_onedevice, gpus, tpu, "
                 "default, auto")
CPU_X = re.compile(r"cpu_x(\d+)")
IDENT = re.compile(r"[A-Za-z0-9_.-]+")


class ConfigError(ValueError):
    """Bad input: the message names the key, the value and what is allowed."""


def _help(text: str) -> dict[str, str]:
    """A config key's ``field`` metadata: its help text, written once (``--help`` and error messages use it)."""
    return {"help": text}


@dataclass
class SuiteConfig:
    """All the axes and settings of one run. Units are in the names (``_s`` = seconds). Each key's help is
    its field's ``metadata["help"]`` (:func:`key_help`)."""

    defaults: list[Any] = field(default_factory=lambda: ["_self_", {"suite": MISSING}])
    name: str = MISSING  # the suite's name (set from the YAML file name)
    description: str = ""
    workloads: list[str] = field(default_factory=list, metadata=_help("a list of workloads, e.g. [fashion_cnn]"))
    strategies: list[str] = field(default_factory=lambda: ["cpu"], metadata=_help(STRATEGY_HELP))
    batch_sizes: list[int] = field(default_factory=lambda: [128], metadata=_help(
        "a list of positive integers (global batch sizes), e.g. [32,128]"))
    # per_replica: each batch size x the strategy's replicas (tutorial 001's TPU sizing)
    batch_scaling: str = field(default="global", metadata=_help("global | per_replica"))
    steps_per_execution: list[int] = field(default_factory=lambda: [1], metadata=_help(
        "a list of positive integers (steps per host call), e.g. [1,16]"))
    precisions: list[str] = field(default_factory=lambda: ["float32"], metadata=_help(
        "float32 | mixed_float16 | mixed_bfloat16"))
    backends: list[str] = field(default_factory=lambda: [BACKENDS[0]], metadata=_help(
        "a list of Keras backends: tensorflow | jax | torch, e.g. [tensorflow,jax,torch] (torch: one device, spe 1)"))
    epochs: int = field(default=3, metadata=_help("an integer >= 2 (epoch 1 is the warm-up epoch)"))
    # auto: adaptive repeats (bench.reporting.analysis.race), up to max_repeats, within budget_s
    repeats: Any = field(default=1, metadata=_help(
        "an integer >= 1 (independent repetitions per point) | auto (repeats only where they can change the answer,"
        " up to max_repeats)"))
    max_repeats: int = field(default=5, metadata=_help("an integer >= 2 (the most repeats repeats=auto gives a point)"))
    budget_s: float = field(default=0.0, metadata=_help(
        "a number of seconds >= 0 (repeats=auto: no further round once the run's points took this long; 0 = none)"))
    # same: every repeat uses `seed` (timing noise only)
    repeat_seeds: str = field(default="distinct", metadata=_help(
        "distinct | same (distinct: repeat r trains from seed + r, a training run per repeat; same: every repeat "
        "from seed, timing noise only, and no accuracy claim)"))
    seed: int = field(default=0, metadata=_help("an integer >= 0 (model init + data order)"))
    data: str = field(default="synthetic", metadata=_help(
        "synthetic | keras:NAME (mnist, fashion_mnist, cifar10, reuters, imdb) | folder:PATH | csv:PATH/train.csv"
        " | tfrecord:GLOB (the data every workload trains on; synthetic: each workload's embedded data)"))
    data_scale: str = field(default="reduced", metadata=_help("reduced | full (the tutorials' dataset sizes)"))
    n_train: int = field(default=0, metadata=_help("an integer >= 0 (training examples; 0 = by data_scale)"))
    n_val: int = field(default=0, metadata=_help("an integer >= 0 (validation examples; 0 = by data_scale)"))
    input_pipelines: list[str] = field(default_factory=lambda: ["default"], metadata=_help(
        "a list of input pipelines: default (bench's fixed tf.data settings; images from files decoded every "
        "epoch) | cached (decoded once, then cached before augmentation) | slow_decode (un-parallelised decode, 5 ms "
        "an example: input-bound demo) | autotune (the tutorials' tf.data.AUTOTUNE settings, autotune on) | numpy "
        "(arrays straight into fit), e.g. [default,autotune,numpy]"))
    input_pipeline: str = field(default="", metadata=_help(
        "one input pipeline: input_pipeline=NAME is input_pipelines=[NAME] (default | cached | slow_decode | "
        "autotune | numpy)"))
    all_reduce: str = field(default="auto", metadata=_help(
        "auto | hierarchical_copy | reduce_to_one | nccl | collective"))  # auto: one that works with spe > 1
    jit_compile: list[str] = field(default_factory=lambda: ["false"], metadata=_help(
        "a list of compiler settings, e.g. [auto,true,false]: true (TensorFlow: XLA; PyTorch: torch.compile) | "
        "false (TensorFlow's graph executor; PyTorch eager) | auto (Keras' own choice: TensorFlow XLA on a GPU or "
        "TPU without a strategy scope, PyTorch eager); JAX always jits (one point); records say what ran"))
    tpu_type: str = field(default="", metadata=_help(
        "'' (TPU_ACCELERATOR_TYPE on a TPU VM, else v5litepod-8 assumed) | a Cloud TPU type, e.g. v5litepod-1 "
        "(Colab), v5litepod-8 (Kaggle), v3-8, v4-8, v6e-1 (the doctor's replicas per TPU)"))
    tpu: str = field(default="", metadata=_help("TPU address ('' = TPU_NAME env or 'local')"))
    tpu_connect_timeout_s: float = field(default=60.0, metadata=_help("a positive number of seconds"))
    point_timeout_s: float = field(default=1800.0, metadata=_help(
        "a positive number of seconds per point before it is stopped"))  # and recorded as failed
    results_dir: str = field(default="results", metadata=_help("a writable folder for records"))
    reports_dir: str = field(default="reports", metadata=_help("a writable folder for reports"))
    report: bool = field(default=True, metadata=_help("true | false (write a report at the end)"))
    baseline: str = field(default="cpu", metadata=_help("a strategy name the report compares with"))
    prices: str = field(default="", metadata=_help(
        "'' (suites/prices/cloud.yaml) | a YAML file of your prices for the report's Cost sections (docs/cost.md)"))
    parity_margin_pp: float = field(default=2.0, metadata=_help(
        "a number >= 0 (percentage points: two configurations whose mean accuracy difference over seeds lies "
        "within ± it are reported equivalent)"))
    resume: str = field(default="", metadata=_help("'' | latest (the newest run of this suite) | <run_id>"))
    progress: str = field(default="auto", metadata=_help("auto | on | off"))  # auto: live only on a terminal
    measure_input: bool = field(default=True, metadata=_help("true | false (time the input pipeline alone)"))
    second_batch: bool = field(default=True, metadata=_help(
        "true | false (after a point whose configuration the sweep runs at one batch only, time a short extra "
        "stage at half the batch: what tells a step's fixed cost from the part that grows with the batch)"))
    measure_peak: Any = field(default=True, metadata=_help(
        "true | false | fresh (the devices' matmul peak, for MFU: true reads it from this host's cache, measured "
        "in a process of its own when absent or older than 30 days; fresh measures it again; docs/statistics.md)"))
    float32_matmul: str = field(default="framework", metadata=_help(
        "framework | tf32 | highest (float32 matmuls and convolutions on a GPU: framework keeps each framework's "
        "default: JAX and TensorFlow TF32 for both, PyTorch FP32 matmuls and TF32 convolutions; tf32 or highest "
        "runs every backend at one arithmetic; CPUs and TPUs are left as they are)"))
    processes: list[int] = field(default_factory=lambda: [1], metadata=_help(
        "a list of process counts for JAX points, e.g. [1,2]: N cooperating processes share the strategy's "
        "devices (cpu_x2 with 2: one CPU device each; docs/scale.md)"))
    coordinator_port: int = field(default=0, metadata=_help(
        "an integer 0..65535: the port on 127.0.0.1 of a multi-process point's JAX coordinator (0 = a free one)"))
    process_id: int = field(default=-1, metadata=_help(
        "-1 (bench starts every process of a processes=N point here) | I: this machine runs process I of a "
        "multi-host job, one bench per host (docs/scale.md)"))
    coordinator: str = field(default="", metadata=_help(
        "HOST:PORT of process 0's machine, with process_id (worker group k's coordinator listens on PORT + k)"))
    launcher: str = field(default="local", metadata=_help(
        "local (worker processes on this machine) | dask (a Dask cluster: dask_scheduler, or a LocalCluster) | "
        "slurm (Dask workers as SLURM jobs: slurm.*); docs/scale.md"))
    dask_scheduler: str = field(default="", metadata=_help(
        "'' (bench starts a LocalCluster on 127.0.0.1) | the address of a running Dask scheduler, e.g. "
        "tcp://10.0.0.2:8786 (launcher=dask)"))
    dask_workers: int = field(default=1, metadata=_help(
        "an integer >= 1: the LocalCluster's workers, or the SLURM jobs (one machine each)"))
    slurm: dict[str, Any] = field(default_factory=dict, metadata=_help(
        "dask-jobqueue SLURMCluster settings for launcher=slurm, each as +slurm.KEY=VALUE, e.g. +slurm.cores=16 "
        "+slurm.memory=64GB +slurm.queue=gpu +slurm.walltime='02:00:00'"))
    shard: str = field(default="", metadata=_help(
        "'' (the whole sweep) | I/N: this machine's deterministic 1/N of the configurations, e.g. 2/3"))
    # per-workload replacements of the sweep axes, e.g. {catsdogs_cnn: {batch_sizes: [32]}}: a heavy model
    # can run fewer points than a light one in the same suite (keys: AXIS_KEYS)
    workload_axes: dict[str, Any] = field(default_factory=dict, metadata=_help(
        "per-workload batch_sizes / steps_per_execution, e.g. workload_axes.catsdogs_cnn.batch_sizes=[32]"
        " (~workload_axes sweeps every workload over the suite's axes)"))


SHARD = re.compile(r"(\d+)/(\d+)")


def shard_of(spec: str) -> tuple[int, int] | None:
    """(I, N) of a ``shard=I/N`` value (1 <= I <= N), None for the whole sweep; ConfigError otherwise."""
    if not spec:
        return None
    m = SHARD.fullmatch(spec.strip())
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise ConfigError(f"shard={spec!r}: allowed: '' (the whole sweep) or I/N with 1 <= I <= N, e.g. shard=2/3")
    return int(m.group(1)), int(m.group(2))


def check_list(key: str, values: list[Any], allowed_help: str) -> None:
    """A list key is not empty and lists each value once; ConfigError naming the key otherwise."""
    if not values:
        raise ConfigError(f"{key}: must not be empty; allowed: {allowed_help}")
    dup = sorted({v for v in values if values.count(v) > 1}, key=str)
    if dup:
        raise ConfigError(f"{key}: duplicate value(s) {dup}; list each value once")


def key_help(name: str) -> str:
    """The help text of the config key ``name`` ("" for an unknown key)."""
    f = SuiteConfig.__dataclass_fields__.get(name)
    return f.metadata.get("help", "") if f is not None else ""


def user_keys() -> list[str]:
    """The keys a suite or the command line may set (not Hydra's ``defaults``, not the suite's ``name``)."""
    return [f.name for f in fields(SuiteConfig) if f.name not in ("defaults", "name")]


AXIS_KEYS = ("batch_sizes", "steps_per_execution")


def axes_for(cfg: SuiteConfig, workload: str) -> dict[str, list[int]]:
    """The batch sizes and steps_per_execution values a workload sweeps (``workload_axes`` over the suite's)."""
    own = cfg.workload_axes.get(workload) or {}
    return {k: [int(v) for v in own.get(k, getattr(cfg, k))] for k in AXIS_KEYS}


def logical_cpus(name: str) -> int | None:
    """N of a ``cpu_xN`` strategy name (N logical CPU devices), None for any other name."""
    m = CPU_X.fullmatch(name)
    return int(m.group(1)) if m else None


def splits(strategy: str, processes: int, hosts: bool = False) -> bool:
    """Whether ``strategy`` runs as ``processes`` cooperating processes: one process always; more for ``cpu_xN``
    with N a multiple of the count (each process gets N / count devices), and, one process per host
    (``hosts``), for ``gpus`` and ``tpu`` (every host's devices)."""
    n = logical_cpus(strategy)
    if processes == 1 or (n is not None and processes > 1 and n % processes == 0):
        return True
    return hosts and strategy in ("gpus", "tpu")


def strategy_replicas(name: str) -> int | None:
    """Replica count a strategy name implies without touching hardware (None: known only at run time)."""
    m = CPU_X.fullmatch(name)
    if m:
        return int(m.group(1))
    return 1 if name in ("cpu", "cpu_onedevice", "gpu", "gpu_onedevice", "default") else None


def effective_steps_per_execution(requested: int, steps: int) -> int:
    """The steps_per_execution a point runs with ``steps`` steps per epoch: the largest divisor of ``steps``
    not above ``requested`` (``requested`` itself when it divides ``steps``).

    Given ``steps_per_epoch`` on a repeated dataset (how bench, and tutorial 001, feed ``fit``), Keras 3.15 runs
    whole executions: ``ceil(steps / spe)`` of them per epoch, under both backends. With 36 steps and
    ``steps_per_execution=32`` an "epoch" trains 64 batches, 28 of them the next epoch's, so the epochs, the
    data order and the accuracy per epoch no longer match a point with another ``steps_per_execution``. A
    divisor keeps every point's epochs exactly the data's.
    """
    return max(d for d in range(1, min(requested, steps) + 1) if steps % d == 0)


def global_batch(batch: int, batch_scaling: str, replicas: int) -> int:
    """The global batch (examples per step) of a listed batch size: the value itself, or value x replicas."""
    return batch * replicas if batch_scaling == "per_replica" else batch


def list_keys() -> list[str]:
    """The keys whose value is a list (``strategies``, ``batch_sizes``, …; not Hydra's ``defaults``)."""
    return [f.name for f in fields(SuiteConfig) if f.name in user_keys() and str(f.type).startswith("list[")]


def as_list_override(arg: str) -> str:
    """A command-line ``key=value`` for a list key written without brackets, as a list: ``strategies=cpu`` ->
    ``strategies=[cpu]``, ``strategies=cpu,cpu_x2`` -> ``strategies=[cpu,cpu_x2]`` (Hydra would call the first a
    string that is not a list and the second an ambiguous sweep); anything else unchanged."""
    key, eq, value = arg.partition("=")
    if not eq or key not in list_keys() or not value or value.lstrip().startswith("["):
        return arg
    return f"{key}=[{value}]"


JIT_VALUES: dict[str, bool | str] = {"true": True, "false": False, "auto": "auto"}  # config text -> Keras' value


def jit_values(cfg: SuiteConfig, backend: str, strategy: str = "") -> list[bool | str]:
    """The ``jit_compile`` values a backend's points on ``strategy`` run with: the suite's, as Keras takes them; one
    (False in the point) under JAX, where Keras always jits, and for TensorFlow's ``tpu``, which TPUStrategy always
    compiles with XLA (their records say so)."""
    if declares(backend, "always_compiles") or strategy == "tpu":
        return [False]
    return [JIT_VALUES[v] for v in cfg.jit_compile]


def is_raced(cfg: SuiteConfig) -> bool:
    """Whether the run gives repeats adaptively (``repeats=auto``)."""
    return cfg.repeats == AUTO_REPEATS


def most_repeats(cfg: SuiteConfig) -> int:
    """The most repeats a point of the run can get: ``repeats``, or ``max_repeats`` under ``repeats=auto``."""
    return int(cfg.max_repeats) if is_raced(cfg) else int(cfg.repeats)


def race_settings(cfg: SuiteConfig) -> dict[str, Any] | None:
    """What every record of a ``repeats=auto`` run carries as ``race`` (None for a fixed number of repeats)."""
    return {"max_repeats": int(cfg.max_repeats), "budget_s": float(cfg.budget_s)} if is_raced(cfg) else None
