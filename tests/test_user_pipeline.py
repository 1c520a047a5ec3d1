"""Bring your own pipeline (issue 34): a ``Workload`` whose ``input_fn`` returns a ``tf.data.Dataset``, a
``keras.utils.PyDataset`` or an iterator of NumPy batches is timed as-is under a distributing strategy and each
backend, with the same per-epoch records, the input-only probe and the input-bound flag; what cannot work is
refused before anything runs, naming the key."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.engines import PipelineUnavailable
from bench.engines.user_feed import UserFeed
from bench.predictions import decode
from bench.reporting.frame import summarize
from bench.workloads import Workload, WorkloadError
from bench.workloads.user import imported
from tests.conftest import REPO, SMOKE_BACKENDS, run_bench, run_records

OWN = '''
import time
import numpy as np
from bench.workloads import Workload

N_TRAIN, N_VAL = 256, 64

def arrays(split):
    rng = np.random.default_rng(0 if split == "train" else 1)
    n = N_TRAIN if split == "train" else N_VAL
    y = rng.integers(0, 4, n)
    x = rng.normal(0.1, 0.05, (n, 8, 8, 1)).astype(np.float32)
    x[np.arange(n), 2 * y, :, 0] += 0.8  # the class is the row of a bright bar
    return x, y.astype(np.int32)

def build():
    import keras
    return keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Flatten(),
                             keras.layers.Dense(4, activation="softmax")])

COMPILE = {"optimizer": "adam", "loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]}

def tfdata(split, gb, seed):
    import tensorflow as tf
    ds = tf.data.Dataset.from_tensor_slices(arrays(split))
    if split == "train":
        ds = ds.shuffle(N_TRAIN, seed=seed, reshuffle_each_iteration=True)
    return ds.batch(gb, drop_remainder=True).prefetch(tf.data.AUTOTUNE)

def pydataset(split, gb, seed):
    import keras
    x, y = arrays(split)
    class Batches(keras.utils.PyDataset):
        def __len__(self):
            return len(y) // gb
        def __getitem__(self, i):
            return x[i * gb:(i + 1) * gb], y[i * gb:(i + 1) * gb]
    return Batches()

def generator(split, gb, seed, pause=0.0):
    x, y = arrays(split)
    while True:
        for i in range(len(y) // gb):
            time.sleep(pause)
            yield x[i * gb:(i + 1) * gb], y[i * gb:(i + 1) * gb]

def make(name, fn):
    return Workload(name=name, build_model=build, compile_kwargs=COMPILE, input_fn=fn, full=(N_TRAIN, N_VAL))

def make_tfdata():
    return make("own_tfdata", tfdata)

def make_pydataset():
    return make("own_pydataset", pydataset)

def make_generator():
    return make("own_generator", generator)

def make_slow():  # 20 ms a batch of 32: under 1,600 examples/s, far below what the model trains
    return make("own_slow", lambda split, gb, seed: generator(split, gb, seed, pause=0.02 if split == "train" else 0))

def make_wrong_shape():  # 6x6 examples for a model that declares 8x8
    return make("own_wrong", lambda split, gb, seed: ((x[:, :6, :6], y) for x, y in generator(split, gb, seed)))

def make_dynamic():  # a partial last batch: shapes a TPU cannot compile once
    import tensorflow as tf
    return make("own_dynamic", lambda split, gb, seed: tf.data.Dataset.from_tensor_slices(arrays(split)).batch(gb))
'''
KINDS = ("make_tfdata", "make_pydataset", "make_generator", "make_slow")


@pytest.fixture(scope="module")
def own_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    tmp = tmp_path_factory.mktemp("own")
    (tmp / "tp_own.py").write_text(OWN)
    return tmp, run_records(tmp, f"workloads=[{','.join('tp_own:' + k for k in KINDS)}]", "strategies=[cpu_x2]",
                            f"backends=[{','.join(SMOKE_BACKENDS)}]", "epochs=3", "batch_sizes=[32]",
                            "steps_per_execution=[2]", "measure_peak=false")


@pytest.mark.slow
def test_every_kind_of_own_pipeline_is_timed_as_is_under_a_strategy(own_run) -> None:
    _, recs = own_run
    assert len(recs) == len(KINDS) * len(SMOKE_BACKENDS)
    assert {r["status"] for r in recs} == {"ok"}, [(r["point_id"], r.get("error")) for r in recs]
    for r in recs:
        assert r["point_id"].endswith("-user-r0") and r["dataset"]["pipeline"] == "user"
        assert r["strategy"]["num_replicas"] == 2  # distributed the way Keras distributes it, over two devices
        assert r["dataset"]["name"] == "input_fn" and r["dataset"]["source"].startswith("tp_own:")
        assert r["dataset"]["shape"] == [8, 8, 1] and r["dataset"]["classes"] == 4
        assert r["data_order"] == "input_fn" and r["label_format"] == "as given"
        assert [(e["steps"], e["examples"]) for e in r["epochs"]] == [(8, 256)] * 3  # every epoch whole
        assert r["input_examples_per_s"] > 0 and r["teardown_s"] is not None
        assert any("input pipeline user" in n for n in r["notes"]), r["notes"]
        predictions = decode(r["val_predictions"])  # a fresh pass over the validation split reproduces Keras'
        assert predictions is not None
        assert (predictions.predicted == predictions.labels).mean() == pytest.approx(
            r["epochs"][-1]["val_accuracy"], abs=1e-6)
    finite = {r["workload"]: "one epoch" in " ".join(r["notes"]) for r in recs}
    assert finite == {"own_tfdata": True, "own_pydataset": True, "own_generator": False, "own_slow": False}


@pytest.mark.slow
def test_the_input_bound_flag_works_on_an_own_pipeline(own_run) -> None:
    """A generator that sleeps 20 ms a batch delivers under 1,600 examples/s to a model that trains far faster: the
    probe measures the user's pipeline and the report flags it; the same batches without the pause are not."""
    _, recs = own_run
    summary = summarize(recs)
    bound = dict(zip(summary["workload"] + "/" + summary["backend"], summary["input_bound"], strict=True))
    for backend in SMOKE_BACKENDS:
        assert bound[f"own_slow/{backend}"] and not bound[f"own_generator/{backend}"], bound
    slow = [r["input_examples_per_s"] for r in recs if r["workload"] == "own_slow"]
    assert max(slow) < 1600


def test_an_own_pipeline_is_checked_when_the_workload_is_imported(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "tp_own_bad.py").write_text(OWN + '''
def not_callable():
    return make("x", "tfdata")
def both():
    return Workload(name="x", build_model=build, compile_kwargs=COMPILE, input_fn=tfdata, data=lambda: None,
                    full=(N_TRAIN, N_VAL))
def no_sizes():
    return Workload(name="x", build_model=build, compile_kwargs=COMPILE, input_fn=tfdata)
def augments():
    return Workload(name="x", build_model=build, compile_kwargs=COMPILE, input_fn=tfdata, full=(8, 8), augment=True)
''')
    for factory, said in [("not_callable", "pass the function itself"), ("both", "give data or input_fn, not both"),
                          ("no_sizes", "needs full=(n_train, n_val)"), ("augments", "augment in your pipeline")]:
        with pytest.raises(WorkloadError, match="tp_own_bad:" + factory) as e:
            imported(f"tp_own_bad:{factory}")
        assert said in str(e.value)
    wl = imported("tp_own_bad:make_tfdata")[0]
    assert wl.dataset == "input_fn" and wl.full == (256, 64)


def test_what_an_input_fn_returns_is_named_when_keras_cannot_take_it() -> None:
    def lists(split: str, gb: int, seed: int) -> list:
        return [1, 2, 3]

    wl = Workload(name="lists", build_model=lambda: None, compile_kwargs={}, input_fn=lists, full=(8, 8))
    with pytest.raises(ValueError, match=r"lists: input_fn\('train', 4, 0\) returned list; input_fn must return one "
                                         r"of tf.data.Dataset, keras.utils.PyDataset, iterator"):
        UserFeed(wl, 4, 0)
    with pytest.raises(PipelineUnavailable, match="input_fn feeds one process, and this point runs 2"):
        UserFeed(wl, 4, 0, processes=2)


@pytest.mark.slow
def test_a_model_that_does_not_fit_its_own_pipeline_is_refused_before_the_run(tmp_path: Path, monkeypatch) -> None:
    """The run's pre-run check (one CPU child process) runs the model on its pipeline's first batch."""
    from bench.cli import parse_config
    from bench.config import ConfigError
    from bench.runner.preflight import check_models

    (tmp_path / "tp_own.py").write_text(OWN)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(REPO)]))
    with pytest.raises(ConfigError) as e:
        check_models(parse_config(["workloads=[tp_own:make_wrong_shape]", "strategies=[cpu]", "batch_sizes=[32]"]))
    assert "workloads[0]='tp_own:make_wrong_shape'" in str(e.value)
    assert "declares input shape (8, 8, 1)" in str(e.value) and "(6, 6, 1)" in str(e.value)


@pytest.mark.slow
def test_the_doctor_checks_an_own_tf_data_pipeline_for_a_tpu(tmp_path: Path) -> None:
    pytest.importorskip("tensorflow")
    (tmp_path / "tp_own.py").write_text(OWN)
    proc = run_bench("doctor", "workloads=[tp_own:make_dynamic]", "strategies=[tpu]", "batch_sizes=[32]",
                     cwd=tmp_path)
    assert "static_shapes[user]" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-2000:]
    line = next(ln for ln in proc.stdout.splitlines() if "static_shapes[user]" in ln)
    assert "ok" not in line.split()[1:2], line
