"""The steps_per_execution a planned point runs, decided from the suite alone (no framework): a value that does not
divide the epoch runs as the largest divisor that does, and under PyTorch as 1 where the sweep asks for nothing else
(:func:`resolved_spe`; the point keeps the request as ``requested_steps_per_execution``)."""

from __future__ import annotations

from collections.abc import Sequence

from bench.config import SuiteConfig, effective_steps_per_execution, strategy_replicas
from bench.records.backends import declares


def epoch_steps(cfg: SuiteConfig, strategy: str, n_train: int, batch: int) -> int | None:
    """Training steps of one epoch of a point, when the plan can know them: ``n_train // global batch``; None for
    a per-replica batch on a strategy whose replicas only the hardware tells (tpu, gpus, auto)."""
    if cfg.batch_scaling == "global":
        return n_train // batch if batch else None
    replicas = strategy_replicas(strategy)
    return n_train // (batch * replicas) if replicas else None


def resolved_spe(cfg: SuiteConfig, backend: str, strategy: str, n_train: int, batch: int, spe: int,
                 sweep: Sequence[int] = ()) -> tuple[int, int | None]:
    """(steps_per_execution the point runs, the requested value when that differs else None). Under PyTorch, whose
    Keras trainer runs one step per call, a request above 1 runs as 1 when the point's ``sweep`` of values has no 1
    (``suite=cnn`` asks catsdogs_cnn for 8 alone); beside a 1 it stays as asked, and is recorded skipped."""
    if declares(backend, "one_step_per_call") and spe > 1 and 1 not in sweep:
        return 1, spe
    steps = epoch_steps(cfg, strategy, n_train, batch)
    if not steps:
        return spe, None
    eff = effective_steps_per_execution(spe, steps)
    return (eff, None) if eff == spe else (eff, spe)
