"""Workloads: what bench trains. Importing this package imports no framework (configs are checked, and
reports built, without one).

A workload is a :class:`Workload`: a zero-argument model builder, its compile settings, its data, and
metadata that describes them without a framework (input shape, classes, sizes). The registry
(:data:`WORKLOADS`) is a dict of zero-argument factories returning such objects. The built-in ones are
the seed tutorials' exact layer stacks, described by data alone, their compile settings included
(``optimizer``, ``learning_rate``, ``loss``, ``top_k``); this package must not reach Keras, even lazily
(``tests/test_import_contract.py``), and the worker attaches their model builder and Keras objects with
:func:`bench.workloads.models.runnable`.

The public names live in:

- :mod:`~bench.workloads.base`: ``Workload``, ``WorkloadError``, ``is_import_path``, ``shown``, ``run_name``,
  ``stage_epochs``;
- :mod:`~bench.workloads.registry`: the built-ins (``WORKLOADS``; their earlier definitions:
  :mod:`bench.records.revisions`);
- :mod:`~bench.workloads.targets`: ``target_for``, ``TARGET_SOURCE``;
- :mod:`~bench.workloads.user`: user workloads from import paths (``imported``);
- :mod:`~bench.workloads.resolve`: ``get_workload``, data-source adaptation (``on_source``, ``dataset_size``,
  ``source_of``, ``uses_source``);
- :mod:`~bench.workloads.models` (imports Keras) and :mod:`~bench.workloads.pickled` (notebook factories),
  imported by name only.
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
