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
"""

from __future__ import annotations

import csv
import functools
import gzip
import hashlib
import json
import os
import pickle
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.data import images, tfrecord
from bench.data.synthetic import Arrays

SYNTHETIC = "synthetic"
KINDS = ("keras", "folder", "csv", "tfrecord")
SPEC_HELP = "synthetic, keras:NAME (mnist, fashion_mnist, cifar10, reuters, imdb), folder:PATH, csv:PATH, tfrecord:GLOB"
SPLIT_SEED = 0
VAL_FRACTION = 0.2
KERAS_URL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
DOWNLOAD_TIMEOUT_S = 30.0
MANIFEST = "bench-dataset.json"  # written next to TFRecord shards by export-tfrecord


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
        """What the record's ``dataset`` says of the source."""
        return {"name": self.spec, "kind": self.kind, "modality": self.modality, "encoded": self.encoded,
                "source_n_train": self.n_train, "source_n_val": self.n_val, "classes": self.classes,
                "class_names": list(self.class_names), "sha256": self.sha256, "split": self.split}


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


@functools.lru_cache(maxsize=32)
def describe(spec: str) -> Source:
    """The :class:`Source` named by ``spec`` (scanned, hashed; cached per process); SourceError when it
    cannot be used."""
    kind, arg = parse(spec)
    if kind == "keras":
        return _keras_describe(spec, arg)
    if kind == "tfrecord":
        return _tfrecord_describe(spec, arg)
    return _encoded_describe(spec, kind, _listing(spec, kind, arg))


def load(spec: str, n_train: int, n_val: int, seq_len: int = 0) -> Arrays | Encoded:
    """The first ``n_train`` / ``n_val`` examples of each split (arrays, or encoded images). Token
    sequences are padded/truncated at the front to ``seq_len`` (Keras' ``pad_sequences`` defaults)."""
    kind, arg = parse(spec)
    if kind == "keras":
        x_train, y_train, x_val, y_val = _keras_arrays(spec, arg)
        if x_train.dtype == object:
            x_train, x_val = _pad(x_train[:n_train], seq_len), _pad(x_val[:n_val], seq_len)
        return Arrays(x_train[:n_train], y_train[:n_train].astype(np.int32), x_val[:n_val],
                      y_val[:n_val].astype(np.int32))
    if kind == "tfrecord":
        return _tfrecord_load(spec, arg, n_train, n_val, seq_len)
    listing = _listing(spec, kind, arg)
    return Encoded(list(listing.train[:n_train]), listing.y_train[:n_train], list(listing.val[:n_val]),
                   listing.y_val[:n_val])


def clear_caches() -> None:
    """Forget what this process read of every source (a long-lived notebook process: files may change)."""
    for cached in (describe, _listing, _tfrecord_examples, _keras_arrays):
        cached.cache_clear()


def _pad(seqs: np.ndarray, length: int) -> np.ndarray:
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


def _hash_files(paths: list[Path] | list[str], extra: bytes = b"") -> str:
    h = hashlib.sha256(extra)
    for p in paths:
        with tfrecord.open_file(str(p)) as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
    return h.hexdigest()


# --- keras: ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _KerasSet:
    files: tuple[str, ...]  # under $KERAS_HOME/datasets
    sha256: str  # of files[0] as Keras publishes it ("" where Keras checks none)
    shape: tuple[int, ...]
    classes: int
    sizes: tuple[int, int]
    modality: str = "image"
    url: str = ""  # where the (first) file comes from, when it is not KERAS_URL + its name


KERAS_SETS = {
    "mnist": _KerasSet(("mnist.npz",), "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1",
                       (28, 28, 1), 10, (60000, 10000)),
    "fashion_mnist": _KerasSet(tuple(f"fashion-mnist/{n}" for n in (
        "train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
        "t10k-images-idx3-ubyte.gz")), "", (28, 28, 1), 10, (60000, 10000)),
    "cifar10": _KerasSet(("cifar-10-batches-py-target_archive",),
                         "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce", (32, 32, 3), 10,
                         (50000, 10000), url="https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"),
    "reuters": _KerasSet(("reuters.npz",), "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916",
                         (300,), 46, (8982, 2246), "tokens"),
    "imdb": _KerasSet(("imdb.npz",), "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f",
                      (300,), 2, (25000, 25000), "tokens"),
}


def keras_datasets_dir() -> Path:
    """Where Keras caches its datasets: ``$KERAS_HOME/datasets`` (default ``~/.keras/datasets``)."""
    return Path(os.environ.get("KERAS_HOME") or Path.home() / ".keras").expanduser() / "datasets"


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


def _keras_files(spec: str, name: str) -> tuple[_KerasSet, list[Path]]:
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


def _keras_describe(spec: str, name: str) -> Source:
    ks, paths = _keras_files(spec, name)
    present = [p for p in paths if p.exists()]
    if ks.sha256 and len(present) == 1:
        sha = ks.sha256
    else:
        sha = _hash_files(present or sorted(_cifar_dir().iterdir()))
    vocab = 0
    if ks.modality == "tokens":  # the ids as load_data() numbers them: the largest + 1
        x_train, _, x_val, _ = _keras_arrays(spec, name)
        vocab = max(max(x) for x in (*x_train, *x_val)) + 1
    return Source(spec, "keras", ks.modality, False, ks.shape, ks.classes, *ks.sizes, sha, vocab=vocab,
                  split="keras.datasets' train/test")


def _cifar_dir() -> Path:
    return keras_datasets_dir() / "cifar-10-batches-py-target" / "cifar-10-batches-py"


@functools.lru_cache(maxsize=4)
def _keras_arrays(spec: str, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The four arrays, read as Keras' ``load_data()`` (default arguments) returns them (images with a channel
    axis; token sequences as object arrays)."""
    _, paths = _keras_files(spec, name)
    if name == "mnist":
        with np.load(paths[0], allow_pickle=False) as f:
            return f["x_train"][..., None], f["y_train"], f["x_test"][..., None], f["y_test"]
    if name == "fashion_mnist":
        def idx(p: Path, offset: int) -> np.ndarray:
            with gzip.open(p, "rb") as f:
                return np.frombuffer(f.read(), np.uint8, offset=offset)

        y_train, y_test = idx(paths[0], 8), idx(paths[2], 8)
        return (idx(paths[1], 16).reshape(len(y_train), 28, 28, 1), y_train,
                idx(paths[3], 16).reshape(len(y_test), 28, 28, 1), y_test)
    if name == "cifar10":
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
    # reuters, imdb: ragged sequences pickled in the npz; the file matched Keras' published sha256 above
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


# --- folder: and csv: (encoded images on disk) -------------------------------------------------------

@dataclass(frozen=True)
class _Listing:
    train: list[str]
    y_train: np.ndarray
    val: list[str]
    y_val: np.ndarray
    class_names: tuple[str, ...]
    split: str


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


@functools.lru_cache(maxsize=8)
def _listing(spec: str, kind: str, arg: str) -> _Listing:
    """Files and labels of a ``folder:`` or ``csv:`` source, split."""
    path = Path(arg).expanduser()
    if kind == "folder":
        if not path.is_dir():
            raise SourceError(f"{spec}: {path} is not a folder")
        train_dir, test_dir = path / "training_set", path / "test_set"
        if train_dir.is_dir() and test_dir.is_dir():  # seed 000's layout: the split is given
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
            return _Listing(train, y_train, val, y_val, names, "training_set / test_set folders")
        classes = _class_folders(spec, path)
        names = tuple(classes)
        files = [str(f) for n in names for f in classes[n]]
        labels = np.array([i for i, n in enumerate(names) for _ in classes[n]], np.int32)
        return _split(files, labels, names)
    # csv: seed 001's train.csv
    if not path.is_file():
        raise SourceError(f"{spec}: {path} is not a file (seed 001's layout: PATH/train.csv and PATH/images/)")
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


def _split(files: list, labels: np.ndarray, names: tuple[str, ...]) -> _Listing:
    tr, va = stratified_split(labels)
    return _Listing([files[i] for i in tr], labels[tr], [files[i] for i in va], labels[va], names,
                    f"stratified {1 - VAL_FRACTION:.0%}/{VAL_FRACTION:.0%}, seed {SPLIT_SEED}")


def _encoded_describe(spec: str, kind: str, listing: _Listing) -> Source:
    if len(listing.val) == 0:
        raise SourceError(f"{spec}: no validation images (too few images to split)")
    files = sorted(listing.train + listing.val)
    rel = "\n".join(sorted(f"{Path(f).parent.name}/{Path(f).name}" for f in files)).encode()
    try:
        shape = images.image_size(listing.train[0])
    except Exception as e:
        raise SourceError(f"{spec}: {listing.train[0]} is not a readable image ({type(e).__name__}: {e})") from None
    return Source(spec, kind, "image", True, shape, len(listing.class_names), len(listing.train), len(listing.val),
                  _hash_files(files, rel), listing.class_names, split=listing.split)


# --- tfrecord: ---------------------------------------------------------------------------------------

VAL_PREFIXES = ("val", "valid", "test")
LABEL_KEYS = ("label", "class", "target")


def _is_val_file(path: str) -> bool:
    return Path(path).name.lower().startswith(VAL_PREFIXES)


@functools.lru_cache(maxsize=4)
def _tfrecord_examples(spec: str, pattern: str) -> tuple[list, np.ndarray, list, np.ndarray, str, str]:
    """(train items, labels, val items, labels, modality, split) of TFRecord shards: items are encoded
    image bytes or token lists."""
    files = tfrecord.glob(pattern)
    if not files:
        raise SourceError(f"{spec}: no files match {pattern}")
    parts: dict[bool, tuple[list, list]] = {False: ([], []), True: ([], [])}
    modality = ""
    for path in files:
        items, labels = parts[_is_val_file(path)]
        try:
            for raw in tfrecord.read_records(path):
                ex = tfrecord.decode_example(raw)
                label_key = next((k for k in LABEL_KEYS if k in ex), None)
                kind = "image" if "image" in ex else "tokens" if "tokens" in ex else ""
                if label_key is None or not kind:
                    raise SourceError(f"{spec}: {path}: an example has features {sorted(ex)}; bench reads "
                                      "image (encoded bytes) or tokens (int64 list), and label (int64)")
                if modality and kind != modality:
                    raise SourceError(f"{spec}: {path}: mixes image and tokens examples")
                modality = kind
                value = ex[label_key]
                items.append(ex[kind] if kind == "image" else list(ex[kind]))
                labels.append(int(value[0] if isinstance(value, list) else value))
        except ValueError as e:
            if isinstance(e, SourceError):
                raise
            raise SourceError(f"{spec}: {e}") from None
    (tr, ytr), (va, yva) = parts[False], parts[True]
    if not tr:
        raise SourceError(f"{spec}: only validation shards (val*/valid*/test*) match {pattern}")
    ytr_a = np.array(ytr, np.int32)
    if va:
        order = np.random.default_rng(SPLIT_SEED).permutation(len(tr))
        return [tr[i] for i in order], ytr_a[order], va, np.array(yva, np.int32), modality, "val*/test* shards"
    i_tr, i_va = stratified_split(ytr_a)
    return ([tr[i] for i in i_tr], ytr_a[i_tr], [tr[i] for i in i_va], ytr_a[i_va], modality,
            f"stratified {1 - VAL_FRACTION:.0%}/{VAL_FRACTION:.0%}, seed {SPLIT_SEED}")


def _tfrecord_describe(spec: str, pattern: str) -> Source:
    tr, ytr, va, yva, modality, split = _tfrecord_examples(spec, pattern)
    if len(va) == 0:
        raise SourceError(f"{spec}: no validation examples")
    files = tfrecord.glob(pattern)
    names: tuple[str, ...] = ()
    manifest = Path(files[0]).parent / MANIFEST
    if not files[0].startswith("gs://") and manifest.is_file():
        names = tuple(json.loads(manifest.read_text()).get("class_names", ()))
    classes = int(max(ytr.max(), yva.max())) + 1
    shape: tuple[int, ...]
    if modality == "image":
        shape = images.image_size(tr[0])
        vocab = 0
    else:
        shape = (max(len(s) for s in tr + va),)
        vocab = int(max(max(s, default=0) for s in tr + va)) + 1
    return Source(spec, "tfrecord", modality, modality == "image", shape, classes, len(tr), len(va),
                  _hash_files(files), names if len(names) == classes else (), vocab=vocab, split=split)


def _tfrecord_load(spec: str, pattern: str, n_train: int, n_val: int, seq_len: int) -> Arrays | Encoded:
    tr, ytr, va, yva, modality, _ = _tfrecord_examples(spec, pattern)
    if modality == "image":
        return Encoded(tr[:n_train], ytr[:n_train], va[:n_val], yva[:n_val])
    return Arrays(_pad(np.array(tr[:n_train], dtype=object), seq_len), ytr[:n_train],
                  _pad(np.array(va[:n_val], dtype=object), seq_len), yva[:n_val])
