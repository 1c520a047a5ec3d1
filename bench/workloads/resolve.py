"""Resolving a workload: a name (built-in or import path) on a data source, its shape, classes, vocabulary and
sizes adapted to that source (:func:`on_source`); how many examples a point takes and where they are read from."""

from __future__ import annotations

import dataclasses

from bench.data import plants, sources
from bench.workloads.base import Workload, WorkloadError, is_import_path
from bench.workloads.registry import PLANT_IMAGES, WORKLOADS
from bench.workloads.user import imported


def get_workload(name: str, data: str = sources.SYNTHETIC) -> Workload:
    """The workload called ``name`` (a built-in factory's result, or a user workload's import path) on the
    data source ``data`` (``synthetic``: the workload's own data), its shape, classes and sizes adapted to
    that source; KeyError naming the allowed values for an unknown name, WorkloadError for a bad import
    path or a source the workload cannot take, SourceError for a source that cannot be read."""
    if is_import_path(name):
        wl = imported(name)[0]
    else:
        try:
            factory = WORKLOADS[name]
        except KeyError:
            raise KeyError(f"unknown workload {name!r}; allowed: {', '.join(WORKLOADS)}, or an import path "
                           "my_pkg.my_module:make") from None
        wl = factory()
    if wl.input_fn is not None and not sources.is_synthetic(data):
        raise WorkloadError(f"{name}: brings its own input pipeline (input_fn), which data={data!r} cannot replace; "
                            "leave data unset for it")
    spec = data if not sources.is_synthetic(data) else wl.data if isinstance(wl.data, str) else sources.SYNTHETIC
    if sources.is_synthetic(spec):
        return wl
    return on_source(wl, sources.describe(spec))


def on_source(wl: Workload, src: sources.Source) -> Workload:
    """``wl`` adapted to the data source ``src``: its input shape (images from files keep the workload's
    height, width and channels: they are resized and converted to them; arrays bring their own), the
    source's classes (a binary workload stays binary only on 2 classes), vocabulary and sizes (``full``:
    the whole source; ``reduced``: the workload's reduced sizes where the source is larger)."""
    name = wl.source or wl.name
    if wl.shape and not wl.source and wl.modality != src.modality:
        raise WorkloadError(f"{name} takes {wl.modality} input; {src.spec} holds {src.modality}")
    if src.encoded:
        shape = wl.shape if len(wl.shape) == 3 else src.shape
    elif src.modality == "tokens":
        shape = wl.shape if len(wl.shape) == 1 else (300,)
    else:
        shape = src.shape
    full = (src.n_train, src.n_val)
    reduced = (min(wl.reduced[0], full[0]), min(wl.reduced[1], full[1])) if all(wl.reduced) and not wl.source else full
    return dataclasses.replace(wl, dataset=src.spec, shape=tuple(shape), classes=src.classes, full=full,
                               reduced=reduced, binary_labels=wl.binary_labels and src.classes == 2,
                               vocab=src.vocab if src.modality == "tokens" else 0)


def dataset_size(name: str, scale: str, n_train: int = 0, n_val: int = 0,
                 data: str = sources.SYNTHETIC) -> tuple[int, int]:
    """(n_train, n_val) of a workload at ``scale`` ('reduced' | 'full') on ``data``; explicit sizes win when
    > 0 (capped at what the source holds)."""
    workload = get_workload(name, data)
    if workload.input_fn is not None:  # the user's pipeline decides what an epoch is: its declared sizes
        return workload.full
    base = workload.full if scale == "full" else workload.reduced
    if uses_source(workload) or workload.source or workload.dataset == PLANT_IMAGES:  # files: no more than they hold
        return (min(n_train or base[0], workload.full[0]), min(n_val or base[1], workload.full[1]))
    return (n_train or base[0], n_val or base[1])


def uses_source(workload: Workload) -> bool:
    """The workload reads a data source (``keras:``, ``folder:``, …), not synthetic data or user arrays."""
    return ":" in workload.dataset


def source_of(workload: Workload, data_scale: str) -> str:
    """The data source spec a workload's examples are read from ("" for arrays in memory): its source, or
    for the generated plant images (synthetic, but JPEG files) their ``csv:`` spec at ``data_scale``."""
    if uses_source(workload):
        return workload.dataset
    return plants.spec(data_scale) if workload.dataset == PLANT_IMAGES else ""


def batch_misfit(name: str, global_batch: int, strategy: str, n_train: int, n_val: int, scale: str) -> str:
    """Why global batch ``global_batch`` (under ``strategy``) does not fit workload ``name``'s training or validation
    split of ``n_train`` / ``n_val`` examples ("" when both hold one whole batch): the run refuses it
    (bench.runner.inputs) and the doctor fails it (bench.readiness.plan_checks), in these words."""
    from bench.workloads.base import shown

    if n_train // global_batch >= 1 and n_val // global_batch >= 1:
        return ""
    split = "validation" if n_train // global_batch else "training"
    return (f"global batch {global_batch} ({strategy}) is larger than {shown(name)}'s {split} split ({n_train} train "
            f"/ {n_val} val examples at data_scale={scale})")

