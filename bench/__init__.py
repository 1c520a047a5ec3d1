"""bench: how much faster does Keras training run on a TPU, a GPU or the CPU, and does it still learn?
Importing ``bench`` is cheap and imports no framework (the report side runs on any laptop); the public names load on
first use (PEP 562): ``Workload``, ``run``, ``epochs``, ``report``, ``doctor``, ``verdicts`` (:mod:`bench.notebook`).
"""

from typing import Any

from bench.records import SCHEMA_VERSION

__version__ = "0.1.0"
__all__ = ["SCHEMA_VERSION", "Workload", "__version__", "doctor", "epochs", "report", "run", "verdicts"]


def __getattr__(name: str) -> Any:
    """The public names that need more than the records contract, imported on first use."""
    if name == "Workload":
        from bench.workloads import Workload

        return Workload
    if name in ("run", "report", "epochs", "doctor", "verdicts"):
        from bench import notebook

        return getattr(notebook, name)
    raise AttributeError(f"module 'bench' has no attribute {name!r}")
