"""A workload's examples for a point: generated, read from the bench cache or a data source, or the user's
own arrays. Used by the worker (its points), the preflight and the doctor (one small batch each)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.workloads.resolve import get_workload, source_of
from bench.workloads.user import imported


def load_examples(workload: str, data: str, data_scale: str, n_train: int, n_val: int, seed: int,
                  cache: dict[tuple, Any] | None = None) -> Any:
    """The first ``n_train``/``n_val`` examples of ``workload`` on ``data``: arrays
    (:class:`bench.data.synthetic.Arrays`), or encoded images (:class:`bench.data.sources.Encoded`) the input
    pipeline decodes; kept in ``cache`` (when given) by what they are."""
    from bench.data import sources, synthetic

    wl = get_workload(workload, data)
    if wl.input_fn is not None:  # its own pipeline makes its examples, in the worker's fit (bench.engines.user_feed)
        return None
    spec = source_of(wl, data_scale)
    loader: Callable[..., Any]
    if spec:  # files (a data source, or the generated plant images): read, and decoded in the pipeline
        key: tuple = (spec, n_train, n_val, wl.shape[0] if wl.modality == "tokens" else 0)
        loader = sources.load
    elif wl.source:  # a user workload: its own arrays, the first n_train / n_val
        x_train, y_train, x_val, y_val = imported(workload)[1]
        return synthetic.Arrays(x_train[:n_train], y_train[:n_train], x_val[:n_val], y_val[:n_val])
    else:
        key = (wl.dataset, n_train, n_val, seed, wl.shape[0] if len(wl.shape) == 3 else 0)
        loader = synthetic.load
    cache = {} if cache is None else cache
    if key not in cache:
        cache[key] = loader(*key)
    return cache[key]
