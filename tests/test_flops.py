"""Analytic FLOPs: the forward count agrees with TensorFlow's profiler; the training count (forward + weight
gradients + input gradients only where a gradient flows) agrees with counts written out by hand here."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")

from bench.measure.flops import datasheet_peak, forward_flops_per_example, train_flops_per_example  # noqa: E402
from bench.workloads.models import build_model  # noqa: E402

# Conv1D runs as Conv2D; pooling/activations/BatchNorm are not counted
COUNTED_OPS = ("Conv2D", "DepthwiseConv2dNative", "MatMul", "BiasAdd")


def profiled_forward_flops(model, batch: int) -> dict[str, int]:
    """TF's profiler on a frozen, fully static forward graph: FLOPs per op type."""
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2_as_graph

    dtype = tf.int32 if len(model.input_shape) == 2 else tf.float32
    fn = tf.function(lambda x: model(x, training=False)).get_concrete_function(
        tf.TensorSpec([batch, *model.input_shape[1:]], dtype))
    frozen, _ = convert_variables_to_constants_v2_as_graph(fn)
    opts = tf.compat.v1.profiler.ProfileOptionBuilder.float_operation()
    opts["output"] = "none"
    prof = tf.compat.v1.profiler.profile(graph=frozen.graph, run_meta=tf.compat.v1.RunMetadata(), cmd="op",
                                         options=opts)
    by_op: dict[str, int] = {}

    def walk(node) -> None:
        for child in node.children:
            by_op[child.name] = by_op.get(child.name, 0) + child.float_ops
            walk(child)

    walk(prof)
    return by_op


# plant_transfer: a keras.applications MobileNetV2 nested as a layer, with depthwise convolutions
@pytest.mark.parametrize("name", ["fashion_cnn", "catsdogs_cnn", "reuters_textcnn", "plant_cnn", "plant_transfer"])
def test_analytic_forward_matches_profiler_within_2_percent(name: str) -> None:
    model = build_model(name)
    batch = 4
    analytic = forward_flops_per_example(model) * batch
    by_op = profiled_forward_flops(model, batch)
    profiled = sum(by_op.get(op, 0) for op in COUNTED_OPS)
    assert profiled == pytest.approx(analytic, rel=0.02), by_op


def test_known_forward_counts() -> None:
    # fashion_cnn: Conv2D (2*9*1 + 1 bias) * 26*26*64 + Dense (2*10816 + 1) * 10
    assert forward_flops_per_example(build_model("fashion_cnn")) == 19 * 26 * 26 * 64 + (2 * 10816 + 1) * 10


def test_training_flops_of_fashion_cnn_by_hand() -> None:
    """Conv2D 64 3x3 on 28x28x1 -> 26x26x64, MaxPool, Dense 10 on 13*13*64 = 10,816 features."""
    conv_macs, conv_bias = 26 * 26 * 64 * 9 * 1, 26 * 26 * 64  # 389,376 multiply-adds, 43,264 bias adds
    dense_macs, dense_bias = 10_816 * 10, 10
    forward = 2 * conv_macs + conv_bias + 2 * dense_macs + dense_bias
    assert forward == 1_038_346
    weight_grads = forward  # both layers train: their weight and bias gradients cost what their forward does
    input_grads = 2 * dense_macs  # only into the Dense layer's input; nothing needs a gradient into the images
    assert train_flops_per_example(build_model("fashion_cnn")) == forward + weight_grads + input_grads == 2_293_012
    assert 3 * forward / 2_293_012 == pytest.approx(1.359, abs=1e-3)  # what "3 x forward" over-counted


def test_training_flops_of_catsdogs_cnn_by_hand() -> None:
    """Three same-padded 3x3 convolutions with 2x2 pooling on 128x128x3, Dense 256/128/1."""
    layers = [  # (multiply-adds, bias adds) per example
        (128 * 128 * 32 * 9 * 3, 128 * 128 * 32),  # Conv2D 32 on 128x128x3
        (64 * 64 * 64 * 9 * 32, 64 * 64 * 64),  # Conv2D 64 on 64x64x32
        (32 * 32 * 128 * 9 * 64, 32 * 32 * 128),  # Conv2D 128 on 32x32x64
        (16 * 16 * 128 * 256, 256),  # Dense 256 on the 32,768 flattened features
        (256 * 128, 128),  # Dense 128
        (128 * 1, 1),  # Dense 1, sigmoid
    ]
    forward = sum(2 * m + b for m, b in layers)
    assert forward == 348_062_337
    input_grads = sum(2 * m for m, _ in layers[1:])  # every layer but the first passes a gradient back
    expected = 2 * forward + input_grads
    assert train_flops_per_example(build_model("catsdogs_cnn")) == expected == 1_014_957_570


def test_no_weight_gradients_in_a_frozen_backbone_and_input_gradients_after_an_embedding() -> None:
    """plant_transfer's frozen stage trains only its head: no weight or input gradients inside the backbone.
    reuters_textcnn's first Conv1D follows a trainable Embedding: it pays an input gradient."""
    model = build_model("plant_transfer")
    full = train_flops_per_example(model)
    model.get_layer("backbone").trainable = False  # what the worker does for the first stage
    frozen = train_flops_per_example(model)
    forward = forward_flops_per_example(model)
    head = [layer for layer in model.layers if layer.trainable_weights]
    assert head and frozen < full
    from bench.measure.flops import layer_macs
    assert frozen == forward + sum(2 * layer_macs(x)[0] + layer_macs(x)[1] for x in head)  # weights only, no input
    text = build_model("reuters_textcnn")
    convs = [x for x in text.layers if x.__class__.__name__ == "Conv1D"]
    dense = [x for x in text.layers if x.__class__.__name__ == "Dense"]
    grads = sum(2 * layer_macs(x)[0] + layer_macs(x)[1] + 2 * layer_macs(x)[0] for x in convs + dense)
    assert train_flops_per_example(text) == forward_flops_per_example(text) + grads


def test_datasheet_lookup() -> None:
    # a v3 chip (123 TFLOPS bf16) holds two cores; TPUStrategy on a v3-8 has 8 replicas = 4 chips
    assert datasheet_peak("tpu", "v3-8", "float32", num_replicas=8) == pytest.approx(4 * 123e12)
    assert datasheet_peak("tpu", "v5litepod-4", "mixed_bfloat16", num_replicas=4) == pytest.approx(4 * 197e12)
    assert datasheet_peak("gpu", "Tesla T4", "mixed_float16") == 65e12
    assert datasheet_peak("gpu", "NVIDIA A100-SXM4-40GB", "float32", num_replicas=2) == 2 * 19.5e12
    assert datasheet_peak("gpu", "NVIDIA L40S", "float32") is None  # not the L4's peak
    assert datasheet_peak("cpu", None, "float32") is None
    assert datasheet_peak("gpu", "Unknown X", "float32") is None
    # float32 on an A100/H100 with TensorFloat-32 (TensorFlow's and XLA's default there) runs on the tensor cores:
    # MFU is held against the TF32 peak, so it cannot exceed 100 % of an fp32 figure the GPU never ran at
    assert datasheet_peak("gpu", "NVIDIA A100-SXM4-40GB", "float32", math_mode="tf32") == 156e12
    assert datasheet_peak("gpu", "NVIDIA H100 80GB HBM3", "float32", math_mode="tf32") == 495e12
    assert datasheet_peak("gpu", "NVIDIA H100 80GB HBM3", "float32", math_mode="fp32") == 67e12
    assert datasheet_peak("gpu", "Tesla T4", "float32", math_mode="tf32") is None  # Turing has no TF32
