"""Engines: the only code that knows a framework. Today one, ``tensorflow`` (Keras 3 on TensorFlow with
``tf.distribute`` strategies and ``tf.data`` pipelines); the JAX backend joins here as a second one.

An engine is a module (``bench.engines.<name>``) that a worker loads with :func:`load` after its process
has started, and that provides:

- ``make_strategy(name, all_reduce, tpu, tpu_connect_timeout_s) -> (strategy or None, StrategyInfo)``,
  first thing in the process; raises :class:`StrategyUnavailable` when the hardware is absent;
- ``make_pipelines(workload, arrays, global_batch_size, seed, slow_decode) -> Pipelines``;
- ``matmul_peak_flops(device, dtype) -> float`` (FLOP/s), ``framework_env(info) -> dict`` (versions and
  accelerator for the record's ``env``), ``is_out_of_memory(exc) -> bool`` and
  ``out_of_memory_error(message) -> Exception`` (what the framework raises when a device runs out of memory).

This module imports no framework: the run side's orchestration and the report side never need one.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

ENGINES = ("tensorflow",)


class StrategyUnavailable(RuntimeError):
    """The hardware a strategy needs is not here; ``str(e)`` is the reason recorded as ``skipped``."""


@dataclass
class StrategyInfo:
    """What a strategy resolved to; stored as the record's ``strategy`` object."""

    requested: str
    name: str
    cls: str
    num_replicas: int
    devices: list[str]
    device_kind: str  # cpu | gpu | tpu
    extra: dict[str, Any] = field(default_factory=dict)

    def as_record(self) -> dict[str, Any]:
        """The record's ``strategy`` object (``class`` for ``cls``; ``extra`` keys at the top level)."""
        return {"requested": self.requested, "name": self.name, "class": self.cls,
                "num_replicas": self.num_replicas, "devices": self.devices,
                "device_kind": self.device_kind, **self.extra}


def unresolved_strategy(requested: str) -> dict[str, Any]:
    """The record's ``strategy`` object of a point whose worker never resolved its strategy (skipped, or
    killed before it got that far): only the requested name is known."""
    return {"requested": requested, "name": requested, "class": None, "num_replicas": None, "devices": [],
            "device_kind": None}


def load(name: str) -> ModuleType:
    """The engine module ``bench.engines.<name>`` (imports its framework); ValueError for an unknown one."""
    if name not in ENGINES:
        raise ValueError(f"unknown engine {name!r}; allowed: {', '.join(ENGINES)}")
    return importlib.import_module(f"bench.engines.{name}")
