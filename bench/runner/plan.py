"""Suite -> ordered points, grouped into worker processes, and the job a worker gets. Pure Python (no framework).
The points of one (backend, strategy, repeat) are one group, one :class:`WorkerJob`, one process (the process is the
unit that differs between runs), ordered repeat-major; ``steps_per_execution`` is resolved here where an epoch's
steps are known, so a point's id names the spe that runs. Rules: DESIGN.md, *Measurement rules*.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.config import (
    PRECISION_TAGS,
    USER_PIPELINE,
    SuiteConfig,
    axes_for,
    jit_values,
    most_repeats,
    race_settings,
    shard_of,
    splits,
)
from bench.runner.steps import resolved_spe
from bench.workloads import dataset_size, get_workload, is_import_path

# Point fields left out of its record form at these values (each one the only value before the field existed: one
# backend, synthetic data, spe as asked, one process, TensorFlow without XLA), so an old point's hash is unchanged
OMITTED_AT = {"backend": "tensorflow", "data": "synthetic", "requested_steps_per_execution": None, "processes": 1,
              "jit_compile": False}


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
    # the steps_per_execution the suite asked for, when the plan resolved it to another (None: it runs as asked)
    requested_steps_per_execution: int | None = None
    # cooperating processes that run the point together (JAX multi-process data parallel; 1: one process)
    processes: int = 1
    # the jit_compile the model is compiled with: True (TensorFlow: XLA; PyTorch: torch.compile), False (TensorFlow's
    # graph executor; PyTorch eager) or "auto" (Keras' own choice, resolved when it compiles). JAX always jits: False
    jit_compile: bool | str = False

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
        than the default; ``…-jax-cpu_x2-p2-…`` run by two cooperating processes; ``cpu-xla``, ``torch-cpu-compile``,
        ``cpu-jitauto``: jit_compile true under TensorFlow or PyTorch, auto)."""
        b = f"b{self.global_batch_size}" if self.global_batch_size is not None else f"pr{self.per_replica_batch_size}"
        backend = "" if self.backend == "tensorflow" else f"{self.backend}-"  # tensorflow: the ids bench always wrote
        name = get_workload(self.workload, self.data).name if is_import_path(self.workload) else self.workload
        pipeline = "" if self.input_pipeline == "default" else f"-{self.input_pipeline}"
        procs = "" if self.processes == 1 else f"-p{self.processes}"  # jax-cpu_x2-p2: two processes
        procs += JIT_MARKS.get((self.backend, self.jit_compile), "")  # cpu-xla: XLA under TensorFlow
        return (f"{name}-{backend}{self.strategy}{procs}-{b}-spe{self.steps_per_execution}-"
                f"{PRECISION_TAGS[self.precision]}{pipeline}-r{self.repeat}")

    def global_batch(self, replicas: int) -> int:
        """Examples per step across all ``replicas``."""
        if self.global_batch_size is not None:
            return self.global_batch_size
        assert self.per_replica_batch_size is not None  # __post_init__: exactly one of the two
        return self.per_replica_batch_size * replicas

    def to_record(self) -> dict[str, Any]:
        """The record's ``point`` object. Its keys are the record contract's, unchanged since schema 1: the
        batch as listed (``batch_size``) and ``batch_scaling``; ``backend`` only when it is not tensorflow
        (the only backend before it was added) and ``data`` only when it is not synthetic, so a point's hash
        is what earlier versions computed."""
        d = asdict(self)
        global_, per_replica = d.pop("global_batch_size"), d.pop("per_replica_batch_size")
        for key, first in OMITTED_AT.items():  # at the value every point had before the key: the form bench wrote
            if d[key] == first and type(d[key]) is type(first):
                del d[key]
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
    worker: int = 0  # this worker process's index in the run (0, 1, ... in start order; records name it)
    log: str = ""  # its log file, relative to the run folder
    spawned_at: float = 0.0  # time.time() when the launcher started the process (its start-up is recorded)
    processes: int = 1  # cooperating processes of the group (JAX multi-process); this one is ``process_id``
    process_id: int = 0
    coordinator: str = ""  # HOST:PORT of the JAX coordinator (process 0) when processes > 1
    per_host: bool = False  # one bench per host started this process (process_id); False: bench started them all
    race: dict[str, Any] | None = None  # repeats=auto: the race's settings, written into every record
    fresh_peak: bool = False  # measure_peak=fresh: measure the peak again instead of reading this host's cache
    float32_matmul: str = "framework"  # float32 matmuls/convolutions on a GPU: framework | tf32 | highest
    second_batch: bool = True  # a short extra timed stage at another batch where the sweep has one batch only
    # point id -> why it trains with one step in flight: its first worker died in XLA's CPU all-reduce (the fatal
    # line and that worker's log; bench.runner.launcher.STALLED)
    one_step: dict[str, str] = field(default_factory=dict)

    @classmethod
    def for_group(cls, cfg: SuiteConfig, run_id: str, run_dir: str, points: list[Point], worker: int = 0,
                  log: str = "", spawned_at: float = 0.0, process_id: int = 0, coordinator: str = "",
                  one_step: dict[str, str] | None = None) -> WorkerJob:
        """The job of one group (one backend, strategy, process count and repeat) of a run of ``cfg``, for worker
        ``worker`` (process ``process_id`` of the group's ``processes``); ``one_step``: the points to train with one
        step in flight, and why."""
        asked = one_step or {}
        return cls(run_id, run_dir, cfg.name, points[0].strategy, tuple(points), points[0].backend, cfg.all_reduce,
                   cfg.tpu, cfg.tpu_connect_timeout_s, bool(cfg.measure_peak), cfg.measure_input, worker, log,
                   spawned_at, points[0].processes, process_id, coordinator, cfg.process_id >= 0, race_settings(cfg),
                   cfg.measure_peak == "fresh", cfg.float32_matmul, bool(cfg.second_batch),
                   {p.point_id: asked[p.point_id] for p in points if p.point_id in asked})

    def to_json(self) -> str:
        """One line of JSON."""
        return json.dumps({**asdict(self), "points": [p.to_record() for p in self.points]})

    @classmethod
    def from_json(cls, line: str) -> WorkerJob:
        """The job :meth:`to_json` wrote."""
        d = json.loads(line)
        return cls(**{**d, "points": tuple(Point.from_record(p) for p in d["points"])})


def plan(cfg: SuiteConfig, repeats: Sequence[int] | None = None) -> list[Point]:
    """Every point of the suite, in run order: repeat-major (all strategies' repeat 0, then repeat 1, ...), then
    backend and strategy; a request that resolves to a configuration already planned is planned once. ``repeats``:
    only these repeats (a round of ``repeats=auto``); default every repeat the run can have."""
    points: list[Point] = []
    seen: dict[str, int] = {}  # point id -> index in points
    for repeat in (range(most_repeats(cfg)) if repeats is None else repeats):
        for backend, strategy, procs in topologies(cfg):
            for workload in cfg.workloads:
                n_train, n_val = dataset_size(workload, cfg.data_scale, cfg.n_train, cfg.n_val, cfg.data)
                axes = axes_for(cfg, workload)
                pipelines = [USER_PIPELINE] if get_workload(workload, cfg.data).input_fn else cfg.input_pipelines
                for pipeline, batch in ((p, b) for p in pipelines for b in axes["batch_sizes"]):
                    listed = {"global_batch_size" if cfg.batch_scaling == "global" else "per_replica_batch_size": batch}
                    jits = jit_values(cfg, backend, strategy)
                    for requested, jit in ((r, j) for r in axes["steps_per_execution"] for j in jits):
                        spe, asked = resolved_spe(cfg, backend, strategy, n_train, batch, requested,
                                                  axes["steps_per_execution"])
                        for precision in cfg.precisions:
                            seed = cfg.seed + repeat if cfg.repeat_seeds == "distinct" else cfg.seed
                            point = Point(
                                workload=workload, strategy=strategy, steps_per_execution=spe, precision=precision,
                                repeat=repeat, seed=seed, epochs=cfg.epochs, n_train=n_train, n_val=n_val,
                                data_scale=cfg.data_scale, **listed, input_pipeline=pipeline,
                                all_reduce=cfg.all_reduce, tpu=cfg.tpu, backend=backend, data=cfg.data,
                                requested_steps_per_execution=asked, processes=procs, jit_compile=jit)
                            at = seen.get(point.point_id)
                            if at is None:
                                seen[point.point_id] = len(points)
                                points.append(point)
                            elif asked is None:  # the same configuration, asked for as it runs: name that
                                points[at] = point
    return in_shard(points, shard_of(cfg.shard))


JIT_MARKS = {("tensorflow", True): "-xla", ("torch", True): "-compile", ("tensorflow", "auto"): "-jitauto",
             ("torch", "auto"): "-jitauto"}  # in a point id after the strategy


def topologies(cfg: SuiteConfig) -> list[tuple[str, str, int]]:
    """(backend, strategy, processes) in run order: every backend and strategy with one process, and with each
    larger count of ``processes`` where it runs (JAX, a strategy that splits into that many processes; one
    process per host, ``process_id``: also ``gpus`` and ``tpu``)."""
    return [(b, s, n) for b in cfg.backends for s in cfg.strategies for n in cfg.processes
            if n == 1 or (b == "jax" and splits(s, n, cfg.process_id >= 0))]


def configuration_id(point: Point | str) -> str:
    """A point's id (or the point) without its repeat: what its repeats share."""
    return re.sub(r"-r\d+$", "", point if isinstance(point, str) else point.point_id)


def in_shard(points: list[Point], shard: tuple[int, int] | None) -> list[Point]:
    """Shard I of N: the configurations at positions I-1, I-1+N, ... of the sweep's configuration ids in sorted
    order, with all their repeats (a configuration's repeats stay on one machine, so its interval compares
    processes of one machine). The split depends on the sweep alone, so every machine given the same overrides
    and its own ``shard=I/N`` runs its share, and N shards run every point exactly once."""
    if shard is None:
        return points
    i, n = shard
    ids = sorted({configuration_id(p) for p in points})
    mine = {c for k, c in enumerate(ids) if k % n == i - 1}
    return [p for p in points if configuration_id(p) in mine]


def groups(points: list[Point]) -> dict[tuple[str, str, int, int, bool], list[Point]]:
    """Points by (backend, strategy name, processes, repeat, tuned input pipeline), in first-appearance order: one
    worker process (or one set of cooperating processes) per group, so every repeat runs in processes of its own
    and :func:`plan`'s order interleaves them across strategies. Points whose pipelines tf.data tunes
    (:func:`tuned`) run in workers of their own: a process that autotune slowed (docs/findings.md) never times a
    fixed pipeline, and under JAX only their worker may import TensorFlow."""
    out: dict[tuple[str, str, int, int, bool], list[Point]] = {}
    for p in points:
        out.setdefault((p.backend, p.strategy, p.processes, p.repeat, tuned(p.input_pipeline, p.backend)),
                       []).append(p)
    return out


def tuned(pipeline: str, backend: str) -> bool:
    """Whether tf.data may tune a point's pipelines while they run (autotune on): ``autotune`` (under JAX a
    ``tf.data`` pipeline Keras reads as NumPy, so its worker needs TensorFlow), ``numpy`` under TensorFlow, where
    Keras makes the arrays an autotuned ``tf.data`` pipeline (under JAX Keras slices arrays itself), and ``user``, a
    workload's own ``input_fn``, whatever it builds."""
    return pipeline in ("autotune", USER_PIPELINE) or (pipeline == "numpy" and backend == "tensorflow")


def with_tensorflow(point: Point) -> bool:
    """A JAX or PyTorch point fed by a ``tf.data`` pipeline (``autotune``, or a ``user`` one that may be): its worker
    may import TensorFlow."""
    return point.backend in ("jax", "torch") and point.input_pipeline in ("autotune", USER_PIPELINE)
