"""The keys that say which rows are one thing: a configuration (:data:`CONFIG_KEY`), what must be equal for two
strategies to be compared (:data:`MATCH_KEY`), one configuration across input pipelines (:data:`PIPELINE_KEY`);
:func:`config_of` / :func:`same_config` match configurations by key, never by a display label.
"""

from __future__ import annotations

import pandas as pd

# A configuration; repeats of it are pooled. ``strategy`` is the display label (see strategy_labels).
CONFIG_KEY = ["workload", "dataset", "strategy", "global_batch_size", "steps_per_execution", "precision"]


def rows_of(frame: pd.DataFrame, workload: str, dataset: str) -> pd.DataFrame:
    """The rows of an analysis frame that belong to one workload and dataset (an empty frame stays empty)."""
    if frame.empty:
        return frame
    return frame[(frame["workload"] == workload) & (frame["dataset"] == dataset)]


# What must be equal for two strategies to be compared (speedup, accuracy parity).
MATCH_KEY = ["workload", "dataset", "global_batch_size", "steps_per_execution", "precision"]
PIPELINE_KEY = ["workload", "data", "strategy", "global_batch_size", "steps_per_execution", "precision"]
