"""Typed run configuration and its validation. Imports no framework and reads no data.

A suite YAML (``suites/<name>.yaml``) sets values of :class:`SuiteConfig`; command-line overrides
(``batch_sizes=[32,256] epochs=3``) are applied on top by :mod:`bench.cli`. :mod:`~bench.config.keys` holds the
keys, their help and allowed values and the arithmetic they imply; :mod:`~bench.config.validate` checks every key
and cross-field rule, reported as one line that names the key and what is allowed (:class:`ConfigError`).
What needs the data (a source's sizes, a user workload's arrays) is checked on the run side,
:mod:`bench.runner.inputs`.
"""

from __future__ import annotations

from bench.config.keys import (
    ALL_REDUCES,
    AUTO_REPEATS,
    AXIS_KEYS,
    BATCH_SCALINGS,
    CPU_X,
    DATA_SCALES,
    FIXED_STRATEGIES,
    INPUT_PIPELINES,
    JAX_INSTALL,
    PRECISION_TAGS,
    PRECISIONS,
    PROGRESS,
    REPEAT_SEEDS,
    STRATEGY_HELP,
    TF_INSTALL,
    TF_ONLY_STRATEGIES,
    TORCH_INSTALL,
    USER_PIPELINE,
    ConfigError,
    SuiteConfig,
    as_list_override,
    axes_for,
    effective_steps_per_execution,
    global_batch,
    is_raced,
    key_help,
    list_keys,
    logical_cpus,
    most_repeats,
    race_settings,
    shard_of,
    splits,
    strategy_replicas,
    user_keys,
)
from bench.config.validate import check_writable, validate

__all__ = [
    "ALL_REDUCES",
    "AUTO_REPEATS",
    "AXIS_KEYS",
    "BATCH_SCALINGS",
    "CPU_X",
    "DATA_SCALES",
    "FIXED_STRATEGIES",
    "INPUT_PIPELINES",
    "JAX_INSTALL",
    "PRECISIONS",
    "PRECISION_TAGS",
    "PROGRESS",
    "REPEAT_SEEDS",
    "STRATEGY_HELP",
    "TF_INSTALL",
    "TF_ONLY_STRATEGIES",
    "TORCH_INSTALL",
    "USER_PIPELINE",
    "ConfigError",
    "SuiteConfig",
    "as_list_override",
    "axes_for",
    "check_writable",
    "effective_steps_per_execution",
    "global_batch",
    "is_raced",
    "key_help",
    "list_keys",
    "logical_cpus",
    "most_repeats",
    "race_settings",
    "shard_of",
    "splits",
    "strategy_replicas",
    "user_keys",
    "validate",
]
