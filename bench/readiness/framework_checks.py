"""The doctor's checks that need Keras and the backend, run in its child process (:mod:`bench.readiness.child`) on the
CPU, on one small batch of the point's own input pipeline: ``xla_compile``, ``layers``, ``dtypes``,
``pipeline_python`` and ``static_shapes`` (TensorFlow), ``probability_loss`` (a warning: :func:`loss_findings`).
What each fails on, and why: docs/doctor.md, *The checks*.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from bench.readiness.findings import FAIL, OK, WARN, Finding, first_line

# layers lowering to ImageProjectiveTransformV3 under TensorFlow, which has no XLA kernel (tensorflow#42454)
PROJECTIVE = ("RandomRotation", "RandomZoom", "RandomTranslation", "RandomShear", "RandomPerspective")
PYTHON_OPS = ("PyFunc", "PyFuncStateless", "EagerPyFunc", "GeneratorDataset")
# Keras augmentation layers -> the input-pipeline augmentation bench applies instead (bench.data.augment.KINDS)
AUGMENT_KINDS = {"RandomFlip": "flip", "RandomRotation": "rot90", "RandomZoom": "crop", "RandomTranslation": "crop",
                 "RandomCrop": "crop", "RandomBrightness": "brightness", "RandomContrast": "contrast"}


def augment_fix(layers: list[str]) -> str:
    """The fix for augmentation layers in the model: the same kind of augmentation declared on the Workload, which
    bench applies in the input pipeline (on a TPU host's CPU), in words a user can act on."""
    kinds = sorted({AUGMENT_KINDS[n.split(" ")[0]] for n in layers if n.split(" ")[0] in AUGMENT_KINDS})
    declared = ", ".join(f'"{k}"' for k in kinds) + ("," if len(kinds) == 1 else "")
    example = f"Workload(..., augment=({declared}))" if kinds else 'Workload(..., augment=("flip", "crop"))'
    return (f"take the augmentation layers out of the model and declare it on the workload, {example}: bench "
            "applies it in the input pipeline, which a TPU host runs on its CPU (kinds: crop, flip, rot90, "
            "brightness, contrast; docs/your-model-and-data.md)")


def all_layers(model: Any) -> list[Any]:
    """Every layer inside ``model``, nested ones included (not the model itself)."""
    return list(model._flatten_layers(include_self=False, recursive=True))


def no_jit_fix(layers: list[str]) -> str:
    """The fix for layers a TPU cannot compile: augmentation moves to the input pipeline; other layers need a
    jit-able rewrite."""
    if all(name.startswith("Random") for name in layers):
        return augment_fix(layers)
    return "rewrite the layer with ops XLA compiles (then supports_jit=True), or move it out of the model"


def layer_findings(model: Any, workload: str, backend: str) -> list[Finding]:
    layers = all_layers(model)
    projective = [f"{type(ly).__name__} ({ly.name})" for ly in layers if type(ly).__name__ in PROJECTIVE]
    no_jit = [f"{type(ly).__name__} ({ly.name})" for ly in layers
              if getattr(ly, "supports_jit", True) is False and type(ly).__name__ not in PROJECTIVE]
    if projective or no_jit:
        why = []
        if projective:
            why.append(f"{', '.join(projective)}: ImageProjectiveTransformV3, no XLA kernel")
        if no_jit:
            why.append(f"{', '.join(no_jit)}: supports_jit=False")
        return [Finding(workload, backend, "layers", FAIL, "; ".join(why), no_jit_fix(projective + no_jit))]
    random = sorted({type(ly).__name__ for ly in layers if type(ly).__name__.startswith("Random")})
    note = f" ({', '.join(random)} compile with XLA)" if random else ""
    return [Finding(workload, backend, "layers", OK, f"{len(layers)} layers, none a TPU cannot run{note}")]


CROSSENTROPY = {"binary_crossentropy": "BinaryCrossentropy", "categorical_crossentropy": "CategoricalCrossentropy",
                "sparse_categorical_crossentropy": "SparseCategoricalCrossentropy"}


def _loss_of(loss: Any) -> tuple[str, bool]:
    """(the Keras cross-entropy class a loss is, "" for any other loss; whether it reads logits)."""
    if isinstance(loss, str):
        return CROSSENTROPY.get(loss.lower(), ""), False
    config = loss.get_config() if hasattr(loss, "get_config") else {}
    name = type(loss).__name__
    if name == "LossFunctionWrapper":  # keras.losses.binary_crossentropy wrapped: its function's name
        name = CROSSENTROPY.get(str(config.get("name", "")), "")
    return (name if name in CROSSENTROPY.values() else ""), bool(config.get("from_logits", False))


def loss_findings(model: Any, settings: dict[str, Any], workload: str, backend: str) -> list[Finding]:
    """``probability_loss``: a cross-entropy that reads probabilities from a sigmoid or softmax output. Keras'
    TensorFlow backend computes it from the logits behind the output; its JAX and PyTorch backends clip the
    probabilities, so a saturated start loses its gradient: tutorial 000's model learns under TensorFlow and predicts
    one class under JAX from the same weights and batches (issue 51). A warning under every backend: the same model
    trains differently on another."""
    loss, from_logits = _loss_of(settings.get("loss"))
    last = model.layers[-1] if getattr(model, "layers", None) else None
    activation = getattr(getattr(last, "activation", None), "__name__", "")
    if loss and not from_logits and activation in ("sigmoid", "softmax"):
        layer = getattr(last, "name", "the output")
        return [Finding(workload, backend, "probability_loss", WARN,
                        f"{loss} reads probabilities from {layer} ({activation}): TensorFlow computes it from the "
                        "logits, JAX and PyTorch clip the probabilities (a saturated start can stop learning there)",
                        f"a linear output (activation=None) and {loss}(from_logits=True): the same math on every "
                        "backend; predictions then are logits (threshold 0, or apply the activation)")]
    said = ("reads logits (from_logits=True)" if from_logits else
            f"{loss or 'the loss'} on a {activation or 'linear'} output")
    return [Finding(workload, backend, "probability_loss", OK, f"{said}: the same math under every backend")]


def dtype_findings(model: Any, x: Any, workload: str, backend: str) -> list[Finding]:
    import numpy as np

    found = []
    f64 = sorted({w.path for w in model.weights if str(w.dtype) == "float64"})
    if f64:
        found.append(f"float64 weights: {', '.join(f64[:3])}{' …' if len(f64) > 3 else ''}")
    raw = getattr(x, "dtype", None)
    raw = np.asarray(x).dtype if raw is None else raw
    dtype = str(getattr(raw, "name", raw))  # tf.string -> "string", NumPy's <U3 -> "str96"
    if "float64" in dtype:
        found.append(f"float64 inputs ({dtype})")
    if "string" in dtype or getattr(raw, "kind", "") in ("U", "S", "O"):
        found.append(f"string inputs ({dtype}): tokenize in the input pipeline")
    if found:
        return [Finding(workload, backend, "dtypes", FAIL, "; ".join(found),
                        "float32 (or bfloat16) weights and inputs: cast in the pipeline, dtype='float32' in layers")]
    return [Finding(workload, backend, "dtypes", OK, f"inputs {dtype}, weights float32 or narrower")]


def _unsupported_ops(message: str) -> list[str]:
    """Op names XLA refused, from TensorFlow's "Detected unsupported operations …" message."""
    return sorted(set(re.findall(r"(\w+) \(No registered '\w+' OpKernel", message)))


def host_xla_error() -> str | None:
    """Why this TensorFlow cannot compile anything with XLA on the host CPU (None when it can): a TPU build of
    TensorFlow compiles for the TPU only, so forcing ``jit_compile=True`` on its CPU fails every model alike."""
    import tensorflow as tf

    try:
        with tf.device("/cpu:0"):
            tf.function(lambda v: v + 1, jit_compile=True)(tf.constant(1.0))
    except Exception as e:
        return first_line(e)
    return None


def xla_tensorflow(model: Any, settings: dict[str, Any], x: Any, y: Any, workload: str, backend: str) -> list[Finding]:
    """The model's own train step in ``tf.function(jit_compile=True)`` on one batch (after one ordinary step
    has built the optimizer's variables): what ``TPUStrategy`` compiles."""
    import tensorflow as tf

    cannot = host_xla_error()
    if cannot is not None:  # a tensorflow-tpu build: XLA compiles for the TPU only, never on the host's CPU
        return [Finding(workload, backend, "xla_compile", WARN,
                        f"not compiled here: this TensorFlow cannot compile XLA on the host CPU ({cannot}; "
                        "tensorflow-tpu builds, tensorflow#58934); the layers check still names ops XLA lacks",
                        "run python -m bench with strategies=[tpu]: TPUStrategy compiles it on the TPU, and a "
                        "failure is the point's record")]
    model.compile(**{**settings, "jit_compile": False})
    model.train_on_batch(x, y)
    step = tf.function(model.train_step, jit_compile=True)
    try:
        step((x, y))
    except Exception as e:  # XLA's refusal: name the ops
        ops = _unsupported_ops(str(e))
        evidence = f"XLA cannot compile: {', '.join(ops)}" if ops else first_line(e)
        return [Finding(workload, backend, "xla_compile", FAIL, evidence,
                        augment_fix([]) if set(ops) & {"ImageProjectiveTransformV3"} else
                        "replace the ops XLA cannot compile (tf.py_function, string ops, dynamic shapes)")]
    return [Finding(workload, backend, "xla_compile", OK, "the train step compiles with XLA (jit_compile=True)")]


def xla_jax(model: Any, settings: dict[str, Any], x: Any, y: Any, workload: str, backend: str) -> list[Finding]:
    """Keras' jitted train function on one batch; a model Keras would not jit is a failure too (it runs op
    by op on the TPU)."""
    model.compile(**{**settings, "jit_compile": True})
    try:
        model.train_on_batch(x, y)
    except Exception as e:
        return [Finding(workload, backend, "xla_compile", FAIL, first_line(e),
                        "replace what jax.jit cannot trace (Python control flow on values, NumPy calls)")]
    if not model.jit_compile:
        slow = [type(ly).__name__ for ly in all_layers(model) if getattr(ly, "supports_jit", True) is False]
        return [Finding(workload, backend, "xla_compile", FAIL,
                        f"Keras turned jit_compile off ({', '.join(sorted(set(slow))) or 'a layer'} supports_jit="
                        "False): every op would run un-jitted on the TPU", no_jit_fix(slow))]
    return [Finding(workload, backend, "xla_compile", OK, "the train step compiles with jax.jit")]


def graph_ops(dataset: Any) -> list[str]:
    """Every op in a tf.data pipeline's graph, its library functions (map functions) included."""
    import tensorflow as tf

    graph = tf.compat.v1.GraphDef()
    graph.ParseFromString(dataset._as_serialized_graph().numpy())
    ops = [n.op for n in graph.node]
    for fn in graph.library.function:
        ops.extend(n.op for n in fn.node_def)
    return ops


def pipeline_findings(dataset: Any, pipeline: str, workload: str, backend: str) -> list[Finding]:
    """Python ops in the pipeline's graph, and the static shapes of what it yields."""
    python = sorted({op for op in graph_ops(dataset) if op in PYTHON_OPS})
    out = []
    check = f"pipeline_python[{pipeline}]"
    if python:
        out.append(Finding(workload, backend, check, FAIL, f"Python in the input pipeline: {', '.join(python)}",
                           "TensorFlow ops instead (tf.image, tf.io, tf.strings) or precompute the step"))
    else:
        out.append(Finding(workload, backend, check, OK, "no Python ops in the pipeline's graph"))
    unknown = [f"{name}: {spec.shape}" for name, spec in _specs(dataset.element_spec)
               if spec.shape.rank is None or None in spec.shape.as_list()]
    check = f"static_shapes[{pipeline}]"
    if unknown:
        out.append(Finding(workload, backend, check, FAIL, f"unknown dimensions: {'; '.join(unknown)}",
                           "batch(..., drop_remainder=True); pad sequences to one length"))
    else:
        shapes = "; ".join(f"{n}: {s.shape}" for n, s in _specs(dataset.element_spec))
        out.append(Finding(workload, backend, check, OK, f"static: {shapes}"))
    return out


def _specs(spec: Any, name: str = "") -> Iterable[tuple[str, Any]]:
    """(name, TensorSpec) for every tensor in a nested element_spec (x, y, or dicts of them)."""
    if isinstance(spec, (tuple, list)):
        labels = ("x", "y", "w")
        for i, s in enumerate(spec):
            yield from _specs(s, f"{name}{labels[i] if not name and i < 3 else f'[{i}]'}")
    elif isinstance(spec, dict):
        for k, s in spec.items():
            yield from _specs(s, f"{name}.{k}" if name else str(k))
    else:
        yield name or "x", spec
