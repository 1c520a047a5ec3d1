"""Before you rent a TPU: ``python -m bench doctor`` checks each workload on the CPU, in seconds, for what would
fail or crawl on a TPU (and, where it applies, a GPU).

- :mod:`~bench.readiness.findings`: a check's result (:class:`Finding`), the table, the exit status;
- :mod:`~bench.readiness.plan_checks`: batch sizes, data location, precision (no framework);
- :mod:`~bench.readiness.framework_checks`: XLA compilation, layers, dtypes, the input pipeline's graph (Keras
  and the backend, in the child process :mod:`~bench.readiness.child`);
- :mod:`~bench.readiness.command`: the command (one child per backend, then the table).
"""

from __future__ import annotations

from bench.readiness.findings import FAIL, OK, STATUSES, WARN, Finding, exit_status

__all__ = ["FAIL", "OK", "STATUSES", "WARN", "Finding", "exit_status"]
