"""The :class:`Workload` dataclass, its error type and its training stages (no framework, no data access).

``Workload`` is defined here and re-exported as ``bench.workloads.Workload``, its public name (its
``__module__`` says so, for reprs and for pickles of notebook workloads).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import InitVar, dataclass
from typing import Any

CompileSettings = dict[str, Any] | Callable[[], dict[str, Any]]

# The loss kinds of a built-in's ``loss`` (bench.workloads.models.LOSSES builds them); a workload with
# ``binary_labels`` is compiled with binary cross-entropy whatever its loss kind.
SPARSE_CE = "sparse_categorical_crossentropy"
SOFTMAX_ON_PROBABILITIES = "softmax_on_probabilities"  # tutorial 004's bug: a softmax output, then from_logits=True
LOSS_KINDS = (SPARSE_CE, SOFTMAX_ON_PROBABILITIES)
# A built-in's output (``head``): logits, read by a loss with from_logits=True (the same math under every Keras
# backend), or the tutorials' probabilities (a sigmoid or softmax output read by the loss as probabilities: Keras'
# TensorFlow backend computes that loss from the logits behind the output, JAX and PyTorch clip the probabilities,
# and a saturated start can stop learning there: issue 51)
LOGITS = "logits"
PROBABILITIES = "probabilities"
HEADS = (LOGITS, PROBABILITIES)


class WorkloadError(ValueError):
    """A user workload (an import path) that cannot be used: the message names the path and the problem."""


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

    ``input_fn`` instead of ``data``: the user's own input pipeline, timed as-is (input pipeline ``user``):
    ``input_fn(split, global_batch_size, seed)`` with ``split`` ``"train"`` or ``"val"`` returns batches of
    ``global_batch_size`` examples as ``(x, y)``, the labels as the compiled loss wants them: a ``tf.data.Dataset``,
    a ``keras.utils.PyDataset`` or (any backend) an iterable of NumPy batches. What it returns goes into ``fit`` as
    Keras takes it: a finite one is an epoch (Keras iterates it afresh every epoch), an endless one is cut into
    epochs of ``full[0] // global_batch_size`` batches. ``full=(n_train, n_val)``, the examples of an epoch and of
    a validation pass, is required with it (bench never runs the pipeline outside a worker to count them).

    A built-in leaves ``build_model`` and ``compile_kwargs`` None and describes its compile settings as data
    (``optimizer``, ``learning_rate``, ``loss``, ``top_k``, with ``binary_labels``), which
    :func:`bench.workloads.models.compile_kwargs` turns into Keras objects; a workload with ``compile_kwargs``
    ignores them.
    """

    name: str  # in point ids and reports
    build_model: Callable[[], Any] | None = None  # None: a built-in's, attached in the worker
    compile_kwargs: CompileSettings | None = None
    data: str | Callable[[], tuple[Any, Any, Any, Any]] = "synthetic"  # or (x_train, y_train, x_val, y_val)
    dataset: str = ""  # the synthetic dataset it trains on (bench.data.synthetic)
    tutorial: str = ""  # the tutorial it reproduces: 000 Colab cats-vs-dogs, 002 Fashion-MNIST TPU, 004 Reuters Conv1D
    description: str = ""
    shape: tuple[int, ...] = ()
    classes: int = 0
    full: tuple[int, int] = (0, 0)  # (n_train, n_val) of the tutorial's real dataset
    reduced: tuple[int, int] = (0, 0)  # (n_train, n_val) for short CPU runs (data_scale=reduced)
    # random augmentation in the input pipeline (never as model layers: tutorial 001): True = flips, or a
    # tuple of bench.data.augment.KINDS
    augment: bool | tuple[str, ...] = False
    variant: str | None = None
    binary_labels: bool = False  # labels fed as (batch, 1) floats (a sigmoid output with binary cross-entropy)
    # labels fed as one-hot float32 rows when set: the name of the compiled loss or metric that wants them
    # (bench.workloads.labels: keras.io's categorical_crossentropy); set by bench, never by hand
    one_hot_labels: str = ""
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
    # a built-in's compile settings (used only without compile_kwargs): the keras.optimizers class and its
    # learning rate; the loss kind (LOSS_KINDS; binary_labels: binary cross-entropy instead), reported with
    # ``accuracy``; top_k > 0 adds top-k accuracy as ``top{k}_accuracy`` (not with binary labels)
    optimizer: str = "Adam"
    learning_rate: float = 1e-3
    loss: str = SPARSE_CE
    top_k: int = 0
    head: str = LOGITS  # a built-in's output: HEADS (a sigmoid or softmax one only in the tutorials' literal variants)
    # a built-in's definition: raised when its model or compile settings change what trains (records carry it as
    # ``workload_revision``; bench.workloads.registry.EARLIER says what an earlier one was)
    revision: int = 1
    input_fn: Callable[[str, int, int], Any] | None = None  # the user's own pipeline (class docstring), or data
    seed: InitVar[str] = ""  # deprecated, removed in bench 0.2.0: ``tutorial``'s earlier name (``.seed`` reads it)

    def __post_init__(self, seed: str) -> None:
        if isinstance(seed, _TutorialAlias):  # dataclasses.replace passing .seed back: nothing the caller set
            return
        if seed:
            warnings.warn("Workload(seed=...) is deprecated and goes in bench 0.2.0: the tutorial a workload "
                          "reproduces is Workload(tutorial=...); 'seed' means a random seed only", DeprecationWarning,
                          stacklevel=3)
            if not self.tutorial:
                object.__setattr__(self, "tutorial", seed)

    @property
    def modality(self) -> str:
        """``image`` (h, w, c), ``tokens`` (length,) or ``features`` (anything else)."""
        if len(self.shape) == 3:
            return "image"
        return "tokens" if self.vocab else "features"

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


Workload.__module__ = "bench.workloads"  # its public name (bench.Workload resolves there)


def is_import_path(name: str) -> bool:
    """``my_pkg.my_module:make`` (a user workload), as opposed to a built-in's name."""
    return ":" in name


PICKLED = "bench.workloads.pickled:"  # the import paths of workloads defined in a notebook
PICKLED_SEP = "__w"  # between a notebook factory's name and its hash: "pickled:digits__w8b98c27f…"


def notebook_name(name: str) -> str:
    """The function name in a notebook workload's import path (``digits``); "" for any other workload and
    for the older ``pickled:w<sha256>`` paths, which carried none."""
    label, sep, _ = name.removeprefix(PICKLED).rpartition(PICKLED_SEP)
    return label if name.startswith(PICKLED) and sep else ""


def shown(name: str) -> str:
    """A workload as messages show it: a built-in's name or a user's import path as given; a factory
    defined in a notebook by its function's name (``digits``), not the import path of its pickle
    (``bench.workloads.pickled:digits__w8b98…``, kept in records as ``workload_source``)."""
    if not name.startswith(PICKLED):
        return name
    label = notebook_name(name)
    return f"{label} (defined in the notebook)" if label else "a workload defined in the notebook"


def run_name(workloads: list[str]) -> str:
    """The name of a run given by its workloads alone (no suite): the names joined by ``-``, a user
    workload by its module (``examples.digits:make`` -> ``digits``), a notebook one by its function; after
    three, ``-and-N-more``. What run ids and records' ``suite`` show, e.g. ``fashion_cnn-digits``; two factories of
    one module by module and factory, ``my_models.make_ts-my_models.make_mlp``."""
    names = []
    modules = [w.partition(":")[0] for w in workloads if is_import_path(w) and not w.startswith(PICKLED)]
    for w in workloads:
        if w.startswith(PICKLED):
            label = notebook_name(w) or "notebook"
        elif is_import_path(w):
            module, _, factory = w.partition(":")
            label = module.rsplit(".", 1)[-1]
            if modules.count(module) > 1:  # two factories of one module: each by its own name
                label = f"{label}.{factory}"
        else:
            label = w
        names.append(re.sub(r"[^A-Za-z0-9_.]+", "_", label).strip("_.") or "workload")
    shown_names = names[:3] + ([f"and-{len(names) - 3}-more"] if len(names) > 3 else [])
    return "-".join(shown_names) or "workloads"


STAGES = ("frozen", "fine_tune")
MIN_STAGED_EPOCHS = 4  # each stage needs a warm-up epoch (tracing) and the last one a steady epoch after it


def stage_epochs(workload: Workload, epochs: int) -> list[tuple[str, int]]:
    """The stages a point of ``workload`` trains in, as (name, epochs): one ``("train", epochs)`` stage, or
    for a transfer-learning workload (``frozen`` layers) ``epochs // 2`` frozen epochs then the rest
    fine-tuning."""
    if not workload.frozen:
        return [("train", epochs)]
    return [(STAGES[0], epochs // 2), (STAGES[1], epochs - epochs // 2)]


class _TutorialAlias(str):
    """What ``Workload.seed`` reads: the tutorial, marked, so that ``dataclasses.replace`` (which passes every init
    argument back as the attribute of that name) neither warns nor overrides a ``tutorial`` it was given."""


# ``seed``, deprecated, reads as ``tutorial``: set after the class is made (the dataclass keeps it as an init
# argument), by setattr (to mypy the attribute is the init argument's str)
setattr(Workload, "seed", property(lambda self: _TutorialAlias(self.tutorial),  # noqa: B010
                                   doc="Deprecated, removed in bench 0.2.0: use ``tutorial``."))
