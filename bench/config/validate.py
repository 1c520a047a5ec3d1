"""Validation of a composed :class:`~bench.config.keys.SuiteConfig`: every key and cross-field rule, each failure
one line naming the key and what is allowed (:class:`~bench.config.keys.ConfigError`). Reads no data and imports
no framework: what needs the data (a source's sizes and hash, a user workload's arrays) is checked on the run
side (:mod:`bench.runner.inputs`).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from bench.config.keys import (
    ALL_REDUCES,
    AUTO_REPEATS,
    AXIS_KEYS,
    BATCH_SCALINGS,
    CPU_X,
    DASK_INSTALL,
    DATA_SCALES,
    FIXED_STRATEGIES,
    FLOAT32_MATMUL,
    IDENT,
    INPUT_PIPELINES,
    JIT_COMPILE,
    MEASURE_PEAK,
    MULTI_WORKER_REFUSAL,
    MULTI_WORKER_STRATEGIES,
    PRECISIONS,
    PROGRESS,
    REPEAT_SEEDS,
    SLURM_INSTALL,
    STRATEGY_HELP,
    TF_ONLY_STRATEGIES,
    ConfigError,
    SuiteConfig,
    axes_for,
    check_list,
    shard_of,
    strategy_replicas,
)
from bench.config.scaleout import check_launcher, check_processes
from bench.records.backends import BACKENDS, SPECS


def _check_choice(key: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"{key}={value!r} is not allowed; allowed: {', '.join(allowed)}")


def _check_axes(prefix: str, batch_sizes: list[Any], spes: list[Any]) -> None:
    check_list(f"{prefix}batch_sizes", batch_sizes, "positive integers, e.g. [32,128]")
    for i, b in enumerate(batch_sizes):
        if not isinstance(b, int) or b < 1:
            raise ConfigError(f"{prefix}batch_sizes[{i}]={b!r}: must be a positive integer")
    check_list(f"{prefix}steps_per_execution", spes, "positive integers, e.g. [1,16]")
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
    check_processes(cfg)
    check_launcher(cfg)
    check_writable("results_dir", cfg.results_dir)
    if cfg.report:
        check_writable("reports_dir", cfg.reports_dir)
    _check_installed(cfg)  # last: a typo in a key is the first thing to tell, whatever is installed
    return cfg


def _check_data(cfg: SuiteConfig) -> None:
    """The data source is written as one (``synthetic``, ``keras:NAME``, ``folder:PATH`` …); whether it can be
    read is the run side's check (:func:`bench.runner.inputs.check_inputs`)."""
    from bench.data.sources import SourceError, parse

    try:
        parse(cfg.data)
    except SourceError as e:
        raise ConfigError(f"data={cfg.data!r}: {str(e).removeprefix(cfg.data + ': ')}") from None


def _check_names(cfg: SuiteConfig) -> None:
    """Workloads (built-in names or import paths of user workloads) and strategies are known names (whether a
    workload takes the data is the run side's check, :func:`bench.runner.inputs.check_inputs`)."""
    from bench.workloads import WORKLOADS, is_import_path

    check_list("workloads", cfg.workloads, ", ".join(WORKLOADS))
    for i, w in enumerate(cfg.workloads):
        if not is_import_path(w) and w not in WORKLOADS:
            raise ConfigError(f"workloads[{i}]={w!r} is not a workload; allowed: {', '.join(WORKLOADS)}, "
                              "or an import path my_pkg.my_module:make")
    check_list("strategies", cfg.strategies, STRATEGY_HELP)
    for i, s in enumerate(cfg.strategies):
        m = CPU_X.fullmatch(s)
        if s.lower() in MULTI_WORKER_STRATEGIES:
            raise ConfigError(f"strategies[{i}]={s!r}: {MULTI_WORKER_REFUSAL}")
        if s not in FIXED_STRATEGIES and not (m and int(m.group(1)) >= 2):
            raise ConfigError(f"strategies[{i}]={s!r} is not a strategy; allowed: {STRATEGY_HELP}")
        if m and int(m.group(1)) > 64:
            raise ConfigError(f"strategies[{i}]={s!r}: at most 64 logical CPUs (cpu_x2 .. cpu_x64)")


def _check_backends(cfg: SuiteConfig) -> None:
    """Known backends; under jax, only strategies that mean something there."""
    check_list("backends", cfg.backends, ", ".join(BACKENDS))
    for i, b in enumerate(cfg.backends):
        if b not in BACKENDS:
            raise ConfigError(f"backends[{i}]={b!r} is not a Keras backend bench runs; allowed: {', '.join(BACKENDS)}")
    plain = [b for b in cfg.backends if not SPECS[b].wrapper_strategies]
    for i, s in enumerate(cfg.strategies):
        if plain and s in TF_ONLY_STRATEGIES:
            raise ConfigError(f"strategies[{i}]={s!r} is a tf.distribute wrapper with no meaning under backends="
                              f"{plain[0]}; allowed with {plain[0]}: cpu, cpu_xN, gpu, gpus, tpu, auto")


def _check_installed(cfg: SuiteConfig) -> None:
    """Every backend asked for is installed here (found, not imported: validation imports no framework)."""
    import importlib.util

    for backend in cfg.backends:
        b = SPECS[backend]
        if importlib.util.find_spec(b.frameworks[0]) is None:
            raise ConfigError(f"backends: {backend} is not installed in this environment; install it with {b.install}")
    needs = {"dask": [("distributed", DASK_INSTALL)],
             "slurm": [("distributed", SLURM_INSTALL), ("dask_jobqueue", SLURM_INSTALL)]}.get(cfg.launcher, [])
    for module, install in needs:
        if importlib.util.find_spec(module) is None:
            raise ConfigError(f"launcher={cfg.launcher}: {module} is not installed in this environment; install it "
                              f"with {install}")


def _check_sweep_axes(cfg: SuiteConfig) -> None:
    """Batch sizes and steps_per_execution, the suite's and each workload's own (``workload_axes``)."""
    from bench.workloads import WORKLOADS

    _check_axes("", cfg.batch_sizes, cfg.steps_per_execution)
    for w, axes in cfg.workload_axes.items():
        # a built-in or a user's workload ("module:attr", as a suite lists it) this run does not include is unused
        if w not in WORKLOADS and w not in cfg.workloads and ":" not in w:
            raise ConfigError(f"workload_axes.{w}: not a workload; allowed: {', '.join(WORKLOADS)}, this run's "
                              "workloads or a user's workload (module:attribute)")
        if not isinstance(axes, dict) or set(axes) - set(AXIS_KEYS):
            bad = sorted(set(axes) - set(AXIS_KEYS)) if isinstance(axes, dict) else axes
            raise ConfigError(f"workload_axes.{w}: {bad!r} not allowed; allowed keys: {', '.join(AXIS_KEYS)}")
        _check_axes(f"workload_axes.{w}.", *axes_for(cfg, w).values())


def _check_choices(cfg: SuiteConfig) -> None:
    """Keys with a fixed set of values."""
    check_list("precisions", cfg.precisions, ", ".join(PRECISIONS))
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
    check_list("input_pipelines", cfg.input_pipelines, ", ".join(INPUT_PIPELINES))
    for i, p in enumerate(cfg.input_pipelines):
        if p not in INPUT_PIPELINES:
            raise ConfigError(f"input_pipelines[{i}]={p!r} is not allowed; allowed: {', '.join(INPUT_PIPELINES)}")
    _check_choice("repeat_seeds", cfg.repeat_seeds, REPEAT_SEEDS)
    _check_jit(cfg)


def _check_jit(cfg: SuiteConfig) -> None:
    """``jit_compile``: a list of auto / true / false (a bare value is a list of one; YAML's true/false as written),
    kept in the order given, each once."""
    values = cfg.jit_compile if isinstance(cfg.jit_compile, list) else [cfg.jit_compile]
    check_list("jit_compile", values, ", ".join(JIT_COMPILE))
    out: list[str] = []
    for i, v in enumerate(values):
        text = str(v).strip().lower()
        if text not in JIT_COMPILE:
            raise ConfigError(f"jit_compile[{i}]={v!r} is not allowed; allowed: {', '.join(JIT_COMPILE)}")
        if text not in out:
            out.append(text)
    cfg.jit_compile = out


def _check_numbers(cfg: SuiteConfig) -> None:
    """Counts, sizes, tolerances, time limits and the run to resume."""
    if not (cfg.parity_margin_pp >= 0 and math.isfinite(cfg.parity_margin_pp)):
        raise ConfigError(f"parity_margin_pp={cfg.parity_margin_pp}: must be >= 0 (percentage points)")
    if cfg.epochs < 2:
        raise ConfigError(f"epochs={cfg.epochs}: must be >= 2 (epoch 1 is warm-up; steady state is epochs 2..n)")
    if cfg.repeats != AUTO_REPEATS and not (isinstance(cfg.repeats, int) and not isinstance(cfg.repeats, bool)
                                            and cfg.repeats >= 1):
        raise ConfigError(f"repeats={cfg.repeats!r} is not allowed; allowed: an integer >= 1, or {AUTO_REPEATS}")
    if cfg.float32_matmul not in FLOAT32_MATMUL:
        raise ConfigError(f"float32_matmul={cfg.float32_matmul!r} is not allowed; allowed: {', '.join(FLOAT32_MATMUL)}")
    peak = str(cfg.measure_peak).strip().lower()
    if peak not in MEASURE_PEAK:
        raise ConfigError(f"measure_peak={cfg.measure_peak!r} is not allowed; allowed: {', '.join(MEASURE_PEAK)}")
    cfg.measure_peak = "fresh" if peak == "fresh" else peak == "true"
    if cfg.max_repeats < 2:
        raise ConfigError(f"max_repeats={cfg.max_repeats}: must be >= 2 (repeats=auto starts with one)")
    if not (cfg.budget_s >= 0 and math.isfinite(cfg.budget_s)):
        raise ConfigError(f"budget_s={cfg.budget_s}: must be a number of seconds >= 0 (0 = no budget)")
    if cfg.seed < 0:
        raise ConfigError(f"seed={cfg.seed}: must be >= 0")
    for key in ("n_train", "n_val"):
        if getattr(cfg, key) < 0:
            raise ConfigError(f"{key}={getattr(cfg, key)}: must be >= 0 (0 = the size for data_scale)")
    for key in ("point_timeout_s", "tpu_connect_timeout_s"):
        if not getattr(cfg, key) > 0:
            raise ConfigError(f"{key}={getattr(cfg, key)}: must be a positive number of seconds")
    shard_of(cfg.shard)
    if cfg.tpu_type:
        from bench.measure.datasheets import tpu_slice

        try:
            tpu_slice(cfg.tpu_type)
        except ValueError as e:
            raise ConfigError(f"tpu_type={e}") from None
    if cfg.resume not in ("", "latest") and not IDENT.fullmatch(cfg.resume):
        raise ConfigError(f"resume={cfg.resume!r}: allowed: latest or a run_id (a folder name under results_dir)")


def _check_all_reduce(cfg: SuiteConfig) -> None:
    """TF's collective all-reduce fails under MirroredStrategy with steps_per_execution > 1."""
    spe_above_1 = max(max(axes_for(cfg, w)["steps_per_execution"]) for w in cfg.workloads) > 1
    mirrored = [s for s in cfg.strategies if s == "gpus" or CPU_X.fullmatch(s)]
    if cfg.all_reduce == "collective" and spe_above_1 and mirrored:
        raise ConfigError(
            "all_reduce='collective' fails under MirroredStrategy with steps_per_execution > 1 "
            "(keras-team/keras#19246); allowed here: auto, hierarchical_copy, reduce_to_one, nccl")


def _check_batches(cfg: SuiteConfig) -> None:
    """Every global batch splits evenly over the replicas a strategy name implies (whether it fits the data is
    the run side's check)."""
    for s in cfg.strategies:
        n = strategy_replicas(s)
        for b in sorted({b for w in cfg.workloads for b in axes_for(cfg, w)["batch_sizes"]}):
            if cfg.batch_scaling == "global" and n and b % n:
                raise ConfigError(
                    f"batch_sizes: global batch {b} is not divisible by the {n} replicas of {s}; "
                    f"allowed: multiples of {n} (or batch_scaling=per_replica)")


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
