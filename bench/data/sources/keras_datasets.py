"""``keras:NAME`` sources: the ``keras.datasets`` files in the Keras cache, downloaded there when absent and online,
checked against Keras' published sha256 (a mismatch is refused and left in place) and read with NumPy as
``load_data()`` returns them. No Keras. Docs: docs/your-model-and-data.md, *Real datasets*.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import pickle
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.data.sources.base import Source, SourceError, hash_files, pad_sequences
from bench.data.synthetic import Arrays

KERAS_URL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
DOWNLOAD_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class KerasSet:
    """One ``keras.datasets`` dataset: its cached files, published hash and size."""

    files: tuple[str, ...]  # under $KERAS_HOME/datasets
    sha256: str  # of files[0] as Keras publishes it ("" where Keras checks none)
    shape: tuple[int, ...]
    classes: int
    sizes: tuple[int, int]
    modality: str = "image"
    url: str = ""  # where the (first) file comes from, when it is not KERAS_URL + its name


KERAS_SETS = {
    "mnist": KerasSet(("mnist.npz",), "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1",
                      (28, 28, 1), 10, (60000, 10000)),
    "fashion_mnist": KerasSet(tuple(f"fashion-mnist/{n}" for n in (
        "train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
        "t10k-images-idx3-ubyte.gz")), "", (28, 28, 1), 10, (60000, 10000)),
    "cifar10": KerasSet(("cifar-10-batches-py-target_archive",),
                        "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce", (32, 32, 3), 10,
                        (50000, 10000), url="https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"),
    "reuters": KerasSet(("reuters.npz",), "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916",
                        (300,), 46, (8982, 2246), "tokens"),
    "imdb": KerasSet(("imdb.npz",), "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f",
                     (300,), 2, (25000, 25000), "tokens"),
}


def keras_datasets_dir() -> Path:
    """Where Keras caches its datasets: ``$KERAS_HOME/datasets`` (default ``~/.keras/datasets``)."""
    return Path(os.environ.get("KERAS_HOME") or Path.home() / ".keras").expanduser() / "datasets"


def _cifar_dir() -> Path:
    return keras_datasets_dir() / "cifar-10-batches-py-target" / "cifar-10-batches-py"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _download(url: str, dest: Path) -> None:
    """Fetch ``url`` to ``dest`` (a temporary file renamed into place: nothing half-written)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as r:
            for chunk in iter(lambda: r.read(1 << 20), b""):
                out.write(chunk)
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _keras_files(spec: str, name: str) -> tuple[KerasSet, list[Path]]:
    """The cached files of a Keras dataset, downloaded when absent (unless ``BENCH_OFFLINE=1``)."""
    if name not in KERAS_SETS:
        raise SourceError(f"{spec}: unknown Keras dataset {name!r}; allowed: keras:{', keras:'.join(KERAS_SETS)}")
    ks = KERAS_SETS[name]
    folder = keras_datasets_dir()
    paths = [folder / f for f in ks.files]
    for i, p in enumerate(paths):
        if name == "cifar10" and (folder / "cifar-10-batches-py-target" / "cifar-10-batches-py").is_dir():
            break  # Keras' extracted copy is there
        if p.exists():
            continue
        url = ks.url if ks.url and i == 0 else KERAS_URL + ks.files[i]
        if os.environ.get("BENCH_OFFLINE") == "1":
            problem = "BENCH_OFFLINE=1 forbids downloading it"
        else:
            try:
                print(f"bench: downloading {url} to {p}", flush=True)
                _download(url, p)
                continue
            except OSError as e:
                problem = f"downloading it failed ({type(e).__name__}: {e})"
        raise SourceError(f"{spec}: {p} is missing and {problem}; download {url} and place it in {p.parent}/ "
                          f"as {p.name}" + (f" (sha256 {ks.sha256})" if ks.sha256 else ""))
    if ks.sha256 and paths[0].exists() and _sha256(paths[0]) != ks.sha256:
        raise SourceError(f"{spec}: {paths[0]} does not match the sha256 Keras publishes ({ks.sha256}); bench "
                          "will not use it and leaves it in place (replace it with the original file)")
    return ks, paths


def keras_describe(spec: str, name: str) -> Source:
    """The :class:`Source` of ``keras:NAME`` (its files fetched and hash-checked first)."""
    ks, paths = _keras_files(spec, name)
    present = [p for p in paths if p.exists()]
    if ks.sha256 and len(present) == 1:
        sha = ks.sha256
    else:
        sha = hash_files(present or sorted(_cifar_dir().iterdir()))
    vocab = 0
    if ks.modality == "tokens":  # the ids as load_data() numbers them: the largest + 1
        x_train, _, x_val, _ = keras_arrays(spec, name)
        vocab = max(max(x) for x in (*x_train, *x_val)) + 1
    return Source(spec, "keras", ks.modality, False, ks.shape, ks.classes, *ks.sizes, sha, vocab=vocab,
                  split="keras.datasets' train/test")


def keras_load(spec: str, name: str, n_train: int, n_val: int, seq_len: int) -> Arrays:
    """The first ``n_train`` / ``n_val`` examples of ``keras:NAME``, int32 labels; token sequences padded or
    truncated at the front to ``seq_len``."""
    x_train, y_train, x_val, y_val = keras_arrays(spec, name)
    if x_train.dtype == object:
        x_train, x_val = pad_sequences(x_train[:n_train], seq_len), pad_sequences(x_val[:n_val], seq_len)
    return Arrays(x_train[:n_train], y_train[:n_train].astype(np.int32), x_val[:n_val],
                  y_val[:n_val].astype(np.int32))


@functools.lru_cache(maxsize=4)
def keras_arrays(spec: str, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x_train, y_train, x_test, y_test) of ``keras:NAME``, all of them, read as Keras' ``load_data()``
    (default arguments) returns them (images with a channel axis; token sequences as unpadded object
    arrays); cached per process. SourceError when the files cannot be had."""
    _, paths = _keras_files(spec, name)
    if name == "mnist":
        with np.load(paths[0], allow_pickle=False) as f:
            return f["x_train"][..., None], f["y_train"], f["x_test"][..., None], f["y_test"]
    if name == "fashion_mnist":
        return _read_fashion_mnist(paths)
    if name == "cifar10":
        return _read_cifar10(paths)
    return _read_token_set(name, paths)


def _read_fashion_mnist(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    def idx(p: Path, offset: int) -> np.ndarray:
        with gzip.open(p, "rb") as f:
            return np.frombuffer(f.read(), np.uint8, offset=offset)

    y_train, y_test = idx(paths[0], 8), idx(paths[2], 8)
    return (idx(paths[1], 16).reshape(len(y_train), 28, 28, 1), y_train,
            idx(paths[3], 16).reshape(len(y_test), 28, 28, 1), y_test)


def _read_cifar10(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    folder = _cifar_dir()
    if not folder.is_dir():
        import tarfile

        with tarfile.open(paths[0]) as tar:  # hash-checked above: Keras' published archive
            tar.extractall(folder.parent, filter="data")

    def batch(p: Path) -> tuple[np.ndarray, np.ndarray]:
        with open(p, "rb") as f:
            d = pickle.load(f, encoding="bytes")  # as Keras' own loader reads them
        x = np.asarray(d[b"data"], np.uint8).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        return x, np.asarray(d[b"labels"])

    parts = [batch(folder / f"data_batch_{i}") for i in range(1, 6)]
    x_test, y_test = batch(folder / "test_batch")
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]), x_test, y_test


def _read_token_set(name: str, paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """reuters, imdb: ragged sequences pickled in the npz; the file matched Keras' published sha256."""
    with np.load(paths[0], allow_pickle=True) as f:
        data = {k: f[k] for k in f.files}
    rng = np.random.RandomState(113)  # Keras' defaults: seed 113, start_char 1, index_from 3, no num_words
    splits = [("x", "y")] if name == "reuters" else [("x_train", "y_train"), ("x_test", "y_test")]
    xs: list[list[int]] = []
    labels = []
    for xk, yk in splits:
        order = np.arange(len(data[xk]))
        rng.shuffle(order)
        xs += [[1] + [int(w) + 3 for w in x] for x in data[xk][order]]
        labels.append(np.asarray(data[yk])[order])
    num_words = max(max(x) for x in xs)  # Keras' num_words=None: the largest id itself becomes oov (2)
    xs = [[w if w < num_words else 2 for w in x] for x in xs]
    y = np.concatenate(labels)
    cut = int(len(xs) * 0.8) if name == "reuters" else len(data["x_train"])  # reuters: test_split=0.2
    ragged = np.empty(len(xs), dtype=object)
    ragged[:] = xs
    return ragged[:cut], y[:cut], ragged[cut:], y[cut:]
