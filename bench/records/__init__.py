"""Point records: the only contract between the run side and the report side; imports no framework. :mod:`.model` (the
typed :class:`Record`), :mod:`.upgrade` (every record ever written -> the current model), :mod:`.store` (atomic
writes, tolerant loading), :mod:`.schema` (the published JSON Schema). Docs: docs/records.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# BACKENDS: the Keras backends bench runs, each by the engine of that name (bench.engines.<name>), in the order their
# folders declare (bench.records.backends): the one definition the config, the engines and the report read. A record
# without ``backend`` is tensorflow's (the only one before).
from bench.records.backends import BACKENDS
from bench.records.model import REQUIRED_FIELDS, Dataset, Epoch, ErrorInfo, Record, Stage, Strategy
from bench.records.parts import Check, Memory, Placement, Process, ProcessShare, RaceSettings, Topology
from bench.records.store import (
    DOCTOR_FILE,
    RUN_MANIFEST,
    LoadResult,
    atomic_write_json,
    finite_or_none,
    iter_record_files,
    load_records,
    read_json,
    read_record,
    validate_record,
    write_record,
)
from bench.records.upgrade import SCHEMA_VERSION, STATUSES, RecordError, check_header, parse, upgrade

RecordLike = Record | Mapping[str, Any]  # a typed record, or one as stored (upgraded on the way in)


def as_records(records: Iterable[RecordLike]) -> list[Record]:
    """Records as the current typed model (:func:`upgrade`): the report side's way in."""
    return [upgrade(r) for r in records]


__all__ = [
    "BACKENDS",
    "DOCTOR_FILE",
    "REQUIRED_FIELDS",
    "RUN_MANIFEST",
    "SCHEMA_VERSION",
    "STATUSES",
    "Check",
    "Dataset",
    "Epoch",
    "ErrorInfo",
    "LoadResult",
    "Memory",
    "Placement",
    "Process",
    "ProcessShare",
    "RaceSettings",
    "Record",
    "RecordError",
    "RecordLike",
    "Stage",
    "Strategy",
    "Topology",
    "as_records",
    "atomic_write_json",
    "check_header",
    "finite_or_none",
    "iter_record_files",
    "load_records",
    "parse",
    "read_json",
    "read_record",
    "upgrade",
    "validate_record",
    "write_record",
]
