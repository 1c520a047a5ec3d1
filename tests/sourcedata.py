"""Data the source tests make themselves: JPEG/PNG files in the folder and CSV layouts, Keras cache files.

Images are learnable: class ``c`` puts a bright blob in quadrant ``c`` (of 4) on a noisy background, and
the blob's brightness rises with ``c``; both cues survive resizing and greyscale conversion, and the row
and the brightness survive a left-right flip.
"""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import numpy as np

from bench.data import images


def image(c: int, rng: np.random.Generator, size: tuple[int, int] = (40, 48)) -> np.ndarray:
    """One uint8 RGB image of class ``c`` (0..3)."""
    h, w = size
    img = rng.integers(0, 50, (h, w, 3)).astype(np.int32)
    top, left = (c // 2) * h // 2, (c % 2) * w // 2
    img[top + 4:top + h // 2 - 4, left + 4:left + w // 2 - 4] += 90 + 40 * c
    return np.clip(img, 0, 255).astype(np.uint8)


def write_folder(root: Path, classes: tuple[str, ...] = ("cats", "dogs"), per_class: int = 30,
                 split: bool = True, fmt: str = "jpeg", seed: int = 0) -> Path:
    """Tutorial 000's layout (``training_set``/``test_set``, a quarter of the images in the latter) or one split
    folder of class sub-folders; returns ``root``."""
    rng = np.random.default_rng(seed)
    for c, name in enumerate(classes):
        for i in range(per_class):
            part = ("test_set" if i % 4 == 0 else "training_set") if split else ""
            d = root / part / name
            d.mkdir(parents=True, exist_ok=True)
            (d / f"{name}.{i}.{'jpg' if fmt == 'jpeg' else 'png'}").write_bytes(images.encode(image(c, rng), fmt))
    return root


def write_csv(root: Path, classes: tuple[str, ...] = ("healthy", "multiple_diseases", "rust", "scab"),
              counts: tuple[int, ...] = (20, 10, 20, 20), seed: int = 0) -> Path:
    """Tutorial 001's layout: ``root/train.csv`` (image_id + one-hot columns) and ``root/images/<id>.jpg``;
    returns the CSV's path."""
    rng = np.random.default_rng(seed)
    (root / "images").mkdir(parents=True, exist_ok=True)
    rows = []
    k = 0
    for c, n in enumerate(counts):
        for _ in range(n):
            image_id = f"Train_{k}"
            (root / "images" / f"{image_id}.jpg").write_bytes(images.encode(image(c, rng), "jpeg"))
            rows.append([image_id, *[int(j == c) for j in range(len(classes))]])
            k += 1
    order = rng.permutation(len(rows))
    with open(root / "train.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["image_id", *classes])
        w.writerows(rows[i] for i in order)
    return root / "train.csv"


def write_fashion_cache(keras_home: Path, n_train: int = 300, n_test: int = 100, seed: int = 0) -> Path:
    """``keras_home/datasets/fashion-mnist/*.gz`` in the IDX format Keras reads (learnable 28x28 images);
    returns the folder."""
    rng = np.random.default_rng(seed)
    folder = keras_home / "datasets" / "fashion-mnist"
    folder.mkdir(parents=True, exist_ok=True)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        y = rng.integers(0, 4, n).astype(np.uint8)
        x = np.stack([image(int(c), rng, (28, 28))[..., 0] for c in y])
        with gzip.open(folder / f"{prefix}-labels-idx1-ubyte.gz", "wb") as f:
            f.write(b"\0" * 8 + y.tobytes())
        with gzip.open(folder / f"{prefix}-images-idx3-ubyte.gz", "wb") as f:
            f.write(b"\0" * 16 + x.tobytes())
    return folder
