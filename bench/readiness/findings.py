"""What the doctor found: one :class:`Finding` per check, the table it prints and the exit status.

Framework-free: the command's process (and any report) reads findings without TensorFlow or JAX.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.records import DOCTOR_FILE, Check

OK, WARN, FAIL = "ok", "warn", "fail"
STATUSES = (OK, WARN, FAIL)
EXIT_OK, EXIT_FAIL, EXIT_BAD_INPUT = 0, 1, 2


@dataclass(frozen=True)
class Finding:
    """One check of one workload under one backend: ``status`` is ok / warn / fail; ``evidence`` names what
    was seen (op, layer, tensor, value); ``fix`` is one line saying what to change ("" when ok)."""

    workload: str
    backend: str
    check: str
    status: str
    evidence: str
    fix: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def exit_status(findings: list[Finding]) -> int:
    """0 when nothing failed, 1 when any check failed (warnings do not fail a CI gate)."""
    return EXIT_FAIL if any(f.status == FAIL for f in findings) else EXIT_OK


def first_line(e: BaseException) -> str:
    """The line of an error message that says what is wrong (Keras' call errors start with a generic one;
    TensorFlow wraps op errors in ``{{function_node …}} … [Op:…]``), at most 300 characters."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(e))  # Keras' bold/colour escapes
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if len(lines) > 1 and lines[0].startswith("Exception encountered when calling"):
        lines = lines[1:]
    if len(lines) > 1 and lines[0].startswith("Graph execution error"):  # TF: the op's own message is last
        lines = [re.sub(r"\s*\[Op:.*$", "", ln) for ln in lines if not ln.startswith("[[")][-1:]
    if lines:  # TensorFlow's eager op errors: "{{function_node __wrapped__Sub_device_/…}} WHAT [Op:Sub] name:"
        lines[0] = re.sub(r"\s*\[Op:.*$", "", re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", lines[0]))
    return lines[0][:300] if lines else type(e).__name__


def table(findings: list[Finding]) -> str:
    """One table per workload and backend: check, status, evidence, fix (plain text, for a terminal)."""
    from tabulate import tabulate

    out = []
    groups: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.workload, f.backend), []).append(f)
    for (workload, backend), group in groups.items():
        worst = max((STATUSES.index(f.status) for f in group), default=0)
        out.append(f"{workload} under {backend}: {STATUSES[worst]}")
        rows = [[f.check, f.status, f.evidence, f.fix] for f in group]
        out.append(tabulate(rows, headers=["check", "status", "evidence", "fix"], tablefmt="simple",
                            maxcolwidths=[None, None, 60, 60]))
        out.append("")
    return "\n".join(out)


@functools.cache
def run_findings(run_dir: str) -> tuple[dict[str, str], ...] | None:
    """The doctor's findings the run wrote before its TPU points (``doctor.json`` in the run folder), read once
    per process; None when absent (no TPU point ran a worker, or a run resumed from an older bench)."""
    try:
        return tuple(json.loads((Path(run_dir) / DOCTOR_FILE).read_text()))
    except (OSError, ValueError):
        return None


def tpu_checks(run_dir: str, workload: str, backend: str) -> list[Check] | None:
    """The doctor's findings for a TPU point's workload and backend (None without the run's ``doctor.json``)."""
    found = run_findings(run_dir)
    return None if found is None else [
        Check(check=f["check"], status=f["status"], evidence=f["evidence"], fix=f.get("fix", ""))
        for f in found if f["workload"] == workload and f["backend"] == backend]
