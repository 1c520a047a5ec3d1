"""A point and the job a worker process gets: :class:`Point` (one configuration of a run, its id and hash, its record
form) and :class:`WorkerJob` (the points of one group and their settings, one JSON line on the worker's stdin).
Made by the plan (:mod:`bench.runner.plan`), read by the worker (:mod:`bench.worker.main`). Pure Python (no framework).
Rules: DESIGN.md, *Measurement rules*.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.config import PRECISION_TAGS, USER_PIPELINE, SuiteConfig, race_settings
from bench.records.backends import BACKENDS, declares, spec
from bench.workloads import get_workload, is_import_path

# Point fields left out of its record form at these values (each one the only value before the field existed: one
# backend, synthetic data, spe as asked, one process, TensorFlow without XLA), so an old point's hash is unchanged
OMITTED_AT = {"backend": BACKENDS[0], "data": "synthetic", "requested_steps_per_execution": None, "processes": 1,
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
    backend: str = BACKENDS[0]  # the Keras backend (its worker process sets KERAS_BACKEND)
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
        backend = "" if self.backend == BACKENDS[0] else f"{self.backend}-"  # the first: the ids bench always wrote
        name = get_workload(self.workload, self.data).name if is_import_path(self.workload) else self.workload
        pipeline = "" if self.input_pipeline == "default" else f"-{self.input_pipeline}"
        procs = "" if self.processes == 1 else f"-p{self.processes}"  # jax-cpu_x2-p2: two processes
        procs += jit_mark(self.backend, self.jit_compile)  # cpu-xla: XLA under TensorFlow
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
    backend: str = BACKENDS[0]
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
    # line and that worker's log; bench.runner.processes.STALLED)
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


def jit_mark(backend: str, jit_compile: bool | str) -> str:
    """What a point id adds after the strategy for its ``jit_compile``: its backend's declared mark where true
    (``-xla``, ``-compile``), ``-jitauto`` where auto, nothing under a backend that always compiles."""
    b = spec(backend)
    if b is None or b.always_compiles or jit_compile is False:
        return ""
    return b.point_id_compiled if jit_compile is True else "-jitauto"


def tuned(pipeline: str, backend: str) -> bool:
    """Whether tf.data may tune a point's pipelines while they run (autotune on): ``autotune`` (under JAX a
    ``tf.data`` pipeline Keras reads as NumPy, so its worker needs TensorFlow), ``numpy`` under TensorFlow, where
    Keras makes the arrays an autotuned ``tf.data`` pipeline (under JAX Keras slices arrays itself), and ``user``, a
    workload's own ``input_fn``, whatever it builds."""
    native = declares(backend, "tf_data_native")
    return pipeline in ("autotune", USER_PIPELINE) or (pipeline == "numpy" and native)


def with_tensorflow(point: Point) -> bool:
    """A JAX or PyTorch point fed by a ``tf.data`` pipeline (``autotune``, or a ``user`` one that may be): its worker
    may import TensorFlow."""
    return not declares(point.backend, "tf_data_native") and point.input_pipeline in ("autotune", USER_PIPELINE)
