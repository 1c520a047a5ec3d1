"""Per-example validation predictions of a trained model, outside every timed region: what a paired test
between two configurations needs (:mod:`bench.predictions` stores them in the record)."""

from __future__ import annotations

from typing import Any


def val_predictions(model: Any, pipes: Any) -> dict[str, Any]:
    """The final model's predicted class for every validation example it was evaluated on, with the labels, in
    the split's order (:mod:`bench.predictions`): what a paired test between two configurations needs. Outside
    every timed region. A one-unit output is a binary classifier (threshold 0.5 on probabilities, 0 on logits).
    The test suite checks that their accuracy is the epoch's ``val_accuracy``."""
    import numpy as np

    from bench.predictions import encode

    loss = getattr(model, "loss", None)
    config = loss.get_config() if loss is not None and hasattr(loss, "get_config") else {}
    threshold = 0.0 if isinstance(config, dict) and config.get("from_logits") else 0.5
    predicted, labels = [], []
    import keras

    # TensorFlow: a plain forward call (predict_on_batch under MirroredStrategy returned every replica's copy of
    # the batch). JAX: predict_on_batch, one jitted forward pass (a plain call there runs op by op, each op
    # compiled on its first use: 12 s for MobileNetV2 on a 2-core CPU, against about 2 s jitted)
    jax = keras.backend.backend() == "jax"
    for x, y in pipes.val_pass():
        out = np.asarray(model.predict_on_batch(x) if jax else keras.ops.convert_to_numpy(model(x, training=False)),
                         dtype=np.float64)
        out = out.reshape(len(out), -1)
        predicted.append((out[:, 0] > threshold).astype(np.int64) if out.shape[1] == 1 else out.argmax(axis=1))
        rows = np.asarray(y).reshape(len(out), -1)  # class ids, (batch, 1) binary floats, or one-hot rows
        labels.append((rows.argmax(axis=1) if rows.shape[1] > 1 else rows[:, 0]).astype(np.int64))
    return encode(np.concatenate(predicted), np.concatenate(labels))
