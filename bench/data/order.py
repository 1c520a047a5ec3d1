"""The order in which a point sees its examples, and its random flips: NumPy only, shared by every engine, so a point
sees the same batches whatever its backend or strategy. The draws depend only on ``(seed, epoch)``.
"""

from __future__ import annotations

import numpy as np

from bench.data.augment import Params, draw, kinds


def epoch_batches(n: int, batch: int, seed: int | None, epoch: int) -> np.ndarray:
    """Example indices of one epoch's full batches, shape ``(n // batch, batch)``.

    A seeded permutation drawn afresh for every epoch (``seed`` None: in order, as for validation); the
    remainder of ``n // batch`` batches is dropped (static shapes: every batch is full).
    """
    steps = n // batch
    if seed is None:
        order = np.arange(n)
    else:
        order = np.random.default_rng((seed, epoch)).permutation(n)
    return order[: steps * batch].reshape(steps, batch)


def epoch_plan(n: int, batch: int, seed: int | None, epoch: int, augment: bool | tuple[str, ...],
               height: int = 0) -> tuple[np.ndarray, Params | None]:
    """One epoch's batches and augmentation draws: :func:`epoch_batches`, and
    :func:`bench.data.augment.draw` for the workload's ``augment`` kinds when the order is seeded
    (training), else None (no augmentation; validation). ``height``: the images' (for ``crop``)."""
    idx = epoch_batches(n, batch, seed, epoch)
    which = kinds(augment)
    steps, size = idx.shape
    params = draw(seed, epoch, steps, size, which, height) if which and seed is not None else None
    return idx, params


def remainder_batch(n: int, batch: int) -> tuple[np.ndarray, int]:
    """The validation examples that whole batches leave out (the last ``n % batch`` of the split, in order), padded
    up to one whole batch by repeating the last of them (static shapes: a TPU compiles one program per shape, and a
    batch split over devices must divide): (indices, shape ``(batch,)``; how many are real). ``(empty, 0)`` when
    whole batches cover the split."""
    rest = n % batch if batch else 0
    if not rest:
        return np.zeros(0, dtype=np.int64), 0
    idx = np.arange(n - rest, n)
    return np.concatenate([idx, np.full(batch - rest, n - 1)]), rest
