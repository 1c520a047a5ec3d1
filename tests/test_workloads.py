"""Each workload: the tutorial's exact parameter count and output shape, and a 2-step fit on CPU."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from bench.workloads import WORKLOADS  # noqa: E402
from bench.workloads.models import build_model, compile_kwargs  # noqa: E402

# (parameters, output shape). reuters_textcnn: tutorial 004's printed summary (Total params: 332,856).
EXPECTED = {
    "fashion_cnn": (108_810, (None, 10)),  # Conv2D 640 + Dense 13*13*64*10+10
    "fashion_cnn_softmax": (108_810, (None, 10)),  # the tutorial's softmax output: no weights
    "catsdogs_cnn": (2_223_681, (None, 1)),  # 64 x 64: 896 + 18,496 + 73,856 + 8*8*128*256+256 + 32,896 + 129
    "catsdogs_cnn_sigmoid": (8_515_137, (None, 1)),  # the tutorial's 128 x 128: its Dense 256 holds 8,388,864
    "reuters_textcnn": (332_856, (None, 46)),
    "reuters_textcnn_logits_bug": (332_856, (None, 46)),
    # 448 + 4,640 + 18,496 + 73,856 + 516 (Dense 128 -> 4); the layer variant adds no weights
    "plant_cnn": (24_788, (None, 4)),
    "plant_cnn_layer_aug": (24_788, (None, 4)),
    # keras.applications.MobileNetV2(alpha=0.35, 96x96, no top): 410,208 (Keras' own count) + Dense 1280*4+4
    "plant_transfer": (415_332, (None, 4)),
}


def test_every_workload_is_pinned() -> None:
    assert set(EXPECTED) == set(WORKLOADS)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_params_and_output_shape(name: str) -> None:
    model = build_model(name)
    params, shape = EXPECTED[name]
    assert model.count_params() == params
    assert tuple(model.output_shape) == shape


def _batch(name: str, n: int):
    workload = WORKLOADS[name]()  # the registry holds factories
    rng = np.random.default_rng(0)
    if len(workload.shape) == 1:
        x = rng.integers(0, 30982, (n, *workload.shape)).astype("int32")
    else:
        x = rng.random((n, *workload.shape), dtype=np.float32)
    y = rng.integers(0, workload.classes, n)
    return x, (y[:, None].astype("float32") if workload.classes == 2 else y)


# plant_transfer is left out here: a whole-model fit of MobileNetV2 costs 35 s of the suite's time (TensorFlow
# tracing its backward graph) for no behaviour of bench's. Its frozen stage's fit is below; the two-stage fit
# itself, under both backends, on a small model of its form (tests/test_augment_transfer.py)
@pytest.mark.parametrize("name", sorted(set(EXPECTED) - {"plant_transfer"}))
def test_two_step_fit_updates_weights(name: str) -> None:
    keras.utils.set_random_seed(0)
    model = build_model(name)
    model.compile(**compile_kwargs(name), steps_per_execution=2)
    before = [w.copy() for w in model.get_weights()]
    x, y = _batch(name, 16)
    history = model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert int(model.optimizer.iterations.numpy()) == 2
    assert np.isfinite(history.history["loss"][0])
    assert "accuracy" in history.history
    assert any(not np.array_equal(a, b) for a, b in zip(before, model.get_weights(), strict=True))


# What each built-in compiles to: the tutorials' optimizers, learning rates, losses and metrics (recorded when
# compile_kwargs branched on workload names, before the settings became Workload data), the losses reading logits
# since revision 2 (2026-11-28, issue 51) except in the tutorials' literal variants: (optimizer class, learning rate,
# loss class, its from_logits (None: the loss has none), metrics as (class, name)). "catsdogs_cnn on 3 classes":
# on_source drops binary_labels there.
ACCURACY, TOP5 = ("SparseCategoricalAccuracy", "accuracy"), ("SparseTopKCategoricalAccuracy", "top5_accuracy")
ADAM_SPARSE = ("Adam", 1e-3, "SparseCategoricalCrossentropy", True, [ACCURACY])
EXPECTED_COMPILE = {
    "fashion_cnn": ADAM_SPARSE,
    "fashion_cnn_softmax": ("Adam", 1e-3, "SparseCategoricalCrossentropy", False, [ACCURACY]),
    "catsdogs_cnn": ("Adam", 1e-3, "BinaryCrossentropy", True, [("BinaryAccuracy", "accuracy")]),
    "catsdogs_cnn_sigmoid": ("Adam", 1e-3, "BinaryCrossentropy", False, [("BinaryAccuracy", "accuracy")]),
    "catsdogs_cnn on 3 classes": ADAM_SPARSE,
    "reuters_textcnn": ("Nadam", 1e-3, "SparseCategoricalCrossentropy", True, [ACCURACY, TOP5]),
    "reuters_textcnn_logits_bug": ("Nadam", 1e-3, "SoftmaxOnProbabilities", None, [ACCURACY, TOP5]),
    "plant_cnn": ADAM_SPARSE,
    "plant_cnn_layer_aug": ADAM_SPARSE,
    "plant_transfer": ADAM_SPARSE,
}


def test_plant_transfer_freezes_its_backbone_for_the_first_stage() -> None:
    """The layer the built-in names in ``frozen`` is its MobileNetV2, as the worker freezes it: the head alone
    trains first (GlobalAveragePooling, Dense 1280*4+4), two steps moving the head and nothing of the backbone; then
    everything but BatchNorm's statistics is trainable. (The fine-tuning stage's fit is not run by the suite: tracing
    MobileNetV2's whole backward graph costs ~40 s; the two-stage fit itself runs on a small model of this form in
    tests/test_augment_transfer.py.)"""
    from bench.workloads import get_workload, stage_epochs

    keras.utils.set_random_seed(0)
    wl, model = get_workload("plant_transfer"), build_model("plant_transfer")
    assert stage_epochs(wl, 5) == [("frozen", 2), ("fine_tune", 3)]

    def trainable() -> int:
        return sum(int(np.prod(w.shape)) for w in model.trainable_weights)

    for name in wl.frozen:
        model.get_layer(name).trainable = False
    assert trainable() == 5_124
    model.compile(**compile_kwargs("plant_transfer"), steps_per_execution=2)
    backbone = [w.copy() for w in model.get_layer("backbone").get_weights()]
    head = [w.copy() for w in model.layers[-1].get_weights()]
    x, y = _batch("plant_transfer", 16)
    history = model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert int(model.optimizer.iterations.numpy()) == 2 and np.isfinite(history.history["loss"][0])
    assert all(np.array_equal(a, b) for a, b in zip(backbone, model.get_layer("backbone").get_weights(), strict=True))
    assert any(not np.array_equal(a, b) for a, b in zip(head, model.layers[-1].get_weights(), strict=True))
    for name in wl.frozen:
        model.get_layer(name).trainable = True
    assert trainable() == 401_252


def test_compile_settings_are_the_tutorials_for_every_builtin() -> None:
    """The built-ins' compile settings are data on the Workload (optimizer, learning_rate, loss, top_k,
    binary_labels), and compile exactly as the name branches they replaced did."""
    import dataclasses

    from bench.workloads import get_workload

    assert {name.split(" ")[0] for name in EXPECTED_COMPILE} == set(WORKLOADS)
    for case, (optimizer, lr, loss, from_logits, metrics) in EXPECTED_COMPILE.items():
        wl = get_workload(case.split(" ")[0])
        if case.endswith("on 3 classes"):
            wl = dataclasses.replace(wl, classes=3, binary_labels=False)
        kwargs = compile_kwargs(wl)
        assert sorted(kwargs) == ["loss", "metrics", "optimizer"], case
        assert type(kwargs["optimizer"]).__name__ == optimizer, case
        assert float(kwargs["optimizer"].learning_rate) == pytest.approx(lr), case
        assert type(kwargs["loss"]).__name__ == loss, case
        assert kwargs["loss"].get_config().get("from_logits") == from_logits, case
        assert [(type(m).__name__, m.name) for m in kwargs["metrics"]] == metrics, case
        if len(metrics) > 1:
            assert kwargs["metrics"][1].get_config()["k"] == 5, case
        if metrics[0][0] == "BinaryAccuracy":  # a logit of 0 is a probability of 0.5
            assert kwargs["metrics"][0].get_config()["threshold"] == (0.0 if from_logits else 0.5), case
        assert compile_kwargs(wl)["optimizer"] is not kwargs["optimizer"], case  # fresh objects per call


def test_compile_settings_refuse_an_unknown_optimizer_or_loss_kind() -> None:
    import dataclasses

    from bench.workloads import LOSS_KINDS, get_workload
    from bench.workloads.models import LOSSES

    assert set(LOSSES) == set(LOSS_KINDS)  # every loss kind a workload may name has its Keras loss
    fashion = get_workload("fashion_cnn")
    with pytest.raises(ValueError, match="optimizer='Sgd'"):
        compile_kwargs(dataclasses.replace(fashion, optimizer="Sgd"))
    with pytest.raises(ValueError, match="loss='mse'; allowed"):
        compile_kwargs(dataclasses.replace(fashion, loss="mse"))
    assert type(compile_kwargs(dataclasses.replace(fashion, optimizer="SGD"))["optimizer"]).__name__ == "SGD"


def test_bug_variant_computes_softmax_cross_entropy_on_probabilities() -> None:
    import tensorflow as tf

    probs = tf.constant([[0.7, 0.2, 0.1]])
    labels = tf.constant([0])
    bug = compile_kwargs("reuters_textcnn_logits_bug")["loss"]
    good = compile_kwargs("reuters_textcnn")["loss"]
    # The tutorial's math: -log softmax(p)[0], not -log p[0] (what the corrected loss computes).
    expected_bug = -np.log(np.exp(0.7) / np.exp([0.7, 0.2, 0.1]).sum())
    assert float(bug(labels, probs)) == pytest.approx(expected_bug, rel=1e-5)
    assert float(good(labels, tf.math.log(probs))) == pytest.approx(-np.log(0.7), rel=1e-5)  # it reads logits


@pytest.mark.parametrize(("builtin", "literal"), [("catsdogs_cnn", "catsdogs_cnn_sigmoid"),
                                                  ("fashion_cnn", "fashion_cnn_softmax")])
def test_a_logits_builtin_is_its_tutorials_model_and_loss_from_logits(builtin: str, literal: str) -> None:
    """Issue 51: a built-in's linear output with from_logits=True is the tutorial's sigmoid or softmax output and loss,
    the same math (what Keras' TensorFlow backend computed anyway): from the same weights, the tutorial's probabilities
    are the activation of the built-in's logits, and the two losses agree on an ordinary batch."""
    from bench.workloads import LOGITS, PROBABILITIES, get_workload

    assert (get_workload(builtin).head, get_workload(literal).head) == (LOGITS, PROBABILITIES)
    keras.utils.set_random_seed(0)
    # at the literal form's input size (catsdogs_cnn trains 64 x 64 inputs, the tutorial's 128 x 128)
    ours = build_model(dataclasses.replace(get_workload(builtin), shape=get_workload(literal).shape))
    published = build_model(literal)
    published.set_weights(ours.get_weights())
    x, y = _batch(literal, 8)
    logits, probs = np.asarray(ours(x)), np.asarray(published(x))
    activation = keras.ops.sigmoid if logits.shape[-1] == 1 else keras.ops.softmax
    np.testing.assert_allclose(np.asarray(activation(logits)), probs, rtol=1e-5, atol=1e-6)
    assert not np.allclose(logits, probs)  # the built-in's output is not probabilities
    ours_loss = float(compile_kwargs(builtin)["loss"](y, logits))
    assert ours_loss == pytest.approx(float(compile_kwargs(literal)["loss"](y, probs)), rel=1e-4)


def test_registry_holds_factories_and_the_worker_attaches_the_tutorial_models() -> None:
    """Built-ins are defined like the user workloads of issue 11: a factory returning a Workload; the
    framework-free factory leaves model and compile settings to the worker's ``runnable``."""
    from bench.workloads import Workload, get_workload
    from bench.workloads.models import runnable

    meta = get_workload("fashion_cnn")
    assert isinstance(meta, Workload) and meta.build_model is None and meta.shape == (28, 28, 1)
    with pytest.raises(ValueError, match="no compile settings"):
        meta.compile_settings()
    full = runnable(meta)
    assert full.build_model().count_params() == 108_810
    first, second = full.compile_settings(), full.compile_settings()
    assert first["optimizer"] is not second["optimizer"]  # fresh objects for every point

    own = Workload(name="mine", build_model=lambda: keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)]),
                   compile_kwargs={"optimizer": "adam", "loss": "mse"})
    assert runnable(own) is own and own.compile_settings() == {"optimizer": "adam", "loss": "mse"}


def test_plant_transfer_uses_imagenet_weights_only_when_the_keras_cache_has_them(tmp_path, monkeypatch) -> None:
    """Offline the backbone is random (recorded as such); a weights file where keras.applications keeps it
    (``$KERAS_HOME/models``) is loaded, never downloaded. The file here is written in Keras' legacy HDF5
    layout, as the real ImageNet file is, from a random backbone (this box cannot download the real one)."""
    h5py = pytest.importorskip("h5py")
    from keras.src.legacy.saving import legacy_h5_format

    from bench.workloads import get_workload
    from bench.workloads.models import imagenet_weights_file

    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    wl = get_workload("plant_transfer")
    assert imagenet_weights_file(wl) is None
    assert build_model(wl).bench_pretrained is None
    keras.utils.set_random_seed(1)
    source = keras.applications.MobileNetV2(input_shape=(96, 96, 3), alpha=0.35, include_top=False, weights=None)
    path = tmp_path / "models" / "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96_no_top.h5"
    path.parent.mkdir()
    with h5py.File(path, "w") as f:
        legacy_h5_format.save_weights_to_hdf5_group(f, source)
    assert imagenet_weights_file(wl) == path
    model = build_model(wl)
    assert model.bench_pretrained == "imagenet"
    loaded = model.get_layer("backbone").get_weights()
    assert all(np.array_equal(a, b) for a, b in zip(loaded, source.get_weights(), strict=True))


def test_targets_apply_to_the_data_and_sizes_they_were_set_on() -> None:
    """A built-in's target holds on its embedded data at the scale and sizes of the reference runs only; a user's
    workload carries its own."""
    import dataclasses

    from bench.workloads import TARGET_SOURCE, get_workload, target_for

    fashion = get_workload("fashion_cnn")
    assert target_for(fashion, "synthetic", "reduced", 4096, 1024) == (0.85, TARGET_SOURCE)
    assert target_for(fashion, "synthetic", "reduced", 512, 128) is None  # another data set size
    assert target_for(fashion, "synthetic", "full", 60000, 10000) is None  # no reference run at full scale
    assert target_for(fashion, "keras:fashion_mnist", "reduced", 4096, 1024) is None  # real data: not ours
    assert target_for(get_workload("plant_transfer"), "synthetic", "reduced", 512, 128) is None
    mine = dataclasses.replace(fashion, target_accuracy=0.6)
    assert target_for(mine, "synthetic", "full", 10, 10) == (0.6, "workload")


def test_the_tutorial_is_its_own_field_and_seed_its_deprecated_name() -> None:
    """``Workload.tutorial`` holds the tutorial a workload reproduces ("seed" means a random seed only); the
    field's earlier name still works, with a DeprecationWarning, and reads as ``tutorial``."""
    from bench.workloads import Workload, get_workload

    assert {n: get_workload(n).tutorial for n in ("catsdogs_cnn", "plant_cnn", "fashion_cnn", "reuters_textcnn")} == {
        "catsdogs_cnn": "000", "plant_cnn": "001", "fashion_cnn": "002", "reuters_textcnn": "004"}
    with pytest.warns(DeprecationWarning, match=r"Workload\(tutorial=\.\.\.\)"):
        old = Workload(name="mine", seed="002")
    assert old.tutorial == old.seed == "002" and old == Workload(name="mine", tutorial="002")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # replace() passes .seed back: no second warning, and it sets nothing
        assert dataclasses.replace(old, name="yours").tutorial == "002"
        assert dataclasses.replace(old, tutorial="004").tutorial == "004"
        assert dataclasses.replace(old, tutorial="").tutorial == ""
