"""Synthetic datasets: shapes, determinism, caching, and learnable structure (checked without a CNN)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.data import synthetic


@pytest.mark.parametrize(("name", "shape", "classes", "dtype"), [
    ("fashion", (28, 28, 1), 10, np.uint8), ("catsdogs", (128, 128, 3), 2, np.uint8),
    ("reuters", (300,), 46, np.int32)])
def test_shapes_dtypes_and_determinism(name, shape, classes, dtype) -> None:
    a = synthetic.generate(name, 64, 32, seed=3)
    b = synthetic.generate(name, 64, 32, seed=3)
    assert a.x_train.shape == (64, *shape) and a.x_val.shape == (32, *shape)
    assert a.x_train.dtype == dtype and a.y_train.dtype == np.int32
    assert a.y_train.min() >= 0 and a.y_train.max() < classes
    assert np.array_equal(a.x_train, b.x_train) and np.array_equal(a.y_val, b.y_val)
    assert not np.array_equal(a.x_train, synthetic.generate(name, 64, 32, seed=4).x_train)


def test_fashion_labels_follow_from_the_image() -> None:
    d = synthetic.generate("fashion", 3000, 1000, seed=0)
    # nearest class mean: a model far weaker than the CNN must already beat chance (10 %) by far
    means = np.stack([d.x_train[d.y_train == c].reshape(-1, 784).mean(0) for c in range(10)])
    pred = np.argmin(((d.x_val.reshape(-1, 784)[:, None, :] - means[None]) ** 2).sum(-1), axis=1)
    assert (pred == d.y_val).mean() > 0.5


def test_reuters_is_imbalanced_and_keywords_carry_the_label() -> None:
    d = synthetic.generate("reuters", 4000, 1000, seed=0)
    counts = np.bincount(d.y_train, minlength=46)
    assert counts.max() / counts.sum() > 0.2 and (counts > 0).sum() > 30  # imbalanced, most classes present
    assert np.all(d.x_train[:, 0] >= 0) and (d.x_train == 0).any()  # left-padded ids
    assert d.x_train.max() < synthetic.REUTERS_VOCAB
    # a bag-of-words vote by per-class token frequencies beats the majority baseline by far
    vocab = synthetic.REUTERS_VOCAB
    freq = np.zeros((46, vocab))
    for c in range(46):
        toks = d.x_train[d.y_train == c].ravel()
        freq[c] = np.bincount(toks[toks > 0], minlength=vocab) + 0.1
    logp = np.log(freq / freq.sum(1, keepdims=True))
    pred = np.array([logp[:, row[row > 0]].sum(1).argmax() for row in d.x_val])
    assert (pred == d.y_val).mean() > d.chance_accuracy + 0.2


def test_catsdogs_orientation_cue_survives_a_horizontal_flip() -> None:
    d = synthetic.generate("catsdogs", 200, 10, seed=0)
    g = d.x_train.astype(np.float32).mean(-1)
    gx = np.abs(np.diff(g, axis=2)).mean((1, 2))  # strong for vertical stripes
    gy = np.abs(np.diff(g, axis=1)).mean((1, 2))  # strong for horizontal stripes
    pred = (gy > gx).astype(int)  # class 0 = vertical stripes, class 1 = horizontal stripes
    assert (pred == d.y_train).mean() > 0.8
    flipped = g[:, :, ::-1]
    assert np.allclose(np.abs(np.diff(flipped, axis=2)).mean((1, 2)), gx, rtol=1e-4)


def test_cache_round_trip(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path))
    a = synthetic.load("fashion", 32, 16, seed=1)
    files = list((tmp_path / "data").glob("*.npz"))
    assert len(files) == 1
    b = synthetic.load("fashion", 32, 16, seed=1)
    assert np.array_equal(a.x_train, b.x_train)
    files[0].write_bytes(b"not a zip")  # a damaged cache file is regenerated, not trusted
    c = synthetic.load("fashion", 32, 16, seed=1)
    assert np.array_equal(a.x_train, c.x_train)


def test_catsdogs_at_half_resolution_is_the_same_scene_sampled_at_block_centres(tmp_path, monkeypatch) -> None:
    """catsdogs_cnn's 64 x 64 images: the 128 px generator's scenes drawn at the centres of 2 x 2 blocks with the
    noise a block's average leaves. The training labels are the 128 px set's; a 2 x 2 average of a 128 px image is
    near its 64 px draw (noise and edges apart); the file is cached apart from the 128 px one; a side the generator
    does not draw is refused by name."""
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path))
    big, small = synthetic.load("catsdogs", 64, 8, seed=0), synthetic.load("catsdogs", 64, 8, seed=0, side=64)
    assert small.x_train.shape == (64, 64, 64, 3) and np.array_equal(big.y_train, small.y_train)
    averaged = big.x_train.reshape(64, 64, 2, 64, 2, 3).astype(np.float32).mean(axis=(2, 4))
    same, other = np.abs(averaged - small.x_train).mean(), np.abs(np.roll(averaged, 1, axis=0) - small.x_train).mean()
    assert same < 0.5 * other  # the same scenes: what differs is the two draws' noise (σ 15 of 255 each)
    version = synthetic.GENERATOR_VERSION
    assert sorted(p.name for p in (tmp_path / "data").glob("*.npz")) == [
        f"catsdogs-64-8-s0-v{version}-64px.npz", f"catsdogs-64-8-s0-v{version}.npz"]
    assert synthetic.load("catsdogs", 64, 8, seed=0, side=128).x_train.shape[1] == 128  # its own size: the plain file
    with pytest.raises(ValueError, match="fashion images are drawn at 28 px; side=14"):
        synthetic.load("fashion", 8, 8, seed=0, side=14)


def test_epoch_order_is_a_seeded_permutation_in_full_batches_redrawn_each_epoch() -> None:
    from bench.data.order import epoch_batches

    a = epoch_batches(103, 10, seed=7, epoch=0)
    assert a.shape == (10, 10) and len(set(a.ravel())) == 100 and a.max() < 103  # remainder of 3 dropped
    assert np.array_equal(a, epoch_batches(103, 10, seed=7, epoch=0))
    assert not np.array_equal(a, epoch_batches(103, 10, seed=7, epoch=1))
    assert not np.array_equal(a, epoch_batches(103, 10, seed=8, epoch=0))
    assert np.array_equal(epoch_batches(25, 10, seed=None, epoch=3).ravel(), np.arange(20))  # validation: in order


def test_two_processes_do_not_generate_the_plant_images_twice(tmp_path) -> None:
    """While one process writes the generated images it holds the lock; another that needs them waits for it
    (then finds them written) instead of generating them again."""
    import subprocess
    import sys

    from bench.data import plants

    lock = tmp_path / ".plants.lock"
    probe = ("import fcntl, sys\nf = open(sys.argv[1], 'a')\ntry:\n    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
             "except BlockingIOError:\n    sys.exit(3)\n")
    with plants._exclusive(lock):
        held = subprocess.run([sys.executable, "-c", probe, str(lock)])
    free = subprocess.run([sys.executable, "-c", probe, str(lock)])
    assert (held.returncode, free.returncode) == (3, 0)


def test_the_validation_remainder_is_the_splits_last_examples_padded_to_one_batch() -> None:
    """Issue 39: whole batches of 128 score 512 of 600 validation examples; the other 88 are scored as one batch
    padded with copies of the last (static shapes), the padding dropped."""
    from bench.data.order import remainder_batch

    idx, real = remainder_batch(600, 128)
    assert real == 88 and len(idx) == 128
    assert list(idx[:88]) == list(range(512, 600)) and set(idx[88:]) == {599}
    assert remainder_batch(512, 128)[1] == 0 and len(remainder_batch(512, 128)[0]) == 0
