"""Workloads: what bench trains. Importing this package imports no framework (configs are checked, and reports built,
without one). A :class:`Workload` is a zero-argument model builder, compile settings, data and framework-free
metadata; :data:`WORKLOADS` maps names to factories. Public names from :mod:`.base`, :mod:`.registry` (the built-ins),
:mod:`.targets`, :mod:`.user` (import paths) and :mod:`.resolve`; :mod:`.models` (imports Keras) and :mod:`.pickled`
(notebook factories) are imported by name only. Method: docs/workloads.md, docs/your-model-and-data.md.
"""

from __future__ import annotations

from bench.workloads.base import (
    HEADS,
    LOGITS,
    LOSS_KINDS,
    MIN_STAGED_EPOCHS,
    PROBABILITIES,
    SOFTMAX_ON_PROBABILITIES,
    SPARSE_CE,
    STAGES,
    CompileSettings,
    Workload,
    WorkloadError,
    is_import_path,
    run_name,
    shown,
    stage_epochs,
)
from bench.workloads.registry import PLANT_IMAGES, PLANT_TARGET, WORKLOADS
from bench.workloads.resolve import batch_misfit, dataset_size, get_workload, on_source, source_of, uses_source
from bench.workloads.targets import TARGET_SOURCE, target_for
from bench.workloads.user import imported

__all__ = [
    "HEADS",
    "LOGITS",
    "LOSS_KINDS",
    "MIN_STAGED_EPOCHS",
    "PLANT_IMAGES",
    "PLANT_TARGET",
    "PROBABILITIES",
    "SOFTMAX_ON_PROBABILITIES",
    "SPARSE_CE",
    "STAGES",
    "TARGET_SOURCE",
    "WORKLOADS",
    "CompileSettings",
    "Workload",
    "WorkloadError",
    "batch_misfit",
    "dataset_size",
    "get_workload",
    "imported",
    "is_import_path",
    "on_source",
    "run_name",
    "shown",
    "source_of",
    "stage_epochs",
    "target_for",
    "uses_source",
]
