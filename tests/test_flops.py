"""Analytic training FLOPs (3 x forward) agree with TensorFlow's profiler on the forward pass."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")

from bench.runner.flops import datasheet_peak, forward_flops_per_example, train_flops_per_example  # noqa: E402
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
    assert train_flops_per_example(model) == 3 * forward_flops_per_example(model)


def test_known_forward_counts() -> None:
    # fashion_cnn: Conv2D (2*9*1 + 1 bias) * 26*26*64 + Dense (2*10816 + 1) * 10
    assert forward_flops_per_example(build_model("fashion_cnn")) == 19 * 26 * 26 * 64 + (2 * 10816 + 1) * 10


def test_datasheet_lookup() -> None:
    # a v3 chip (123 TFLOPS bf16) holds two cores; TPUStrategy on a v3-8 has 8 replicas = 4 chips
    assert datasheet_peak("tpu", "v3-8", "float32", num_replicas=8) == pytest.approx(4 * 123e12)
    assert datasheet_peak("tpu", "v5litepod-4", "mixed_bfloat16", num_replicas=4) == pytest.approx(4 * 197e12)
    assert datasheet_peak("gpu", "Tesla T4", "mixed_float16") == 65e12
    assert datasheet_peak("gpu", "NVIDIA A100-SXM4-40GB", "float32", num_replicas=2) == 2 * 19.5e12
    assert datasheet_peak("gpu", "NVIDIA L40S", "float32") is None  # not the L4's peak
    assert datasheet_peak("cpu", None, "float32") is None
    assert datasheet_peak("gpu", "Unknown X", "float32") is None
