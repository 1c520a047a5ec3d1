"""The keys that say which rows are one thing: a configuration (:data:`CONFIG_KEY`), what must be equal for two
strategies to be compared (:data:`MATCH_KEY`), one configuration across input pipelines (:data:`PIPELINE_KEY`);
:func:`config_of` / :func:`same_config` match configurations by key, never by a display label.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from bench.records.backends import BACKENDS, declares

# What varies between the configurations of one strategy (a configuration's name without its strategy).
SETTINGS = ["global_batch_size", "steps_per_execution", "precision"]
# A data set: its name (one per content), scale ('' none), examples used and the whole set's (-1: not known), pipeline.
DATASET_KEY = ["dataset_name", "dataset_scale", "dataset_n_train", "dataset_whole", "input_pipeline"]
# A strategy: the backend, the strategy asked for and the one resolved, the compiler mark, processes and host.
STRATEGY_KEY = ["backend", "strategy_requested", "strategy_name", "compiler_mark", "process_count", "host"]
# A configuration; repeats of it are pooled. Identity columns only (frames.identity.identity_columns): no display label.
CONFIG_KEY = ["workload", *DATASET_KEY, *STRATEGY_KEY, *SETTINGS]
# A section of a report: a workload on one data set.
SECTION_KEY = ["workload", *DATASET_KEY]
# One strategy under any backend: what its label says without the backend's prefix (the strategy asked for and
# resolved, the compiler mark, processes, and the host where the label names it: host_key)
STRATEGY_NAME = ["strategy_requested", "strategy_name", "compiler_mark", "process_count", "host_key"]
# A strategy as a report names it once in a section (its label's columns): the backend and its STRATEGY_NAME.
STRATEGY_CODE = ["backend", *STRATEGY_NAME]
# The label columns render adds to the public frames (bench.reporting.render.labels: bench.run's, bench.epochs')
LABELS = ("dataset", "strategy")
# The order reports list configurations in, codes of identity columns (:func:`with_codes`), never a label's words.
ORDER = ["section", "strategy_id", *SETTINGS]


def _section_order(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """A section's place: workload, data set name, scale, examples used and of the whole set, the default pipeline
    before the others."""
    workload, name, scale, n_train, whole, pipeline = key
    return str(workload), str(name), str(scale), int(n_train), int(whole), pipeline != "default", str(pipeline)


def _strategy_order(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """A strategy's place: its backend in their declared order, the strategy resolved, then asked (``auto``) where
    that differs, the compiler mark (the backend's default first), processes and host."""
    backend, requested, name, mark, processes, host = key
    at = BACKENDS.index(backend) if backend in BACKENDS else len(BACKENDS)
    asked = str(requested or name)
    return at, str(backend), str(name), asked != name, asked, str(mark), int(processes), str(host)


def with_codes(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (identity columns) with the codes the report is keyed and ordered by: ``host_key`` (the host where
    one strategy of one section ran on two or more, else ''), ``section`` (:data:`SECTION_KEY`) and ``strategy_id``
    (:data:`STRATEGY_CODE`), each the rank of its columns' values in their order (``_section_order``,
    ``_strategy_order``): the same records give the same codes in every frame built from them."""
    if frame.empty:
        return frame
    frame = frame.copy()
    scope = [*SECTION_KEY, "backend", "strategy_name"]
    shown = frame.groupby(scope, sort=False, dropna=False)["host"].transform("nunique") > 1
    frame["host_key"] = frame["host"].where(shown, "")
    for column, key, order in (("section", SECTION_KEY, _section_order),
                               ("strategy_id", STRATEGY_CODE, _strategy_order)):
        values = list(zip(*(frame[k].tolist() for k in key), strict=True))
        rank = {v: i for i, v in enumerate(sorted(set(values), key=order))}
        frame[column] = [rank[v] for v in values]
    return frame


def plain_rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """``frame``'s rows as dictionaries, the values those of ``iterrows`` (one object array for the whole frame)
    without a Series a row: 1,000 records' summary, 0.1 s -> a few ms. Take it once for a frame, not per group."""
    columns = [str(c) for c in frame.columns]
    return [dict(zip(columns, values, strict=True)) for values in frame.to_numpy(dtype=object).tolist()]


def rows_of(frame: pd.DataFrame, section: int) -> pd.DataFrame:
    """The rows of an analysis frame that belong to one section (a workload on one data set; an empty frame stays
    empty)."""
    if frame.empty:
        return frame
    return frame[frame["section"] == section]


def sections(frame: pd.DataFrame) -> list[int]:
    """The sections of a frame, in order."""
    return sorted({int(s) for s in frame["section"]}) if not frame.empty else []


# What must be equal for two strategies to be compared (speedup, accuracy parity).
MATCH_KEY = ["workload", *DATASET_KEY, *SETTINGS]
# One configuration across input pipelines.
PIPELINE_KEY = ["workload", *DATASET_KEY[:-1], *STRATEGY_KEY, *SETTINGS]


def config_of(row: Mapping[str, Any] | pd.Series) -> dict[str, Any]:
    """A row's configuration: column -> value over :data:`CONFIG_KEY`."""
    return {k: row[k] for k in CONFIG_KEY}


def config_key(row: Mapping[str, Any] | pd.Series) -> tuple[Any, ...]:
    """A row's configuration as a tuple over :data:`CONFIG_KEY` (a dictionary key, a frame's group key)."""
    return tuple(row[k] for k in CONFIG_KEY)


def row_of(frame: pd.DataFrame, row: Mapping[str, Any] | pd.Series) -> pd.Series | None:
    """``frame``'s first row of the configuration of ``row`` (by :data:`CONFIG_KEY`; None when it has none): a
    summary row's limits, its priced row."""
    if frame.empty:
        return None
    hit = frame[(frame[CONFIG_KEY] == pd.Series(config_of(row))).all(axis=1)]
    return None if hit.empty else hit.iloc[0]


def same_config(a: Mapping[str, Any] | pd.Series, b: Mapping[str, Any] | pd.Series) -> bool:
    """Whether two rows are one configuration (by key, never by a display label)."""
    return config_key(a) == config_key(b)


def same_strategy(a: Mapping[str, Any] | pd.Series, b: Mapping[str, Any] | pd.Series) -> bool:
    """Whether two rows (of two backends, perhaps) ran one strategy (:data:`STRATEGY_NAME`), by key."""
    return all(a[k] == b[k] for k in STRATEGY_NAME)


def settings_of(row: Mapping[str, Any] | pd.Series) -> dict[str, Any]:
    """A row's :data:`SETTINGS` (global batch, spe, precision), for render to name."""
    return {k: row[k] for k in SETTINGS}


def same_settings(a: Mapping[str, Any] | pd.Series, b: Mapping[str, Any] | pd.Series) -> bool:
    """Whether two rows ran at the same global batch, steps_per_execution and precision (:data:`SETTINGS`)."""
    return all(a[k] == b[k] for k in SETTINGS)


def compared_spe(frame: pd.DataFrame) -> list[int]:
    """Per row, the steps_per_execution at which another backend's row is its counterpart when accuracy or learning
    are compared: the one that ran, except for a row Keras' PyTorch backend ran at 1 because the sweep asked for
    more (one step per call there: ``requested_steps_per_execution``), which stands beside the other backends' rows
    asked for the same. steps_per_execution changes neither the batches nor the math, only the host calls."""
    out = []
    for _, r in frame.iterrows():
        ran = int(r["steps_per_execution"])
        asked = {int(a) for a in r.get("spe_requested") or ()} - {ran}
        one = declares(r.get("backend"), "one_step_per_call")
        out.append(asked.pop() if one and ran == 1 and len(asked) == 1 else ran)
    return out
