"""Data sources (``data=keras:|folder:|csv:|tfrecord:``) on data the tests make themselves: layouts, splits,
hashes, refusals, the TFRecord codec against TensorFlow's, the decode path of both engines, and built-in
workloads adapting to a source."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from bench.data import images, sources, tfrecord
from bench.data.export import export
from bench.records import parse, upgrade
from tests import sourcedata
from tests.rows import labelled_points
from tests.test_record_schema import undeclared


@pytest.fixture(autouse=True)
def _fresh_caches():
    """describe() and the listings are cached per process; tests reuse paths under tmp_path."""
    sources.clear_caches()
    yield


def test_folder_with_training_and_test_sets(tmp_path: Path) -> None:
    root = sourcedata.write_folder(tmp_path / "pets", per_class=20)
    src = sources.describe(f"folder:{root}")
    assert (src.kind, src.modality, src.encoded, src.classes) == ("folder", "image", True, 2)
    assert src.class_names == ("cats", "dogs") and src.shape == (40, 48, 3)
    assert (src.n_train, src.n_val) == (30, 10)  # every 4th image is in test_set
    data = sources.load(f"folder:{root}", 8, 6)
    assert isinstance(data, sources.Encoded) and len(data.train) == 8 and len(data.val) == 6
    assert all("/test_set/" in p for p in data.val) and all("/training_set/" in p for p in data.train)
    for path, y in zip(data.train, data.y_train, strict=True):
        assert Path(path).parent.name == src.class_names[y]


def test_single_folder_gets_a_seeded_stratified_split(tmp_path: Path) -> None:
    root = sourcedata.write_folder(tmp_path / "flat", classes=("a", "b", "c"), per_class=10, split=False, fmt="png")
    spec = f"folder:{root}"
    src = sources.describe(spec)
    assert (src.n_train, src.n_val, src.classes) == (24, 6, 3) and "stratified" in src.split
    data = sources.load(spec, 24, 6)
    assert np.bincount(data.y_val).tolist() == [2, 2, 2]  # 20 % of every class
    assert not set(data.train) & set(data.val)
    sources.listing.cache_clear()
    again = sources.load(spec, 24, 6)
    assert again.train == data.train  # the same split every time (SPLIT_SEED)


def test_one_data_set_at_two_paths_is_one_data_set(tmp_path: Path) -> None:
    """Records name a source without its path and with its content hash; the report merges records of one
    content under one name: two copies of a folder, a renamed copy, and a record from before names lost their
    paths. The spec as given (the path) stays in the record's ``source``, outside the identity."""
    import shutil

    from bench.job.point import Point
    from bench.job.point_record import dataset_record
    from bench.workloads import get_workload
    from tests.conftest import make_record

    first = sourcedata.write_folder(tmp_path / "a" / "pets", per_class=8)
    copies = [first, Path(shutil.copytree(first, tmp_path / "b" / "pets")),
              Path(shutil.copytree(first, tmp_path / "c" / "pets_copy"))]
    recs = []
    for i, root in enumerate(copies):
        spec = f"folder:{root}"
        point = Point(workload="fashion_cnn", strategy="cpu", global_batch_size=4, steps_per_execution=1,
                      precision="float32", repeat=0, seed=0, epochs=2, n_train=8, n_val=4, data_scale="reduced",
                      data=spec)
        ds = dataset_record(get_workload("fashion_cnn", spec), point)
        assert ds["source"] == spec and str(tmp_path) not in ds["name"]
        recs.append(make_record(point_id=f"p{i}", host=f"h{i}", dataset=ds, env={"hostname": f"host{i}"}))
    assert [r["dataset"]["name"] for r in recs] == ["folder:pets", "folder:pets", "folder:pets_copy"]
    assert len({r["dataset"]["sha256"] for r in recs}) == 1
    old = make_record(point_id="p3", dataset={**recs[0]["dataset"], "name": f"folder:{first}"})  # an older record
    frame = labelled_points([*recs, old])
    assert set(frame["dataset_name"]) == {"folder:pets"} and frame["dataset"].nunique() == 1
    assert frame["dataset"].iloc[0] == "folder:pets (n_train=8 of 12)"  # the one label: no path in it
    other = sourcedata.write_folder(tmp_path / "d" / "pets", per_class=9)  # same name, other content
    ds = dataset_record(get_workload("fashion_cnn", f"folder:{other}"), Point(
        workload="fashion_cnn", strategy="cpu", global_batch_size=4, steps_per_execution=1, precision="float32",
        repeat=0, seed=0, epochs=2, n_train=8, n_val=4, data_scale="reduced", data=f"folder:{other}"))
    assert ds["sha256"] != recs[0]["dataset"]["sha256"]


@pytest.mark.parametrize(("spec", "name"), [
    ("folder:/data/pets", "folder:pets"), ("folder:/data/pets/", "folder:pets"), ("folder:pets", "folder:pets"),
    ("csv:/data/plants/train.csv", "csv:plants/train.csv"), ("csv:train.csv", "csv:train.csv"),
    ("tfrecord:/mnt/shards", "tfrecord:shards"), ("keras:mnist", "keras:mnist"), ("synthetic", "synthetic"),
])
def test_a_source_is_named_without_its_path(spec: str, name: str) -> None:
    assert sources.short_name(spec) == name


def test_content_hash_follows_the_bytes(tmp_path: Path) -> None:
    root = sourcedata.write_folder(tmp_path / "pets", per_class=8)
    spec = f"folder:{root}"
    before = sources.describe(spec).sha256
    sources.describe.cache_clear()
    assert sources.describe(spec).sha256 == before
    victim = next((root / "training_set" / "cats").iterdir())
    victim.write_bytes(images.encode(sourcedata.image(1, np.random.default_rng(9)), "jpeg"))
    sources.describe.cache_clear()
    assert sources.describe(spec).sha256 != before


def test_csv_layout_of_tutorial_001(tmp_path: Path) -> None:
    path = sourcedata.write_csv(tmp_path / "plants")
    src = sources.describe(f"csv:{path}")
    assert src.class_names == ("healthy", "multiple_diseases", "rust", "scab") and src.classes == 4
    assert (src.n_train, src.n_val) == (56, 14)
    data = sources.load(f"csv:{path}", 56, 14)
    assert np.bincount(data.y_val, minlength=4).tolist() == [4, 2, 4, 4]  # stratified: 20 % of each class
    rows = {r.split(",")[0]: r.strip().split(",")[1:] for r in path.read_text().splitlines()[1:]}
    for file, y in zip(data.train, data.y_train, strict=True):
        assert rows[Path(file).stem][y] == "1"


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda p: p.write_text(p.read_text().replace(",1,0,0,0", ",1,1,0,0", 1)), "not one-hot"),
    (lambda p: next((p.parent / "images").iterdir()).unlink(), "is missing"),
    (lambda p: p.write_text("name,a,b\nx,1,0\n"), "image_id"),
])
def test_bad_csv_is_refused_with_the_line(tmp_path: Path, mutate, message: str) -> None:
    path = sourcedata.write_csv(tmp_path / "plants")
    mutate(path)
    with pytest.raises(sources.SourceError, match=message):
        sources.describe(f"csv:{path}")


@pytest.mark.parametrize(("spec", "message"), [
    ("bogus", "is not a data source; allowed: synthetic, keras:NAME"),
    ("keras:nosuch", "unknown Keras dataset 'nosuch'; allowed: keras:mnist"),
    ("folder:/nonexistent/x", "is not a folder"),
    ("tfrecord:/nonexistent/*.tfrec", "no files match"),
])
def test_bad_specs_are_refused(spec: str, message: str) -> None:
    with pytest.raises(sources.SourceError, match=message):
        sources.describe(spec)


def test_folder_with_one_class_is_refused(tmp_path: Path) -> None:
    root = sourcedata.write_folder(tmp_path / "one", classes=("only",), per_class=4, split=False)
    with pytest.raises(sources.SourceError, match="at least 2 class sub-folders"):
        sources.describe(f"folder:{root}")


# --- keras: ------------------------------------------------------------------------------------------

def test_keras_dataset_from_a_pre_placed_cache_file(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "kh"))
    monkeypatch.setenv("BENCH_OFFLINE", "1")
    sourcedata.write_fashion_cache(tmp_path / "kh", n_train=300, n_test=100)
    src = sources.describe("keras:fashion_mnist")
    assert (src.kind, src.shape, src.classes, src.encoded) == ("keras", (28, 28, 1), 10, False)
    data = sources.load("keras:fashion_mnist", 300, 100)
    assert data.x_train.shape == (300, 28, 28, 1) and data.x_train.dtype == np.uint8
    assert data.x_val.shape == (100, 28, 28, 1) and data.y_train.dtype == np.int32


def test_keras_dataset_offline_without_the_file_names_file_and_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "kh"))
    monkeypatch.setenv("BENCH_OFFLINE", "1")
    with pytest.raises(sources.SourceError) as e:
        sources.describe("keras:mnist")
    text = str(e.value)
    assert f"{tmp_path / 'kh' / 'datasets' / 'mnist.npz'} is missing" in text
    assert f"place it in {tmp_path / 'kh' / 'datasets'}/ as mnist.npz" in text
    assert "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz" in text


def test_keras_file_with_the_wrong_hash_is_refused_and_kept(tmp_path: Path, monkeypatch) -> None:
    """Keras' get_file would re-download a mismatching file and delete it when offline: bench never does."""
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "kh"))
    folder = tmp_path / "kh" / "datasets"
    folder.mkdir(parents=True)
    np.savez(folder / "mnist.npz", x_train=np.zeros((2, 28, 28), np.uint8), y_train=np.zeros(2, np.uint8),
             x_test=np.zeros((2, 28, 28), np.uint8), y_test=np.zeros(2, np.uint8))
    content = (folder / "mnist.npz").read_bytes()
    with pytest.raises(sources.SourceError, match="does not match the sha256 Keras publishes"):
        sources.describe("keras:mnist")
    assert (folder / "mnist.npz").read_bytes() == content


def test_keras_token_sets_are_read_as_keras_loads_them(tmp_path: Path, monkeypatch) -> None:
    """keras:reuters as ``reuters.load_data()`` numbers it (shuffle seed 113, start 1, index_from 3, the
    largest id as oov), padded like ``pad_sequences``: checked against Keras' own loader on a file whose
    hash is patched in."""
    keras = pytest.importorskip("keras")
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "kh"))
    folder = tmp_path / "kh" / "datasets"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    xs = np.empty(50, dtype=object)
    xs[:] = [[int(v) for v in rng.integers(1, 200, rng.integers(3, 40))] for _ in range(50)]
    np.savez(folder / "reuters.npz", x=xs, y=rng.integers(0, 46, 50))
    digest = hashlib.sha256((folder / "reuters.npz").read_bytes()).hexdigest()
    ks = sources.KERAS_SETS["reuters"]
    monkeypatch.setitem(sources.KERAS_SETS, "reuters", sources.KerasSet(ks.files, digest, ks.shape, ks.classes,
                                                                           (40, 10), ks.modality))
    from keras.src.datasets import reuters

    monkeypatch.setattr("keras.src.utils.file_utils.validate_file", lambda *a, **k: True)
    monkeypatch.setattr("keras.src.backend.config._KERAS_DIR", str(tmp_path / "kh"))  # read once at import
    (kx_train, ky_train), (kx_test, _) = reuters.load_data()
    ours = sources.load("keras:reuters", 40, 10, seq_len=30)
    expected = keras.utils.pad_sequences(kx_train, maxlen=30)
    assert np.array_equal(ours.x_train, expected) and np.array_equal(ours.y_train, ky_train)
    assert np.array_equal(ours.x_val, keras.utils.pad_sequences(kx_test, maxlen=30))
    assert sources.describe("keras:reuters").vocab == max(max(x) for x in [*kx_train, *kx_test]) + 1


# --- tfrecord: ---------------------------------------------------------------------------------------

def test_tfrecord_codec_agrees_with_tensorflow(tmp_path: Path) -> None:
    tf = pytest.importorskip("tensorflow")
    ours = tmp_path / "ours.tfrec"
    with tfrecord.Writer(str(ours)) as w:
        w.write(tfrecord.encode_example({"image": b"\x00jpeg", "label": [3], "tokens": [1, 2, 300, -5]}))
    spec = {"image": tf.io.FixedLenFeature([], tf.string), "label": tf.io.FixedLenFeature([], tf.int64),
            "tokens": tf.io.VarLenFeature(tf.int64)}
    (raw,) = list(tf.data.TFRecordDataset(str(ours)))
    ex = tf.io.parse_single_example(raw, spec)
    assert ex["image"].numpy() == b"\x00jpeg" and int(ex["label"]) == 3
    assert tf.sparse.to_dense(ex["tokens"]).numpy().tolist() == [1, 2, 300, -5]
    theirs = tmp_path / "theirs.tfrec"
    with tf.io.TFRecordWriter(str(theirs)) as w:
        feature = {"image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"abc"])),
                   "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[7]))}
        w.write(tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString())
    assert [tfrecord.decode_example(r) for r in tfrecord.read_records(str(theirs))] == [
        {"image": b"abc", "label": [7]}]


def test_not_a_tfrecord_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "train-0.tfrec"
    bad.write_bytes(b"this is not a tfrecord file at all")
    with pytest.raises(sources.SourceError, match=r"train-0\.tfrec: not a TFRecord file"):
        sources.describe(f"tfrecord:{tmp_path}/*.tfrec")


def test_export_then_read_back_keeps_split_labels_and_bytes(tmp_path: Path) -> None:
    path = sourcedata.write_csv(tmp_path / "plants")
    spec = f"csv:{path}"
    manifest = export(spec, str(tmp_path / "tfrec"), shard_mb=0.02)
    assert len(manifest["shards"]["train"]) > 1  # several shards at this size
    back = f"tfrecord:{tmp_path / 'tfrec'}/*.tfrec"
    src, orig = sources.describe(back), sources.describe(spec)
    assert (src.n_train, src.n_val, src.classes, src.class_names) == (
        orig.n_train, orig.n_val, orig.classes, orig.class_names)
    assert src.split == "val*/test* shards"
    a, b = sources.load(spec, 56, 14), sources.load(back, 56, 14)
    by_bytes = {Path(f).read_bytes(): y for f, y in zip(a.val, a.y_val, strict=True)}
    assert {raw: y for raw, y in zip(b.val, b.y_val, strict=True)} == by_bytes  # the same JPEG bytes, labels
    assert json.loads((tmp_path / "tfrec" / sources.MANIFEST).read_text())["sha256"] == orig.sha256


def test_export_refuses_to_overwrite_shards(tmp_path: Path) -> None:
    from bench.data.export import ExportError

    root = sourcedata.write_folder(tmp_path / "pets", per_class=8)
    export(f"folder:{root}", str(tmp_path / "out"))
    with pytest.raises(ExportError, match=r"already holds \.tfrec files"):
        export(f"folder:{root}", str(tmp_path / "out"))


# --- decoding ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [(20, 30), (64, 64), (40, 48)])
def test_numpy_resize_is_tf_resize(size: tuple[int, int]) -> None:
    tf = pytest.importorskip("tensorflow")
    img = np.random.default_rng(0).integers(0, 256, (40, 48, 3)).astype(np.uint8)
    ours = images.resize_bilinear(img, *size)
    theirs = tf.image.resize(img, size).numpy()
    assert ours.shape == theirs.shape and np.abs(ours - theirs).max() < 1e-3


def test_both_engines_feed_the_same_decoded_pixels(tmp_path: Path) -> None:
    """The TF engine decodes with tf.io and tf.image, the JAX engine with Pillow and NumPy: the batches
    (order, flips, pixels, labels) are the same to float precision, for JPEG and PNG files and for TFRecord
    bytes, resized up and down, in colour and in grey."""
    pytest.importorskip("tensorflow")
    pytest.importorskip("jax")
    import dataclasses

    from bench.engines.jax.pipelines import make_pipelines as jax_pipelines
    from bench.engines.tensorflow.pipelines import make_pipelines as tf_pipelines
    from bench.workloads import get_workload

    root = sourcedata.write_folder(tmp_path / "pets", per_class=24)
    png = sourcedata.write_folder(tmp_path / "png", per_class=24, fmt="png")
    export(f"folder:{root}", str(tmp_path / "tfrec"))
    cases = [("catsdogs_cnn", f"folder:{root}", None), ("fashion_cnn", f"folder:{png}", None),
             ("catsdogs_cnn", f"tfrecord:{tmp_path / 'tfrec'}/*.tfrec", (24, 24, 3))]
    for name, spec, shape in cases:
        wl = get_workload(name, spec)
        wl = dataclasses.replace(wl, augment=True, **({"shape": shape} if shape else {}))
        data = sources.load(spec, 36, 12)
        a = tf_pipelines(wl, data, 8, seed=1, epochs=2)
        b = jax_pipelines(wl, data, 8, seed=1, epochs=2)
        it = iter(a.train)
        for _ in range(2 * a.steps_per_epoch):
            (xa, ya), (xb, yb) = next(it), next(b.train)
            assert xa.shape == xb.shape == (8, *wl.shape)
            assert np.abs(xa.numpy() - xb).max() < 1e-5, (name, spec)
            assert np.array_equal(ya.numpy(), yb)
        va, vb = next(iter(a.val)), b.val[0]  # JAX's validation batches are indexed (issue 39)
        assert np.abs(va[0].numpy() - vb[0]).max() < 1e-5


# --- workloads on sources ----------------------------------------------------------------------------

def test_builtin_workloads_adapt_to_the_source(tmp_path: Path) -> None:
    from bench.workloads import WorkloadError, dataset_size, get_workload

    root = sourcedata.write_folder(tmp_path / "three", classes=("a", "b", "c"), per_class=20, split=False)
    spec = f"folder:{root}"
    cats = get_workload("catsdogs_cnn", spec)
    assert cats.shape == (64, 64, 3) and cats.classes == 3 and not cats.binary_labels  # softmax over 3
    fashion = get_workload("fashion_cnn", spec)
    assert fashion.shape == (28, 28, 1) and fashion.classes == 3 and fashion.dataset == spec
    assert dataset_size("fashion_cnn", "full", data=spec) == (48, 12)
    assert dataset_size("fashion_cnn", "reduced", n_train=1000, data=spec) == (48, 12)  # no more than it holds
    two = sourcedata.write_folder(tmp_path / "two", per_class=8)
    assert get_workload("catsdogs_cnn", f"folder:{two}").binary_labels
    with pytest.raises(WorkloadError, match=r"reuters_textcnn takes tokens input; folder:.* holds image"):
        get_workload("reuters_textcnn", spec)


def test_adapted_models_build_for_the_source(tmp_path: Path) -> None:
    pytest.importorskip("keras")
    from bench.workloads import get_workload
    from bench.workloads.models import build_model, compile_kwargs

    root = sourcedata.write_folder(tmp_path / "three", classes=("a", "b", "c"), per_class=10, split=False)
    cats = get_workload("catsdogs_cnn", f"folder:{root}")
    model = build_model(cats)
    assert tuple(model.output_shape) == (None, 3)
    assert type(compile_kwargs(cats)["loss"]).__name__ == "SparseCategoricalCrossentropy"


# --- end to end --------------------------------------------------------------------------------------

def _records(run_root: Path) -> list[dict]:
    """The stored records of the one run under ``run_root``."""
    run_dir = next(run_root.iterdir())
    return [json.loads(p.read_text()) for p in sorted(run_dir.glob("*.json")) if p.name != "run.json"]


@pytest.mark.slow
def test_csv_source_end_to_end_under_cpu_and_cpu_x2(tmp_path: Path) -> None:
    """Tutorial 001's layout through the CLI: every backend and strategy reads, decodes and resizes the same
    JPEGs; records name the source; accuracy rises far above the majority class; the report reads it."""
    import importlib.util

    from tests.conftest import run_bench

    backends = "[tensorflow,jax]" if importlib.util.find_spec("jax") else "[tensorflow]"
    path = sourcedata.write_csv(tmp_path / "plants", counts=(60, 30, 60, 60))
    proc = run_bench("suite=smoke", "workloads=[fashion_cnn]", f"data=csv:{path}", "strategies=[cpu,cpu_x2]",
                     f"backends={backends}", "batch_sizes=[16]", "steps_per_execution=[4]", "epochs=3",
                     f"results_dir={tmp_path / 'r'}", f"reports_dir={tmp_path / 'p'}", "measure_peak=false",
                     "second_batch=false")
    assert proc.returncode == 0, proc.stderr[-2000:]
    recs = _records(tmp_path / "r")
    assert len(recs) == 2 * len(backends.strip("[]").split(","))
    for r in recs:
        assert r["status"] == "ok", r["error"]
        assert undeclared(parse(r)) == []  # a data source's dataset fields are all in the typed record
        ds = r["dataset"]
        assert ds["name"] == "csv:plants/train.csv" and ds["source"] == f"csv:{path}"  # the path: provenance only
        assert ds["kind"] == "csv" and ds["encoded"] is True
        assert (ds["n_train"], ds["n_val"], ds["source_n_train"], ds["classes"]) == (168, 42, 168, 4)
        assert ds["class_names"] == ["healthy", "multiple_diseases", "rust", "scab"] and len(ds["sha256"]) == 64
        assert ds["shape"] == [28, 28, 1] and abs(ds["chance_accuracy"] - 12 / 42) < 1e-9
        assert r["input_examples_per_s"] > 0  # the input-only probe timed the decode pipeline
        assert r["epochs"][-1]["val_accuracy"] > 0.8  # far above the majority class (0.29)
    from bench.reporting.frames.learning import learning_reasons

    assert [learning_reasons(upgrade(r)) for r in recs] == [()] * len(recs)  # the not-learning check passes them
    losses = [r["epochs"][0]["loss"] for r in recs]
    assert max(losses) - min(losses) < 1e-3 * max(losses)  # same weights, same decoded batches everywhere
    report = (next((tmp_path / "p").iterdir()) / "report.md").read_text()
    assert "fashion_cnn on csv:plants/train.csv (n_train=168 of 168)" in report and f"csv:{path}" not in report


@pytest.mark.parametrize(("args", "message"), [
    (["data=bogus"], "data='bogus': 'bogus' is not a data source; allowed: synthetic, keras:NAME"),
    (["data=keras:mnist"], "data='keras:mnist': {home}/datasets/mnist.npz is missing and BENCH_OFFLINE=1"),
    (["workloads=[reuters_textcnn]", "data=folder:{pets}"],
     "workloads[0]='reuters_textcnn': reuters_textcnn takes tokens input; folder:{pets} holds image"),
])
def test_bad_data_is_refused_before_anything_runs(tmp_path: Path, args: list[str], message: str) -> None:
    from tests.conftest import run_bench

    pets = sourcedata.write_folder(tmp_path / "pets", per_class=8)
    home = tmp_path / "kh"
    args = [a.format(pets=pets) for a in args]
    proc = run_bench("suite=smoke", *args, f"results_dir={tmp_path / 'r'}", f"reports_dir={tmp_path / 'p'}",
                     env={"KERAS_HOME": str(home), "BENCH_OFFLINE": "1"})
    assert proc.returncode == 2
    assert message.format(home=home, pets=pets) in proc.stderr
    assert not (tmp_path / "r").exists() and not (tmp_path / "p").exists()


def test_a_user_workload_can_name_a_source_as_its_data(tmp_path: Path, monkeypatch) -> None:
    from bench.workloads import get_workload, imported

    path = sourcedata.write_csv(tmp_path / "plants")
    (tmp_path / "uw_plants.py").write_text(
        "from bench import Workload\n"
        "def make():\n"
        f"    return Workload(name='leaves', build_model=lambda: None, compile_kwargs={{}}, data='csv:{path}',\n"
        "                    shape=(32, 32, 3))\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    wl = get_workload("uw_plants:make")
    assert (wl.name, wl.shape, wl.classes, wl.full, wl.dataset) == ("leaves", (32, 32, 3), 4, (56, 14), f"csv:{path}")
    assert imported("uw_plants:make")[1] == ()  # no arrays: the worker loads the source
