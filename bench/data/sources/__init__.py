"""Data sources: where a workload's examples come from, named by one string (config key ``data``, or a
``Workload``'s ``data``). NumPy, Pillow and the standard library only: no framework.

==========================  ===================================================================================
``synthetic``               the embedded generated data (:mod:`bench.data.synthetic`; the default)
``keras:NAME``              ``keras.datasets`` NAME (mnist, fashion_mnist, cifar10, reuters, imdb), read from the
                            Keras cache (``$KERAS_HOME/datasets``, default ``~/.keras/datasets``); downloaded
                            there when absent and online; offline, an error names the file and the folder
``folder:PATH``             images in class sub-folders: ``PATH/training_set/<class>/*.jpg`` and
                            ``PATH/test_set/<class>/*.jpg`` (seed 000), or ``PATH/<class>/*.jpg`` (split here)
``csv:PATH/train.csv``      seed 001's layout: an ``image_id`` column and one-hot label columns, images at
                            ``PATH/images/<image_id>.jpg`` (split here)
``tfrecord:GLOB``           ``tf.train.Example`` shards (local or ``gs://``): ``image`` (encoded bytes) or
                            ``tokens`` (int64 list), and ``label`` (int64); files named ``val*``/``test*``/
                            ``valid*`` are the validation split, else it is split here. ``python -m bench
                            export-tfrecord`` writes them.
==========================  ===================================================================================

Images from ``folder:``, ``csv:`` and ``tfrecord:`` stay *encoded* (:class:`Encoded`): the input pipeline
reads, decodes and resizes them to the workload's input size in every epoch, which is the work seed 001
found to be the bottleneck on a TPU. ``keras:`` datasets are arrays (:class:`bench.data.synthetic.Arrays`).

A split made here is stratified (each class 80 % train, 20 % validation), with a fixed seed
(``SPLIT_SEED``), so every run, repeat and backend sees the same split; each part is then in a seeded random
order, so its first ``n`` examples are a random sample. Labels are integer class ids (``class_names[i]``).

Keras' own loaders are not called: ``keras.utils.get_file`` re-downloads a cached file whose hash does not
match and deletes it when the download fails, offline. bench checks the hash itself and refuses such a
file, leaving it where it is.

The package, one way (``__init__`` dispatches on the kind; the kind modules use :mod:`.base`, never each
other or the package):

- :mod:`.base`: the spec grammar, :class:`Source`, :class:`Encoded`, :class:`SourceError`, the split,
  padding and hashing every kind shares;
- :mod:`.keras_datasets`: ``keras:`` (the Keras cache, download, hash check, ``load_data()``'s arrays);
- :mod:`.image_files`: ``folder:`` and ``csv:`` (image files listed, labelled and split);
- :mod:`.tfrecord_shards`: ``tfrecord:`` (shards read, split, described).
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
