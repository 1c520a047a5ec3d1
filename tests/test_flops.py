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


@pytest.mark.parametrize(("workload", "side", "train"), [("catsdogs_cnn_sigmoid", 128, 1_014_957_570),
                                                      ("catsdogs_cnn", 64, 253_888_002)])
def test_training_flops_of_catsdogs_cnn_by_hand(workload: str, side: int, train: int) -> None:
    """Three same-padded 3x3 convolutions with 2x2 pooling on side x side x 3 (the tutorial's 128, catsdogs_cnn's
    64), Dense 256/128/1."""
    s = side
    layers = [  # (multiply-adds, bias adds) per example
        (s * s * 32 * 9 * 3, s * s * 32),  # Conv2D 32 on s x s x 3
        (s * s // 4 * 64 * 9 * 32, s * s // 4 * 64),  # Conv2D 64 on s/2 x s/2 x 32
        (s * s // 16 * 128 * 9 * 64, s * s // 16 * 128),  # Conv2D 128 on s/4 x s/4 x 64
        (s * s // 64 * 128 * 256, 256),  # Dense 256 on the flattened s/8 x s/8 x 128 features
        (256 * 128, 128),  # Dense 128
        (128 * 1, 1),  # Dense 1
    ]
    forward = sum(2 * m + b for m, b in layers)
    assert side != 128 or forward == 348_062_337
    input_grads = sum(2 * m for m, _ in layers[1:])  # every layer but the first passes a gradient back
    expected = 2 * forward + input_grads
    assert train_flops_per_example(build_model(workload)) == expected == train


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


# Accelerator names exactly as the frameworks report them (issue 38): JAX's TPU device kinds (jax-ml/jax
# jax/_src/pallas/mosaic/tpu_info.py), TensorFlow's TPU_ACCELERATOR_TYPE, CUDA's GPU names; (name, replicas the
# framework shows for that slice, the chip model, its peak in bf16 per chip or its GPU's in the given arithmetic)
FRAMEWORK_NAMES = [
    ("tpu", "TPU v2", 8, "v2", 4 * 45e12), ("tpu", "v2-8", 8, "v2", 4 * 45e12),  # 2 cores per chip
    ("tpu", "TPU v3", 8, "v3", 4 * 123e12), ("tpu", "v3-8", 8, "v3", 4 * 123e12),
    ("tpu", "TPU v4", 4, "v4", 4 * 275e12), ("tpu", "v4-8", 4, "v4", 4 * 275e12),  # megacore: a chip, a device
    ("tpu", "TPU v4 lite", 1, "v4i", 137e12),
    ("tpu", "TPU v5 lite", 1, "v5e", 197e12), ("tpu", "TPU v5 lite", 8, "v5e", 8 * 197e12),  # Colab, Kaggle
    ("tpu", "TPU v5e", 8, "v5e", 8 * 197e12), ("tpu", "v5litepod-8", 8, "v5e", 8 * 197e12),
    ("tpu", "TPU v5", 4, "v5p", 4 * 459e12), ("tpu", "TPU v5p", 4, "v5p", 4 * 459e12),
    ("tpu", "v5p-8", 4, "v5p", 4 * 459e12),
    ("tpu", "TPU v6 lite", 8, "v6e", 8 * 918e12), ("tpu", "v6e-1", 1, "v6e", 918e12),
    ("tpu", "TPU7x", 8, "7x", 4 * 2307e12), ("tpu", "tpu7x-8", 8, "7x", 4 * 2307e12),
]
GPU_NAMES = [  # (CUDA's name, the table's model, fp32 / tf32 / bf16 dense peaks)
    ("NVIDIA H100 80GB HBM3", "H100", 67e12, 495e12, 989e12), ("NVIDIA H100 PCIe", "H100 PCIe", 51e12, 378e12, 756e12),
    ("NVIDIA H100 NVL", "H100 NVL", 60e12, 418e12, 835e12), ("NVIDIA H200", "H200", 67e12, 495e12, 989e12),
    ("NVIDIA H200 NVL", "H200 NVL", 60e12, 418e12, 835e12),
    ("NVIDIA A100-SXM4-80GB", "A100 80GB", 19.5e12, 156e12, 312e12),
    ("NVIDIA A100 80GB PCIe", "A100 80GB PCIe", 19.5e12, 156e12, 312e12),  # its own entry: 1,935 GB/s, not 2,039
    ("NVIDIA L4", "L4", 30.3e12, 60e12, 121e12), ("NVIDIA A10", "A10", 31.2e12, 62.5e12, 125e12),
    ("NVIDIA RTX A6000", "RTX A6000", 38.7e12, 77.4e12, 154.8e12),
    ("NVIDIA GeForce RTX 3090", "RTX 3090", 35.6e12, 35.6e12, 71e12),
    ("NVIDIA GeForce RTX 4090", "RTX 4090", 82.6e12, 82.6e12, 165.2e12),
    ("NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada", 91.1e12, 182.2e12, 364.4e12),
]


@pytest.mark.parametrize(("kind", "name", "replicas", "model", "peak"), FRAMEWORK_NAMES)
def test_tpu_names_as_the_frameworks_report_them_get_their_chip_and_peak(kind, name, replicas, model, peak) -> None:
    from bench.measure.datasheets import chip_of, why_no_peak

    assert chip_of(kind, name).model == model
    assert datasheet_peak(kind, name, "mixed_bfloat16", num_replicas=replicas) == pytest.approx(peak)
    assert why_no_peak(kind, name, "mixed_bfloat16") is None


@pytest.mark.parametrize(("name", "model", "fp32", "tf32", "bf16"), GPU_NAMES)
def test_gpu_variants_get_their_own_peaks(name, model, fp32, tf32, bf16) -> None:
    from bench.measure.datasheets import chip_of

    assert chip_of("gpu", name).model == model
    assert datasheet_peak("gpu", name, "float32", math_mode="fp32") == pytest.approx(fp32)
    assert datasheet_peak("gpu", name, "float32", math_mode="tf32") == pytest.approx(tf32)
    assert datasheet_peak("gpu", name, "mixed_bfloat16") == pytest.approx(bf16)


def test_a_record_without_a_datasheet_peak_says_why() -> None:
    from bench.measure.datasheets import why_no_peak

    assert why_no_peak("cpu", None, "float32") == "cpu device: vendors publish no datasheet peak for a host CPU"
    assert why_no_peak("tpu", "TPU", "float32") == ("no datasheet entry names the accelerator 'TPU' "
                                                    "(bench.measure.datasheets.CHIPS: add it with its source)")
    assert why_no_peak("gpu", "NVIDIA GH200 480GB", "float32", "tf32").startswith("no datasheet entry")  # not H200
    assert why_no_peak("gpu", "Tesla T4", "float32", "tf32") == "T4's datasheet gives no tf32 peak (it has fp16, fp32)"


def test_tpu_chips_are_priced_by_the_devices_each_chip_is_seen_as() -> None:
    from bench.reporting.analysis.cost import units

    assert units("tpu", "TPU v3", 8, 96) == 4 and units("tpu", "TPU v4", 4, 240) == 4
    assert units("tpu", "TPU v5 lite", 8, 224) == 8 and units("tpu", "TPU7x", 8, 224) == 4


def test_a_dense_on_a_sequence_counts_every_position_and_unseen_layers_are_named() -> None:
    """Dense(16) over (200, 32): 200 x 32 x 16 multiply-adds an example, not 32 x 16; attention and a user's own
    layer with weights are not seen into, and the count says which (the floors are then lower bounds); the
    built-ins are counted whole."""
    import keras

    from bench.measure.flops import layer_macs, uncounted_layers

    class Mine(keras.layers.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(shape[-1],))

        def call(self, x):
            return x * self.w

    inputs = keras.Input((200, 32))
    dense = keras.layers.Dense(16)
    x = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)(inputs, inputs)
    x = keras.layers.LayerNormalization()(Mine()(dense(x)))
    model = keras.Model(inputs, keras.layers.Dense(2)(keras.layers.GlobalAveragePooling1D()(x)))
    assert layer_macs(dense) == (200 * 32 * 16, 200 * 16)
    assert [u.split(" (")[0] for u in uncounted_layers(model)] == ["MultiHeadAttention", "Mine"]
    assert uncounted_layers(model)[1] == "Mine (16 params)"
    for name in ("fashion_cnn", "catsdogs_cnn", "reuters_textcnn", "plant_cnn", "plant_transfer"):
        assert uncounted_layers(build_model(name)) == [], name
