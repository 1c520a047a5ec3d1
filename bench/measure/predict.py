"""Per-example validation predictions of a trained model, outside every timed region: what a paired test
between two configurations needs (:mod:`bench.predictions` stores them in the record); and the validation examples
whole batches leave out, scored after each epoch (:class:`ValidationRest`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import keras
import numpy as np

from bench.records.backends import declares


def classify(model: Any, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """(predicted class, label) per example of one batch, as Keras' ``accuracy`` judges them: argmax of the outputs,
    or for a one-unit output (a binary classifier) a threshold of 0.5 on probabilities, 0 on logits; labels read
    back as class ids from ids, (batch, 1) binary floats or one-hot rows."""
    loss = getattr(model, "loss", None)
    config = loss.get_config() if loss is not None and hasattr(loss, "get_config") else {}
    threshold = 0.0 if isinstance(config, dict) and config.get("from_logits") else 0.5
    # TensorFlow: a plain forward call (predict_on_batch under MirroredStrategy returned every replica's copy of
    # the batch). A backend that always compiles (JAX): predict_on_batch, one jitted forward pass (a plain call there
    # runs op by op, each op compiled on its first use: 12 s for MobileNetV2 on a 2-core CPU, against about 2 s
    # jitted)
    jitted = declares(keras.backend.backend(), "always_compiles")  # JAX's declaration says so
    out = np.asarray(model.predict_on_batch(x) if jitted else keras.ops.convert_to_numpy(model(x, training=False)),
                     dtype=np.float64)
    out = out.reshape(len(out), -1)
    predicted = (out[:, 0] > threshold).astype(np.int64) if out.shape[1] == 1 else out.argmax(axis=1)
    rows = np.asarray(y).reshape(len(out), -1)
    return predicted, (rows.argmax(axis=1) if rows.shape[1] > 1 else rows[:, 0]).astype(np.int64)


def val_predictions(model: Any, pipes: Any) -> dict[str, Any]:
    """The final model's predicted class for every validation example, with the labels, in the split's order
    (:mod:`bench.predictions`): the whole batches, then the remainder (``pipes.val_rest``). Outside every timed
    region. The test suite checks that their accuracy is the last epoch's ``val_accuracy``."""
    from bench.predictions import encode

    predicted, labels = [], []
    for x, y in pipes.val_pass():
        p, lab = classify(model, x, y)
        predicted.append(p)
        labels.append(lab)
    rest = getattr(pipes, "val_rest", None)
    if rest is not None:
        p, lab = classify(model, rest[0], rest[1])
        predicted.append(p[: rest[2]])
        labels.append(lab[: rest[2]])
    return encode(np.concatenate(predicted), np.concatenate(labels))


class ValidationRest(keras.callbacks.Callback):
    """Keras validates on whole batches only (static shapes), so a split that batches do not divide loses its last
    ``n_val % batch`` examples, a different subset at every batch size. After each epoch, outside its timed region,
    this scores them (one batch padded to full size, predicted, the padding dropped) and rewrites the epoch's row of
    ``timer``: ``val_accuracy`` over every example, Keras' own figure as ``val_accuracy_batches``, ``val_examples``
    scored and ``val_rest_s`` (seconds). ``val_loss`` stays Keras' (whole batches)."""

    def __init__(self, timer: Any, pipes: Any, global_batch_size: int,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        super().__init__()
        self.timer, self.pipes, self.clock = timer, pipes, clock
        self.batches = pipes.validation_steps * global_batch_size  # examples Keras' validation scores

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        row = self.timer.rows[-1] if self.timer.rows else None
        if row is None or row.get("epoch") != epoch + 1 or self.timer.diverged or "val_accuracy" not in row:
            return
        rest = getattr(self.pipes, "val_rest", None)
        row["val_examples"] = self.batches + (rest[2] if rest is not None else 0)
        if rest is None:
            return
        t = self.clock()
        predicted, labels = classify(self.model, rest[0], rest[1])
        correct = float(np.sum(predicted[: rest[2]] == labels[: rest[2]]))
        row["val_accuracy_batches"] = row["val_accuracy"]
        row["val_accuracy"] = (row["val_accuracy"] * self.batches + correct) / row["val_examples"]
        row["val_rest_s"] = self.clock() - t
        self.timer.ended_at = self.clock()  # fit's teardown starts after this
