"""Embedded synthetic datasets shaped like the tutorials' data (``fashion``, ``catsdogs``, ``reuters``). NumPy only.
Learnable: the label follows from the input through structure a CNN can find, noise keeps it from being solved at
once (what each holds: docs/workloads.md). Generated vectorised in seeded chunks and cached as ``.npz`` under
``$BENCH_CACHE_DIR`` (default ``~/.cache/bench``), written atomically so concurrent runs share the cache.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

GENERATOR_VERSION = 2  # bump when a generator changes: cached files are keyed by it
REUTERS_VOCAB = 30982
REUTERS_LEN = 300


@dataclass(frozen=True)
class Arrays:
    """A dataset in memory: train/val inputs (uint8 images or int32 ids) and int32 labels."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_val: np.ndarray
    y_val: np.ndarray

    @property
    def chance_accuracy(self) -> float:
        """Accuracy of always predicting the most frequent validation class (the majority baseline)."""
        return float(np.bincount(self.y_val).max() / len(self.y_val))


def _fashion_prototypes(rng: np.random.Generator) -> np.ndarray:
    """10 prototypes (10, 34, 34) in [0, 1], padded by 3 px for shifting."""
    yy, xx = np.mgrid[0:28, 0:28].astype(np.float32)
    protos = np.zeros((10, 28, 28), np.float32)
    for c in range(10):
        for _ in range(3):  # three strokes: thick line segments at random angles
            x0, y0 = rng.uniform(5, 23, 2)
            ang = rng.uniform(0, np.pi)
            length = rng.uniform(6, 16)
            dx, dy = np.cos(ang), np.sin(ang)
            t = np.clip((xx - x0) * dx + (yy - y0) * dy, -length / 2, length / 2)
            d2 = (xx - (x0 + t * dx)) ** 2 + (yy - (y0 + t * dy)) ** 2
            protos[c] = np.maximum(protos[c], np.exp(-d2 / 3.0))
        for _ in range(2):  # two blobs
            x0, y0 = rng.uniform(6, 22, 2)
            protos[c] = np.maximum(protos[c], np.exp(-((xx - x0) ** 2 + (yy - y0) ** 2) / 8.0))
    return np.pad(protos, ((0, 0), (3, 3), (3, 3)))


def _fashion(n: int, rng: np.random.Generator, protos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y = rng.integers(0, 10, n).astype(np.int32)
    dy, dx = rng.integers(0, 7, (2, n))
    rows = dy[:, None] + np.arange(28)
    cols = dx[:, None] + np.arange(28)
    img = protos[y[:, None, None], rows[:, :, None], cols[:, None, :]]
    other = protos[rng.integers(0, 10, n)[:, None, None], rows[:, :, None], cols[:, None, :]]
    img = img * rng.uniform(0.5, 1.0, (n, 1, 1)) + other * rng.uniform(0.0, 0.45, (n, 1, 1))
    img += rng.normal(0.0, 0.3, img.shape)
    return (np.clip(img, 0, 1) * 255).astype(np.uint8)[..., None], y


def _catsdogs(n: int, rng: np.random.Generator, side: int = 128) -> tuple[np.ndarray, np.ndarray]:
    """``n`` images ``side`` px square: the 128 px scene (positions, sizes, stripes in 128 px units) sampled at the
    centres of ``side`` x ``side`` blocks, its pixel noise what averaging a block of the 128 px image leaves (σ divided
    by the block's side): a smaller side is the same kind of image at a lower resolution."""
    y = rng.integers(0, 2, n).astype(np.int32)
    out = np.empty((n, side, side, 3), np.uint8)
    yy, xx = (np.mgrid[0:side, 0:side].astype(np.float32) + 0.5) * (128 / side) - 0.5
    for s in range(0, n, 256):  # chunks bound the float32 working set (~50 MB per 256 images)
        m = min(256, n - s)
        yc = y[s:s + m]
        ang = np.deg2rad(np.where(yc == 0, 0.0, 90.0) + rng.normal(0.0, 22.0, m))
        freq = rng.uniform(0.25, 0.6, m)
        phase = rng.uniform(0, 2 * np.pi, m)
        proj = np.cos(ang)[:, None, None] * xx + np.sin(ang)[:, None, None] * yy
        grating = 0.5 + 0.5 * np.sin(freq[:, None, None] * proj + phase[:, None, None])
        cx, cy = rng.uniform(32, 96, (2, m))
        r = rng.uniform(22, 44, m)
        disc = ((xx - cx[:, None, None]) ** 2 + (yy - cy[:, None, None]) ** 2) < (r**2)[:, None, None]
        bg = rng.uniform(0.2, 0.8, (m, 1, 1, 3)) + 0.15 * np.sin(
            rng.uniform(0.01, 0.05, (m, 1, 1, 1)) * (xx + yy)[None, :, :, None])
        color = rng.uniform(0.3, 1.0, (m, 1, 1, 3))
        img = np.where(disc[..., None], grating[..., None] * color, bg)
        img += rng.normal(0.0, 0.12 * side / 128, img.shape).astype(np.float32)
        out[s:s + m] = (np.clip(img, 0, 1) * 255).astype(np.uint8)
    return out, y


def _reuters_params(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    prior = 1.0 / np.arange(1, 47) ** 1.3
    prior = rng.permutation(prior / prior.sum())
    keywords = rng.choice(np.arange(200, REUTERS_VOCAB), size=(46, 12), replace=False)
    word_p = 1.0 / np.arange(1, REUTERS_VOCAB) ** 1.05
    word_cdf = np.cumsum(word_p / word_p.sum())
    return prior, keywords, word_cdf


def _reuters(n: int, rng: np.random.Generator, params: tuple) -> tuple[np.ndarray, np.ndarray]:
    prior, keywords, word_cdf = params
    y = rng.choice(46, size=n, p=prior).astype(np.int32)
    tokens = np.searchsorted(word_cdf, rng.random((n, REUTERS_LEN))).astype(np.int32) + 1
    tokens = np.minimum(tokens, REUTERS_VOCAB - 1)
    kw = rng.random((n, REUTERS_LEN)) < 0.05
    tokens = np.where(kw, keywords[y[:, None], rng.integers(0, 12, (n, REUTERS_LEN))], tokens)
    noise = rng.random((n, REUTERS_LEN)) < 0.01
    other = keywords[rng.integers(0, 46, (n, REUTERS_LEN)), rng.integers(0, 12, (n, REUTERS_LEN))]
    tokens = np.where(noise, other, tokens)
    length = rng.integers(30, REUTERS_LEN + 1, n)
    tokens[np.arange(REUTERS_LEN)[None, :] < (REUTERS_LEN - length)[:, None]] = 0  # left padding
    return tokens.astype(np.int32), y


def generate(dataset: str, n_train: int, n_val: int, seed: int, side: int = 0) -> Arrays:
    """Generate a dataset (no cache). Class structure depends on ``seed`` only, not on the sizes; ``side``: the
    images' side in px where the generator draws other sizes than its own (catsdogs)."""
    if side and side != NATIVE_SIDE.get(dataset) and dataset != "catsdogs":
        raise ValueError(f"{dataset} images are drawn at {NATIVE_SIDE.get(dataset, 'no')} px; side={side} is not "
                         "one of its sizes")
    rng = np.random.default_rng([seed, GENERATOR_VERSION])
    if dataset == "fashion":
        protos = _fashion_prototypes(rng)
        xt, yt = _fashion(n_train, rng, protos)
        xv, yv = _fashion(n_val, rng, protos)
    elif dataset == "catsdogs":
        xt, yt = _catsdogs(n_train, rng, side or 128)
        xv, yv = _catsdogs(n_val, rng, side or 128)
    elif dataset == "reuters":
        params = _reuters_params(rng)
        xt, yt = _reuters(n_train, rng, params)
        xv, yv = _reuters(n_val, rng, params)
    else:
        raise KeyError(f"unknown dataset {dataset!r}; allowed: {', '.join(DATASETS)}")
    return Arrays(xt, yt, xv, yv)


DATASETS = ("fashion", "catsdogs", "reuters")


def cache_dir() -> Path:
    """Where generated datasets are cached: ``$BENCH_CACHE_DIR`` or ``~/.cache/bench``."""
    return Path(os.environ.get("BENCH_CACHE_DIR") or Path.home() / ".cache" / "bench") / "data"


NATIVE_SIDE = {"fashion": 28, "catsdogs": 128}  # the generated images' side, px


def load(dataset: str, n_train: int, n_val: int, seed: int, side: int = 0) -> Arrays:
    """The dataset from the cache, generating and caching it on first use; images ``side`` px square when given
    and not the generator's own size (:func:`generate`)."""
    side = 0 if side == NATIVE_SIDE.get(dataset) else side
    path = cache_dir() / f"{dataset}-{n_train}-{n_val}-s{seed}-v{GENERATOR_VERSION}{f'-{side}px' if side else ''}.npz"
    if path.exists():
        try:
            with np.load(path) as z:
                return Arrays(z["x_train"], z["y_train"], z["x_val"], z["y_val"])
        except (OSError, ValueError, KeyError):
            path.unlink(missing_ok=True)  # a damaged cache file is regenerated, never trusted
    arrays = generate(dataset, n_train, n_val, seed, side)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".npz", dir=path.parent)
    os.close(fd)
    try:
        np.savez(tmp, x_train=arrays.x_train, y_train=arrays.y_train, x_val=arrays.x_val, y_val=arrays.y_val)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return arrays
