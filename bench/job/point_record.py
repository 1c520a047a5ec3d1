"""The record of one point as the run side builds it: the fields every record carries, whatever its
status, and the ``error`` object of a failure. Used by the worker (every status) and by the launcher (a
point whose worker died). No framework import.
"""

from __future__ import annotations

import traceback
from datetime import UTC, datetime
from typing import Any

from bench.data.sources import describe
from bench.job.point import Point
from bench.records import SCHEMA_VERSION, ErrorInfo, Process, Record
from bench.workloads import Workload, get_workload, source_of, target_for, uses_source
from bench.workloads.user import INPUT_FN

TRACEBACK_LINES = 12
TPU_AUGMENTATION_NOTE = (
    "the model holds Keras augmentation layers; under TensorFlow a TPU cannot compile them (RandomRotation's "
    "ImageProjectiveTransformV3; RandomWidth/RandomHeight make dynamic shapes): augment in the input pipeline "
    "instead, Workload(..., augment=(\"flip\", \"crop\")) (docs/your-model-and-data.md)")


def utc_now() -> str:
    """Current UTC time, ISO 8601 with a Z suffix (second resolution)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def error_info(exc: BaseException, **more: str) -> ErrorInfo:
    """A record's ``error``: exception type, first lines of its message, last lines of the traceback (``more``:
    ``kind``, ``hint``)."""
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    lines = "".join(tb).rstrip().splitlines()
    return ErrorInfo.model_validate({"type": type(exc).__name__, "message": str(exc).strip()[:2000],
                                     "traceback": "\n".join(lines[-TRACEBACK_LINES:]), **more})


def process_record(worker: int, pid: int, log: Any = None) -> Process:
    """The record's ``process``: which worker process ran the point (its index in the run, in start order, and
    its operating-system pid) and its log file relative to the run folder. One repeat = one worker process, so
    repeats of a configuration are independent samples of the machine."""
    if log is None:
        return Process(worker=int(worker), pid=int(pid))
    return Process(worker=int(worker), pid=int(pid), log=str(log))


def dataset_record(wl: Workload, point: Point) -> dict[str, Any]:
    """The record's ``dataset``: what the point trained on. ``name`` is ``synthetic`` (bench's embedded data,
    ``source`` naming which), ``arrays`` (a user workload's own arrays) or a data source's name without its
    path (``keras:mnist``, ``folder:pets``: :func:`bench.data.sources.short_name`), with that source's kind,
    sizes, classes and content hash and the spec as given in ``source``, or ``input_fn`` (a workload's own pipeline,
    ``source`` its import path); ``shape`` is the model's input
    (images from files are resized to it)."""
    out: dict[str, Any] = {"name": "synthetic", "source": wl.dataset, "scale": point.data_scale,
                           "n_train": point.n_train, "n_val": point.n_val, "shape": list(wl.shape),
                           "classes": wl.classes, "pipeline": point.input_pipeline}
    spec = source_of(wl, point.data_scale)
    if spec:
        out.update(describe(spec).as_record())  # name (no path) and source (the spec as given)
        if not uses_source(wl):  # bench's generated files: synthetic like the other embedded data, JPEGs on disk
            out.update(name="synthetic", source=wl.dataset, files=cache_relative(spec))
            for key in ("source_n_train", "source_n_val"):
                out.pop(key)
    elif wl.input_fn is not None:  # its own pipeline: shape and classes are read off it and the model in the fit
        out.update(name=INPUT_FN, source=wl.source, shape=None, classes=None, scale=None)
    elif wl.source:
        out.update(name="arrays", source=wl.source, source_n_train=wl.full[0], source_n_val=wl.full[1])
    return out


def cache_relative(spec: str) -> str:
    """A data source spec of bench's generated files with the machine's cache folder written as
    ``<bench data cache>`` (records are shared: no folder of the machine)."""
    from bench.data.synthetic import cache_dir

    return spec.replace(str(cache_dir()), "<bench data cache>")


def target_record(wl: Workload, point: Point) -> dict[str, Any]:
    """``target_accuracy`` and ``target_source`` when the workload has a target for this point's data and sizes
    (:func:`bench.workloads.target_for`); {} otherwise."""
    found = target_for(wl, point.data, point.data_scale, point.n_train, point.n_val)
    return {} if found is None else {"target_accuracy": found[0], "target_source": found[1]}


def base_record(run_id: str, suite: str, point: Point, strategy: dict[str, Any], env: dict[str, Any],
                global_batch: int | None, replicas: int | None, race: dict[str, Any] | None = None) -> Record:
    """The fields every record of this point carries, whatever its status (``status`` starts as ok).

    ``global_batch``/``replicas`` are None where the strategy was never resolved; a point listed with a
    global batch knows it anyway.
    """
    wl = get_workload(point.workload, point.data)
    if global_batch is None:
        global_batch = point.global_batch_size  # known without the hardware (None when listed per replica)
    return Record.model_validate({
        "schema_version": SCHEMA_VERSION,
        "run_id": run_id,
        "point_id": point.point_id,
        "config_hash": point.config_hash,
        "point": point.to_record(),
        "suite": suite,
        "backend": point.backend,
        "status": "ok",
        "error": None,
        "workload": wl.name,
        "workload_variant": wl.variant,
        **({"workload_source": wl.source} if wl.source else {"workload_revision": wl.revision}),
        "dataset": dataset_record(wl, point),
        "strategy": strategy,
        "global_batch_size": global_batch,
        "per_replica_batch_size": global_batch // replicas if global_batch and replicas else None,
        "batch_scaling": point.batch_scaling,
        "steps_per_execution": point.steps_per_execution,
        **({"requested_steps_per_execution": point.requested_steps_per_execution}
           if point.requested_steps_per_execution is not None else {}),
        "precision": point.precision,
        "repeat": point.repeat,
        "seed": point.seed,
        "steps_per_epoch": point.n_train // global_batch if global_batch else None,
        "validation_steps": point.n_val // global_batch if global_batch else None,
        **target_record(wl, point),
        "epochs": [],
        "notes": [],
        "env": env,
        "started_at": utc_now(),
        "finished_at": None,
        **({"race": race} if race else {}),
    }, strict=False)  # numpy ints from a strategy or a data source are ints here; the stored file is strict


def failure_kind(error: BaseException, out_of_memory: bool, augmentation_layers: list[str] | None,
                 device_kind: str) -> dict[str, str]:
    """The ``kind`` (and ``hint``) a failed point's error gets, {} for none: ``out_of_memory``;
    ``augmentation_layers_on_tpu`` (tutorial 001: a model with Keras augmentation layers on a TPU);
    ``augmentation_layers_need_tensorflow`` (Keras 3.15's augmentation layers under the JAX backend)."""
    if out_of_memory:
        return {"kind": "out_of_memory"}
    if augmentation_layers and device_kind == "tpu":
        return {"kind": "augmentation_layers_on_tpu", "hint": TPU_AUGMENTATION_NOTE}
    if augmentation_layers and "requires the tensorflow module" in str(error):
        return {"kind": "augmentation_layers_need_tensorflow",
                "hint": ("Keras' augmentation layers need TensorFlow even under the JAX backend (a JAX-only TPU "
                         "image has none): augment in the input pipeline, Workload(..., augment=(\"flip\", \"crop\"))")}
    return {}
