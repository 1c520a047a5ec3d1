"""Point records on disk: one JSON object per file, ``results/<run_id>/<point_id>.json``, written atomically
(temporary file, ``fsync``, ``os.replace``), so no reader sees half a record; and tolerant loading of results
folders. No framework. Docs: docs/records.md.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from bench.records.model import Record
from bench.records.upgrade import RecordError, parse

RUN_MANIFEST = "run.json"
DOCTOR_FILE = "doctor.json"  # the TPU checks a run made before its TPU points (bench.readiness): not a record


def _json_default(obj: Any) -> Any:
    # numpy scalars and paths sneak into records from the worker; store plain JSON values.
    if hasattr(obj, "item"):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def finite_or_none(obj: Any) -> Any:
    """``obj`` with every NaN/inf replaced by None: strict JSON has no NaN, a diverged loss must stay readable, and
    the record model refuses non-finite numbers (:mod:`bench.records.types`)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: finite_or_none(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite_or_none(v) for v in obj]
    return obj


def atomic_write_json(path: Path, obj: Any) -> Path:
    """Write ``obj`` as JSON to ``path`` atomically (tmp file in the same folder + fsync + rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(finite_or_none(obj), indent=1, sort_keys=True, default=_json_default,
                      allow_nan=False)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; records are meant to be shared and merged
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_record(run_dir: Path, record: Record | dict[str, Any]) -> Path:
    """Validate ``record`` against the contract and write it as ``<run_dir>/<point_id>.json``; nothing is written
    when it is not a valid record."""
    obj = record.to_json() if isinstance(record, Record) else record
    plain = json.loads(json.dumps(finite_or_none(obj), default=_json_default, allow_nan=False))  # numpy -> JSON
    validate_record(plain)
    return atomic_write_json(Path(run_dir) / f"{plain['point_id']}.json", plain)


def validate_record(record: Any, source: str = "record") -> dict[str, Any]:
    """Check ``record`` (a stored JSON object) against the model of its schema version; return it unchanged or
    raise :class:`RecordError` naming what is wrong."""
    parse(record, source)
    return dict(record)


def read_json(path: Path) -> Any:
    """The JSON value in a file; raise RecordError naming the file when it cannot be read as JSON."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RecordError(f"{path}: unreadable ({type(e).__name__}: {e})") from e


def read_record(path: Path) -> dict[str, Any]:
    """Read and validate one record file; raise RecordError on anything unusable."""
    return validate_record(read_json(path), source=str(path))


R = TypeVar("R")


@dataclass
class LoadResult(Generic[R]):
    """Records found under some folders (as stored, or as the reader given to :func:`load_records` returns them),
    and the files that were skipped (path, reason)."""

    records: list[R] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def iter_record_files(dirs: Iterable[Path]) -> Iterator[Path]:
    """Every ``*.json`` below the given folders (or the files themselves), in sorted order.

    Run manifests (``run.json``), a run's TPU checks (``doctor.json``) and temporary files are not point records
    and are passed over.
    """
    for d in dirs:
        d = Path(d)
        files = [d] if d.is_file() else sorted(d.rglob("*.json"))
        for f in files:
            if f.name in (RUN_MANIFEST, DOCTOR_FILE) or f.name.startswith("."):
                continue
            yield f


def load_records(dirs: Iterable[Path], warn: bool = True,
                 read: Callable[[Path], Any] = read_record) -> LoadResult[Any]:
    """Load every record below ``dirs`` with ``read`` (default :func:`read_record`: the stored object, validated);
    unreadable, foreign or newer-schema files (``read`` raises :class:`RecordError`) are skipped by name.

    Never raises for a bad file: a report must survive a corrupt file in a results folder.
    """
    out: LoadResult[Any] = LoadResult()
    for f in iter_record_files(dirs):
        try:
            out.records.append(read(f))
        except RecordError as e:
            out.skipped.append((str(f), str(e)))
            if warn:
                warnings.warn(f"skipping {e}", stacklevel=2)
    return out
