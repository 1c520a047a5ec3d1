"""What identifies a record's configuration, as columns (:func:`identity_rows`): its workload (variant and definition),
data set (one name per content), backend, strategy, compiler mark, processes and host. Rows are matched and ordered
by them (:mod:`bench.reporting.frames.keys`); :mod:`bench.reporting.render.labels` names them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from bench.records import Record
from bench.records.backends import BACKENDS, spec
from bench.records.revisions import earlier_definition
from bench.reporting.frames.keys import with_codes


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
    with its codes (:func:`bench.reporting.frames.keys.with_codes`), in the records' order."""
    rows = [identity_columns(r, workload, mark)
            for r, workload, mark in zip(typed, workload_labels(typed), compiler_marks(typed), strict=True)]
    return with_codes(one_name_per_content(pd.DataFrame(rows))) if rows else pd.DataFrame()


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
    and numbers (no label: :mod:`bench.reporting.render.labels` makes those from them): run, point, ``workload``
    (its name as tables show it: :func:`workload_labels`); the data set's name, content hash, scale ('' none),
    ``n_train`` and the whole set's ``n_train`` (-1: not known) and input pipeline; backend, the strategy as requested
    and as resolved, the compiler mark (``compiler``: :func:`compiler_marks`), the cooperating processes and the host;
    global batch (examples; a skipped point that never knew it: its planned batch, else 0), steps_per_execution that
    ran, precision, repeat and status."""
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
