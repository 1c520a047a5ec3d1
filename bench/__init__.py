"""bench: how much faster does Keras training run on a TPU, a GPU or the CPU, and does it still learn?

Importing ``bench`` is cheap and never imports TensorFlow: the report side must run on any laptop. The
public names are loaded when first used (PEP 562):

- ``bench.Workload``: a workload of your own (model builder, compile settings, data);
- ``bench.run(workloads=[...], strategies=[...], ...)``: run a sweep from Python (a notebook) exactly as
  ``python -m bench`` does, and get the tidy frame of its records;
- ``bench.epochs(frame_or_dirs)``: the same run, one row per point and epoch (for seaborn);
- ``bench.report(frame_or_dirs)``: the markdown report and figures, shown inline in Jupyter;
- ``bench.doctor(workloads=[...], ...)``: what would fail or crawl on a TPU, checked on the CPU, one row per check.
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
