"""Before you rent a TPU: ``python -m bench doctor`` checks each workload on the CPU for what would fail or crawl on a
TPU (or a GPU). :mod:`.findings` (results, table, exit status), :mod:`.plan_checks` (no framework),
:mod:`.framework_checks` (in the child process :mod:`.child`), :mod:`.command`. Docs: docs/doctor.md.
"""

from __future__ import annotations

from bench.readiness.findings import FAIL, OK, STATUSES, WARN, Finding, exit_status

__all__ = ["FAIL", "OK", "STATUSES", "WARN", "Finding", "exit_status"]
