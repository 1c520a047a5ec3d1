"""Typed run configuration and its validation. Imports no TensorFlow.

A suite YAML (``suites/<name>.yaml``) sets values of :class:`SuiteConfig`; command-line overrides
(``batch_sizes=[32,256] epochs=3``) are applied on top by :mod:`bench.cli`. Every cross-field rule is
checked here, before any TensorFlow import, and reported as one line that names the key and what is
allowed (:class:`ConfigError`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from omegaconf import MISSING

from bench.records import BACKENDS

PRECISIONS = ("float32", "mixed_float16", "mixed_bfloat16")
PRECISION_TAGS = {"float32": "fp32", "mixed_float16": "mp16", "mixed_bfloat16": "bf16"}
BATCH_SCALINGS = ("global", "per_replica")
DATA_SCALES = ("reduced", "full")
ALL_REDUCES = ("auto", "hierarchical_copy", "reduce_to_one", "nccl", "collective")
PROGRESS = ("auto", "on", "off")
INPUT_PIPELINES = ("default", "cached", "slow_decode")
REPEAT_SEEDS = ("same", "distinct")
FIXED_STRATEGIES = ("cpu", "cpu_onedevice", "gpu", "gpu_onedevice", "gpus", "tpu", "default", "auto")
# strategies that are tf.distribute wrappers and mean nothing under the JAX backend
TF_ONLY_STRATEGIES = ("cpu_onedevice", "gpu_onedevice", "default")
TF_INSTALL = "pip install 'bench[tensorflow]' (or run backends=[jax])"
JAX_INSTALL = ("pip install 'bench[jax]' (CPU); on a GPU box pip install -U 'jax[cuda12]'; "
               "on a TPU VM pip install -U 'jax[tpu]'")
STRATEGY_HELP = ("cpu, cpu_onedevice, cpu_xN (N >= 2 logical CPUs, e.g. cpu_x2), gpu, gpu_onedevice, gpus, tpu, "
                 "default, auto")
_CPU_X = re.compile(r"cpu_x(\d+)")
_IDENT = re.compile(r"[A-Za-z0-9_.-]+")


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
    # per_replica: each batch size x the strategy's replicas (seed 001's TPU sizing)
    batch_scaling: str = field(default="global", metadata=_help("global | per_replica"))
    steps_per_execution: list[int] = field(default_factory=lambda: [1], metadata=_help(
        "a list of positive integers (steps per host call), e.g. [1,16]"))
    precisions: list[str] = field(default_factory=lambda: ["float32"], metadata=_help(
        "float32 | mixed_float16 | mixed_bfloat16"))
    backends: list[str] = field(default_factory=lambda: ["tensorflow"], metadata=_help(
        "a list of Keras backends: tensorflow | jax, e.g. [tensorflow,jax]"))
    epochs: int = field(default=3, metadata=_help("an integer >= 2 (epoch 1 is the warm-up epoch)"))
    repeats: int = field(default=1, metadata=_help("an integer >= 1 (independent repetitions per point)"))
    # same: every repeat uses `seed` (timing noise only)
    repeat_seeds: str = field(default="same", metadata=_help("same | distinct (distinct: repeat r uses seed + r)"))
    seed: int = field(default=0, metadata=_help("an integer >= 0 (model init + data order)"))
    data: str = field(default="synthetic", metadata=_help(
        "synthetic | keras:NAME (mnist, fashion_mnist, cifar10, reuters, imdb) | folder:PATH | csv:PATH/train.csv"
        " | tfrecord:GLOB (the data every workload trains on; synthetic: each workload's embedded data)"))
    data_scale: str = field(default="reduced", metadata=_help("reduced | full (the seeds' dataset sizes)"))
    n_train: int = field(default=0, metadata=_help("an integer >= 0 (training examples; 0 = by data_scale)"))
    n_val: int = field(default=0, metadata=_help("an integer >= 0 (validation examples; 0 = by data_scale)"))
    input_pipelines: list[str] = field(default_factory=lambda: ["default"], metadata=_help(
        "a list of input pipelines: default (images from files decoded every epoch) | cached (decoded once, "
        "then cached before augmentation) | slow_decode (un-parallelised decode: input-bound demo), e.g. "
        "[default,cached]"))
    input_pipeline: str = field(default="", metadata=_help(
        "one input pipeline: input_pipeline=NAME is input_pipelines=[NAME] (default | cached | slow_decode)"))
    all_reduce: str = field(default="auto", metadata=_help(
        "auto | hierarchical_copy | reduce_to_one | nccl | collective"))  # auto: one that works with spe > 1
    tpu: str = field(default="", metadata=_help("TPU address ('' = TPU_NAME env or 'local')"))
    tpu_connect_timeout_s: float = field(default=60.0, metadata=_help("a positive number of seconds"))
    point_timeout_s: float = field(default=1800.0, metadata=_help(
        "a positive number of seconds per point before it is stopped"))  # and recorded as failed
    results_dir: str = field(default="results", metadata=_help("a writable folder for records"))
    reports_dir: str = field(default="reports", metadata=_help("a writable folder for reports"))
    report: bool = field(default=True, metadata=_help("true | false (write a report at the end)"))
    baseline: str = field(default="cpu", metadata=_help("a strategy name the report compares with"))
    parity_tolerance_pp: float = field(default=1.0, metadata=_help(
        "a number >= 0 (accuracy spread in percentage points the report flags)"))
    resume: str = field(default="", metadata=_help("'' | latest | <run_id>"))
    progress: str = field(default="auto", metadata=_help("auto | on | off"))  # auto: live only on a terminal
    measure_input: bool = field(default=True, metadata=_help("true | false (time the input pipeline alone)"))
    measure_peak: bool = field(default=True, metadata=_help("true | false (measure the device matmul peak)"))
    # per-workload replacements of the sweep axes, e.g. {catsdogs_cnn: {batch_sizes: [32]}}: a heavy model
    # can run fewer points than a light one in the same suite (keys: AXIS_KEYS)
    workload_axes: dict[str, Any] = field(default_factory=dict, metadata=_help(
        "per-workload batch_sizes / steps_per_execution, e.g. workload_axes.catsdogs_cnn.batch_sizes=[32]"
        " (~workload_axes sweeps every workload over the suite's axes)"))


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
    m = _CPU_X.fullmatch(name)
    return int(m.group(1)) if m else None


def strategy_replicas(name: str) -> int | None:
    """Replica count a strategy name implies without touching hardware (None: known only at run time)."""
    m = _CPU_X.fullmatch(name)
    if m:
        return int(m.group(1))
    return 1 if name in ("cpu", "cpu_onedevice", "gpu", "gpu_onedevice", "default") else None


def _check_list(key: str, values: list[Any], allowed_help: str) -> None:
    if not values:
        raise ConfigError(f"{key}: must not be empty; allowed: {allowed_help}")
    dup = sorted({v for v in values if values.count(v) > 1}, key=str)
    if dup:
        raise ConfigError(f"{key}: duplicate value(s) {dup}; list each value once")


def _check_choice(key: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"{key}={value!r} is not allowed; allowed: {', '.join(allowed)}")


def _check_axes(prefix: str, batch_sizes: list[Any], spes: list[Any]) -> None:
    _check_list(f"{prefix}batch_sizes", batch_sizes, "positive integers, e.g. [32,128]")
    for i, b in enumerate(batch_sizes):
        if not isinstance(b, int) or b < 1:
            raise ConfigError(f"{prefix}batch_sizes[{i}]={b!r}: must be a positive integer")
    _check_list(f"{prefix}steps_per_execution", spes, "positive integers, e.g. [1,16]")
    for i, s in enumerate(spes):
        if not isinstance(s, int) or s < 1:
            raise ConfigError(f"{prefix}steps_per_execution[{i}]={s!r}: must be a positive integer "
                              "(1 = one step per call)")


def validate(cfg: SuiteConfig) -> SuiteConfig:
    """Check every key and cross-field rule; raise ConfigError with one clear line. Returns cfg."""
    _check_data(cfg)
    _check_names(cfg)
    _check_backends(cfg)
    _check_sweep_axes(cfg)
    _check_choices(cfg)
    _check_numbers(cfg)
    _check_all_reduce(cfg)
    _check_batches(cfg)
    check_writable("results_dir", cfg.results_dir)
    if cfg.report:
        check_writable("reports_dir", cfg.reports_dir)
    _check_installed(cfg)  # last: a typo in a key is the first thing to tell, whatever is installed
    return cfg


def _check_data(cfg: SuiteConfig) -> None:
    """The data source parses and can be read (a Keras dataset is in the cache or downloaded now)."""
    from bench.data.sources import SourceError, describe, is_synthetic, parse

    try:
        parse(cfg.data)
        if not is_synthetic(cfg.data):
            describe(cfg.data)
    except SourceError as e:
        raise ConfigError(f"data={cfg.data!r}: {str(e).removeprefix(cfg.data + ': ')}") from None


def _check_names(cfg: SuiteConfig) -> None:
    """Workloads (built-in names or import paths of user workloads) and strategies are known names, and
    each workload can take the data."""
    from bench.data.sources import SourceError
    from bench.workloads import WORKLOADS, WorkloadError, get_workload, is_import_path

    _check_list("workloads", cfg.workloads, ", ".join(WORKLOADS))
    for i, w in enumerate(cfg.workloads):
        if not is_import_path(w) and w not in WORKLOADS:
            raise ConfigError(f"workloads[{i}]={w!r} is not a workload; allowed: {', '.join(WORKLOADS)}, "
                              "or an import path my_pkg.my_module:make")
        try:  # a user workload: imports its module, calls its factory and data, checks the arrays
            get_workload(w, cfg.data)
        except (WorkloadError, SourceError) as e:
            raise ConfigError(f"workloads[{i}]={w!r}: {str(e).removeprefix(w + ': ')}") from None
    _check_list("strategies", cfg.strategies, STRATEGY_HELP)
    for i, s in enumerate(cfg.strategies):
        m = _CPU_X.fullmatch(s)
        if s not in FIXED_STRATEGIES and not (m and int(m.group(1)) >= 2):
            raise ConfigError(f"strategies[{i}]={s!r} is not a strategy; allowed: {STRATEGY_HELP}")
        if m and int(m.group(1)) > 64:
            raise ConfigError(f"strategies[{i}]={s!r}: at most 64 logical CPUs (cpu_x2 .. cpu_x64)")


def _check_backends(cfg: SuiteConfig) -> None:
    """Known backends; under jax, only strategies that mean something there."""
    _check_list("backends", cfg.backends, ", ".join(BACKENDS))
    for i, b in enumerate(cfg.backends):
        if b not in BACKENDS:
            raise ConfigError(f"backends[{i}]={b!r} is not a Keras backend bench runs; allowed: {', '.join(BACKENDS)}")
    if "jax" not in cfg.backends:
        return
    for i, s in enumerate(cfg.strategies):
        if s in TF_ONLY_STRATEGIES:
            raise ConfigError(f"strategies[{i}]={s!r} is a tf.distribute wrapper with no meaning under backends=jax; "
                              "allowed with jax: cpu, cpu_xN, gpu, gpus, tpu, auto")


def _check_installed(cfg: SuiteConfig) -> None:
    """Every backend asked for is installed here (found, not imported: validation imports no framework)."""
    import importlib.util

    for backend, install in (("tensorflow", TF_INSTALL), ("jax", JAX_INSTALL)):
        if backend in cfg.backends and importlib.util.find_spec(backend) is None:
            raise ConfigError(f"backends: {backend} is not installed in this environment; install it with {install}")


def _check_sweep_axes(cfg: SuiteConfig) -> None:
    """Batch sizes and steps_per_execution, the suite's and each workload's own (``workload_axes``)."""
    from bench.workloads import WORKLOADS

    _check_axes("", cfg.batch_sizes, cfg.steps_per_execution)
    for w, axes in cfg.workload_axes.items():
        if w not in WORKLOADS and w not in cfg.workloads:  # a known workload this run does not include is unused
            raise ConfigError(f"workload_axes.{w}: not a workload; allowed: {', '.join(WORKLOADS)}")
        if not isinstance(axes, dict) or set(axes) - set(AXIS_KEYS):
            bad = sorted(set(axes) - set(AXIS_KEYS)) if isinstance(axes, dict) else axes
            raise ConfigError(f"workload_axes.{w}: {bad!r} not allowed; allowed keys: {', '.join(AXIS_KEYS)}")
        _check_axes(f"workload_axes.{w}.", *axes_for(cfg, w).values())


def _check_choices(cfg: SuiteConfig) -> None:
    """Keys with a fixed set of values."""
    _check_list("precisions", cfg.precisions, ", ".join(PRECISIONS))
    for i, p in enumerate(cfg.precisions):
        if p not in PRECISIONS:
            raise ConfigError(f"precisions[{i}]={p!r} is not allowed; allowed: {', '.join(PRECISIONS)}")
    _check_choice("batch_scaling", cfg.batch_scaling, BATCH_SCALINGS)
    _check_choice("data_scale", cfg.data_scale, DATA_SCALES)
    _check_choice("all_reduce", cfg.all_reduce, ALL_REDUCES)
    _check_choice("progress", cfg.progress, PROGRESS)
    if cfg.input_pipeline:  # the one-pipeline shorthand (a command line's wins over a suite's list)
        _check_choice("input_pipeline", cfg.input_pipeline, INPUT_PIPELINES)
        cfg.input_pipelines = [cfg.input_pipeline]
    _check_list("input_pipelines", cfg.input_pipelines, ", ".join(INPUT_PIPELINES))
    for i, p in enumerate(cfg.input_pipelines):
        if p not in INPUT_PIPELINES:
            raise ConfigError(f"input_pipelines[{i}]={p!r} is not allowed; allowed: {', '.join(INPUT_PIPELINES)}")
    _check_choice("repeat_seeds", cfg.repeat_seeds, REPEAT_SEEDS)


def _check_numbers(cfg: SuiteConfig) -> None:
    """Counts, sizes, tolerances, time limits and the run to resume."""
    if not cfg.parity_tolerance_pp >= 0:
        raise ConfigError(f"parity_tolerance_pp={cfg.parity_tolerance_pp}: must be >= 0 (percentage points)")
    if cfg.epochs < 2:
        raise ConfigError(f"epochs={cfg.epochs}: must be >= 2 (epoch 1 is warm-up; steady state is epochs 2..n)")
    from bench.workloads import MIN_STAGED_EPOCHS, get_workload

    for w in cfg.workloads:
        if cfg.epochs < MIN_STAGED_EPOCHS and get_workload(w, cfg.data).frozen:
            raise ConfigError(f"epochs={cfg.epochs}: {w} trains in two stages (frozen backbone, then fine-tuning, "
                              f"half the epochs each): must be >= {MIN_STAGED_EPOCHS}")
    if cfg.repeats < 1:
        raise ConfigError(f"repeats={cfg.repeats}: must be >= 1")
    if cfg.seed < 0:
        raise ConfigError(f"seed={cfg.seed}: must be >= 0")
    for key in ("n_train", "n_val"):
        if getattr(cfg, key) < 0:
            raise ConfigError(f"{key}={getattr(cfg, key)}: must be >= 0 (0 = the size for data_scale)")
    for key in ("point_timeout_s", "tpu_connect_timeout_s"):
        if not getattr(cfg, key) > 0:
            raise ConfigError(f"{key}={getattr(cfg, key)}: must be a positive number of seconds")
    if cfg.resume not in ("", "latest") and not _IDENT.fullmatch(cfg.resume):
        raise ConfigError(f"resume={cfg.resume!r}: allowed: latest or a run_id (a folder name under results_dir)")


def _check_all_reduce(cfg: SuiteConfig) -> None:
    """TF's collective all-reduce fails under MirroredStrategy with steps_per_execution > 1."""
    spe_above_1 = max(max(axes_for(cfg, w)["steps_per_execution"]) for w in cfg.workloads) > 1
    mirrored = any(s == "gpus" or _CPU_X.fullmatch(s) for s in cfg.strategies)
    if cfg.all_reduce == "collective" and spe_above_1 and mirrored:
        raise ConfigError(
            "all_reduce='collective' fails under MirroredStrategy with steps_per_execution > 1 "
            "(keras-team/keras#19246); allowed here: auto, hierarchical_copy, reduce_to_one, nccl")


def _check_batches(cfg: SuiteConfig) -> None:
    """Every global batch splits evenly over the replicas a strategy name implies and fits the data."""
    for s in cfg.strategies:
        n = strategy_replicas(s)
        for b in sorted({b for w in cfg.workloads for b in axes_for(cfg, w)["batch_sizes"]}):
            if cfg.batch_scaling == "global" and n and b % n:
                raise ConfigError(
                    f"batch_sizes: global batch {b} is not divisible by the {n} replicas of {s}; "
                    f"allowed: multiples of {n} (or batch_scaling=per_replica)")
    for w, s, gb, n_train, n_val in batch_combinations(cfg):
        steps = n_train // gb
        if steps < 1 or n_val // gb < 1:
            raise ConfigError(
                f"batch_sizes: global batch {gb} ({s}) is larger than {w}'s "
                f"{'validation' if steps else 'training'} split ({n_train} train / {n_val} val "
                f"examples at data_scale={cfg.data_scale}); use a smaller batch or more data")


def batch_combinations(cfg: SuiteConfig) -> Iterator[tuple[str, str, int, int, int]]:
    """(workload, strategy, global batch, n_train, n_val) for every workload x strategy x batch size.

    The global batch uses the replica count a strategy name implies, or 1 where it is known only on the
    hardware (tpu, gpus, auto: the worker checks those again).
    """
    from bench.workloads import dataset_size

    for w in cfg.workloads:
        n_train, n_val = dataset_size(w, cfg.data_scale, cfg.n_train, cfg.n_val, cfg.data)
        for s in cfg.strategies:
            n = strategy_replicas(s) or 1
            for b in axes_for(cfg, w)["batch_sizes"]:
                yield w, s, global_batch(b, cfg.batch_scaling, n), n_train, n_val


def effective_steps_per_execution(requested: int, steps: int) -> int:
    """The steps_per_execution a point runs with ``steps`` steps per epoch: the largest divisor of ``steps``
    not above ``requested`` (``requested`` itself when it divides ``steps``).

    Given ``steps_per_epoch`` on a repeated dataset (how bench, and seed 001, feed ``fit``), Keras 3.15 runs
    whole executions: ``ceil(steps / spe)`` of them per epoch, under both backends. With 36 steps and
    ``steps_per_execution=32`` an "epoch" trains 64 batches, 28 of them the next epoch's, so the epochs, the
    data order and the accuracy per epoch no longer match a point with another ``steps_per_execution``. A
    divisor keeps every point's epochs exactly the data's.
    """
    return max(d for d in range(1, min(requested, steps) + 1) if steps % d == 0)


def clamp_warnings(cfg: SuiteConfig) -> list[str]:
    """Points whose steps_per_execution does not divide the steps of an epoch: they run with a smaller one
    (:func:`effective_steps_per_execution`), with a warning; a request that then runs the same configuration
    as another is run once.

    Run, not refused: a sweep over several workloads and batch sizes would otherwise be refused as a whole for
    one small combination. The plan names the point by what runs (``spe3``) and keeps the request as
    ``requested_steps_per_execution``.
    """
    out = []
    for w, s, gb, n_train, _ in batch_combinations(cfg):
        steps = n_train // gb
        spes = axes_for(cfg, w)["steps_per_execution"]
        for spe in spes:
            eff = effective_steps_per_execution(spe, steps)
            if eff == spe:
                continue
            why = (f"exceeds the {steps} steps" if spe > steps else
                   f"does not divide the {steps} steps")  # Keras would run whole executions past the epoch
            same = [o for o in spes if o != spe and effective_steps_per_execution(o, steps) == eff]
            once = f"; the same configuration as steps_per_execution={same[0]}, run once" if same else ""
            out.append(f"steps_per_execution={spe} {why} of one {w} epoch at global batch {gb} ({s}): runs "
                       f"with {eff} (points and reports name spe{eff}{once})")
    return out


def check_writable(key: str, path: str) -> None:
    """Refuse a folder that cannot be created or written, without creating anything."""
    p = Path(path)
    probe = p
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise ConfigError(f"{key}={path!r}: {probe} is not a folder; allowed: a writable folder path")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ConfigError(f"{key}={path!r}: {probe} is not writable; allowed: a writable folder path")


def global_batch(batch: int, batch_scaling: str, replicas: int) -> int:
    """The global batch (examples per step) of a listed batch size: the value itself, or value x replicas."""
    return batch * replicas if batch_scaling == "per_replica" else batch
