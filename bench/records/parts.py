"""Parts of a point record that describe where and how it ran (its process, a multi-process topology, memory,
device placement, the doctor's checks), and the strict base every part shares. See :mod:`bench.records.model`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from bench.records.types import Count, Rate, Seconds


class Part(BaseModel):
    """Strict, extra fields kept, ``class`` and friends by alias."""

    model_config = ConfigDict(extra="allow", strict=True, populate_by_name=True)


class Process(Part):
    """The worker process that ran the point: index in start order, OS pid, log (relative to the run folder) and
    ``startup_s`` (interpreter start, imports, strategy and peak probe, seconds); on a Dask cluster also the Dask
    worker that ran its group (``dask_worker``, its name or address) and the group's index in the plan
    (``dask_group``): with ``started_at``, the order each machine ran its groups."""

    worker: int | None = None
    pid: int | None = None
    log: str | None = None
    startup_s: Seconds | None = None
    dask_worker: str | None = None
    dask_group: Count | None = None


class ProcessShare(Part):
    """One of a multi-process point's cooperating processes, as it measured itself: per-epoch seconds
    (``epoch_s``, ``train_s``, ``val_s``: one value per epoch), its input pipeline alone (its own rows of every
    batch, examples/s) and the first 12 hex digits of the sha256 of its final weights (equal in every process
    when they trained the same model)."""

    process_id: int
    pid: int | None = None
    epoch_s: list[Seconds | None] | None = None
    train_s: list[Seconds | None] | None = None
    val_s: list[Seconds | None] | None = None
    input_examples_per_s: Rate | None = None
    final_weights_sha256: str | None = None


class Topology(Part):
    """How a multi-process point ran: ``processes`` cooperating processes of ``devices_per_process`` devices each,
    joined through JAX's coordinator at ``coordinator`` and started by ``launched_by``. The record's epoch times
    are the slowest process's per epoch (``timing``); each process's own are in ``per_process``."""

    processes: int
    devices_per_process: int | None = None
    coordinator: str | None = None
    launched_by: str | None = None  # bench (N local processes)
    timing: str | None = None
    per_process: list[ProcessShare] = Field(default_factory=list)


class Memory(Part):
    """Peak resident memory of the worker (``peak_rss_bytes``) and peak device memory (largest over the
    strategy's devices), each with its scope: ``point`` (counter reset before the point, or never raised before it:
    a JAX worker's first point) or ``process`` (the worker's peak so far: JAX cannot reset it). ``probe_in_process``:
    whether bench's matmul probe ran in this process before the figure was read (absent in older records,
    whose JAX process peaks include the probe's matrices; False in newer ones: the probe runs in a process of its
    own, or is read from the host's cache). Under JAX also the model's own need, from XLA's
    memory analysis of the compiled training step on one device (``step_bytes`` = ``step_argument_bytes`` +
    ``step_output_bytes`` - ``step_alias_bytes`` + ``step_temp_bytes``; ``step_source`` says so), read in
    ``step_measure_s`` seconds. Bytes throughout."""

    peak_rss_bytes: Count | None = None
    rss_scope: str | None = None
    device_peak_bytes: Count | None = None
    per_device: list[int] | None = None
    device_scope: str | None = None
    probe_in_process: bool | None = None
    step_bytes: Count | None = None
    step_argument_bytes: Count | None = None
    step_output_bytes: Count | None = None
    step_alias_bytes: Count | None = None
    step_temp_bytes: Count | None = None
    step_source: str | None = None
    step_measure_s: Seconds | None = None


class Placement(Part):
    """How a point's model and batches were laid out on the devices, read back from the framework before the fit
    was timed (``bench.worker.devices``): the mesh or strategy (``mesh``), the variables (``variables``, e.g.
    ``8 replicated on 2 devices``) and one of the point's batches as ``fit`` places it (``batch``, e.g.
    ``128 rows sharded over 2 devices, 64 each``)."""

    mesh: str | None = None
    variables: str | None = None
    batch: str | None = None


class Check(Part):
    """One check of the TPU-readiness doctor (``bench.readiness``), as run before a run's TPU points: its name,
    ``ok`` / ``warn`` / ``fail``, what it saw and the one-line fix."""

    check: str
    status: str
    evidence: str
    fix: str = ""


class RaceSettings(Part):
    """A point of a ``repeats=auto`` run (:mod:`bench.reporting.analysis.race`): the most repeats a configuration
    could get (``max_repeats``) and the run's time budget (``budget_s``, seconds of point time; 0: none). The race's
    decisions are replayed from the records and these two settings."""

    max_repeats: int = Field(ge=2, le=1000)
    budget_s: Seconds = 0.0


class SecondBatch(Part):
    """A short extra timed stage after a point whose configuration the run swept at one batch only (issue 52): the
    same model, compiled the same way, trained on at ``global_batch_size`` (twice the point's, else half) for a
    warm-up of one execution and a timed epoch of ``steps`` steps; ``step_s`` is the timed epoch's seconds per step,
    ``warmup_s`` the warm-up's (tracing, compilation), ``measure_s`` the whole stage. What tells a step's fixed
    cost from the part that grows with the batch (bench.reporting.analysis.limits) where the sweep has no other
    batch."""

    global_batch_size: Count
    steps: Count
    step_s: Seconds
    warmup_s: Seconds | None = None
    measure_s: Seconds | None = None
