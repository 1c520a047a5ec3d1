"""How the report names things: a record's strategy label and host, its compiler mark, its data set (one name per
content), and a configuration's display names. Labels are for display; rows are matched by
:mod:`bench.reporting.frames.keys`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from bench.records import Record
from bench.records.backends import BACKENDS, spec
from bench.records.revisions import earlier_definition
from bench.reporting.frames.keys import plain_rows


def compiler_marks(typed: Sequence[Record]) -> list[str]:
    """Each record's :func:`compiler_mark`, a repeat that never compiled (failed early) marked by what any of its
    siblings ran, so one configuration keeps one mark."""
    ran: dict[str, str] = {}
    for r in typed:
        if r.compiler:
            ran.setdefault(_configuration(r), r.compiler)
    return [compiler_mark(r, ran.get(_configuration(r))) for r in typed]


def identity_rows(typed: Sequence[Record]) -> pd.DataFrame:
    """One row of :func:`identity_columns` per record, one name per data set content (:func:`one_name_per_content`),
    in the records' order."""
    rows = [identity_columns(r, workload, mark)
            for r, workload, mark in zip(typed, workload_labels(typed), compiler_marks(typed), strict=True)]
    return one_name_per_content(pd.DataFrame(rows)) if rows else pd.DataFrame()


def with_labels(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (identity columns: :func:`identity_columns`) with its display labels, made from those columns alone:
    ``dataset`` (:func:`dataset_label`), ``data`` (the same, any pipeline), ``strategy`` and ``strategy_label`` (the
    latter without the backend's prefix, for a table with a backend column).

    The strategy label is the resolved name (``auto (cpu)`` when the user typed ``auto``), prefixed by the
    backend when it is not the first declared (``jax/cpu_x2``), followed by the process count of a multi-process
    point (``jax/cpu_x2 (2 processes)``), and the compiler where it is not the backend's default
    (:func:`compiler_mark`: ``cpu (XLA)``, ``torch/cpu (torch.compile)``, ``gpu (jit auto: XLA)``). When one
    resolved name ran on two or more hosts for the same workload and data set, those labels get ``@hostname``
    (``host_shown``)."""
    if frame.empty:
        return frame
    frame = frame.copy()
    parts = list(zip(frame["dataset_name"], frame["dataset_scale"], frame["dataset_n_train"], frame["dataset_whole"],
                     frame["input_pipeline"], strict=True))
    frame["dataset"] = [dataset_label(name, scale, n, whole, pipe) for name, scale, n, whole, pipe in parts]
    frame["data"] = [dataset_label(name, scale, n, whole) for name, scale, n, whole, _ in parts]
    scope = ["workload", "dataset", "backend", "strategy_name"]
    frame["host_shown"] = frame.groupby(scope, sort=False, dropna=False)["host"].transform("nunique") > 1
    frame["host_key"] = frame["host"].where(frame["host_shown"], "")  # the host where the label names it
    plain = []
    for r in plain_rows(frame):
        name, requested = r["strategy_name"], r["strategy_requested"] or r["strategy_name"]
        label = name if requested == name else f"{requested} ({name})"
        label = f"{label} ({r['compiler_mark']})" if r["compiler_mark"] else label
        label = label if r["process_count"] == 1 else f"{label} ({r['process_count']} processes)"
        plain.append(f"{label}@{r['host']}" if r["host_shown"] else label)
    frame["strategy_label"] = plain
    frame["strategy"] = [f"{b}/{label}" if _prefixed(b) else label
                         for b, label in zip(frame["backend"], plain, strict=True)]
    return frame


def _prefixed(backend: str | None) -> bool:
    """Whether a backend's strategy labels carry its name (``jax/cpu_x2``): all but the first declared."""
    return str(backend or BACKENDS[0]) != BACKENDS[0]


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
    b = spec(r.backend)
    if b is None or b.always_compiles or r.strategy.device_kind == "tpu" or r.strategy.name == "tpu":
        return ""
    recorded = r.compiler or sibling
    if not recorded:  # never compiled (skipped, failed early): what was asked; an auto that never compiles: eager
        return "" if asked is False else b.compiler if asked is True else (
            "jit auto" if b.auto_compiles else f"jit auto: {b.uncompiled}")
    ran = b.compiler if recorded.startswith(b.compiled_prefix) else b.uncompiled
    if asked is False:
        return b.compiler if ran == b.compiler else ""  # a workload that sets jit_compile itself: what it set
    return ran if asked is True and ran == b.compiler else f"jit {'auto' if asked == 'auto' else 'true'}: {ran}"


def host_of(record: Record) -> str:
    """The host a record ran on (``unknown-host`` when the record does not say)."""
    return str(record.env.get("hostname") or "unknown-host")


def dataset_label(name: str, scale: str, n_train: int, whole: int, pipeline: str = "default") -> str:
    """``"synthetic (reduced, n_train=6000)"``: name plus what makes two datasets of that name differ (the columns of
    :func:`identity_columns`: -1 for a count not known). Real data (a data source, a user's arrays) says how much of it
    was used: ``"keras:mnist (n_train=4096 of 60000)"``; a pipeline other than the default is named."""
    extra = [str(scale)] if scale and whole < 0 else []
    if n_train >= 0:
        extra.append(f"n_train={n_train}" + (f" of {whole}" if whole >= 0 else ""))
    if pipeline != "default":
        extra.append(f"pipeline={pipeline}")  # a deliberately slow input pipeline is another dataset
    return f"{name} ({', '.join(extra)})" if extra else str(name)


def _looks_like_a_path(name: str) -> bool:
    """``csv:/home/ana/train.csv``, ``folder:C:\\data``: a name as older records wrote it."""
    arg = name.partition(":")[2]
    return arg.startswith(("/", "\\", "~")) or (len(arg) > 2 and arg[1] == ":" and arg[2] in "/\\")


def content_names(pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """(content hash, name) -> the one name of that content, for each name of a hash that has several (module
    docstring); pairs without a hash are not renamed."""
    names: dict[str, set[str]] = {}
    for sha, name in pairs:
        if sha:
            names.setdefault(str(sha), set()).add(name)
    rename: dict[tuple[str, str], str] = {}
    for sha, found in names.items():
        choices = sorted(found, key=lambda n: (_looks_like_a_path(n), n))
        rename.update({(sha, n): choices[0] for n in choices[1:]})
    return rename


def one_name_per_content(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (with ``dataset_name`` and ``dataset_sha256`` columns) with the ``dataset_name`` of rows of one
    content hash as one name, so that they form one comparison."""
    hashed = frame[frame["dataset_sha256"].astype(bool)]
    rename = content_names(zip(hashed["dataset_sha256"], hashed["dataset_name"], strict=True))
    if not rename:
        return frame
    frame = frame.copy()
    frame["dataset_name"] = [rename.get((sha, name), name)
                             for sha, name in zip(frame["dataset_sha256"], frame["dataset_name"], strict=True)]
    return frame


def shows_backends(points: pd.DataFrame) -> bool:
    """True when the finished points are not all TensorFlow's: tables then get a ``backend`` column next to strategy
    (reports of TensorFlow-only records look as they did before the JAX backend; a backend none of whose points
    finished changes no table of the workloads that did)."""
    if points.empty or "backend" not in points:
        return False
    ran = points["backend"][points["status"] == "ok"] if "status" in points else points["backend"]
    return bool((ran != BACKENDS[0]).any())


def earlier_of(r: Record) -> tuple[str, ...]:
    """A built-in's record made under an earlier definition: (the workload, what its revision trained, today's variant
    that trains it or '', what changed or '', then every change since its revision); () when it is today's workload
    (:data:`bench.records.revisions.EARLIER`)."""
    earlier = earlier_definition(r.workload, r.workload_revision, r.workload_source)
    return () if earlier is None else (r.workload, earlier.output, earlier.literal, earlier.change, *earlier.changes)


def workload_labels(records: Sequence[Record]) -> list[str]:
    """Each record's workload as tables show it: its name, its variant after a slash, and where the records hold
    two definitions of one built-in, the earlier one's after it too (``catsdogs_cnn/sigmoid output, earlier
    definition``), so two definitions are never pooled (records of one definition keep the name, and the report says
    which definition it was: :func:`earlier_of`)."""
    earlier = [earlier_definition(r.workload, r.workload_revision, r.workload_source) for r in records]
    kinds: dict[str, set[bool]] = {}
    for r, e in zip(records, earlier, strict=True):
        kinds.setdefault(r.workload, set()).add(e is None)
    out = []
    for r, e in zip(records, earlier, strict=True):
        parts = [r.workload_variant or "", e.label if e and len(kinds[r.workload]) > 1 else ""]
        out.append(r.workload + (f"/{', '.join(p for p in parts if p)}" if any(parts) else ""))
    return out


def identity_columns(r: Record, workload: str, compiler: str) -> dict[str, Any]:
    """The columns that say which point a row belongs to, the same in the per-point and the per-epoch frame, codes
    and numbers (no label; :func:`with_labels` makes those from them): run, point, ``workload`` (its label:
    :func:`workload_labels`); the data set's name, content hash, scale ('' none), ``n_train`` and the whole set's
    ``n_train`` (-1: not known) and input pipeline; backend, the strategy as requested and as resolved, the compiler
    mark (``compiler``: :func:`compiler_marks`), the cooperating processes and the host; global batch (examples; a
    skipped point that never knew it: its planned batch, else 0), steps_per_execution that ran, precision, repeat and
    status."""
    ds, s = r.dataset, r.strategy
    return {"run_id": r.run_id, "point_id": r.point_id, "workload": workload,
            "dataset_name": ds.name or "?", "dataset_sha256": ds.sha256 or "", "dataset_scale": ds.scale or "",
            "dataset_n_train": -1 if ds.n_train is None else int(ds.n_train),
            "dataset_whole": -1 if ds.source_n_train is None else int(ds.source_n_train),
            "input_pipeline": ds.pipeline or "default",
            "backend": r.backend, "strategy_requested": s.requested or "",
            "strategy_name": s.name or s.requested or "?",
            "compiler_mark": compiler, "process_count": r.process_count(), "host": host_of(r),
            "global_batch_size": int(r.global_batch_size or (r.point or {}).get("batch_size") or 0),
            "steps_per_execution": r.effective_spe(), "precision": r.precision, "repeat": r.repeat,
            "status": r.status}
