"""Records other people wrote, made safe to render: the report side's way in. Before any frame is built, every string of
a record (nested, list items, dict keys; the encoded predictions excepted) is put on one line, its markup characters
backslash-escaped and capped (:data:`LIMITS` by field, :data:`DEFAULT_LIMIT` otherwise); names as bench writes them
pass unchanged, numbers are the record model's job. The loader's skip reasons quote files, so they are made inert too
(:func:`skipped_row`). Rules: docs/records.md, *Records bench did not write*.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.records import LoadResult, Record, RecordError, check_header, load_records, parse, read_json, upgrade
from bench.records.fatal import fatal_line, log_beside, log_tail

DEFAULT_LIMIT = 80  # characters of a name, a version, a host
LIMITS = {"message": 300, "hint": 300, "notes": 300, "traceback": 600, "stderr_tail": 600, "reason": 300,
          "evidence": 200, "fix": 200, "source": 120, "path": 160}
KEY_LIMIT = 40  # a dict key (env variables, fields bench does not know)
EXEMPT = ("val_predictions",)  # base64 of the predicted classes: long by design, never rendered
MARKUP = re.compile(r"([\\`*\[\]<>|$!#])")
SPACE = re.compile(r"[\s\x00-\x1f\x7f]+")
PLAIN = (int, float, type(None))
SCALARS = frozenset((*PLAIN, bool))  # the exact types JSON numbers, booleans and nulls load as: no call


@functools.lru_cache(maxsize=1 << 16)  # records repeat their keys, hosts and names: each is escaped once
def inert(text: str, limit: int = DEFAULT_LIMIT) -> str:
    """``text`` on one line, capped at ``limit`` characters with an ellipsis, its markup characters escaped (module
    docstring). The cap applies before escaping, so a capped value renders at most ``limit`` characters wide."""
    flat = SPACE.sub(" ", text.encode("utf-8", "replace").decode("utf-8")).strip()  # a lone surrogate -> "?"
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return MARKUP.sub(r"\\\1", flat)


def clean(value: Any, key: str = "") -> Any:
    """``value`` (a record or any part of one) with every string made :func:`inert`, ``key`` choosing the cap."""
    if isinstance(value, PLAIN):  # most of a record: numbers, booleans, nulls
        return value
    if isinstance(value, str):
        return inert(value, LIMITS.get(key, DEFAULT_LIMIT))
    if isinstance(value, dict):
        return {inert(k, KEY_LIMIT) if isinstance(k, str) else k:
                v if type(v) in SCALARS or k in EXEMPT else clean(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [v if type(v) in SCALARS else clean(v, key) for v in value]
    if isinstance(value, tuple):
        return tuple(clean(v, key) for v in value)
    return value


MAX_DEPTH = 64  # a record nests a few levels (epochs, their fields); a file deeper than this is not one


def too_deep(value: object, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` (parsed JSON) nests lists and objects more than ``limit`` levels, counted without
    recursion."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict | list):
            if depth > limit:
                return True
            stack.extend((c, depth + 1) for c in (v.values() if isinstance(v, dict) else v))
    return False


def load(dirs: Sequence[Path | str]) -> LoadResult[Record]:
    """:func:`bench.records.load_records` for the report side: each file read once (:func:`read`), its record typed,
    upgraded and inert; the skipped files' paths and reasons stay as the loader gave them, for locating them
    (:func:`skipped_row` renders one)."""
    return load_records([Path(d) for d in dirs], warn=False, read=read)


def read(path: Path) -> Record:
    """One record file: the header checked as stored (a foreign file is not walked), then the record made inert and
    parsed once (:func:`bench.records.upgrade`); a record the model refuses is refused for what the file holds (the
    reason quotes it as stored), a file nested too deeply to walk with that reason: :class:`RecordError` either way."""
    raw = read_json(path)
    check_header(raw, str(path))
    if too_deep(raw):  # said by a count, not by the interpreter's recursion limit (another library may raise it)
        raise RecordError(f"{path}: nested too deeply to be a record")
    try:
        return _with_fatal_line(upgrade(clean(raw), source=str(path)), raw, path)
    except RecursionError:
        raise RecordError(f"{path}: nested too deeply to be a record") from None
    except RecordError:
        parse(raw, str(path))  # raises with the reason as stored
        raise RecordError(f"{path}: not a record once its text is made inert") from None


def _with_fatal_line(record: Record, raw: Any, path: Path) -> Record:
    """A dead worker's record from before bench quoted its log (no ``error.fatal``): the fatal line of the log it
    names, read where that log lies inside its run folder, quoted in its message as a fresh run's would be."""
    error = record.error
    if error is None or error.type != "WorkerCrashed" or error.fatal or not isinstance(raw.get("error"), dict):
        return record
    log = raw["error"].get("log")
    found = log_beside(path, log) if isinstance(log, str) and log else None
    line = fatal_line(log_tail(found)) if found is not None else ""
    if line:
        error.fatal = inert(line, LIMITS["message"])
        error.message = inert(f"{raw['error'].get('message') or error.type}: {line}", LIMITS["message"])
    return record


def skipped_row(name: str, reason: str) -> dict[str, str]:
    """A skipped file's table row: its name and the loader's reason (which may quote the file), inert."""
    return {"file": inert(name, LIMITS["path"]), "reason": inert(reason, LIMITS["reason"])}
