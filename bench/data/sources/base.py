"""What every source kind shares: the spec grammar (:func:`parse`), the :class:`Source` description, the
:class:`Encoded` examples, :class:`SourceError`, the seeded stratified split, front padding of token
sequences and content hashing. NumPy and the standard library only; the kind modules import this one,
never the other way round.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path, PurePath

import numpy as np

from bench.data import tfrecord

SYNTHETIC = "synthetic"
KINDS = ("keras", "folder", "csv", "tfrecord")
SPEC_HELP = "synthetic, keras:NAME (mnist, fashion_mnist, cifar10, reuters, imdb), folder:PATH, csv:PATH, tfrecord:GLOB"
SPLIT_SEED = 0
VAL_FRACTION = 0.2
STRATIFIED_SPLIT = f"stratified {1 - VAL_FRACTION:.0%}/{VAL_FRACTION:.0%}, seed {SPLIT_SEED}"  # Source.split


class SourceError(ValueError):
    """A data source that cannot be used: the message names the source and what is wrong."""


@dataclass(frozen=True)
class Encoded:
    """Examples stored as encoded images (JPEG/PNG): file paths or the bytes themselves, with int labels."""

    train: list[str | bytes]
    y_train: np.ndarray
    val: list[str | bytes]
    y_val: np.ndarray

    @property
    def chance_accuracy(self) -> float:
        """Accuracy of always predicting the most frequent validation class (the majority baseline)."""
        return float(np.bincount(self.y_val).max() / len(self.y_val))


@dataclass(frozen=True)
class Source:
    """What a data source holds, known without loading it all.

    ``shape`` is one example's shape: the arrays' (images ``(h, w, c)``, tokens ``(length,)`` of the longest
    sequence), or the first image's for encoded images (they are resized to the workload's input).
    """

    spec: str
    kind: str  # keras | folder | csv | tfrecord
    modality: str  # image | tokens
    encoded: bool  # images decoded in the input pipeline
    shape: tuple[int, ...]
    classes: int
    n_train: int
    n_val: int
    sha256: str  # of the source's content (files, or the sorted image files' bytes)
    class_names: tuple[str, ...] = ()
    vocab: int = 0  # tokens: largest id + 1
    split: str = ""  # how train/validation were separated

    def as_record(self) -> dict[str, object]:
        """What the record's ``dataset`` says of the source: ``name`` is :func:`short_name` (the identity,
        with ``sha256``, the same on every machine); the spec as given, with its path, stays in ``source``."""
        return {"name": short_name(self.spec), "source": self.spec, "kind": self.kind, "modality": self.modality,
                "encoded": self.encoded,
                "source_n_train": self.n_train, "source_n_val": self.n_val, "classes": self.classes,
                "class_names": list(self.class_names), "sha256": self.sha256, "split": self.split}


def short_name(spec: str) -> str:
    """A source's name without where it lies on this machine: ``folder:/data/pets`` -> ``folder:pets``,
    ``csv:/data/plants/train.csv`` -> ``csv:plants/train.csv`` (a csv file by its folder too: every competition
    calls it train.csv), ``tfrecord:/data/shards`` -> ``tfrecord:shards``; ``keras:mnist`` as it is. Records and
    reports name data sets by it, so one data set at two paths or on two machines is one data set."""
    kind, sep, arg = spec.partition(":")
    if not sep or kind not in ("folder", "csv", "tfrecord") or not arg:
        return spec
    path = PurePath(arg.rstrip("/\\") or arg)
    keep = path.parts[-2:] if kind == "csv" and len(path.parts) >= 2 else path.parts[-1:]
    return f"{kind}:{'/'.join(keep)}"


def parse(spec: str) -> tuple[str, str]:
    """(kind, argument) of a spec; SourceError naming the allowed forms."""
    kind, sep, arg = spec.partition(":")
    if spec == SYNTHETIC:
        return SYNTHETIC, ""
    if not sep or kind not in KINDS or not arg:
        raise SourceError(f"{spec!r} is not a data source; allowed: {SPEC_HELP}")
    return kind, arg


def is_synthetic(spec: str) -> bool:
    """The embedded synthetic data (not a source to read)."""
    return spec == SYNTHETIC


def pad_sequences(seqs: np.ndarray, length: int) -> np.ndarray:
    """``keras.utils.pad_sequences(seqs, maxlen=length)``: zeros in front, the last ``length`` ids kept."""
    out = np.zeros((len(seqs), length), np.int32)
    for i, s in enumerate(seqs):
        s = list(s)[-length:]
        if s:
            out[i, -len(s):] = s
    return out


def stratified_split(labels: np.ndarray, val_fraction: float = VAL_FRACTION,
                     seed: int = SPLIT_SEED) -> tuple[np.ndarray, np.ndarray]:
    """Indices (train, val): ``val_fraction`` of every class (rounded, at least 1 where a class has 2 or
    more examples) to validation; each part in a seeded random order."""
    rng = np.random.default_rng(seed)
    train, val = [], []
    for c in np.unique(labels):
        idx = rng.permutation(np.flatnonzero(labels == c))
        k = round(len(idx) * val_fraction)
        k = max(k, 1) if len(idx) >= 2 else 0
        val.append(idx[:k])
        train.append(idx[k:])
    return rng.permutation(np.concatenate(train)), rng.permutation(np.concatenate(val))


def hash_files(paths: list[Path] | list[str], extra: bytes = b"") -> str:
    """Hex sha256 of ``extra`` followed by every file's bytes, in the order given (local or ``gs://``,
    read in 1 MiB chunks): :attr:`Source.sha256`."""
    h = hashlib.sha256(extra)
    for p in paths:
        with tfrecord.open_file(str(p)) as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
    return h.hexdigest()
