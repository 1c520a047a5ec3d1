"""Display labels of records (the report side): the strategy as a reader should see it, and the host."""

from __future__ import annotations

import re
from collections.abc import Sequence

from bench.records import Record, RecordLike, as_records
from bench.reporting.datasets import dataset_label

TF_XLA = "XLA (tf.function"  # a TensorFlow point compiled with jit_compile=True (bench.engines.tensorflow.placement)
TORCH_COMPILE = "torch.compile"  # a PyTorch point compiled with jit_compile=True (bench.engines.torch.strategies)


def strategy_labels(records: Sequence[RecordLike]) -> list[str]:
    """Display label per record: the strategy name as typed, ``"@host"`` added only when needed.

    The label is the resolved name (``auto (cpu)`` when the user typed ``auto``), prefixed by the
    backend when it is not tensorflow (``jax/cpu_x2``), followed by the process count of a multi-process
    point (``jax/cpu_x2 (2 processes)``: another configuration than ``jax/cpu_x2`` in one process), and the
    compiler where it is not the backend's default (:func:`compiler_mark`: ``cpu (XLA)``, ``torch/cpu
    (torch.compile)``, ``gpu (jit auto: XLA)``; TPUStrategy and JAX always compile with XLA: no mark). When one
    resolved name ran on two or more hosts for the same workload and dataset, those labels get ``@hostname``.
    """
    typed = as_records(records)

    def scope(r: Record) -> tuple[str, str, str, str]:
        return (r.workload, dataset_label(r.dataset), str(r.backend), str(r.strategy.name or r.strategy.requested))

    hosts: dict[tuple[str, str, str, str], set[str]] = {}
    for r in typed:
        hosts.setdefault(scope(r), set()).add(host_of(r))
    # a configuration's compiler as any of its repeats recorded it: a repeat that never compiled (failed early) is
    # labelled by what its siblings ran, so one configuration keeps one label
    ran: dict[str, str] = {}
    for r in typed:
        if r.compiler:
            ran.setdefault(_configuration(r), r.compiler)
    out = []
    for r in typed:
        backend, name = scope(r)[2:]
        requested = r.strategy.requested or name
        label = name if requested == name else f"{requested} ({name})"
        label = label if backend == "tensorflow" else f"{backend}/{label}"
        mark = compiler_mark(r, ran.get(_configuration(r)))  # jit_compile true or auto: named by what ran
        label = f"{label} ({mark})" if mark else label
        label = label if r.process_count() == 1 else f"{label} ({r.process_count()} processes)"
        out.append(f"{label}@{host_of(r)}" if len(hosts[scope(r)]) > 1 else label)
    return out


def _configuration(r: Record) -> str:
    """A record's configuration in its run: its point id without the repeat."""
    return f"{r.run_id}/{re.sub(r'-r[0-9]+$', '', r.point_id)}"


def compiler_mark(r: Record, sibling: str | None = None) -> str:
    """What a TensorFlow or PyTorch point's label says of its compiler ('' for the backend's default, and under JAX
    or on a TPU): ``XLA`` or ``torch.compile`` when that compiled the train step, as asked or as the workload's own
    compile settings said (read from the record's ``compiler``, else ``sibling``'s, another repeat of the same
    configuration; what was asked if none got that far); ``jit auto: XLA`` / ``graph`` / ``eager`` where Keras
    chose, and ``jit true: graph`` where Keras turned an asked compiler off (a layer that does not support it)."""
    asked = (r.point or {}).get("jit_compile", False)
    if r.backend == "jax" or r.strategy.device_kind == "tpu" or r.strategy.name == "tpu":
        return ""
    compiler = "torch.compile" if r.backend == "torch" else "XLA"
    recorded = r.compiler or sibling
    if not recorded:  # never compiled (skipped, failed early): what was asked; PyTorch's auto is always eager
        return "" if asked is False else compiler if asked is True else (
            "jit auto: eager" if r.backend == "torch" else "jit auto")
    ran = compiler if recorded.startswith((TF_XLA, TORCH_COMPILE)) else "eager" if r.backend == "torch" else "graph"
    if asked is False:
        return compiler if ran == compiler else ""  # a workload that sets jit_compile itself: what it set
    return ran if asked is True and ran == compiler else f"jit {'auto' if asked == 'auto' else 'true'}: {ran}"


def host_of(record: Record) -> str:
    """The host a record ran on (``unknown-host`` when the record does not say)."""
    return str(record.env.get("hostname") or "unknown-host")
