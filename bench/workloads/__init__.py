"""Workloads: what bench trains. Importing this module imports no framework (configs are checked, and
reports built, without one).

A workload is a :class:`Workload`: a zero-argument model builder, its compile settings, its data, and
metadata that describes them without a framework (input shape, classes, sizes). The registry
(:data:`WORKLOADS`) is a dict of zero-argument factories returning such objects. The built-in ones are
the seed tutorials' exact layer stacks; their factories here carry the metadata only (this module must
not reach Keras, even lazily: ``tests/test_import_contract.py``), and the worker attaches their model
builder and compile settings with :func:`bench.workloads.models.runnable`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

CompileSettings = dict[str, Any] | Callable[[], dict[str, Any]]


@dataclass(frozen=True)
class Workload:
    """A workload: a model, how it is compiled, the data it trains on, and what they look like.

    ``build_model`` is a zero-argument callable returning an *uncompiled* ``keras.Model``; bench calls it
    inside the strategy's scope or the distribution, once per point. ``compile_kwargs`` is a dict for
    ``model.compile`` (optimizer, loss, metrics; give optimizers by name, e.g. ``"adam"``, or pass a
    zero-argument callable returning the dict, so each point gets fresh objects). ``data`` names the data:
    ``synthetic`` is the embedded dataset called ``dataset``. The main metric is reported as ``accuracy``.
    """

    name: str  # in point ids and reports
    build_model: Callable[[], Any] | None = None  # None: a built-in's, attached in the worker
    compile_kwargs: CompileSettings | None = None
    data: str = "synthetic"
    dataset: str = ""  # the synthetic dataset it trains on (bench.data.synthetic)
    seed: str = ""  # the tutorial it reproduces: 000 Colab cats-vs-dogs, 002 Fashion-MNIST TPU, 004 Reuters Conv1D
    description: str = ""
    shape: tuple[int, ...] = ()
    classes: int = 0
    full: tuple[int, int] = (0, 0)  # (n_train, n_val) of the seed's real dataset
    reduced: tuple[int, int] = (0, 0)  # (n_train, n_val) for short CPU runs (data_scale=reduced)
    augment: bool = False  # random flips in the input pipeline (never as model layers: seed 001)
    variant: str | None = None

    def compile_settings(self) -> dict[str, Any]:
        """The keyword arguments for ``model.compile`` (a fresh dict; the callable's fresh objects)."""
        if self.compile_kwargs is None:
            raise ValueError(f"workload {self.name!r} has no compile settings (a built-in: see models.runnable)")
        return dict(self.compile_kwargs() if callable(self.compile_kwargs) else self.compile_kwargs)


def _builtin(name: str, **fields: Any) -> Callable[[], Workload]:
    """The factory of a built-in workload (metadata; the worker attaches the seed's model and settings)."""
    return functools.partial(Workload, name=name, **fields)


WORKLOADS: dict[str, Callable[[], Workload]] = {
    "fashion_cnn": _builtin(
        "fashion_cnn", dataset="fashion", seed="002", description="Fashion-MNIST CNN under TPUStrategy: Conv2D "
        "64 -> MaxPool -> ReLU -> Dense 10 softmax, Adam 1e-3", shape=(28, 28, 1), classes=10, full=(60000, 10000),
        reduced=(4096, 1024)),
    "catsdogs_cnn": _builtin(
        "catsdogs_cnn", dataset="catsdogs", seed="000", description="Colab TPU cats-vs-dogs CNN: 3 x (Conv2D + "
        "MaxPool), Dense 256/128 + Dropout, sigmoid, binary cross-entropy, Adam", shape=(128, 128, 3), classes=2,
        full=(8000, 2000), reduced=(256, 256), augment=True),
    "reuters_textcnn": _builtin(
        "reuters_textcnn", dataset="reuters", seed="004", description="Reuters Conv1D text classifier: Embedding 7 "
        "-> Conv1D 64/5 -> Conv1D 32/3 -> Dense 46 softmax, Nadam, sparse CE (from_logits=False)", shape=(300,),
        classes=46, full=(8982, 2246), reduced=(4096, 1024)),
    "reuters_textcnn_logits_bug": _builtin(
        "reuters_textcnn_logits_bug", dataset="reuters", seed="004", description="seed 004 as published: softmax "
        "output with from_logits=True; it does not learn (a test case for stall detection)", shape=(300,),
        classes=46, full=(8982, 2246), reduced=(4096, 1024), variant="softmax+from_logits"),
}


def get_workload(name: str) -> Workload:
    """The workload called ``name`` (its factory's result); KeyError naming the allowed values otherwise."""
    try:
        factory = WORKLOADS[name]
    except KeyError:
        raise KeyError(f"unknown workload {name!r}; allowed: {', '.join(WORKLOADS)}") from None
    return factory()


def dataset_size(name: str, scale: str, n_train: int = 0, n_val: int = 0) -> tuple[int, int]:
    """(n_train, n_val) of a workload at ``scale`` ('reduced' | 'full'); explicit sizes win when > 0."""
    workload = get_workload(name)
    base = workload.full if scale == "full" else workload.reduced
    return (n_train or base[0], n_val or base[1])
