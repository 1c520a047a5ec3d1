"""The typed model of a point record (schema version 1): what the worker fills, what the report reads. One
:class:`Record` per point with nested parts; units in field names; strict validation; unknown fields kept
(``extra="allow"``). Format and every field: docs/records.md; the schema is generated (:mod:`bench.records.schema`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, PrivateAttr

from bench.records.parts import Check, Memory, Part, Placement, Process, RaceSettings, SecondBatch, Topology
from bench.records.types import Count, Finite, Fraction, Positive, Rate, Seconds

Status = Literal["ok", "failed", "skipped", "diverged"]


class ErrorInfo(Part):
    """Why a point is not ``ok``: exception type and message; a failed point's traceback tail, its ``kind``
    (``out_of_memory``, ``augmentation_layers_on_tpu``, ...) and ``hint``; a dead worker's ``stderr_tail``/``log``."""

    type: str | None = None
    message: str | None = None
    traceback: str | None = None
    kind: str | None = None
    hint: str | None = None
    stderr_tail: str | None = None
    log: str | None = None  # relative to the run folder
    fatal: str | None = None  # a dead worker's log's last fatal line (absl FATAL, CHECK, rendezvous timeout, ...)
    process_id: int | None = None  # a multi-process point: the process that died


class Strategy(Part):
    """The distribution strategy as resolved in the worker (``requested`` is what the user typed)."""

    name: str | None = None
    requested: str | None = None
    cls: str | None = Field(default=None, alias="class")
    num_replicas: int | None = None
    devices: list[str] | None = None
    device_kind: str | None = None
    scope: bool | None = None  # False: Keras with no strategy scope (the notebook baseline)
    cross_device_ops: str | None = None  # MirroredStrategy's all-reduce
    tpu: str | None = None  # the TPU a TPUStrategy connected to
    device_pipeline_autotune: Any = None  # what the engine observed on the per-device pipelines, not what was asked
    device_pipeline_autotune_hook: str | None = None  # installed / unavailable
    # a multi-process point (JAX): the processes, this record's writer's index, its own devices, the coordinator
    processes: int | None = None
    process_id: int | None = None
    local_devices: list[str] | None = None
    coordinator: str | None = None


class Dataset(Part):
    """What the point trained on: ``synthetic`` (embedded data), ``arrays`` (a user's), or a data source spec."""

    name: str | None = None
    source: str | None = None
    scale: str | None = None
    n_train: Count | None = None
    n_val: Count | None = None
    shape: list[int] | None = None
    classes: Count | None = None
    pipeline: str | None = None
    chance_accuracy: Fraction | None = None  # accuracy of always predicting the commonest validation class
    source_n_train: Count | None = None  # examples in the whole source (of which n_train were used)
    source_n_val: Count | None = None
    kind: str | None = None  # a data source's kind: keras, folder, csv, tfrecord
    modality: str | None = None  # images, tokens
    encoded: bool | None = None  # images read as files and decoded in the input pipeline
    class_names: list[str] | None = None
    sha256: str | None = None  # content hash of the source (files and labels; no path)
    split: str | None = None  # how the validation split was made
    files: str | None = None  # bench's generated image files (synthetic, as JPEGs on disk)


class Epoch(Part):
    """One epoch as the timing callback saw it: seconds of training (``train_s``), of validation (``val_s``) and
    both (``epoch_s``); exact ``steps`` (from the optimizer's iteration count) and ``examples``; Keras' logs, every
    metric under the name Keras gives it (a workload's own, e.g. ``top5_accuracy``, kept as an extra field)."""

    epoch: Positive
    steps: Count | None = None
    examples: Count | None = None
    epoch_s: Seconds | None = None
    train_s: Seconds | None = None
    val_s: Seconds | None = None
    setup_s: Seconds | None = None  # inside epoch 1: from fit's start to the first batch's start
    loss: Finite | None = None
    val_loss: Finite | None = None
    accuracy: Fraction | None = None
    val_accuracy: Fraction | None = None  # over all val_examples (before issue 39: validation_steps x batch)
    val_examples: Count | None = None  # examples scored; where batches left some out: Keras' own figure over the
    val_accuracy_batches: Fraction | None = None  # batches and the seconds the rest took after the epoch
    val_rest_s: Seconds | None = None
    stage: str | None = None  # a transfer-learning point's stage (``frozen``, ``fine_tune``)

    def training_s(self) -> float | None:
        """Seconds of training: ``train_s``; ``epoch_s`` for records from before validation was timed apart."""
        return self.train_s if self.train_s is not None else self.epoch_s


class Stage(Part):
    """One stage of a staged (transfer-learning) point: its epochs, what trained, and its own warm-up (s)."""

    name: str
    epochs: Count | None = None
    trainable_params: Count | None = None
    learning_rate: Finite | None = None
    flops_per_example: Rate | None = None
    warmup_overhead_s: Finite | None = None


PeakFlops = dict[str, Rate] | Rate  # FLOP/s by dtype (``float32``, ``mixed_bfloat16``), or one number


class Record(Part):
    """One point: one (backend, strategy, workload, global batch, steps_per_execution, precision, repeat)."""

    # -- required since the first record (schema version 1)
    schema_version: int
    run_id: str
    point_id: str
    suite: str | None
    status: Status
    error: ErrorInfo | None
    workload: str
    dataset: Dataset
    strategy: Strategy
    global_batch_size: Positive | None  # None: a skipped point sized per replica on absent hardware
    per_replica_batch_size: Positive | None
    steps_per_execution: Positive  # as planned (resolved where the plan knew the epoch's steps)
    precision: str  # Keras dtype policy: float32, mixed_float16, mixed_bfloat16
    repeat: Count
    seed: int
    steps_per_epoch: Count | None
    epochs: list[Epoch]
    env: dict[str, Any]  # allowlisted environment (bench.measure.env)
    started_at: str | None  # ISO 8601 UTC
    finished_at: str | None

    # -- added later; absent in older records
    backend: str | None = None  # Keras backend; absent = tensorflow (the only one before)
    config_hash: str | None = None
    point: dict[str, Any] | None = None  # the planned point as the plan wrote it
    workload_variant: str | None = None
    workload_source: str | None = None
    # a built-in's definition (bench.workloads.registry: revision 2 reads logits); absent: a user's workload, or
    # a built-in's record of its earlier definition (revision 1)
    workload_revision: Positive | None = None
    batch_scaling: str | None = None
    requested_steps_per_execution: Positive | None = None  # the user's request when the plan resolved another
    effective_steps_per_execution: Positive | None = None  # what the worker compiled with
    validation_steps: Count | None = None
    target_accuracy: Fraction | None = None
    target_source: str | None = None
    notes: list[str] = Field(default_factory=list)
    process: Process | None = None
    race: RaceSettings | None = None  # a point of a repeats=auto run (absent: a fixed number of repeats)
    topology: Topology | None = None  # a multi-process point (absent: one process)
    memory: Memory | None = None
    initial_weights: dict[str, Any] | None = None
    augmentation_layers: list[str] | None = None
    # labels as fed: integer, one_hot (the compiled loss wants it: bench.workloads.labels), binary ((batch, 1) floats)
    label_format: str | None = None
    # a TPU point's doctor findings for its workload and backend, checked on the CPU before the run's TPU points
    tpu_checks: list[Check] | None = None
    pretrained_weights: Any = None
    stages: list[Stage] | None = None
    params: Count | None = None
    math_mode: str | None = None
    # the arithmetic per op class, read from the framework's settings (matmul, conv -> fp32, tf32, fp16, bf16)
    arithmetic: dict[str, str] | None = None
    float32_matmul: str | None = None  # the float32_matmul setting asked (framework | tf32 | highest); None: before it
    compiler: str | None = None  # what compiled the train step, read from the compiled model (absent: not recorded)
    placement: Placement | None = None  # the layout on the devices, checked before the fit was timed
    input_threads: int | None = None  # threads (tf.data parallel calls, JAX engine workers) preparing batches
    input_autotune: bool | None = None  # tf.data tuned the host pipeline's parallelism and prefetch (autotune)
    data_order: str | None = None  # bench (bench.data.order) | keras shuffle (numpy) | tf.data shuffle (autotune)
    flop_count: str | None = None  # how flops_per_example was counted (bench.measure.flops.FLOP_COUNT)
    flops_uncounted: list[str] | None = None  # layers with weights the FLOP and byte counts do not see into
    flops_per_example: Rate | None = None  # training FLOPs per example (last stage's)
    forward_flops_per_example: Rate | None = None
    # XLA's cost analysis of the compiled train step (JAX), per example over all replicas: what the compiler counts,
    # the user's own layers included (bench.engines.jax.memory)
    compiled_flops_per_example: Rate | None = None
    compiled_bytes_per_example: Rate | None = None  # its "bytes accessed": every op's operands and results
    byte_count: str | None = None  # how the two byte figures were counted (bench.measure.traffic.BYTE_COUNT)
    bytes_per_example: Count | None = None  # activation bytes one example moves in a training step (last stage's)
    weight_bytes_per_step: Count | None = None  # weight and optimizer-state bytes a step moves, whatever the batch
    second_batch: SecondBatch | None = None  # the extra timed stage at another batch (None: the sweep had one, or off)
    point_wall_s: Seconds | None = None  # data, build, compile, fit, probes: the whole point
    fit_wall_s: Seconds | None = None  # wall clock around the whole fit
    others_busy: Fraction | None = None  # share of the machine's CPU time other processes used during fit (0-1)
    steps_in_flight: int | None = None  # 1: each step waited for the one before (a rerun after XLA's CPU all-reduce
    # deadlocked its first worker); None: as Keras dispatches them
    teardown_s: Seconds | None = None  # after the last epoch's end until fit returned
    warmup_overhead_s: Finite | None = None  # epoch 1 minus the steady median
    val_predictions: dict[str, Any] | None = None  # bench.predictions format
    predict_measure_s: Seconds | None = None
    input_examples_per_s: Rate | None = None  # the input pipeline alone
    input_measure_s: Seconds | None = None
    peak_flops_per_s: PeakFlops | None = None  # this worker's matmul probe
    peak_scope: str | None = None
    peak_devices: Positive | None = None  # the devices the per-device probe was multiplied by (older: from peak_scope)
    peak_measure_s: Seconds | None = None  # what the probe cost this worker: reading the cache, or the child's run
    peak_measured_at: str | None = None  # when the probe ran (UTC, ISO 8601); older records: in this worker's start
    peak_cached: bool | None = None  # read from this host's cache (bench.measure.peak_cache); None: before the cache
    # the matmul probe's sizing per precision: n, products per call, fastest call's region_s, fixed cost dispatch_s
    peak_probe: dict[str, dict[str, float]] | None = None
    # the devices' memory bandwidth from bench's stream probe (bench.measure.probes.stream_bandwidth), bytes/s, and
    # how it was sized (n float32 elements, chained passes per call, the fastest call's region_s); None: not measured
    peak_bytes_per_s: Rate | None = None
    bandwidth_probe: dict[str, float] | None = None
    datasheet_peak_flops_per_s: PeakFlops | None = None
    datasheet_peak_missing: str | None = None  # why a point has no datasheet peak (a CPU, an unknown accelerator)
    # set by bench.records.upgrade: every absent field's meaning is filled in (never stored)
    _upgraded: bool = PrivateAttr(default=False)

    def to_json(self) -> dict[str, Any]:
        """The record as stored: aliases (``class``), only the fields that were set (an older reader sees no new
        field it was never told about as null), extra fields kept."""
        return self.model_dump(by_alias=True, exclude_unset=True)

    def steady_epochs(self) -> list[Epoch]:
        """Epochs 2..n (the steady state); epoch 1 is the warm-up epoch and never mixed in. A transfer-learning
        point's steady state is its last stage's epochs after that stage's first (which traces the recompiled
        model, a warm-up of its own)."""
        staged = [e.stage for e in self.epochs if e.stage]
        if staged:
            return [e for e in self.epochs if e.stage == staged[-1]][1:]
        return [e for e in self.epochs if e.epoch >= 2]

    def process_count(self) -> int:
        """The cooperating processes that ran the point (1 unless it was a multi-process point)."""
        if self.topology is not None:
            return self.topology.processes
        return int((self.point or {}).get("processes", 1))

    def effective_spe(self) -> int:
        """The steps_per_execution that ran."""
        return self.effective_steps_per_execution or self.steps_per_execution


REQUIRED_FIELDS = tuple(name for name, f in Record.model_fields.items() if f.is_required())
