"""Suite -> ordered points, grouped by strategy, and the job a worker gets. Pure Python (no framework).

A *point* is one resolved configuration (workload x strategy x input pipeline x batch x
steps_per_execution x precision x repeat). Points that share a strategy form a *strategy group* and run in one worker
process, as one :class:`WorkerJob`. Within a group, repeats are interleaved (every point's repeat 0,
then every repeat 1 ...) so slow drift of a shared machine spreads over all points instead of landing
on one.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any

from bench.config import PRECISION_TAGS, SuiteConfig, axes_for
from bench.workloads import dataset_size, get_workload, is_import_path


@dataclass(frozen=True)
class Point:
    """One point of a run.

    Its batch is set one of two ways, exactly one of them (``batch_scaling`` in the suite):
    ``global_batch_size`` (examples per step across all replicas) or ``per_replica_batch_size`` (examples
    per step on each replica; the global batch is that times the replicas, known only on the hardware).
    """

    workload: str
    strategy: str
    steps_per_execution: int
    precision: str
    repeat: int
    seed: int
    epochs: int
    n_train: int
    n_val: int
    data_scale: str
    global_batch_size: int | None = None
    per_replica_batch_size: int | None = None
    input_pipeline: str = "default"
    all_reduce: str = "auto"  # group-level settings, part of the hash so resume re-runs a changed point
    tpu: str = ""
    backend: str = "tensorflow"  # the Keras backend (its worker process sets KERAS_BACKEND)
    data: str = "synthetic"  # the data source (bench.data.sources); synthetic: the workload's own data

    def __post_init__(self) -> None:
        if (self.global_batch_size is None) == (self.per_replica_batch_size is None):
            raise ValueError("a Point needs exactly one of global_batch_size and per_replica_batch_size")

    @property
    def batch_scaling(self) -> str:
        """``global`` or ``per_replica``: how the suite listed this point's batch size."""
        return "global" if self.global_batch_size is not None else "per_replica"

    @property
    def point_id(self) -> str:
        """File-name-safe id, e.g. ``fashion_cnn-cpu_x2-b128-spe8-fp32-r0`` (``pr32``: per-replica 32;
        ``fashion_cnn-jax-cpu_x2-…`` under the JAX backend; ``…-fp32-cached-r0`` with an input pipeline other
        than the default)."""
        b = f"b{self.global_batch_size}" if self.global_batch_size is not None else f"pr{self.per_replica_batch_size}"
        backend = "" if self.backend == "tensorflow" else f"{self.backend}-"  # tensorflow: the ids bench always wrote
        name = get_workload(self.workload, self.data).name if is_import_path(self.workload) else self.workload
        pipeline = "" if self.input_pipeline == "default" else f"-{self.input_pipeline}"
        return (f"{name}-{backend}{self.strategy}-{b}-spe{self.steps_per_execution}-"
                f"{PRECISION_TAGS[self.precision]}{pipeline}-r{self.repeat}")

    def global_batch(self, replicas: int) -> int:
        """Examples per step across all ``replicas``."""
        if self.global_batch_size is not None:
            return self.global_batch_size
        return self.per_replica_batch_size * replicas

    def to_record(self) -> dict[str, Any]:
        """The record's ``point`` object. Its keys are the record contract's, unchanged since schema 1: the
        batch as listed (``batch_size``) and ``batch_scaling``; ``backend`` only when it is not tensorflow
        (the only backend before it was added) and ``data`` only when it is not synthetic, so a point's hash
        is what earlier versions computed."""
        d = asdict(self)
        global_, per_replica = d.pop("global_batch_size"), d.pop("per_replica_batch_size")
        if d["backend"] == "tensorflow":
            del d["backend"]
        if d["data"] == "synthetic":  # as for backend: the hash of a point on synthetic data is unchanged
            del d["data"]
        listed = global_ if global_ is not None else per_replica
        return {**d, "batch_size": listed, "batch_scaling": self.batch_scaling}

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> Point:
        """The Point of a record's ``point`` object (:meth:`to_record`)."""
        d = dict(d)
        listed, scaling = d.pop("batch_size"), d.pop("batch_scaling")
        key = "global_batch_size" if scaling == "global" else "per_replica_batch_size"
        return cls(**d, **{key: listed})

    @property
    def config_hash(self) -> str:
        """Hash of the resolved configuration: resume re-runs a point whose configuration changed."""
        blob = json.dumps(self.to_record(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


@dataclass(frozen=True)
class WorkerJob:
    """What one worker process is asked to do: the points of one strategy group, and the settings it needs.

    Sent to the worker as one JSON line on its stdin (:meth:`to_json`).
    """

    run_id: str
    run_dir: str
    suite: str
    strategy: str
    points: tuple[Point, ...]
    backend: str = "tensorflow"
    all_reduce: str = "auto"
    tpu: str = ""
    tpu_connect_timeout_s: float = 60.0
    measure_peak: bool = True  # measure the device's matmul peak once (MFU)
    measure_input: bool = True  # time the input pipeline alone after each point (input-bound diagnosis)

    @classmethod
    def for_group(cls, cfg: SuiteConfig, run_id: str, run_dir: str, points: list[Point]) -> WorkerJob:
        """The job of one group (one backend and strategy) of a run of ``cfg``."""
        return cls(run_id, run_dir, cfg.name, points[0].strategy, tuple(points), points[0].backend, cfg.all_reduce,
                   cfg.tpu, cfg.tpu_connect_timeout_s, cfg.measure_peak, cfg.measure_input)

    def to_json(self) -> str:
        """One line of JSON."""
        return json.dumps({**asdict(self), "points": [p.to_record() for p in self.points]})

    @classmethod
    def from_json(cls, line: str) -> WorkerJob:
        """The job :meth:`to_json` wrote."""
        d = json.loads(line)
        return cls(**{**d, "points": tuple(Point.from_record(p) for p in d["points"])})


def plan(cfg: SuiteConfig) -> list[Point]:
    """Every point of the suite, in run order: grouped by strategy, repeats interleaved."""
    points = []
    for backend, strategy in ((b, s) for b in cfg.backends for s in cfg.strategies):
        for repeat in range(cfg.repeats):
            for workload in cfg.workloads:
                n_train, n_val = dataset_size(workload, cfg.data_scale, cfg.n_train, cfg.n_val, cfg.data)
                axes = axes_for(cfg, workload)
                for pipeline, batch in ((p, b) for p in cfg.input_pipelines for b in axes["batch_sizes"]):
                    listed = {"global_batch_size" if cfg.batch_scaling == "global" else "per_replica_batch_size": batch}
                    for spe in axes["steps_per_execution"]:
                        for precision in cfg.precisions:
                            seed = cfg.seed + repeat if cfg.repeat_seeds == "distinct" else cfg.seed
                            points.append(Point(
                                workload=workload, strategy=strategy, steps_per_execution=spe, precision=precision,
                                repeat=repeat, seed=seed, epochs=cfg.epochs, n_train=n_train, n_val=n_val,
                                data_scale=cfg.data_scale, **listed, input_pipeline=pipeline,
                                all_reduce=cfg.all_reduce, tpu=cfg.tpu, backend=backend, data=cfg.data))
    return points


def groups(points: list[Point]) -> dict[tuple[str, str], list[Point]]:
    """Points by (backend, strategy name), in first-appearance order: one worker process per group."""
    out: dict[tuple[str, str], list[Point]] = {}
    for p in points:
        out.setdefault((p.backend, p.strategy), []).append(p)
    return out
