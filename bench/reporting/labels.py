"""Display labels of records (the report side): the strategy as a reader should see it, and the host."""

from __future__ import annotations

from collections.abc import Sequence

from bench.records import Record, RecordLike, as_records
from bench.reporting.datasets import dataset_label

TF_XLA = "XLA (tf.function"  # a TensorFlow point compiled with jit_compile=True (bench.engines.tensorflow.placement)


def strategy_labels(records: Sequence[RecordLike]) -> list[str]:
    """Display label per record: the strategy name as typed, ``"@host"`` added only when needed.

    The label is the resolved name (``auto (cpu)`` when the user typed ``auto``), prefixed by the
    backend when it is not tensorflow (``jax/cpu_x2``), followed by the process count of a multi-process
    point (``jax/cpu_x2 (2 processes)``: another configuration than ``jax/cpu_x2`` in one process), and
    `` (XLA)`` after a TensorFlow point compiled with ``jit_compile=true`` (``cpu (XLA)``; TPUStrategy and JAX
    always compile with XLA: no mark). When one
    resolved name ran on two or more hosts for the same workload and dataset, those labels get ``@hostname``.
    """
    typed = as_records(records)

    def scope(r: Record) -> tuple[str, str, str, str]:
        return (r.workload, dataset_label(r.dataset), str(r.backend), str(r.strategy.name or r.strategy.requested))

    hosts: dict[tuple[str, str, str, str], set[str]] = {}
    for r in typed:
        hosts.setdefault(scope(r), set()).add(host_of(r))
    out = []
    for r in typed:
        backend, name = scope(r)[2:]
        requested = r.strategy.requested or name
        label = name if requested == name else f"{requested} ({name})"
        label = label if backend == "tensorflow" else f"{backend}/{label}"
        label = f"{label} (XLA)" if compiled_with_xla(r) else label  # jit_compile=true: another configuration
        label = label if r.process_count() == 1 else f"{label} ({r.process_count()} processes)"
        out.append(f"{label}@{host_of(r)}" if len(hosts[scope(r)]) > 1 else label)
    return out


def compiled_with_xla(r: Record) -> bool:
    """A TensorFlow point compiled (or planned, if it never got that far) with jit_compile=True; not a TPU's."""
    asked = bool((r.point or {}).get("jit_compile")) and r.strategy.device_kind != "tpu" and r.strategy.name != "tpu"
    return (r.compiler or "").startswith(TF_XLA) or (r.compiler is None and asked)


def host_of(record: Record) -> str:
    """The host a record ran on (``unknown-host`` when the record does not say)."""
    return str(record.env.get("hostname") or "unknown-host")
