"""Suite -> ordered points, grouped by strategy configuration. Pure Python (no TensorFlow).

A *point* is one resolved configuration (workload x strategy x batch x steps_per_execution x
precision x repeat). Points that share a strategy form a *strategy group* and run in one worker
process. Within a group, repeats are interleaved (every point's repeat 0, then every repeat 1 ...) so
slow drift of a shared machine spreads over all points instead of landing on one.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any

from bench.config import PRECISION_TAGS, SuiteConfig, axes_for, global_batch
from bench.workloads import dataset_size, get_workload


@dataclass(frozen=True)
class Point:
    """One point of a run. ``batch_size`` is the value as listed in the suite (see ``batch_scaling``)."""

    workload: str
    strategy: str
    batch_size: int
    batch_scaling: str
    steps_per_execution: int
    precision: str
    repeat: int
    seed: int
    epochs: int
    n_train: int
    n_val: int
    data_scale: str
    input_pipeline: str = "default"
    all_reduce: str = "auto"  # group-level settings, part of the hash so resume re-runs a changed point
    tpu: str = ""

    @property
    def point_id(self) -> str:
        """File-name-safe id, e.g. ``fashion_cnn-cpu_x2-b128-spe8-fp32-r0`` (``pr32``: per-replica 32)."""
        b = f"pr{self.batch_size}" if self.batch_scaling == "per_replica" else f"b{self.batch_size}"
        return (f"{self.workload}-{self.strategy}-{b}-spe{self.steps_per_execution}-"
                f"{PRECISION_TAGS[self.precision]}-r{self.repeat}")

    def global_batch_size(self, replicas: int) -> int:
        """Examples per step across all replicas."""
        return global_batch(self.batch_size, self.batch_scaling, replicas)

    @property
    def config_hash(self) -> str:
        """Hash of the resolved configuration: resume re-runs a point whose configuration changed."""
        blob = json.dumps(asdict(self), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Point:
        return cls(**d)


def plan(cfg: SuiteConfig) -> list[Point]:
    """Every point of the suite, in run order: grouped by strategy, repeats interleaved."""
    points = []
    for strategy in cfg.strategies:
        for repeat in range(cfg.repeats):
            for workload in cfg.workloads:
                get_workload(workload)
                n_train, n_val = dataset_size(workload, cfg.data_scale, cfg.n_train, cfg.n_val)
                axes = axes_for(cfg, workload)
                for batch in axes["batch_sizes"]:
                    for spe in axes["steps_per_execution"]:
                        for precision in cfg.precisions:
                            seed = cfg.seed + repeat if cfg.repeat_seeds == "distinct" else cfg.seed
                            points.append(Point(workload, strategy, batch, cfg.batch_scaling, spe, precision,
                                                repeat, seed, cfg.epochs, n_train, n_val, cfg.data_scale,
                                                cfg.input_pipeline, cfg.all_reduce, cfg.tpu))
    return points


def groups(points: list[Point]) -> dict[str, list[Point]]:
    """Points by strategy name, in first-appearance order: one worker process per group."""
    out: dict[str, list[Point]] = {}
    for p in points:
        out.setdefault(p.strategy, []).append(p)
    return out
