"""Random augmentation in the input pipeline, drawn in NumPy so every engine applies the same draws (they depend on
``(seed, epoch)`` only): ``crop``, ``flip``, ``rot90``, ``brightness``, ``contrast``, applied in that order to float
images in [0, 1] of shape (batch, h, w, c). :func:`apply` is the JAX and PyTorch engines'; the TensorFlow engine gives
the same batches (tested). The kinds: docs/your-model-and-data.md, *Augmentation*.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

KINDS = ("crop", "flip", "rot90", "brightness", "contrast")
BRIGHTNESS = 0.1
CONTRAST = (0.8, 1.2)


def kinds(augment: bool | tuple[str, ...]) -> tuple[str, ...]:
    """A workload's ``augment`` as a tuple of kinds: True is ``("flip",)`` (tutorial 000's random flip)."""
    if augment is True:
        return ("flip",)
    if not augment:
        return ()
    unknown = sorted(set(augment) - set(KINDS))
    if unknown:
        raise ValueError(f"augment: unknown kind(s) {unknown}; allowed: {', '.join(KINDS)}")
    return tuple(k for k in KINDS if k in augment)


def crop_pad(height: int) -> int:
    """Padding (pixels per side) of the ``crop`` augmentation for images ``height`` high."""
    return max(1, height // 16)


@dataclass(frozen=True)
class Params:
    """One epoch's draws, shape (steps, batch) each (``crop``: (steps, batch, 2) offsets), or one batch's
    (batch,) after :meth:`row`; None for a kind not applied."""

    flip: np.ndarray | None = None
    rot90: np.ndarray | None = None
    brightness: np.ndarray | None = None
    contrast: np.ndarray | None = None
    crop: np.ndarray | None = None

    def row(self, i: int) -> Params:
        """The draws of batch ``i``."""
        return Params(**{f.name: None if getattr(self, f.name) is None else getattr(self, f.name)[i]
                         for f in fields(self)})

    def part(self, rows: slice) -> Params:
        """One batch's draws (after :meth:`row`) for the examples in ``rows`` only (a process's share)."""
        return Params(**{f.name: None if getattr(self, f.name) is None else getattr(self, f.name)[rows]
                         for f in fields(self)})

    def arrays(self) -> dict[str, np.ndarray]:
        """The kinds applied, by name (for a ``tf.data`` dataset)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}


def draw(seed: int, epoch: int, steps: int, batch: int, which: tuple[str, ...], height: int = 0) -> Params:
    """The draws of one epoch. Flips come from the generator ``(seed, epoch, 1)`` (as they always have:
    a flip-only workload's batches are unchanged), every other kind from ``(seed, epoch, 2)``."""
    out: dict[str, np.ndarray] = {}
    if "flip" in which:
        out["flip"] = np.random.default_rng((seed, epoch, 1)).random((steps, batch)) < 0.5
    rng = np.random.default_rng((seed, epoch, 2))
    if "crop" in which:
        out["crop"] = rng.integers(0, 2 * crop_pad(height) + 1, (steps, batch, 2)).astype(np.int32)
    if "rot90" in which:
        out["rot90"] = rng.integers(0, 4, (steps, batch)).astype(np.int32)
    if "brightness" in which:
        out["brightness"] = rng.uniform(-BRIGHTNESS, BRIGHTNESS, (steps, batch)).astype(np.float32)
    if "contrast" in which:
        out["contrast"] = rng.uniform(*CONTRAST, (steps, batch)).astype(np.float32)
    return Params(**out)


def apply(x: np.ndarray, p: Params) -> np.ndarray:
    """One batch's augmentation (float32 (batch, h, w, c) in [0, 1]; a new array)."""
    b, h, w, _ = x.shape
    if p.crop is not None:
        pad = crop_pad(h)
        padded = np.pad(x, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
        rows = p.crop[:, 0, None] + np.arange(h)
        cols = p.crop[:, 1, None] + np.arange(w)
        x = padded[np.arange(b)[:, None, None], rows[:, :, None], cols[:, None, :]]
    else:
        x = x.copy()
    if p.flip is not None:
        x[p.flip] = x[p.flip, :, ::-1, :]
    if p.rot90 is not None:
        x = np.stack([np.rot90(img, k, axes=(0, 1)) for img, k in zip(x, p.rot90, strict=True)])
    if p.brightness is not None:
        x = x + p.brightness[:, None, None, None]
    if p.contrast is not None:
        mean = x.mean(axis=(1, 2), keepdims=True)
        x = (x - mean) * p.contrast[:, None, None, None] + mean
    if p.brightness is not None or p.contrast is not None:
        x = np.clip(x, 0.0, 1.0)
    return x.astype(np.float32, copy=False)
