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

import dataclasses
import functools
import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.data import plants, sources

CompileSettings = dict[str, Any] | Callable[[], dict[str, Any]]


@dataclass(frozen=True)
class Workload:
    """A workload: a model, how it is compiled, the data it trains on, and what they look like.

    ``build_model`` is a zero-argument callable returning an *uncompiled* ``keras.Model``; bench calls it
    inside the strategy's scope or the distribution, once per point. ``compile_kwargs`` is a dict for
    ``model.compile`` (optimizer, loss, metrics; give optimizers by name, e.g. ``"adam"``, or pass a
    zero-argument callable returning the dict, so each point gets fresh objects). ``data`` names the data:
    ``synthetic`` is the embedded dataset called ``dataset``; a data source string (``keras:mnist``,
    ``folder:PATH``, ``csv:PATH/train.csv``, ``tfrecord:GLOB``: :mod:`bench.data.sources`); or a
    zero-argument callable returning NumPy arrays ``(x_train, y_train, x_val, y_val)`` with integer class
    labels. bench takes the input shape, the classes and the sizes from the data (images from files are
    resized to ``shape`` when it is given). The main metric is reported as ``accuracy``.
    """

    name: str  # in point ids and reports
    build_model: Callable[[], Any] | None = None  # None: a built-in's, attached in the worker
    compile_kwargs: CompileSettings | None = None
    data: str | Callable[[], tuple[Any, Any, Any, Any]] = "synthetic"  # or (x_train, y_train, x_val, y_val)
    dataset: str = ""  # the synthetic dataset it trains on (bench.data.synthetic)
    seed: str = ""  # the tutorial it reproduces: 000 Colab cats-vs-dogs, 002 Fashion-MNIST TPU, 004 Reuters Conv1D
    description: str = ""
    shape: tuple[int, ...] = ()
    classes: int = 0
    full: tuple[int, int] = (0, 0)  # (n_train, n_val) of the seed's real dataset
    reduced: tuple[int, int] = (0, 0)  # (n_train, n_val) for short CPU runs (data_scale=reduced)
    # random augmentation in the input pipeline (never as model layers: seed 001): True = flips, or a
    # tuple of bench.data.augment.KINDS
    augment: bool | tuple[str, ...] = False
    variant: str | None = None
    binary_labels: bool = False  # labels fed as (batch, 1) floats (a sigmoid output with binary cross-entropy)
    source: str = ""  # the import path a user workload came from (``my_pkg.my_module:make``)
    vocab: int = 0  # token inputs: ids are < vocab (Embedding input_dim); 0: not token input
    # transfer learning in two stages, one point: the layers named here are frozen for the first half of the
    # epochs (stage "frozen": the new head learns), then trainable, the model recompiled with its optimizer at
    # fine_tune_learning_rate, for the rest (stage "fine_tune"); () trains in one stage
    frozen: tuple[str, ...] = ()
    fine_tune_learning_rate: float = 1e-5
    # the validation accuracy a configuration must reach to count as trained (MLPerf/DAWNBench style): a float for
    # a user's workload on its own data; built-ins: per data scale of their embedded data ({"reduced": 0.85}),
    # applying only at that scale's sizes. The report shows who reaches it and the training time it took.
    target_accuracy: float | dict[str, float] | None = None

    @property
    def modality(self) -> str:
        """``image`` (h, w, c), ``tokens`` (length,) or ``features`` (anything else)."""
        if len(self.shape) == 3:
            return "image"
        return "tokens" if self.vocab or self.dataset == "reuters" else "features"

    def new_model(self) -> Any:
        """A fresh, uncompiled model from ``build_model`` (ValueError for a built-in's metadata alone)."""
        if self.build_model is None:
            raise ValueError(f"workload {self.name!r} has no model builder (a built-in: see models.runnable)")
        return self.build_model()

    def compile_settings(self) -> dict[str, Any]:
        """The keyword arguments for ``model.compile`` (a fresh dict; the callable's fresh objects)."""
        if self.compile_kwargs is None:
            raise ValueError(f"workload {self.name!r} has no compile settings (a built-in: see models.runnable)")
        return dict(self.compile_kwargs() if callable(self.compile_kwargs) else self.compile_kwargs)


# How the built-ins' targets were set (the seeds state accuracies for the real data sets only, which bench's
# embedded data is not): reference runs on this project's 2-core CPU box on 2026-11-23 (bench at cfb1f25) of the
# default suites at the reduced sizes (cnn: 3 epochs, text: 4, plant: 10), every configuration of cpu and cpu_x2,
# one process each. Target = the lowest final val accuracy p among the configurations that learn, minus one 95 %
# sampling error of the validation set, 1.96 * sqrt(p (1 - p) / n_val), rounded down to 0.05, so a configuration
# as good as the reference reaches it despite the noise of a small validation set:
#   fashion_cnn  p 0.887 (b128), n_val 1024: 0.868 -> 0.85   catsdogs_cnn  p 0.766 (b32), n_val 256: 0.714 -> 0.70
#   reuters_textcnn p 0.456 (b128), 1024: 0.426 -> 0.40      plant_cnn     p 0.898 (b16), n_val 128: 0.846 -> 0.80
# The broken-loss and layer-augmentation variants share their model's target; plant_transfer has none (without
# ImageNet weights in the Keras cache its accuracy means nothing). DESIGN.md, "Targets".
TARGET_SOURCE = "bench reference runs, 2026-11-23 (DESIGN.md, Targets)"


def target_for(workload: Workload, data: str, data_scale: str, n_train: int, n_val: int) -> tuple[float, str] | None:
    """(target validation accuracy, where it comes from) for a point of ``workload``, or None: a user workload's
    own ``target_accuracy``; a built-in's only on its embedded data at a scale it has a target for, with that
    scale's sizes (``n_train``/``n_val`` changed: another data set, no target)."""
    target = workload.target_accuracy
    if target is None:
        return None
    if not isinstance(target, dict):
        return float(target), "workload"
    if data != sources.SYNTHETIC or data_scale not in target:
        return None
    sizes = workload.full if data_scale == "full" else workload.reduced
    return (float(target[data_scale]), TARGET_SOURCE) if (n_train, n_val) == tuple(sizes) else None


STAGES = ("frozen", "fine_tune")
MIN_STAGED_EPOCHS = 4  # each stage needs a warm-up epoch (tracing) and the last one a steady epoch after it


def stage_epochs(workload: Workload, epochs: int) -> list[tuple[str, int]]:
    """The stages a point of ``workload`` trains in, as (name, epochs): one ``("train", epochs)`` stage, or
    for a transfer-learning workload (``frozen`` layers) ``epochs // 2`` frozen epochs then the rest
    fine-tuning."""
    if not workload.frozen:
        return [("train", epochs)]
    return [(STAGES[0], epochs // 2), (STAGES[1], epochs - epochs // 2)]


PLANT_TARGET = 0.80


def _builtin(name: str, **fields: Any) -> Callable[[], Workload]:
    """The factory of a built-in workload (metadata; the worker attaches the seed's model and settings)."""
    return functools.partial(Workload, name=name, **fields)


WORKLOADS: dict[str, Callable[[], Workload]] = {
    "fashion_cnn": _builtin(
        "fashion_cnn", dataset="fashion", seed="002", description="Fashion-MNIST CNN under TPUStrategy: Conv2D "
        "64 -> MaxPool -> ReLU -> Dense 10 softmax, Adam 1e-3", shape=(28, 28, 1), classes=10, full=(60000, 10000),
        reduced=(4096, 1024), target_accuracy={"reduced": 0.85}),
    "catsdogs_cnn": _builtin(
        "catsdogs_cnn", dataset="catsdogs", seed="000", description="Colab TPU cats-vs-dogs CNN: 3 x (Conv2D + "
        "MaxPool), Dense 256/128 + Dropout, sigmoid, binary cross-entropy, Adam", shape=(128, 128, 3), classes=2,
        full=(8000, 2000), reduced=(256, 256), augment=True, binary_labels=True,
        target_accuracy={"reduced": 0.70}),
    "reuters_textcnn": _builtin(
        "reuters_textcnn", dataset="reuters", seed="004", description="Reuters Conv1D text classifier: Embedding 7 "
        "-> Conv1D 64/5 -> Conv1D 32/3 -> Dense 46 softmax, Nadam, sparse CE (from_logits=False)", shape=(300,),
        classes=46, full=(8982, 2246), reduced=(4096, 1024), target_accuracy={"reduced": 0.40}),
    "reuters_textcnn_logits_bug": _builtin(
        "reuters_textcnn_logits_bug", dataset="reuters", seed="004", description="seed 004 as published: softmax "
        "output with from_logits=True; it does not learn (a test case for stall detection)", shape=(300,),
        classes=46, full=(8982, 2246), reduced=(4096, 1024), variant="softmax+from_logits",
        target_accuracy={"reduced": 0.40}),
    "plant_cnn": _builtin(
        "plant_cnn", dataset="plants", seed="001", description="Kaggle TPU guide, plant pathology 2020: apple-leaf "
        "JPEGs (4 classes, 2048 x 1365) read and decoded in the input pipeline; a small plain CNN on 64 x 64 "
        "inputs (Conv2D 8/16/32/64 + MaxPool, global max pool, Dense 4 softmax), Adam; crop/flip/rot90/brightness/"
        "contrast in the pipeline",
        shape=(64, 64, 3), classes=4, full=plants.sizes("full"), reduced=plants.sizes("reduced"),
        augment=("crop", "flip", "rot90", "brightness", "contrast"), target_accuracy={"reduced": PLANT_TARGET}),
    "plant_cnn_layer_aug": _builtin(
        "plant_cnn_layer_aug", dataset="plants", seed="001", description="plant_cnn with its augmentation as Keras "
        "layers inside the model (RandomFlip/RandomRotation/RandomContrast), as seed 001 first tried: a test case "
        "(a TPU cannot compile it under TensorFlow)", shape=(64, 64, 3), classes=4, full=plants.sizes("full"),
        reduced=plants.sizes("reduced"), variant="augmentation layers in the model",
        target_accuracy={"reduced": PLANT_TARGET}),
    "plant_transfer": _builtin(
        "plant_transfer", dataset="plants", seed="001", description="seed 001's transfer-learning stage: a "
        "keras.applications MobileNetV2 (alpha 0.35, 96 x 96, ImageNet weights when the Keras cache has them, "
        "else random) + global average pool, Dropout 0.2, Dense 4 softmax; backbone frozen for half the epochs "
        "(Adam 1e-3), then fine-tuned (Adam 1e-5); pipeline augmentation as plant_cnn", shape=(96, 96, 3),
        classes=4, full=plants.sizes("full"), reduced=plants.sizes("reduced"),
        augment=("crop", "flip", "rot90", "brightness", "contrast"), frozen=("backbone",)),
}


class WorkloadError(ValueError):
    """A user workload (an import path) that cannot be used: the message names the path and the problem."""


_IMPORTED: dict[str, tuple[Workload, tuple[np.ndarray, ...]]] = {}  # per process: resolved once


def is_import_path(name: str) -> bool:
    """``my_pkg.my_module:make`` (a user workload), as opposed to a built-in's name."""
    return ":" in name


def imported(path: str) -> tuple[Workload, tuple[np.ndarray, ...]]:
    """The user workload at ``path`` (``module:factory``, importable from the current folder or the
    environment) and its arrays, resolved once per process; WorkloadError naming what is wrong.

    Imports the user's module (which may import Keras: this is the user's code, not bench's).
    """
    if path in _IMPORTED:
        return _IMPORTED[path]
    module, _, attr = path.partition(":")
    if not module or not attr:
        raise WorkloadError(f"{path}: not an import path; write module:factory, e.g. my_pkg.my_module:make")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m` does: the current folder's modules are importable
    try:
        mod = importlib.import_module(module)
    except Exception as e:
        raise WorkloadError(f"{path}: cannot import {module} ({type(e).__name__}: {e})") from None
    factory = getattr(mod, attr, None)
    if not callable(factory):
        raise WorkloadError(f"{path}: {module} has no callable {attr!r}")
    try:
        wl = factory()
    except Exception as e:
        raise WorkloadError(f"{path}: {attr}() raised {type(e).__name__}: {e}") from None
    if not isinstance(wl, Workload):
        raise WorkloadError(f"{path}: {attr}() returned {type(wl).__name__}, not a bench Workload")
    if wl.build_model is None or wl.compile_kwargs is None or not callable(wl.build_model):
        raise WorkloadError(f"{path}: the Workload needs build_model (a callable) and compile_kwargs")
    if isinstance(wl.data, str):  # a data source: adapted in get_workload, loaded by the worker
        try:
            sources.parse(wl.data)
        except sources.SourceError as e:
            raise WorkloadError(f"{path}: data={e}") from None
        meta = dataclasses.replace(wl, source=path, dataset=wl.dataset or "arrays")
        _IMPORTED[path] = (meta, ())
        return _IMPORTED[path]
    arrays = _user_arrays(path, wl)
    x_train, y_train, x_val, y_val = arrays
    meta = dataclasses.replace(wl, source=path, dataset=wl.dataset or "arrays", shape=tuple(x_train.shape[1:]),
                               classes=int(max(y_train.max(), y_val.max())) + 1,
                               full=(len(x_train), len(x_val)), reduced=(len(x_train), len(x_val)))
    _IMPORTED[path] = (meta, arrays)
    return _IMPORTED[path]


def _user_arrays(path: str, wl: Workload) -> tuple[np.ndarray, ...]:
    """The four arrays of a user workload's ``data`` callable, checked."""
    if not callable(wl.data):
        raise WorkloadError(f"{path}: data={wl.data!r}; a user workload's data is a callable returning "
                            f"(x_train, y_train, x_val, y_val) NumPy arrays, or a data source ({sources.SPEC_HELP})")
    try:
        out = wl.data()
    except Exception as e:
        raise WorkloadError(f"{path}: data() raised {type(e).__name__}: {e}") from None
    if not isinstance(out, tuple | list) or len(out) != 4:
        raise WorkloadError(f"{path}: data() must return (x_train, y_train, x_val, y_val)")
    arrays = tuple(np.asarray(a) for a in out)
    names = ("x_train", "y_train", "x_val", "y_val")
    for (xn, yn), (x, y) in zip((names[:2], names[2:]), (arrays[:2], arrays[2:]), strict=True):
        if len(x) != len(y) or len(x) == 0:
            raise WorkloadError(f"{path}: {xn} has {len(x)} examples and {yn} {len(y)}; they must match "
                                "(and not be empty)")
        if y.ndim != 1 or not np.issubdtype(y.dtype, np.integer) or y.min() < 0:
            raise WorkloadError(f"{path}: {yn} must be integer class ids of shape (n,), got {y.dtype} "
                                f"{y.shape} (one-hot labels: use labels.argmax(axis=1))")
    if arrays[0].shape[1:] != arrays[2].shape[1:]:
        raise WorkloadError(f"{path}: x_train examples have shape {arrays[0].shape[1:]}, x_val "
                            f"{arrays[2].shape[1:]}; they must match")
    return arrays


def get_workload(name: str, data: str = sources.SYNTHETIC) -> Workload:
    """The workload called ``name`` (a built-in factory's result, or a user workload's import path) on the
    data source ``data`` (``synthetic``: the workload's own data), its shape, classes and sizes adapted to
    that source; KeyError naming the allowed values for an unknown name, WorkloadError for a bad import
    path or a source the workload cannot take, SourceError for a source that cannot be read."""
    if is_import_path(name):
        wl = imported(name)[0]
    else:
        try:
            factory = WORKLOADS[name]
        except KeyError:
            raise KeyError(f"unknown workload {name!r}; allowed: {', '.join(WORKLOADS)}, or an import path "
                           "my_pkg.my_module:make") from None
        wl = factory()
    spec = data if not sources.is_synthetic(data) else wl.data if isinstance(wl.data, str) else sources.SYNTHETIC
    if sources.is_synthetic(spec):
        return wl
    return on_source(wl, sources.describe(spec))


def on_source(wl: Workload, src: sources.Source) -> Workload:
    """``wl`` adapted to the data source ``src``: its input shape (images from files keep the workload's
    height, width and channels: they are resized and converted to them; arrays bring their own), the
    source's classes (a binary workload stays binary only on 2 classes), vocabulary and sizes (``full``:
    the whole source; ``reduced``: the workload's reduced sizes where the source is larger)."""
    name = wl.source or wl.name
    if wl.shape and not wl.source and wl.modality != src.modality:
        raise WorkloadError(f"{name} takes {wl.modality} input; {src.spec} holds {src.modality}")
    if src.encoded:
        shape = wl.shape if len(wl.shape) == 3 else src.shape
    elif src.modality == "tokens":
        shape = wl.shape if len(wl.shape) == 1 else (300,)
    else:
        shape = src.shape
    full = (src.n_train, src.n_val)
    reduced = (min(wl.reduced[0], full[0]), min(wl.reduced[1], full[1])) if all(wl.reduced) and not wl.source else full
    return dataclasses.replace(wl, dataset=src.spec, shape=tuple(shape), classes=src.classes, full=full,
                               reduced=reduced, binary_labels=wl.binary_labels and src.classes == 2,
                               vocab=src.vocab if src.modality == "tokens" else 0)


def dataset_size(name: str, scale: str, n_train: int = 0, n_val: int = 0,
                 data: str = sources.SYNTHETIC) -> tuple[int, int]:
    """(n_train, n_val) of a workload at ``scale`` ('reduced' | 'full') on ``data``; explicit sizes win when
    > 0 (capped at what the source holds)."""
    workload = get_workload(name, data)
    base = workload.full if scale == "full" else workload.reduced
    if uses_source(workload) or workload.source or workload.dataset == "plants":  # files: no more than they hold
        return (min(n_train or base[0], workload.full[0]), min(n_val or base[1], workload.full[1]))
    return (n_train or base[0], n_val or base[1])


def uses_source(workload: Workload) -> bool:
    """The workload reads a data source (``keras:``, ``folder:``, …), not synthetic data or user arrays."""
    return ":" in workload.dataset


def source_of(workload: Workload, data_scale: str) -> str:
    """The data source spec a workload's examples are read from ("" for arrays in memory): its source, or
    for the generated plant images (synthetic, but JPEG files) their ``csv:`` spec at ``data_scale``."""
    if uses_source(workload):
        return workload.dataset
    return plants.spec(data_scale) if workload.dataset == "plants" else ""
