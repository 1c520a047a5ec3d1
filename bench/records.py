"""Point records: the only contract between the run side and the report side.

One JSON object per file, ``results/<run_id>/<point_id>.json``, written atomically (temporary file in
the same folder, ``fsync``, ``os.replace``), so a reader never sees a half-written record, even after a
SIGKILL. This module never imports TensorFlow: reports are rebuilt from records on any laptop.

Schema version 1 is the contract in DESIGN.md; fields beyond it are additive. Raw per-epoch figures are
stored (``epoch_s``, ``train_s``, ``val_s`` in seconds); every summary is derived at analysis time.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
STATUSES = ("ok", "failed", "skipped", "diverged")
# The Keras backends bench runs, each by the engine of that name (bench.engines.<name>): the one definition the
# config, the engines and the report read. A record without ``backend`` is tensorflow's (the only one before).
BACKENDS = ("tensorflow", "jax")
# Fields every record must carry (DESIGN.md, "The record contract").
REQUIRED_FIELDS = (
    "schema_version", "run_id", "point_id", "suite", "status", "error", "workload", "dataset",
    "strategy", "global_batch_size", "per_replica_batch_size", "steps_per_execution", "precision",
    "repeat", "seed", "steps_per_epoch", "epochs", "env", "started_at", "finished_at",
)
RUN_MANIFEST = "run.json"


class RecordError(ValueError):
    """A file that is not a usable point record (unreadable, foreign, or of a newer schema)."""


def _json_default(obj: Any) -> Any:
    # numpy scalars and paths sneak into records from the worker; store plain JSON values.
    if hasattr(obj, "item"):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def _clean_floats(obj: Any) -> Any:
    """Replace NaN/inf by None: strict JSON has no NaN, and a diverged loss must stay readable."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _clean_floats(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean_floats(v) for v in obj]
    return obj


def atomic_write_json(path: Path, obj: Any) -> Path:
    """Write ``obj`` as JSON to ``path`` atomically (tmp file in the same folder + fsync + rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_clean_floats(obj), indent=1, sort_keys=True, default=_json_default,
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


def write_record(run_dir: Path, record: dict[str, Any]) -> Path:
    """Validate ``record`` against the contract and write it as ``<run_dir>/<point_id>.json``."""
    validate_record(record)
    return atomic_write_json(Path(run_dir) / f"{record['point_id']}.json", record)


def validate_record(record: dict[str, Any], source: str = "record") -> dict[str, Any]:
    """Check the required fields and the schema version; raise RecordError naming what is wrong."""
    if not isinstance(record, dict):
        raise RecordError(f"{source}: not a JSON object")
    version = record.get("schema_version")
    if not isinstance(version, int):
        raise RecordError(f"{source}: no integer schema_version; not a bench record")
    if version > SCHEMA_VERSION:
        raise RecordError(
            f"{source}: schema_version {version} is newer than this bench reads "
            f"({SCHEMA_VERSION}); upgrade bench to read it")
    missing = [k for k in REQUIRED_FIELDS if k not in record]
    if missing:
        raise RecordError(f"{source}: missing required field(s) {', '.join(missing)}")
    if record["status"] not in STATUSES:
        raise RecordError(f"{source}: status {record['status']!r} is not one of {', '.join(STATUSES)}")
    for key, kinds in _TYPES.items():
        if not isinstance(record[key], kinds) or isinstance(record[key], bool):
            raise RecordError(f"{source}: field {key} is {record[key]!r}; expected {_TYPE_NAMES[key]}")
    for key, kinds in _OPTIONAL_TYPES.items():
        if key in record and not isinstance(record[key], kinds):
            raise RecordError(f"{source}: field {key} is {record[key]!r}; expected {_TYPE_NAMES[key]}")
    for i, epoch in enumerate(record["epochs"]):
        if not isinstance(epoch, dict) or not isinstance(epoch.get("epoch"), int):
            raise RecordError(f"{source}: epochs[{i}] has no integer 'epoch'")
    return record


# Fields the analysis computes with: a null or a string there would crash a whole report, so such a file is
# refused (and skipped by name) instead. None is allowed where a skipped point cannot know the value.
_TYPES: dict[str, tuple[type, ...]] = {
    "steps_per_execution": (int,), "repeat": (int,), "seed": (int,), "epochs": (list,),
    "workload": (str,), "precision": (str,), "dataset": (dict,), "strategy": (dict,), "env": (dict,),
    "global_batch_size": (int, type(None)),
}
# Optional fields the analysis reads when present (absent ``backend`` = tensorflow, a record from before it).
_OPTIONAL_TYPES: dict[str, tuple[type, ...]] = {
    "backend": (str,), "memory": (dict, type(None)), "initial_weights": (dict, type(None)),
}
_TYPE_NAMES = {k: " or ".join("null" if t is type(None) else t.__name__ for t in v)
               for k, v in {**_TYPES, **_OPTIONAL_TYPES}.items()}


def read_record(path: Path) -> dict[str, Any]:
    """Read and validate one record file; raise RecordError on anything unusable."""
    path = Path(path)
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RecordError(f"{path}: unreadable ({type(e).__name__}: {e})") from e
    return validate_record(obj, source=str(path))


@dataclass
class LoadResult:
    """Records found under some folders, and the files that were skipped (path, reason)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def iter_record_files(dirs: Iterable[Path]) -> Iterator[Path]:
    """Every ``*.json`` below the given folders (or the files themselves), in sorted order.

    Run manifests (``run.json``) and temporary files are not point records and are passed over.
    """
    for d in dirs:
        d = Path(d)
        files = [d] if d.is_file() else sorted(d.rglob("*.json"))
        for f in files:
            if f.name == RUN_MANIFEST or f.name.startswith("."):
                continue
            yield f


def load_records(dirs: Iterable[Path], warn: bool = True) -> LoadResult:
    """Load every record below ``dirs``; unreadable, foreign or newer-schema files are skipped by name.

    Never raises for a bad file: a report must survive a corrupt file in a results folder.
    """
    out = LoadResult()
    for f in iter_record_files(dirs):
        try:
            out.records.append(read_record(f))
        except RecordError as e:
            out.skipped.append((str(f), str(e)))
            if warn:
                warnings.warn(f"skipping {e}", stacklevel=2)
    return out


def steady_epochs(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Epochs 2..n (the steady state); epoch 1 is the warm-up epoch and never mixed in. A transfer-learning
    point's epochs name their ``stage``: its steady state is the last stage's epochs after that stage's
    first (which traces the recompiled model, a warm-up of its own)."""
    epochs = record.get("epochs") or []
    staged = [e["stage"] for e in epochs if e.get("stage")]
    if staged:
        return [e for e in epochs if e.get("stage") == staged[-1]][1:]
    return [e for e in epochs if e.get("epoch", 0) >= 2]
