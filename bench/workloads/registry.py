"""The built-in workloads: :data:`WORKLOADS`, a dict of zero-argument factories returning :class:`Workload`, each the
tutorial's layer stack described by data only (no Keras, even lazily: ``pyproject.toml``, import-linter). A new
built-in is an entry here and a builder in ``bench.workloads.models.BUILDERS``. The built-ins: docs/workloads.md.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from bench.data import plants
from bench.data.synthetic import REUTERS_VOCAB
from bench.records.revisions import CURRENT
from bench.workloads.base import PROBABILITIES, SOFTMAX_ON_PROBABILITIES, Workload

PLANT_TARGET = 0.85  # five seeds (bench/workloads/targets.py)
PLANT_IMAGES = "plants"  # the dataset of generated JPEG files (bench.data.plants): synthetic, yet read from files


def builtin(name: str, **fields: Any) -> Callable[[], Workload]:
    """The factory of a built-in workload (data; the worker attaches the tutorial's model and Keras objects), at its
    definition's revision (:data:`bench.records.revisions.CURRENT`)."""
    return functools.partial(Workload, name=name, revision=CURRENT.get(name, 1), **fields)


FASHION = {"dataset": "fashion", "tutorial": "002", "shape": (28, 28, 1), "classes": 10, "full": (60000, 10000),
           "reduced": (4096, 1024), "target_accuracy": {"reduced": 0.85}}
CATSDOGS = {"dataset": "catsdogs", "tutorial": "000", "shape": (128, 128, 3), "classes": 2, "full": (8000, 2000),
            "reduced": (256, 256), "augment": True, "binary_labels": True, "target_accuracy": {"reduced": 0.70}}
CATSDOGS_QUICK = {**CATSDOGS, "shape": (64, 64, 3), "reduced": (512, 256), "target_accuracy": {"reduced": 0.85}}
REUTERS = {"dataset": "reuters", "tutorial": "004", "shape": (300,), "classes": 46, "full": (8982, 2246),
           "reduced": (4096, 1024), "vocab": REUTERS_VOCAB, "optimizer": "Nadam", "top_k": 5,
           "target_accuracy": {"reduced": 0.40}}
PLANTS = {"dataset": PLANT_IMAGES, "tutorial": "001", "classes": 4, "full": plants.sizes("full"),
          "reduced": plants.sizes("reduced")}
PIPELINE_AUGMENTATION = ("crop", "flip", "rot90", "brightness", "contrast")

WORKLOADS: dict[str, Callable[[], Workload]] = {
    "fashion_cnn": builtin(
        "fashion_cnn", description="Fashion-MNIST CNN under TPUStrategy: Conv2D 64 -> MaxPool -> ReLU -> Dense 10 "
        "(logits), sparse CE from logits, Adam 1e-3", **FASHION),
    "fashion_cnn_softmax": builtin(
        "fashion_cnn_softmax", description="tutorial 002 as published: fashion_cnn with a softmax output read by "
        "sparse CE as probabilities (trains differently under JAX and PyTorch than under TensorFlow)",
        variant="softmax output", head=PROBABILITIES, **FASHION),
    "catsdogs_cnn": builtin(
        "catsdogs_cnn", description="Colab TPU cats-vs-dogs CNN: 3 x (Conv2D + MaxPool), Dense 256/128 + Dropout, "
        "Dense 1 (logits), binary cross-entropy from logits, Adam; 64 x 64 inputs (the tutorial's 128 x 128 images "
        "at half resolution: docs/workloads.md)", **CATSDOGS_QUICK),
    "catsdogs_cnn_sigmoid": builtin(
        "catsdogs_cnn_sigmoid", description="tutorial 000 as published: catsdogs_cnn with a sigmoid output read by "
        "binary cross-entropy as probabilities (learns under TensorFlow; under JAX and PyTorch a saturated start "
        "predicts one class)", variant="sigmoid output", head=PROBABILITIES, **CATSDOGS),
    "reuters_textcnn": builtin(
        "reuters_textcnn", description="Reuters Conv1D text classifier: Embedding 7 -> Conv1D 64/5 -> Conv1D "
        "32/3 -> Dense 46 (logits), Nadam, sparse CE from logits", **REUTERS),
    "reuters_textcnn_logits_bug": builtin(
        "reuters_textcnn_logits_bug", description="tutorial 004 as published: softmax output with from_logits=True; "
        "it does not learn (a test case for stall detection)", variant="softmax+from_logits",
        loss=SOFTMAX_ON_PROBABILITIES, head=PROBABILITIES, **REUTERS),
    "plant_cnn": builtin(
        "plant_cnn", description="Kaggle TPU guide, plant pathology 2020: apple-leaf JPEGs (4 classes, 2048 x "
        "1365) read and decoded in the input pipeline; a small plain CNN on 64 x 64 inputs (Conv2D 8/16/32/64 + "
        "MaxPool, global max pool, Dense 4 logits), Adam; crop/flip/rot90/brightness/contrast in the pipeline",
        shape=(64, 64, 3), augment=PIPELINE_AUGMENTATION, target_accuracy={"reduced": PLANT_TARGET}, **PLANTS),
    "plant_cnn_layer_aug": builtin(
        "plant_cnn_layer_aug", description="plant_cnn with its augmentation as Keras layers inside the model "
        "(RandomFlip/RandomRotation/RandomContrast), as tutorial 001 first tried: a test case (a TPU cannot compile "
        "it under TensorFlow)", shape=(64, 64, 3), variant="augmentation layers in the model",
        target_accuracy={"reduced": PLANT_TARGET}, **PLANTS),
    "plant_transfer": builtin(
        "plant_transfer", description="tutorial 001's transfer-learning stage: a keras.applications MobileNetV2 "
        "(alpha 0.35, 96 x 96, ImageNet weights when the Keras cache has them, else random) + global average "
        "pool, Dropout 0.2, Dense 4 logits; backbone frozen for half the epochs (Adam 1e-3), then fine-tuned "
        "(Adam 1e-5); pipeline augmentation as plant_cnn", shape=(96, 96, 3), augment=PIPELINE_AUGMENTATION,
        frozen=("backbone",), **PLANTS),
}
