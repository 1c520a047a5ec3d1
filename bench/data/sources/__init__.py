"""Data sources: where a workload's examples come from, named by one string (config key ``data``, or a ``Workload``'s
``data``): ``synthetic``, ``keras:NAME``, ``folder:PATH``, ``csv:PATH/train.csv``, ``tfrecord:GLOB``. No framework.
What each reads and how it is split: docs/your-model-and-data.md, *Real datasets*. Images stay encoded
(:class:`Encoded`) for the input pipeline to decode; ``keras:`` data are arrays. This ``__init__`` dispatches on the
kind; the kind modules (:mod:`.keras_datasets`, :mod:`.image_files`, :mod:`.tfrecord_shards`) use :mod:`.base` (the
spec grammar, :class:`Source`, the split, padding, hashing), never each other or the package.
"""

from __future__ import annotations

import functools

from bench.data.sources.base import (
    KINDS,
    SPEC_HELP,
    SPLIT_SEED,
    STRATIFIED_SPLIT,
    SYNTHETIC,
    VAL_FRACTION,
    Encoded,
    Source,
    SourceError,
    hash_files,
    is_synthetic,
    pad_sequences,
    parse,
    short_name,
    stratified_split,
)
from bench.data.sources.image_files import Listing, files_describe, files_load, listing
from bench.data.sources.keras_datasets import (
    DOWNLOAD_TIMEOUT_S,
    KERAS_SETS,
    KERAS_URL,
    KerasSet,
    keras_arrays,
    keras_datasets_dir,
    keras_describe,
    keras_load,
)
from bench.data.sources.tfrecord_shards import (
    LABEL_KEYS,
    MANIFEST,
    VAL_PREFIXES,
    tfrecord_describe,
    tfrecord_examples,
    tfrecord_load,
)
from bench.data.synthetic import Arrays

__all__ = [
    "DOWNLOAD_TIMEOUT_S", "KERAS_SETS", "KERAS_URL", "KINDS", "LABEL_KEYS", "MANIFEST", "SPEC_HELP", "SPLIT_SEED",
    "STRATIFIED_SPLIT", "SYNTHETIC", "VAL_FRACTION", "VAL_PREFIXES", "Encoded", "KerasSet", "Listing", "Source",
    "SourceError", "clear_caches", "describe", "files_describe", "files_load", "hash_files", "is_synthetic",
    "keras_arrays", "keras_datasets_dir", "keras_describe", "keras_load", "listing", "load", "pad_sequences",
    "parse", "short_name", "stratified_split", "tfrecord_describe", "tfrecord_examples", "tfrecord_load",
]

@functools.lru_cache(maxsize=32)
def describe(spec: str) -> Source:
    """The :class:`Source` named by ``spec`` (scanned, hashed; cached per process); SourceError when it
    cannot be used."""
    kind, arg = parse(spec)
    if kind == "keras":
        return keras_describe(spec, arg)
    if kind == "tfrecord":
        return tfrecord_describe(spec, arg)
    return files_describe(spec, kind, arg)


def load(spec: str, n_train: int, n_val: int, seq_len: int = 0) -> Arrays | Encoded:
    """The first ``n_train`` / ``n_val`` examples of each split (arrays, or encoded images). Token
    sequences are padded/truncated at the front to ``seq_len`` (Keras' ``pad_sequences`` defaults)."""
    kind, arg = parse(spec)
    if kind == "keras":
        return keras_load(spec, arg, n_train, n_val, seq_len)
    if kind == "tfrecord":
        return tfrecord_load(spec, arg, n_train, n_val, seq_len)
    return files_load(spec, kind, arg, n_train, n_val)


def clear_caches() -> None:
    """Forget what this process read of every source (a long-lived notebook process: files may change)."""
    for cached in (describe, listing, tfrecord_examples, keras_arrays):
        cached.cache_clear()
