"""Which label format a model's compiled loss and metrics expect: integer class ids, as bench's data hold them, or
one-hot rows (:func:`expects_one_hot`; Keras' losses and metrics recognised by name, no framework).
Docs: docs/your-model-and-data.md, *Labels follow the model*.
"""

from __future__ import annotations

from typing import Any

# losses and metrics that take one-hot targets (as names, Keras classes, or Keras functions)
ONE_HOT_LOSSES = frozenset({"categorical_crossentropy", "categorical_focal_crossentropy", "categorical_hinge",
                            "CategoricalCrossentropy", "CategoricalFocalCrossentropy", "CategoricalHinge"})
ONE_HOT_METRICS = frozenset({"categorical_accuracy", "top_k_categorical_accuracy", "CategoricalAccuracy",
                             "TopKCategoricalAccuracy"} | ONE_HOT_LOSSES)
INTEGER, ONE_HOT, AS_GIVEN = "integer", "one_hot", "as given"  # as_given: a workload's input_fn feeds its own


def name_of(obj: Any) -> str:
    """A loss or metric as Keras names it: a string as it is, a function by ``__name__``, an object by class."""
    if isinstance(obj, str):
        return obj
    return str(getattr(obj, "__name__", None) or type(obj).__name__)


def expects_one_hot(settings: dict[str, Any]) -> str:
    """The loss or metric in ``model.compile`` keyword arguments ``settings`` that wants one-hot labels (its
    name), or "" when integer class ids fit (a single-output model; a dict or list of losses is left as it
    is)."""
    loss = settings.get("loss")
    if loss is not None and not isinstance(loss, dict | list | tuple) and name_of(loss) in ONE_HOT_LOSSES:
        return name_of(loss)
    metrics = settings.get("metrics") or []
    for m in metrics if isinstance(metrics, list | tuple) else []:
        if not isinstance(m, dict | list | tuple) and name_of(m) in ONE_HOT_METRICS:
            return name_of(m)
    return ""


def label_fix(settings: dict[str, Any]) -> str:
    """The advice when the compiled loss or metrics do not fit the labels bench feeds, naming the loss."""
    loss = settings.get("loss")
    name = name_of(loss) if loss is not None else "none"
    return (f"(compiled loss: {name}. bench feeds integer class ids 0..K-1, one-hot rows when the loss or a "
            "metric is categorical, e.g. categorical_crossentropy: for a K-unit output use "
            "sparse_categorical_crossentropy or categorical_crossentropy, with metrics that take the same labels)")


# losses that take probabilities unless built with from_logits=True (names, Keras classes or functions)
PROBABILITY_LOSSES = frozenset({"sparse_categorical_crossentropy", "categorical_crossentropy", "binary_crossentropy",
                                "categorical_focal_crossentropy", "binary_focal_crossentropy",
                                "SparseCategoricalCrossentropy", "CategoricalCrossentropy", "BinaryCrossentropy",
                                "CategoricalFocalCrossentropy", "BinaryFocalCrossentropy"})


def expects_probabilities(settings: dict[str, Any]) -> str:
    """The compiled loss's name when it takes probabilities (a cross-entropy without ``from_logits=True``), else
    "". A loss object says it in its config; a name or a function is Keras' default, probabilities."""
    loss = settings.get("loss")
    if loss is None or isinstance(loss, dict | list | tuple) or name_of(loss) not in PROBABILITY_LOSSES:
        return ""
    config = loss.get_config() if hasattr(loss, "get_config") else {}
    return "" if isinstance(config, dict) and config.get("from_logits") else name_of(loss)


def as_fed(workload: Any, x: Any, y: Any) -> tuple[Any, Any]:
    """A NumPy batch as the model is fed it: images (examples of shape (h, w, c)) as float32, uint8 pixels scaled to
    [0, 1], other inputs as given; labels in the compiled loss's format — (batch, 1) float32 for binary
    cross-entropy, one-hot float32 rows for a categorical loss (:func:`expects_one_hot`), else the class ids."""
    import numpy as np

    if len(workload.shape) == 3:
        x = x.astype(np.float32) / np.float32(255.0) if x.dtype == np.uint8 else x.astype(np.float32, copy=False)
    if workload.binary_labels:
        y = y.astype(np.float32)[:, None]
    elif workload.one_hot_labels:
        y = np.eye(workload.classes, dtype=np.float32)[y]
    return x, y
