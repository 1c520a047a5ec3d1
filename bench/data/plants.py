"""Embedded plant-pathology data shaped like tutorial 001's competition (Plant Pathology 2020 FGVC7): JPEG files at its
2048 x 1365 resolution and a ``train.csv`` in its layout, generated deterministically and cached. NumPy + Pillow.
What the images show and their sizes per ``data_scale``: docs/workloads.md. Written once per (generator version,
scale) under ``$BENCH_CACHE_DIR/data/`` (a temporary folder renamed into place), read back as the ``csv:`` source.
"""

from __future__ import annotations

import contextlib
import csv
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from bench.data.synthetic import cache_dir

GENERATOR_VERSION = 3
CLASSES = ("healthy", "multiple_diseases", "rust", "scab")
FULL_COUNTS = (516, 91, 622, 592)  # the competition's train.csv
SCALES = ("reduced", "full")
DRAWN = (171, 256)  # (height, width) the leaf is drawn at: the competition's / 8
FILE = (1365, 2048)  # (height, width) of the files: the competition's photos
QUALITY = 75
# data_scale=reduced: about 35 % of each class, chosen so the stratified split gives 512 training examples
# (a multiple of 8 x 64: 32 steps of 16, so steps_per_execution=32 runs one execution per epoch) and 128
# validation examples
REDUCED_COUNTS = (181, 32, 219, 208)
SEED = 2020


def counts(scale: str) -> tuple[int, ...]:
    """Images per class at ``scale``."""
    if scale == "full":
        return FULL_COUNTS
    return REDUCED_COUNTS


def sizes(scale: str) -> tuple[int, int]:
    """(n_train, n_val) of the generated set at ``scale`` once the csv: source splits it (stratified:
    20 % of each class, rounded, to validation; :func:`bench.data.sources.stratified_split`)."""
    from bench.data.sources import VAL_FRACTION

    c = counts(scale)
    val = sum(max(round(n * VAL_FRACTION), 1) for n in c)
    return sum(c) - val, val


def _leaf_mask(h: int, w: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inside-leaf mask, and coordinates along (u) and across (v) the leaf's axis, in leaf radii."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cy, cx = h * rng.uniform(0.4, 0.6), w * rng.uniform(0.4, 0.6)
    a, b = min(h, w) * rng.uniform(0.55, 0.7), min(h, w) * rng.uniform(0.28, 0.36)
    ang = rng.uniform(0, np.pi)
    u = ((xx - cx) * np.cos(ang) + (yy - cy) * np.sin(ang)) / a
    v = (-(xx - cx) * np.sin(ang) + (yy - cy) * np.cos(ang)) / b
    return u**2 + v**2 <= 1.0, u, v


def _spots(img: np.ndarray, mask: np.ndarray, rng: np.random.Generator, n: int, radius: float,
           colour: tuple[float, float, float], halo: tuple[float, float, float] | None, rough: bool) -> None:
    """Paint ``n`` spots of ``colour`` (radius in pixels) at random places on the leaf."""
    h, w, _ = img.shape
    ys, xs = np.nonzero(mask)
    if len(ys) == 0:
        return
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for i in rng.integers(0, len(ys), n):
        r = radius * rng.uniform(0.6, 1.4)
        d = np.sqrt((yy - ys[i]) ** 2 + ((xx - xs[i]) * rng.uniform(0.7, 1.3)) ** 2)
        if rough:  # irregular edge and texture
            d = d * (1 + 0.35 * rng.standard_normal(d.shape).astype(np.float32))
        if halo is not None:
            ring = (d <= 1.8 * r) & mask
            img[ring] = 0.5 * img[ring] + 0.5 * np.array(halo, np.float32)
        core = (d <= r) & mask
        img[core] = np.array(colour, np.float32) * rng.uniform(0.85, 1.1)


def leaf(label: int, h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """One uint8 (h, w, 3) image of class ``label`` (an index into CLASSES)."""
    base = rng.uniform(60, 120, 3).astype(np.float32)  # background: mottled soil/grass
    img = base + 18 * rng.standard_normal((h, w, 3)).astype(np.float32)
    img += 20 * np.sin(np.mgrid[0:h, 0:w][1] / w * rng.uniform(2, 6))[..., None].astype(np.float32)
    mask, u, v = _leaf_mask(h, w, rng)
    green = np.array([rng.uniform(50, 90), rng.uniform(130, 175), rng.uniform(40, 70)], np.float32)
    shade = 1 - 0.25 * np.abs(v)[..., None]
    veins = (np.abs(v) < 0.04) | ((np.abs(np.sin(u * 9 + np.abs(v) * 5)) < 0.08) & (np.abs(v) < 0.8))
    leaf_px = green * shade + 8 * rng.standard_normal((h, w, 3)).astype(np.float32)
    leaf_px[veins] = leaf_px[veins] * 0.8 + np.array([40, 50, 20], np.float32)
    img[mask] = leaf_px[mask]
    scale = min(h, w) / 128
    name = CLASSES[label]
    if name in ("rust", "multiple_diseases"):
        _spots(img, mask, rng, int(rng.integers(5, 11) if name == "rust" else rng.integers(3, 6)), 5.0 * scale,
               (205, 105, 30), (230, 200, 60), rough=False)
    if name in ("scab", "multiple_diseases"):
        _spots(img, mask, rng, int(rng.integers(3, 7) if name == "scab" else rng.integers(2, 4)), 9.0 * scale,
               (75, 70, 35), None, rough=True)
    return np.clip(img, 0, 255).astype(np.uint8)


def photo(drawn: np.ndarray) -> bytes:
    """A drawn leaf as the competition's photo: scaled up to 2048 x 1365 (bilinear) and JPEG-encoded."""
    import io

    from PIL import Image

    # the resized image is encoded as it is: the same bytes as bench.data.images.encode of its pixels, without the
    # two copies of 2.8 Mpx in between (a quarter of the time it takes to write the set)
    buf = io.BytesIO()
    Image.fromarray(drawn).resize(FILE[::-1], Image.Resampling.BILINEAR).save(buf, format="JPEG", quality=QUALITY)
    return buf.getvalue()


def folder(scale: str) -> Path:
    """Where the generated images of ``scale`` are cached."""
    return cache_dir() / f"plants-v{GENERATOR_VERSION}-{scale}"


def ensure(scale: str = "reduced") -> Path:
    """The path of ``train.csv`` of the generated set at ``scale``, written first if absent. Processes that need
    it at the same time (two runs, parallel tests) wait for the one writing it instead of writing it again."""
    if scale not in SCALES:
        raise ValueError(f"scale={scale!r}; allowed: {', '.join(SCALES)}")
    target = folder(scale)
    if (target / "train.csv").is_file():
        return target / "train.csv"
    target.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive(target.parent / f".{target.name}.lock"):
        if not (target / "train.csv").is_file():  # written while this process waited
            _write(target, scale)
    return target / "train.csv"


@contextlib.contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` while the block runs (POSIX ``flock``; no lock where there is none: the
    write below is atomic anyway, a second writer only repeats the work)."""
    try:
        import fcntl
    except ImportError:  # Windows
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _write(target: Path, scale: str) -> None:
    """Generate the images and ``train.csv`` in a temporary folder, then rename it to ``target`` (atomic)."""
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
    try:
        (tmp / "images").mkdir()
        rng = np.random.default_rng(SEED)
        labels = np.repeat(np.arange(len(CLASSES)), counts(scale))
        labels = labels[rng.permutation(len(labels))]
        h, w = DRAWN
        with open(tmp / "train.csv", "w", newline="") as f:
            out = csv.writer(f)
            out.writerow(["image_id", *CLASSES])
            for i, y in enumerate(labels):
                image_id = f"Train_{i}"
                (tmp / "images" / f"{image_id}.jpg").write_bytes(photo(leaf(int(y), h, w, rng)))
                out.writerow([image_id, *[int(j == y) for j in range(len(CLASSES))]])
        try:
            os.rename(tmp, target)
        except OSError:  # another run wrote it first
            if not (target / "train.csv").is_file():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def spec(scale: str = "reduced") -> str:
    """The ``csv:`` data source of the generated set at ``scale`` (generated first if absent)."""
    return f"csv:{ensure(scale)}"
