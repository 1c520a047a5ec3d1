"""Per-example validation predictions in a record (``val_predictions``): compact, framework-free, shared by both
halves. Stored in the validation split's fixed order, so two records pair example by example on the prefix both
evaluated. Encoding (``format: 1``): docs/records.md, *Fields* (accuracy).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import numpy as np

FORMAT = 1


@dataclass(frozen=True)
class Predictions:
    """The predicted class and the label of each of ``n`` validation examples, in the split's order."""

    predicted: np.ndarray
    labels: np.ndarray

    @property
    def n(self) -> int:
        """Number of examples."""
        return len(self.labels)

    @property
    def correct(self) -> np.ndarray:
        """Boolean per example: predicted == label."""
        correct: np.ndarray = self.predicted == self.labels  # typed: NumPy's stub gives == on arrays as Any
        return correct

    @property
    def accuracy(self) -> float:
        """Fraction of examples predicted right."""
        return float(self.correct.mean()) if self.n else float("nan")


def encode(predicted: Any, labels: Any) -> dict[str, Any]:
    """The record's ``val_predictions`` object for these class ids (any integer arrays of equal length)."""
    predicted, labels = np.asarray(predicted).astype(np.int64).ravel(), np.asarray(labels).astype(np.int64).ravel()
    if predicted.shape != labels.shape:
        raise ValueError(f"{len(predicted)} predictions for {len(labels)} labels")
    dtype = "uint8" if max(int(predicted.max(initial=0)), int(labels.max(initial=0))) < 256 else "uint16"

    def pack(a: np.ndarray) -> str:
        return base64.b64encode(a.astype(np.dtype(dtype).newbyteorder("<")).tobytes()).decode("ascii")

    return {"format": FORMAT, "n": len(labels), "dtype": dtype, "predicted": pack(predicted),
            "labels": pack(labels)}


def decode(obj: Any) -> Predictions | None:
    """The :class:`Predictions` of a record's ``val_predictions`` (None when absent or unreadable: records
    written before bench stored them, or by a newer format)."""
    if not isinstance(obj, dict) or obj.get("format") != FORMAT or obj.get("dtype") not in ("uint8", "uint16"):
        return None
    try:
        dtype = np.dtype(obj["dtype"]).newbyteorder("<")
        predicted = np.frombuffer(base64.b64decode(obj["predicted"]), dtype=dtype).astype(np.int64)
        labels = np.frombuffer(base64.b64decode(obj["labels"]), dtype=dtype).astype(np.int64)
    except (KeyError, TypeError, ValueError):
        return None
    if len(predicted) != len(labels) or len(labels) != obj.get("n"):
        return None
    return Predictions(predicted, labels)


def paired(a: Predictions, b: Predictions) -> tuple[np.ndarray, np.ndarray] | None:
    """(correct of ``a``, correct of ``b``) on the prefix of the validation split both evaluated; None when their
    labels differ there (not the same examples: another split, data set or order)."""
    n = min(a.n, b.n)
    if n == 0 or not np.array_equal(a.labels[:n], b.labels[:n]):
        return None
    return a.correct[:n], b.correct[:n]
