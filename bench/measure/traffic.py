"""Analytic bytes a training step moves to and from device memory (imports Keras, no framework): the memory floor's
numerator, per example (activations) and per step (weights, gradients, optimizer slots), counted layer by layer so a
reviewer can redo it by hand. Method: docs/reports.md, *What limits it*.
"""

from __future__ import annotations

import math
from typing import Any

import keras

# The record's ``byte_count``: how ``bytes_per_example`` and ``weight_bytes_per_step`` were counted
BYTE_COUNT = ("layer-by-layer: activations in+out forward, grad-out+saved-in+grad-in backward; weights read once, "
              "trainable ones 5x more, optimizer slots read+written")
ITEMSIZE = {"float16": 2, "bfloat16": 2, "float64": 8, "int64": 8, "int8": 1, "uint8": 1, "bool": 1}  # else 4
VIEWS = (keras.layers.Flatten, keras.layers.Reshape, keras.layers.InputLayer)


def _elements(tensors: Any) -> int:
    """Elements of one example over a tensor or a nest of them (the batch dimension dropped)."""
    return sum(math.prod(int(d) for d in t.shape[1:]) for t in keras.tree.flatten(tensors))


def _itemsize(dtype: Any) -> int:
    """Bytes of one element of ``dtype``."""
    return ITEMSIZE.get(keras.backend.standardize_dtype(dtype), 4)


def _activation_bytes(model: keras.Model, upstream_trains: bool) -> tuple[int, bool]:
    """(activation bytes per example, whether a gradient flows out of the model's last layer)."""
    total, flows = 0, upstream_trains
    for layer in model.layers:
        if isinstance(layer, keras.Model):
            inner, flows = _activation_bytes(layer, flows)
            total += inner
            continue
        if isinstance(layer, VIEWS):
            continue
        size = _itemsize(layer.compute_dtype)
        inputs, output = _elements(layer.input), _elements(layer.output)
        total += size * (inputs + output)  # forward
        on_path = flows or bool(layer.trainable_weights)
        if on_path:
            total += size * (output + inputs + (inputs if flows else 0))  # backward
        flows = on_path
    return total, flows


def bytes_per_example(model: keras.Model) -> int:
    """Activation bytes one example moves in a training step (module docstring)."""
    return int(_activation_bytes(model, False)[0])


def _bytes(variables: Any) -> int:
    """Bytes held by ``variables`` at their own dtypes."""
    return int(sum(math.prod(int(d) for d in v.shape) * _itemsize(v.dtype) for v in variables))


def weight_bytes_per_step(model: keras.Model, optimizer: Any = None) -> int:
    """Weight and optimizer-state bytes one training step moves, whatever the batch (module docstring):
    every weight read forward, each trainable one 5x more (read backward, gradient written, weight and gradient
    read and the weight written by the update), each slot read and written (``optimizer``'s variables with a
    trainable weight's shape; None or an unbuilt optimizer: no slots)."""
    trainable = _bytes(model.trainable_weights)
    frozen = _bytes(model.non_trainable_weights)
    slots = _bytes(v for v in (getattr(optimizer, "variables", None) or []) if len(v.shape) > 0)
    return int(frozen + 6 * trainable + 2 * slots)
