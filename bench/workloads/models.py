"""Model builders and compile settings for each built-in workload: the tutorials' layer stacks (imports Keras).
Each builder returns an *uncompiled* model, parametric in input shape, classes and vocabulary (parameter counts on
the tutorials' data pinned in ``tests/test_workloads.py``); :func:`compile_kwargs` builds ``model.compile``'s
arguments from the settings the workload carries as data (none special-cased by name). Outputs are logits
(``head="logits"``); the tutorials' probability heads are variants. Why: docs/workloads.md, *Logits, not
probabilities*.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import keras
from keras import layers

from bench.data.synthetic import REUTERS_VOCAB  # tutorial 004's summary: Embedding params 216,874 = 30,982 x 7
from bench.workloads import HEADS, LOGITS, SOFTMAX_ON_PROBABILITIES, SPARSE_CE, Workload, get_workload
from bench.workloads.labels import expects_one_hot


def output_activation(wl: Workload, probabilities: str) -> str:
    """The final layer's activation: ``linear`` for a logits head, else the tutorial's ``probabilities`` one
    (``sigmoid`` or ``softmax``)."""
    if wl.head not in HEADS:
        raise ValueError(f"workload {wl.name!r}: head={wl.head!r}; allowed: {', '.join(HEADS)}")
    return "linear" if wl.head == LOGITS else probabilities


def build_fashion_cnn(wl: Workload) -> keras.Model:
    """Tutorial 002: Conv2D(64, 3x3) -> MaxPool(2, 2) -> ReLU -> Flatten -> Dense(10) -> softmax (the tutorial's, in
    ``fashion_cnn_softmax``) or linear (logits), in float32."""
    return keras.Sequential(
        [
            keras.Input(wl.shape),
            layers.Conv2D(64, (3, 3)),
            layers.MaxPooling2D(pool_size=(2, 2), strides=(2, 2)),
            layers.Activation("relu"),
            layers.Flatten(),
            layers.Dense(wl.classes),
            layers.Activation(output_activation(wl, "softmax"), dtype="float32"),
        ],
        name="fashion_cnn",
    )


def build_catsdogs_cnn(wl: Workload) -> keras.Model:
    """Tutorial 000: three Conv2D (32/64/128, 3x3, same, relu, he_uniform) + MaxPool, Dense 256/128, Dense 1 with the
    tutorial's sigmoid (``catsdogs_cnn_sigmoid``) or linear (logits); Dense(classes) on data with more than 2."""
    conv = {"padding": "same", "activation": "relu", "kernel_initializer": "he_uniform"}
    head = (layers.Dense(1, activation=output_activation(wl, "sigmoid"), dtype="float32") if wl.binary_labels
            else layers.Dense(wl.classes, activation=output_activation(wl, "softmax"), dtype="float32"))
    return keras.Sequential(
        [
            keras.Input(wl.shape),
            layers.Conv2D(32, (3, 3), **conv),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Conv2D(64, (3, 3), **conv),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Conv2D(128, (3, 3), **conv),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Flatten(),
            layers.Dense(256, activation="relu"),
            layers.Dropout(0.2),
            layers.Dense(128, activation="relu"),
            layers.Dropout(0.2),
            head,
        ],
        name="catsdogs_cnn",
    )


def build_reuters_textcnn(wl: Workload) -> keras.Model:
    """Tutorial 004: Embedding(30982, 7) on length-300 ids -> Conv1D 64/5 -> Conv1D 32/3 -> Dense 46, linear (logits)
    or the tutorial's softmax (``reuters_textcnn_logits_bug``)."""
    return keras.Sequential(
        [
            keras.Input(wl.shape, dtype="int32"),
            layers.Embedding(wl.vocab or REUTERS_VOCAB, 7),
            layers.Conv1D(filters=64, kernel_size=5, activation="relu"),
            layers.MaxPool1D(2),
            layers.Conv1D(filters=32, kernel_size=3, activation="relu"),
            layers.MaxPool1D(2),
            layers.Flatten(),
            layers.Dense(wl.classes, activation=output_activation(wl, "softmax"), dtype="float32"),
        ],
        name="reuters_textcnn",
    )


def build_plant_cnn(wl: Workload) -> keras.Model:
    """Tutorial 001's first stage, a plain CNN (the guide shows no code; this is bench's, with feature sizes that
    are multiples of 8 as the guide advises for TPUs): four Conv2D 3x3 (8/16/32/64, same, relu), each but
    the last followed by MaxPool 2x2, global *max* pooling, Dense(classes) softmax.

    Small on purpose, and max-pooled: a lesion anywhere on the leaf decides the class, and global average
    pooling dilutes a few small spots (on the generated leaves it stayed near 0.65 validation accuracy where
    max pooling reaches about 0.9 in 10 epochs). A model this light trains several times faster than this
    CPU decodes the 2048 x 1365 JPEGs, which is the tutorial's situation on a TPU: the input pipeline is the
    bottleneck unless the decoded images are cached."""
    conv = {"padding": "same", "activation": "relu"}
    return keras.Sequential(
        [
            keras.Input(wl.shape),
            layers.Conv2D(8, 3, **conv),
            layers.MaxPooling2D(),
            layers.Conv2D(16, 3, **conv),
            layers.MaxPooling2D(),
            layers.Conv2D(32, 3, **conv),
            layers.MaxPooling2D(),
            layers.Conv2D(64, 3, **conv),
            layers.GlobalMaxPooling2D(),
            layers.Dense(wl.classes, activation=output_activation(wl, "softmax"), dtype="float32"),
        ],
        name="plant_cnn",
    )


MOBILENET_ALPHA = 0.35


def imagenet_weights_file(wl: Workload) -> Path | None:
    """The Keras cache's ImageNet weights for :func:`build_plant_transfer`'s backbone (``$KERAS_HOME/models``,
    default ``~/.keras/models``, where ``keras.applications`` stores them), None when absent: bench never
    downloads them (an offline box would fail, and a benchmark must not depend on the network)."""
    rows = wl.shape[0] if wl.shape[0] in (96, 128, 160, 192, 224) else 224  # what keras.applications loads
    name = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(MOBILENET_ALPHA)}_{rows}_no_top.h5"
    home = Path(os.environ.get("KERAS_HOME") or Path.home() / ".keras")
    path = home / "models" / name
    return path if path.is_file() else None


class ToSigned(keras.layers.Layer):
    """[0, 1] -> [-1, 1], what ``keras.applications.mobilenet_v2.preprocess_input`` does to [0, 255]
    (``keras.layers.Rescaling`` would do, but under the JAX backend Keras 3.15 wants TensorFlow for it)."""

    def call(self, x: Any) -> Any:
        return x * 2.0 - 1.0


def build_plant_transfer(wl: Workload) -> keras.Model:
    """Tutorial 001's transfer-learning stage: ``keras.applications.MobileNetV2`` (alpha 0.35, no top) as a layer
    named ``backbone``, on inputs rescaled from [0, 1] to its [-1, 1], then global average pooling, Dropout
    0.2 and Dense(classes) softmax. ImageNet weights when the Keras cache has them, random weights otherwise
    (recorded as ``pretrained_weights``). As Keras' transfer-learning guide does, the backbone runs in
    inference mode, also once unfrozen, so its BatchNorm layers keep their statistics (MobileNetV2's
    momentum of 0.999 would leave random ones unusable for validation in a short run). The worker freezes
    ``backbone`` for the first stage and unfreezes it for the second (:func:`bench.workloads.stage_epochs`)."""
    weights = imagenet_weights_file(wl)
    backbone = keras.applications.MobileNetV2(input_shape=wl.shape, alpha=MOBILENET_ALPHA, include_top=False,
                                              weights=str(weights) if weights else None)
    backbone.name = "backbone"
    inputs = keras.Input(wl.shape)
    x = backbone(ToSigned()(inputs), training=False)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.2)(x)
    outputs = layers.Dense(wl.classes, activation=output_activation(wl, "softmax"), dtype="float32")(x)
    model = keras.Model(inputs, outputs, name="plant_transfer")
    model.bench_pretrained = "imagenet" if weights else None  # recorded as pretrained_weights
    return model


AUGMENTATION_LAYERS = ("RandomFlip", "RandomRotation", "RandomContrast", "RandomBrightness", "RandomCrop",
                       "RandomZoom", "RandomTranslation", "RandomWidth", "RandomHeight")


def build_plant_cnn_layer_aug(wl: Workload) -> keras.Model:
    """:func:`build_plant_cnn` with its augmentation as Keras layers in front (tutorial 001's first attempt; under
    TensorFlow a TPU cannot compile ``RandomRotation``'s ``ImageProjectiveTransformV3``)."""
    body = build_plant_cnn(wl)
    return keras.Sequential(
        [
            keras.Input(wl.shape),
            layers.RandomFlip("horizontal"),
            layers.RandomRotation(0.25),
            layers.RandomContrast(0.2),
            *body.layers,
        ],
        name="plant_cnn_layer_aug",
    )


def augmentation_layers(model: keras.Model) -> list[str]:
    """Class names of the Keras augmentation layers inside ``model`` (tutorial 001: not on a TPU under TF)."""
    found = []
    for layer in model._flatten_layers(include_self=False):
        if type(layer).__name__ in AUGMENTATION_LAYERS:
            found.append(type(layer).__name__)
    return found


class SoftmaxOnProbabilities(keras.losses.Loss):
    """Tutorial 004's loss as TF 2.3 computed it: softmax cross-entropy applied to softmax *probabilities*.

    ``SparseCategoricalCrossentropy(from_logits=True)`` on a softmax output no longer reproduces the
    tutorial in Keras 3: its TensorFlow backend spots the ``Softmax`` op and silently uses the logits before
    it (``keras/src/backend/tensorflow/nn.py::_get_logits``, with only a warning), so training works.
    This loss applies softmax cross-entropy to the probabilities directly (``log_softmax`` of the
    probabilities, the same figure as ``tf.nn.sparse_softmax_cross_entropy_with_logits`` on them), which
    squashes the gradients the way the tutorial's run did (its loss stayed ~3.25 for 10 epochs). Written
    with ``keras.ops`` only, so it runs the same under every Keras backend.
    """

    def __init__(self, name: str = "softmax_on_probabilities", **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)

    def call(self, y_true: Any, y_pred: Any) -> Any:
        ops = keras.ops
        logits = ops.cast(y_pred, "float32")  # the probabilities, treated as logits
        labels = ops.one_hot(ops.cast(ops.reshape(y_true, [-1]), "int32"), ops.shape(logits)[-1])
        return -ops.sum(labels * ops.log_softmax(logits, axis=-1), axis=-1)


BUILDERS = {
    "fashion_cnn": build_fashion_cnn,
    "fashion_cnn_softmax": build_fashion_cnn,
    "catsdogs_cnn": build_catsdogs_cnn,
    "catsdogs_cnn_sigmoid": build_catsdogs_cnn,
    "reuters_textcnn": build_reuters_textcnn,
    "reuters_textcnn_logits_bug": build_reuters_textcnn,
    "plant_cnn": build_plant_cnn,
    "plant_cnn_layer_aug": build_plant_cnn_layer_aug,
    "plant_transfer": build_plant_transfer,
}


def resolve(workload: str | Workload) -> Workload:
    """``workload`` itself, or for a name the workload on its own synthetic data."""
    return workload if isinstance(workload, Workload) else get_workload(workload)


def build_model(workload: str | Workload) -> keras.Model:
    """Build a built-in workload's model for its shape and classes (call inside ``strategy.scope()``); a
    name means the workload on its own synthetic data."""
    wl = resolve(workload)
    return BUILDERS[wl.name](wl)


# Workload.loss -> the loss for integer class labels, given whether the output is logits
LOSSES: dict[str, Callable[[bool], keras.losses.Loss]] = {
    SPARSE_CE: lambda logits: keras.losses.SparseCategoricalCrossentropy(from_logits=logits),
    SOFTMAX_ON_PROBABILITIES: lambda logits: SoftmaxOnProbabilities(),  # tutorial 004's softmax, from_logits=True
}


def compile_kwargs(workload: str | Workload) -> dict[str, Any]:
    """Optimizer, loss and metrics of a built-in workload, from its data (fresh objects on every call): the
    ``keras.optimizers`` class ``optimizer`` at ``learning_rate``; with ``binary_labels`` binary cross-entropy
    and binary accuracy, else the loss kind ``loss`` (:data:`LOSSES`), sparse categorical accuracy and, when
    ``top_k`` > 0, top-k accuracy as ``top{k}_accuracy``. A logits ``head``: the losses read logits
    (``from_logits=True``) and binary accuracy thresholds them at 0 (a probability of 0.5).

    Every workload reports its main metric as ``accuracy`` so records and reports use one name.
    """
    wl = resolve(workload)
    optimizer_class = getattr(keras.optimizers, wl.optimizer, None)
    if not isinstance(optimizer_class, type) or not issubclass(optimizer_class, keras.optimizers.Optimizer):
        raise ValueError(f"workload {wl.name!r}: optimizer={wl.optimizer!r} is no keras.optimizers class")
    if wl.loss not in LOSSES:
        raise ValueError(f"workload {wl.name!r}: loss={wl.loss!r}; allowed: {', '.join(LOSSES)}")
    optimizer = optimizer_class(learning_rate=wl.learning_rate)
    logits = output_activation(wl, "") == "linear"
    if wl.binary_labels:
        return {"optimizer": optimizer, "loss": keras.losses.BinaryCrossentropy(from_logits=logits),
                "metrics": [keras.metrics.BinaryAccuracy(name="accuracy", threshold=0.0 if logits else 0.5)]}
    metrics = [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]
    if wl.top_k:
        metrics.append(keras.metrics.SparseTopKCategoricalAccuracy(wl.top_k, name=f"top{wl.top_k}_accuracy"))
    return {"optimizer": optimizer, "loss": LOSSES[wl.loss](logits), "metrics": metrics}


def runnable(workload: Workload) -> Workload:
    """``workload`` with its model builder and compile settings (a built-in gets its tutorial's, fresh objects
    per call) and the label format they expect (``one_hot_labels``: :func:`bench.workloads.labels.expects_one_hot`)."""
    if workload.build_model is None or workload.compile_kwargs is None:
        workload = dataclasses.replace(workload, build_model=functools.partial(build_model, workload),
                                       compile_kwargs=functools.partial(compile_kwargs, workload))
    # labels bench feeds (never an input_fn's own, which come as its loss wants them)
    wanted = "" if workload.binary_labels or workload.input_fn else expects_one_hot(workload.compile_settings())
    if wanted:
        workload = dataclasses.replace(workload, one_hot_labels=wanted)  # e.g. keras.io's categorical_crossentropy
    return workload
