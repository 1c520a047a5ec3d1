"""Workload registry. Metadata only: importing this module imports no TensorFlow.

A workload is a model (exact layer stack of its seed tutorial) + its compile settings + its dataset.
Builders live in :mod:`bench.workloads.models` and are imported by the worker only.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Workload:
    """A workload: a seed tutorial's model (built by :mod:`bench.workloads.models`) and the dataset it trains
    on, described without any framework: the data's shape, classes and sizes, and where it came from."""

    name: str
    dataset: str  # the synthetic dataset it trains on (bench.data.synthetic.DATASETS)
    seed: str  # the tutorial it reproduces: 000 Colab cats-vs-dogs, 002 Fashion-MNIST TPU, 004 Reuters Conv1D
    description: str
    shape: tuple[int, ...]
    classes: int
    full: tuple[int, int]  # (n_train, n_val) of the seed's real dataset
    reduced: tuple[int, int]  # (n_train, n_val) for short CPU runs (data_scale=reduced)
    augment: bool = False  # random augmentation inside tf.data (never as model layers: seed 001)
    variant: str | None = None


WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in (
        Workload(
            "fashion_cnn", "fashion", "002", "Fashion-MNIST CNN under TPUStrategy: Conv2D 64 -> MaxPool -> "
            "ReLU -> Dense 10 softmax, Adam 1e-3", (28, 28, 1), 10, (60000, 10000), (4096, 1024)),
        Workload(
            "catsdogs_cnn", "catsdogs", "000", "Colab TPU cats-vs-dogs CNN: 3 x (Conv2D + MaxPool), "
            "Dense 256/128 + Dropout, sigmoid, binary cross-entropy, Adam", (128, 128, 3), 2, (8000, 2000),
            (256, 256), augment=True),
        Workload(
            "reuters_textcnn", "reuters", "004", "Reuters Conv1D text classifier: Embedding 7 -> Conv1D "
            "64/5 -> Conv1D 32/3 -> Dense 46 softmax, Nadam, sparse CE (from_logits=False)", (300,), 46,
            (8982, 2246), (4096, 1024)),
        Workload(
            "reuters_textcnn_logits_bug", "reuters", "004", "seed 004 as published: softmax output with "
            "from_logits=True; it does not learn (a test case for stall detection)", (300,), 46,
            (8982, 2246), (4096, 1024), variant="softmax+from_logits"),
    )
}


def get_workload(name: str) -> Workload:
    """The workload called ``name``; KeyError naming the allowed values otherwise."""
    try:
        return WORKLOADS[name]
    except KeyError:
        raise KeyError(f"unknown workload {name!r}; allowed: {', '.join(WORKLOADS)}") from None


def dataset_size(name: str, scale: str, n_train: int = 0, n_val: int = 0) -> tuple[int, int]:
    """(n_train, n_val) of a workload at ``scale`` ('reduced' | 'full'); explicit sizes win when > 0."""
    workload = get_workload(name)
    base = workload.full if scale == "full" else workload.reduced
    return (n_train or base[0], n_val or base[1])
