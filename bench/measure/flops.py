"""Analytic training FLOPs per example of a Keras model (imports Keras, no framework), counted so a reviewer can redo
them by hand: forward (Conv and Dense layers), weight gradients where weights train, input gradients only where a
trainable layer lies upstream; lookups, pooling, normalisation and activations count zero; a layer with weights the
count does not see into is named (:func:`uncounted_layers`). Method: docs/reports.md, *What limits it*.
"""

from __future__ import annotations

import math

import keras

from bench.measure.datasheets import DATASHEET_PEAK_FLOPS, TPU_REPLICAS_PER_CHIP, datasheet_peak

__all__ = ["DATASHEET_PEAK_FLOPS", "FLOP_COUNT", "TPU_REPLICAS_PER_CHIP", "datasheet_peak",
           "forward_flops_per_example", "layer_macs", "train_flops_per_example", "uncounted_layers"]

# The record's ``flop_count``: how ``flops_per_example`` was counted. Records without it counted 3 x forward.
FLOP_COUNT = "forward+weight_grads+input_grads_where_needed"


def layer_macs(layer: keras.layers.Layer) -> tuple[int, int]:
    """(multiply-adds, bias adds) of one example through one Conv1D/Conv2D/DepthwiseConv2D/Dense layer; (0, 0)
    for any other layer."""
    if isinstance(layer, keras.layers.DepthwiseConv2D):
        _, h, w, cout = layer.output.shape  # cout = channels in x depth_multiplier, one kernel each
        kh, kw = layer.kernel_size
        return kh * kw * h * w * cout, layer.use_bias * h * w * cout
    if isinstance(layer, keras.layers.Conv2D):
        _, h, w, cout = layer.output.shape
        kh, kw = layer.kernel_size
        return kh * kw * layer.input.shape[-1] * h * w * cout, layer.use_bias * h * w * cout
    if isinstance(layer, keras.layers.Conv1D):
        _, length, cout = layer.output.shape
        return layer.kernel_size[0] * layer.input.shape[-1] * length * cout, layer.use_bias * length * cout
    if isinstance(layer, keras.layers.Dense):  # on a sequence (batch, length, features): once per position
        positions = math.prod(int(d) for d in layer.output.shape[1:-1])
        return positions * layer.input.shape[-1] * layer.units, positions * layer.use_bias * layer.units
    return 0, 0


# Layers with weights whose FLOPs the count takes as zero on purpose (lookups, normalisation: module docstring)
ZERO_FLOP = (keras.layers.Embedding, keras.layers.BatchNormalization, keras.layers.LayerNormalization,
             keras.layers.GroupNormalization, keras.layers.Normalization)


def uncounted_layers(model: keras.Model) -> list[str]:
    """The layers with weights the counts do not see into (``MultiHeadAttention (8,352 params)``, a user's own
    layer holding Dense layers): their FLOPs and inner bytes are missing, so the floors are lower bounds only."""
    out = []
    for layer in model.layers:
        if isinstance(layer, keras.Model):
            out += uncounted_layers(layer)
        elif layer.weights and layer_macs(layer) == (0, 0) and not isinstance(layer, ZERO_FLOP):
            out.append(f"{type(layer).__name__} ({layer.count_params():,} params)")
    return out


def forward_flops_per_example(model: keras.Model) -> int:
    """Analytic forward FLOPs for one example: Conv1D/Conv2D, DepthwiseConv2D and Dense layers (2 x
    multiply-adds + bias), including those of a model nested as a layer (a ``keras.applications`` backbone)."""
    total = 0
    for layer in model.layers:
        if isinstance(layer, keras.Model):
            total += forward_flops_per_example(layer)
        else:
            macs, bias = layer_macs(layer)
            total += 2 * macs + bias
    return int(total)


def _backward(model: keras.Model, upstream_trains: bool) -> tuple[int, bool]:
    """(backward FLOPs per example, whether a gradient flows out of the model's last layer)."""
    total, flows = 0, upstream_trains
    for layer in model.layers:
        if isinstance(layer, keras.Model):
            inner, flows = _backward(layer, flows)
            total += inner
            continue
        macs, bias = layer_macs(layer)
        if layer.trainable_weights:
            total += 2 * macs + bias  # weight and bias gradients
        if flows:
            total += 2 * macs  # the gradient into this layer's input, on its way to a trainable layer upstream
        flows = flows or bool(layer.trainable_weights)
    return total, flows


def train_flops_per_example(model: keras.Model) -> int:
    """Training FLOPs per example as the model's layers are now trainable: forward + weight gradients + input
    gradients where a gradient flows (module docstring)."""
    return forward_flops_per_example(model) + _backward(model, False)[0]
