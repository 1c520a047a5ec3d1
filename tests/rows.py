"""Frames for tests as the report reads them: :func:`identified` gives a hand-made row written with display labels
only (``strategy``, ``dataset``) the identity columns a configuration is keyed by
(bench.reporting.frames.keys.CONFIG_KEY) and codes ordered as its labels; :func:`analyzed`, :func:`summarized`,
:func:`labelled_points` and :func:`labelled_epochs` give the analysis and the frames with the labels render joins
(bench.reporting.render.labels)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from bench.records import RecordLike, as_records
from bench.reporting.frames.epochs import epochs_frame
from bench.reporting.frames.identity import identity_rows
from bench.reporting.frames.points import points_frame
from bench.reporting.render.labels import labelled_analysis, with_labels
from bench.reporting.verdicts import Analysis, analyze


def identified(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with every identity column it lacks: the data set named by its ``dataset`` label, the strategy
    requested and resolved as its ``strategy`` label, TensorFlow, the backend's own compiler, one process, host
    ``h``, the default pipeline, and codes ordered as those labels (:func:`ordered_code`; what the row gives wins)."""
    strategy = str(row.get("strategy", "cpu"))
    section = f"{row.get('workload', 'w')} on {row.get('dataset', 'd')}"
    return {"dataset": "d", "dataset_name": str(row.get("dataset", "d")), "dataset_scale": "", "dataset_n_train": -1,
            "dataset_whole": -1, "input_pipeline": "default", "backend": "tensorflow",
            "strategy_requested": strategy, "strategy_name": strategy, "compiler_mark": "", "process_count": 1,
            "host": "h", "host_key": "", "section": ordered_code(section), "strategy_id": ordered_code(strategy),
            "strategy_label": strategy, **row}


def ordered_code(text: str) -> int:
    """A code for a hand-made row's section or strategy that sorts as its text does (its first 24 bytes), so that
    hand-made rows are ordered as their labels are."""
    return int.from_bytes(text.encode()[:24].ljust(24, b"\0"), "big")


def strategy_labels(records: Sequence[RecordLike]) -> list[str]:
    """Each record's strategy label, in the records' order (as the report names them)."""
    return list(with_labels(identity_rows(as_records(records)))["strategy"])


def analyzed(records: Sequence[RecordLike], **keys: Any) -> Analysis:
    """:func:`bench.reporting.verdicts.analyze`, labelled as the report reads it."""
    return labelled_analysis(analyze(records, **keys))


def labelled_points(records: Sequence[RecordLike]) -> pd.DataFrame:
    """The per-point frame with its labels."""
    return with_labels(points_frame(records))


def labelled_epochs(records: Sequence[RecordLike]) -> pd.DataFrame:
    """The per-epoch frame with its labels."""
    return with_labels(epochs_frame(records))


def summarized(records_or_points: Sequence[RecordLike] | pd.DataFrame, **keys: Any) -> pd.DataFrame:
    """:func:`bench.reporting.frames.summary.summarize`, labelled as the report reads it."""
    from bench.reporting.frames.summary import summarize
    from bench.reporting.render.labels import Names, labelled

    points = records_or_points if isinstance(records_or_points, pd.DataFrame) else points_frame(records_or_points)
    return labelled(summarize(points, **keys), Names.of(points))


def rows_named(frame: pd.DataFrame, workload: str, dataset: str) -> pd.DataFrame:
    """The rows of a labelled frame of one workload on the data set of that label."""
    return frame[(frame["workload"] == workload) & (frame["dataset"] == dataset)]


def section_of(frame: pd.DataFrame, workload: str, dataset: str) -> int:
    """The section (its code) of a workload on the data set of that label, in a labelled frame."""
    return int(rows_named(frame, workload, dataset)["section"].iloc[0])
