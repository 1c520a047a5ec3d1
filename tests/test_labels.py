"""Label format follows the model: integer class ids, or one-hot rows for a categorical loss (keras.io's)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from bench.workloads import get_workload  # noqa: E402
from bench.workloads.labels import expects_one_hot  # noqa: E402
from bench.workloads.models import runnable  # noqa: E402
from tests.conftest import REPO  # noqa: E402


@pytest.mark.parametrize(("settings", "wanted"), [
    ({"loss": "categorical_crossentropy"}, "categorical_crossentropy"),
    ({"loss": keras.losses.CategoricalCrossentropy(from_logits=True)}, "CategoricalCrossentropy"),
    ({"loss": keras.losses.categorical_crossentropy}, "categorical_crossentropy"),
    ({"loss": "sparse_categorical_crossentropy", "metrics": ["categorical_accuracy"]}, "categorical_accuracy"),
    ({"loss": "sparse_categorical_crossentropy", "metrics": [keras.metrics.TopKCategoricalAccuracy(3)]},
     "TopKCategoricalAccuracy"),
    ({"loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]}, ""),
    ({"loss": keras.losses.SparseCategoricalCrossentropy()}, ""),
    ({"loss": "binary_crossentropy"}, ""),
    ({"loss": {"out": "categorical_crossentropy"}}, ""),  # several outputs: left as given
])
def test_the_loss_or_a_metric_that_wants_one_hot_labels_is_named(settings: dict, wanted: str) -> None:
    assert expects_one_hot(settings) == wanted


def test_keras_io_s_model_is_fed_one_hot_labels_and_the_others_integer_ones(monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    assert runnable(get_workload("examples.keras_io_mnist:make")).one_hot_labels
    assert not runnable(get_workload("examples.digits:make")).one_hot_labels
    assert not any(runnable(get_workload(w)).one_hot_labels for w in ("fashion_cnn", "catsdogs_cnn", "reuters_textcnn"))


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs jax")
def test_both_engines_feed_the_same_one_hot_rows(monkeypatch) -> None:
    from bench.engines.jax.pipelines import make_pipelines as jax_pipelines
    from bench.engines.tensorflow.pipelines import make_pipelines as tf_pipelines

    monkeypatch.chdir(REPO)
    wl = runnable(get_workload("examples.keras_io_mnist:make"))
    from bench.data.synthetic import Arrays

    x, y, xv, yv = wl.data()
    arrays = Arrays(x[:128], y[:128], xv[:64], yv[:64])
    tfp, jxp = tf_pipelines(wl, arrays, 32, 0, epochs=1), jax_pipelines(wl, arrays, 32, 0, epochs=1)
    for (tx, ty), (jx, jy) in zip([next(iter(tfp.train)) for _ in range(1)], [next(jxp.train)], strict=True):
        assert ty.shape == jy.shape == (32, 10) and ty.dtype == np.float32 and jy.dtype == np.float32
        assert np.array_equal(ty.numpy(), jy) and np.array_equal(tx.numpy(), jx)
        assert np.array_equal(jy.sum(axis=1), np.ones(32))  # one 1 per row
    _, vy = next(iter(tfp.val))
    assert np.array_equal(vy.numpy().argmax(axis=1), yv[:32])  # validation: the first labels, in order
