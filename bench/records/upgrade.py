"""Every record bench ever wrote -> the current :class:`~bench.records.model.Record`: the one place that knows what
older records look like. One upgrade function per schema version (:data:`UPGRADES`; a breaking change bumps
``SCHEMA_VERSION`` and adds ``UPGRADES[n]``); inside version 1, what an absent field means is settled here and
listed in docs/records.md, *Versions and compatibility*. Fixtures: ``tests/data/schema`` (each must keep upgrading).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from bench.records.backends import BACKENDS
from bench.records.model import REQUIRED_FIELDS, Record

SCHEMA_VERSION = 1
STATUSES = ("ok", "failed", "skipped", "diverged")
LEGACY_FLOP_COUNT = "3x forward"


class RecordError(ValueError):
    """A file that is not a usable point record (unreadable, foreign, or of a newer schema)."""


def parse(raw: Any, source: str = "record") -> Record:
    """Validate a stored record (a JSON object) against the model of its schema version, as stored (nothing
    filled in); raise :class:`RecordError` naming the field that is wrong."""
    check_header(raw, source)
    try:
        return Record.model_validate(dict(raw))
    except ValidationError as e:
        first = e.errors()[0]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]).lstrip(".")
        value = first.get("input")
        raise RecordError(f"{source}: field {where} is {value!r}; {first['msg'].lower()}") from None


def check_header(raw: Any, source: str = "record") -> None:
    """The checks :func:`parse` makes before the record model: a JSON object of a schema version bench wrote, with
    the required fields and a known status; raise :class:`RecordError` saying which fails (cheap: a foreign file is
    told apart without walking it)."""
    if not isinstance(raw, Mapping):
        raise RecordError(f"{source}: not a JSON object")
    version = raw.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise RecordError(f"{source}: no integer schema_version; not a bench record")
    if version > SCHEMA_VERSION:
        raise RecordError(f"{source}: schema_version {version} is newer than this bench reads ({SCHEMA_VERSION}); "
                          "upgrade bench to read it")
    if version not in UPGRADES:
        raise RecordError(f"{source}: schema_version {version} was never written by bench")
    missing = [k for k in REQUIRED_FIELDS if k not in raw]
    if missing:
        raise RecordError(f"{source}: missing required field(s) {', '.join(missing)}")
    if raw.get("status") not in STATUSES:
        raise RecordError(f"{source}: status {raw.get('status')!r} is not one of {', '.join(STATUSES)}")


def upgrade(raw: Any, source: str = "record") -> Record:
    """A stored record (JSON object or :class:`Record`) as the current model, every absent field's meaning filled
    in (module docstring). What the report side reads. A record this function returned is returned as it is (the
    report side passes records from one step to the next); any other Record is copied, never changed."""
    if isinstance(raw, Record) and raw._upgraded:
        return raw
    record = raw.model_copy(deep=True) if isinstance(raw, Record) else parse(raw, source)
    record = UPGRADES[record.schema_version](record)
    record._upgraded = True
    return record


def _from_v1(r: Record) -> Record:
    if r.backend is None:
        r.backend = BACKENDS[0]  # the first declared: the only backend before JAX
    if r.requested_steps_per_execution is None:
        r.requested_steps_per_execution = r.steps_per_execution
    if r.effective_steps_per_execution is None:
        r.effective_steps_per_execution = r.steps_per_execution
    if r.flops_per_example is not None and r.flop_count is None:
        r.flop_count = LEGACY_FLOP_COUNT
    for e in r.epochs:
        if e.examples is None and e.steps is not None and r.global_batch_size:
            e.examples = e.steps * r.global_batch_size
    ds = r.dataset
    if ds.chance_accuracy is None and ds.classes:
        ds.chance_accuracy = 1.0 / ds.classes
    if r.peak_devices is None and r.peak_scope:  # "2 x /gpu:0": the probe on one device, times their number
        head = r.peak_scope.split(" x ", 1)[0]
        r.peak_devices = int(head) if head.isdigit() and int(head) > 0 else None
    s = r.strategy
    if "device_kind" not in s.model_fields_set:
        s.device_kind = r.env.get("device_kind")
    if s.name in ("cpu", "gpu") and s.cls == "OneDeviceStrategy":
        s.name = s.requested = f"{s.name}_onedevice"
    return r


UPGRADES: dict[int, Callable[[Record], Record]] = {1: _from_v1}
