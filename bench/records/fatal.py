"""A dead worker's log's fatal line: what the record's ``error.fatal`` holds. Here, below both sides, so that the
runner quotes it when a worker dies and a report reads it from the log beside records written before it did."""

from __future__ import annotations

import re
from pathlib import Path

# The lines a dying native runtime writes last, surest first: absl's FATAL (``F`` and a month-day stamp), a failed
# CHECK, C++'s terminate, CPython's fatal error, a segfault; then XLA's collective timeout and other FATAL mentions
FATAL = (re.compile(r"^F\d{4} |Check failed|terminate called|Fatal Python error|Segmentation fault"),
         re.compile(r"Termination timeout|rendezvous|\bFATAL\b|core dumped", re.IGNORECASE))
FATAL_LINES = 400  # the end of a dead worker's log searched for the line that says why
TAIL_BYTES = 1 << 20  # at most this much of a log's end is read


def fatal_line(text: str, limit: int = 400) -> str:
    """The last line of a worker's log that says why it died (:data:`FATAL`, the surer pattern first), shortened
    to ``limit`` characters; '' when none does."""
    lines = [x.strip() for x in reversed(text.splitlines())]
    line = next((x for pattern in FATAL for x in lines if pattern.search(x)), "")
    return line if len(line) <= limit else line[:limit - 1] + "…"


def log_tail(path: Path, n: int = FATAL_LINES) -> str:
    """The last ``n`` lines of a log (at most :data:`TAIL_BYTES` of its end); '' where it cannot be read."""
    try:
        with path.open("rb") as f:
            f.seek(max(0, f.seek(0, 2) - TAIL_BYTES))
            return "\n".join(f.read().decode(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def log_beside(record_file: Path, log: str) -> Path | None:
    """The worker log a record names (``error.log``, relative to its run folder, the record's own folder), where it
    lies inside that folder and is a ``.log`` file; None for any other path (records are shared: untrusted)."""
    root = record_file.parent.resolve()
    try:
        path = (root / log).resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    return path if path.suffix == ".log" and path.is_relative_to(root) and path.is_file() else None
