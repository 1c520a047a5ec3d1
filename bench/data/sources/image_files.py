"""``folder:PATH`` and ``csv:PATH/train.csv`` sources: encoded images on disk, listed with their labels and split, never
decoded here. ``folder:`` reads class sub-folders (tutorial 000's ``training_set``/``test_set`` split when present),
``csv:`` tutorial 001's one-hot ``train.csv``; other splits are stratified (:func:`.base.stratified_split`).
"""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.data import images
from bench.data.sources.base import (
    SPLIT_SEED,
    STRATIFIED_SPLIT,
    Encoded,
    Source,
    SourceError,
    hash_files,
    stratified_split,
)


@dataclass(frozen=True)
class Listing:
    """The image files of a ``folder:`` or ``csv:`` source, split, with int labels (``class_names[i]``)."""

    train: list[str]
    y_train: np.ndarray
    val: list[str]
    y_val: np.ndarray
    class_names: tuple[str, ...]
    split: str


@functools.lru_cache(maxsize=8)
def listing(spec: str, kind: str, arg: str) -> Listing:
    """Files and labels of a ``folder:`` or ``csv:`` source, split (cached per process); SourceError when
    the layout is not one bench reads."""
    path = Path(arg).expanduser()
    if kind == "folder":
        return _folder_listing(spec, path)
    return _csv_listing(spec, path)


def files_describe(spec: str, kind: str, arg: str) -> Source:
    """The :class:`Source` of a ``folder:`` or ``csv:`` source: the first image's size, the hash of every
    image file (after their sorted ``class/name`` list)."""
    found = listing(spec, kind, arg)
    if len(found.val) == 0:
        raise SourceError(f"{spec}: no validation images (too few images to split)")
    files = sorted(found.train + found.val)
    rel = "\n".join(sorted(f"{Path(f).parent.name}/{Path(f).name}" for f in files)).encode()
    try:
        shape = images.image_size(found.train[0])
    except Exception as e:
        raise SourceError(f"{spec}: {found.train[0]} is not a readable image ({type(e).__name__}: {e})") from None
    return Source(spec, kind, "image", True, shape, len(found.class_names), len(found.train), len(found.val),
                  hash_files(files, rel), found.class_names, split=found.split)


def files_load(spec: str, kind: str, arg: str, n_train: int, n_val: int) -> Encoded:
    """The first ``n_train`` / ``n_val`` image paths of each split, with their labels."""
    found = listing(spec, kind, arg)
    return Encoded(list(found.train[:n_train]), found.y_train[:n_train], list(found.val[:n_val]),
                   found.y_val[:n_val])


def _class_folders(spec: str, root: Path) -> dict[str, list[Path]]:
    out = {}
    for d in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        files = sorted(f for f in d.iterdir() if f.suffix.lower() in images.IMAGE_SUFFIXES)
        if files:
            out[d.name] = files
    if len(out) < 2:
        raise SourceError(f"{spec}: {root} needs at least 2 class sub-folders holding "
                          f"{'/'.join(images.IMAGE_SUFFIXES)} images; found {len(out)}")
    return out


def _folder_listing(spec: str, path: Path) -> Listing:
    if not path.is_dir():
        raise SourceError(f"{spec}: {path} is not a folder")
    train_dir, test_dir = path / "training_set", path / "test_set"
    if train_dir.is_dir() and test_dir.is_dir():  # tutorial 000's layout: the split is given
        tr, te = _class_folders(spec, train_dir), _class_folders(spec, test_dir)
        if set(tr) != set(te):
            raise SourceError(f"{spec}: training_set has classes {sorted(tr)}, test_set {sorted(te)}; they "
                              "must match")
        names = tuple(sorted(tr))
        rng = np.random.default_rng(SPLIT_SEED)

        def flat(d: dict[str, list[Path]]) -> tuple[list[str], np.ndarray]:
            files = [str(f) for n in names for f in d[n]]
            labels = np.array([i for i, n in enumerate(names) for _ in d[n]], np.int32)
            order = rng.permutation(len(files))
            return [files[i] for i in order], labels[order]

        (train, y_train), (val, y_val) = flat(tr), flat(te)
        return Listing(train, y_train, val, y_val, names, "training_set / test_set folders")
    classes = _class_folders(spec, path)
    names = tuple(classes)
    files = [str(f) for n in names for f in classes[n]]
    labels = np.array([i for i, n in enumerate(names) for _ in classes[n]], np.int32)
    return _split(files, labels, names)


def _csv_listing(spec: str, path: Path) -> Listing:
    """Tutorial 001's ``train.csv``: an ``image_id`` column and one-hot label columns."""
    if not path.is_file():
        raise SourceError(f"{spec}: {path} is not a file (tutorial 001's layout: PATH/train.csv and PATH/images/)")
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or "image_id" not in rows[0]:
        raise SourceError(f"{spec}: {path} needs a header with an image_id column and one-hot label columns")
    header = rows[0]
    id_col = header.index("image_id")
    names = tuple(h for i, h in enumerate(header) if i != id_col)
    if len(names) < 2:
        raise SourceError(f"{spec}: {path} has {len(names)} label column(s); one-hot labels need at least 2")
    image_dir = path.parent / "images"
    files, labels = [], []
    for line, row in enumerate(rows[1:], start=2):
        try:
            onehot = [float(row[i]) for i in range(len(header)) if i != id_col]
        except (ValueError, IndexError):
            raise SourceError(f"{spec}: {path} line {line}: label columns must be numbers 0/1") from None
        if sorted(onehot) != [0.0] * (len(names) - 1) + [1.0]:
            raise SourceError(f"{spec}: {path} line {line}: labels {onehot} are not one-hot (exactly one 1)")
        image = image_dir / f"{row[id_col]}.jpg"
        if not image.is_file():
            raise SourceError(f"{spec}: {image} (line {line}) is missing; images go in {image_dir}/<image_id>.jpg")
        files.append(str(image))
        labels.append(onehot.index(1.0))
    if not files:
        raise SourceError(f"{spec}: {path} lists no images")
    return _split(files, np.array(labels, np.int32), names)


def _split(files: list, labels: np.ndarray, names: tuple[str, ...]) -> Listing:
    tr, va = stratified_split(labels)
    return Listing([files[i] for i in tr], labels[tr], [files[i] for i in va], labels[va], names,
                   STRATIFIED_SPLIT)
