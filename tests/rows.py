"""Hand-made frame rows for tests: :func:`identified` gives a row written with display labels only (``strategy``,
``dataset``) the identity columns a configuration is keyed by (bench.reporting.frames.keys.CONFIG_KEY)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bench.records import RecordLike, as_records
from bench.reporting.frames.labels import identity_rows, with_labels


def identified(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with every identity column it lacks: the data set named by its ``dataset`` label, the strategy
    requested and resolved as its ``strategy`` label, TensorFlow, the backend's own compiler, one process, host
    ``h``, the default pipeline (what the row gives wins)."""
    strategy = str(row.get("strategy", "cpu"))
    return {"dataset": "d", "dataset_name": str(row.get("dataset", "d")), "dataset_scale": "", "dataset_n_train": -1,
            "dataset_whole": -1, "input_pipeline": "default", "backend": "tensorflow",
            "strategy_requested": strategy, "strategy_name": strategy, "compiler_mark": "", "process_count": 1,
            "host": "h", "host_key": "", **row}


def strategy_labels(records: Sequence[RecordLike]) -> list[str]:
    """Each record's strategy label, in the records' order (as the report's frames make them)."""
    return list(with_labels(identity_rows(as_records(records)))["strategy"])
