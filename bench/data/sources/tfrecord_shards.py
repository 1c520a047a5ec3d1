"""``tfrecord:GLOB`` sources: ``tf.train.Example`` shards (local or ``gs://``, read by :mod:`bench.data.tfrecord`),
``image`` or ``tokens`` and ``label``; files named ``val*``/``valid*``/``test*`` are the validation split, else it is
split here. Class names come from the ``bench-dataset.json`` that ``export-tfrecord`` writes.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

from bench.data import images, tfrecord
from bench.data.sources.base import (
    SPLIT_SEED,
    STRATIFIED_SPLIT,
    Encoded,
    Source,
    SourceError,
    hash_files,
    pad_sequences,
    stratified_split,
)
from bench.data.synthetic import Arrays

MANIFEST = "bench-dataset.json"  # written next to TFRecord shards by export-tfrecord
VAL_PREFIXES = ("val", "valid", "test")
LABEL_KEYS = ("label", "class", "target")


def _is_val_file(path: str) -> bool:
    return Path(path).name.lower().startswith(VAL_PREFIXES)


@functools.lru_cache(maxsize=4)
def tfrecord_examples(spec: str, pattern: str) -> tuple[list, np.ndarray, list, np.ndarray, str, str]:
    """(train items, labels, val items, labels, modality, split) of TFRecord shards, all of them, cached per
    process: items are encoded image bytes or unpadded token lists, labels int32, modality ``image`` or
    ``tokens``, split how train/validation were separated. SourceError when the shards cannot be used."""
    files = tfrecord.glob(pattern)
    if not files:
        raise SourceError(f"{spec}: no files match {pattern}")
    parts: dict[bool, tuple[list, list]] = {False: ([], []), True: ([], [])}
    modality = ""
    for path in files:
        items, labels = parts[_is_val_file(path)]
        try:
            for raw in tfrecord.read_records(path):
                ex = tfrecord.decode_example(raw)
                label_key = next((k for k in LABEL_KEYS if k in ex), None)
                kind = "image" if "image" in ex else "tokens" if "tokens" in ex else ""
                if label_key is None or not kind:
                    raise SourceError(f"{spec}: {path}: an example has features {sorted(ex)}; bench reads "
                                      "image (encoded bytes) or tokens (int64 list), and label (int64)")
                if modality and kind != modality:
                    raise SourceError(f"{spec}: {path}: mixes image and tokens examples")
                modality = kind
                value = ex[label_key]
                items.append(ex[kind] if kind == "image" else list(ex[kind]))
                labels.append(int(value[0] if isinstance(value, list) else value))
        except ValueError as e:
            if isinstance(e, SourceError):
                raise
            raise SourceError(f"{spec}: {e}") from None
    (tr, ytr), (va, yva) = parts[False], parts[True]
    if not tr:
        raise SourceError(f"{spec}: only validation shards (val*/valid*/test*) match {pattern}")
    ytr_a = np.array(ytr, np.int32)
    if va:
        order = np.random.default_rng(SPLIT_SEED).permutation(len(tr))
        return [tr[i] for i in order], ytr_a[order], va, np.array(yva, np.int32), modality, "val*/test* shards"
    i_tr, i_va = stratified_split(ytr_a)
    return ([tr[i] for i in i_tr], ytr_a[i_tr], [tr[i] for i in i_va], ytr_a[i_va], modality, STRATIFIED_SPLIT)


def tfrecord_describe(spec: str, pattern: str) -> Source:
    """The :class:`Source` of ``tfrecord:GLOB``: classes from the labels (named by the manifest where it
    has as many), the shards' hash."""
    tr, ytr, va, yva, modality, split = tfrecord_examples(spec, pattern)
    if len(va) == 0:
        raise SourceError(f"{spec}: no validation examples")
    files = tfrecord.glob(pattern)
    names: tuple[str, ...] = ()
    manifest = Path(files[0]).parent / MANIFEST
    if not files[0].startswith("gs://") and manifest.is_file():
        names = tuple(json.loads(manifest.read_text()).get("class_names", ()))
    classes = int(max(ytr.max(), yva.max())) + 1
    shape: tuple[int, ...]
    if modality == "image":
        shape = images.image_size(tr[0])
        vocab = 0
    else:
        shape = (max(len(s) for s in tr + va),)
        vocab = int(max(max(s, default=0) for s in tr + va)) + 1
    return Source(spec, "tfrecord", modality, modality == "image", shape, classes, len(tr), len(va),
                  hash_files(files), names if len(names) == classes else (), vocab=vocab, split=split)


def tfrecord_load(spec: str, pattern: str, n_train: int, n_val: int, seq_len: int) -> Arrays | Encoded:
    """The first ``n_train`` / ``n_val`` examples of each split: encoded images, or token sequences padded
    or truncated at the front to ``seq_len``."""
    tr, ytr, va, yva, modality, _ = tfrecord_examples(spec, pattern)
    if modality == "image":
        return Encoded(tr[:n_train], ytr[:n_train], va[:n_val], yva[:n_val])
    return Arrays(pad_sequences(np.array(tr[:n_train], dtype=object), seq_len), ytr[:n_train],
                  pad_sequences(np.array(va[:n_val], dtype=object), seq_len), yva[:n_val])
