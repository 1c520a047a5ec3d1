"""What a run's inputs allow, checked before any worker starts: the data source can be read (described and
hashed here, on the run side, not by config validation), each workload takes it (a user workload's factory and
arrays), every global batch fits the data, and which steps_per_execution requests run as another. Bad input is
a :class:`~bench.config.ConfigError` like any other (exit status 2, nothing written).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from bench.config import (
    ConfigError,
    SuiteConfig,
    axes_for,
    effective_steps_per_execution,
    global_batch,
    strategy_replicas,
)


def check_inputs(cfg: SuiteConfig, batches_fit_data: bool = True) -> SuiteConfig:
    """The data source reads, each workload takes it, every global batch fits the data (ConfigError naming
    the key otherwise; the last not when ``batches_fit_data`` is False: the doctor judges batches for a TPU
    and trains none). Returns ``cfg``."""
    from bench.data.sources import SourceError, describe, is_synthetic
    from bench.workloads import MIN_STAGED_EPOCHS, WorkloadError, batch_misfit, get_workload, shown

    try:
        if not is_synthetic(cfg.data):
            describe(cfg.data)  # a Keras dataset is in the cache or downloaded now; files are listed and hashed
    except SourceError as e:
        raise ConfigError(f"data={cfg.data!r}: {str(e).removeprefix(cfg.data + ': ')}") from None
    for i, w in enumerate(cfg.workloads):
        try:  # a user workload: imports its module, calls its factory and data, checks the arrays
            wl = get_workload(w, cfg.data)
        except (WorkloadError, SourceError) as e:
            raise ConfigError(f"workloads[{i}]={shown(w)!r}: {str(e).removeprefix(w + ': ')}") from None
        if cfg.epochs < MIN_STAGED_EPOCHS and wl.frozen:
            raise ConfigError(f"epochs={cfg.epochs}: {shown(w)} trains in two stages (frozen backbone, then "
                              f"fine-tuning, half the epochs each): must be >= {MIN_STAGED_EPOCHS}")
    if cfg.prices:  # the report's price file: read now, so a typo stops the run before it starts
        from bench.reporting.load.prices import PriceError, load_table

        try:
            load_table(extra=Path(cfg.prices))
        except PriceError as e:
            raise ConfigError(str(e)) from None
    for w, s, gb, n_train, n_val in batch_combinations(cfg) if batches_fit_data else ():
        misfit = batch_misfit(w, gb, s, n_train, n_val, cfg.data_scale)
        if misfit:
            raise ConfigError(f"batch_sizes: {misfit}; use a smaller batch or more data")
    return cfg


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


def clamp_warnings(cfg: SuiteConfig) -> list[str]:
    """Points whose steps_per_execution does not divide the steps of an epoch: they run with a smaller one
    (:func:`effective_steps_per_execution`), with a warning; a request that then runs the same configuration
    as another is run once.

    Run, not refused: a sweep over several workloads and batch sizes would otherwise be refused as a whole for
    one small combination. The plan names the point by what runs (``spe3``) and keeps the request as
    ``requested_steps_per_execution``.
    """
    from bench.workloads import shown

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
            out.append(f"steps_per_execution={spe} {why} of one {shown(w)} epoch at global batch {gb} ({s}): runs "
                       f"with {eff} (points and reports name spe{eff}{once})")
    return out
