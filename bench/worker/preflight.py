"""The preflight's child process (``python -m bench.worker.preflight``, started by :mod:`bench.runner.preflight`
with the job as one JSON line on stdin), on the CPU, under the run's first backend: each user workload's model built,
run on one batch of its own input pipeline and its compiled loss and metrics evaluated; one JSON line of answers on
stdout. What it catches: docs/your-model-and-data.md.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from bench.readiness.findings import first_line
from bench.workloads import get_workload

BATCHES = (7, 5, 3, 2)  # the check's batch sizes, first that fits (check_batch)


def check_batch(avoid: set[int], limit: int) -> int:
    """The pre-run check's batch size: the first of :data:`BATCHES` that is neither a class count nor an output width
    in ``avoid`` and at most ``limit`` examples. A batch as long as the output is wide hides a wrong loss: labels
    (n,) broadcast against outputs (n, n), so ``loss="mse"`` on 4 classes passes a batch of 4 and fails every point."""
    return next((n for n in BATCHES if n <= limit and n not in avoid), max(1, min(limit, BATCHES[0])))


def problems(workload: str, data: str, backend: str) -> str:
    """Why the workload's model does not fit its data ("" when it does). Runs in the child process."""
    import numpy as np

    from bench.engines import load
    from bench.engines.user_feed import UserFeed
    from bench.job.point import Point
    from bench.worker.main import point_data
    from bench.workloads.labels import label_fix
    from bench.workloads.models import runnable

    wl = runnable(get_workload(workload, data))
    limit = max(1, min(*wl.full))

    def batch(n: int) -> tuple[Any, Any]:  # NumPy arrays, or a framework's tensors from its pipeline
        if wl.input_fn is not None:  # its own pipeline, at the check's batch size
            return UserFeed(wl, n, 0).first_batch()
        point = Point(workload=workload, strategy="cpu", steps_per_execution=1, precision="float32", repeat=0,
                      seed=0, epochs=2, n_train=n, n_val=n, data_scale="full", global_batch_size=n, data=data)
        return next(iter(load(backend).make_pipelines(wl, point_data(point, {}), n, 0).train))

    n = check_batch({wl.classes}, limit)
    x, y = batch(n)
    try:
        model = wl.new_model()
    except Exception as e:
        return f"build_model() raised {type(e).__name__}: {first_line(e)}"
    declared = _declared_input(model, tuple(int(d) for d in np.shape(x))[1:])
    if declared:
        return declared
    try:
        import keras

        out = keras.ops.convert_to_numpy(model(x))  # a NumPy array under every backend (PyTorch's needs detaching)
    except Exception as e:
        return f"the model does not take the data's input {tuple(np.shape(x))[1:]}: {first_line(e)}"
    shape = tuple(int(d) for d in np.shape(out))
    if len(shape) != 2:
        return f"the model outputs shape {shape[1:]} per example; bench trains classifiers: (classes,) or (1,)"
    if shape[1] == 1 and wl.classes > 2:
        return f"the model outputs 1 value per example but the labels have {wl.classes} classes"
    if 1 < shape[1] < wl.classes:
        return (f"the model outputs {shape[1]} values per example but the labels go up to {wl.classes - 1} "
                f"({wl.classes} classes)")
    if shape[1] == n and (other := check_batch({wl.classes, n}, limit)) != n:
        n = other
        x, y = batch(n)
    settings = wl.compile_settings()
    try:
        # eagerly: one batch does not repay tracing a graph (TensorFlow) or compiling one (JAX) per model
        model.compile(**{"run_eagerly": True, **settings})
        losses = model.evaluate(x, y, verbose=0, return_dict=True)
    except Exception as e:
        return (f"the compiled loss or metrics do not fit the labels: {type(e).__name__}: {first_line(e)} "
                f"{label_fix(settings)}")
    if "accuracy" not in losses:
        return (f"compile_kwargs has no metric named 'accuracy' (it reports {sorted(losses)}); bench ranks "
                "configurations by accuracy: add metrics=['accuracy']")
    return _logits_problem(settings, out)


def _logits_problem(settings: dict, out: object) -> str:
    """A cross-entropy that takes probabilities on an output that is not one (values outside [0, 1]: a last layer
    without softmax or sigmoid): tutorial 004's wrong loss, which trains but never learns ("" otherwise)."""
    import numpy as np

    from bench.workloads.labels import expects_probabilities

    loss = expects_probabilities(settings)
    values = np.asarray(out, dtype=float)
    if not loss or not values.size or (values.min() >= -1e-6 and values.max() <= 1 + 1e-6):
        return ""
    fix = "keras.losses.SparseCategoricalCrossentropy(from_logits=True)" if "parse" in loss else (
        f"the loss with from_logits=True ({loss})")
    return (f"the model outputs logits (values from {values.min():.2f} to {values.max():.2f}) but the compiled loss "
            f"{loss} takes probabilities: it would train and never learn. Add activation='softmax' (or 'sigmoid' "
            f"for one output) to the last layer, or compile with {fix}")


def _declared_input(model: object, given: tuple[int, ...]) -> str:
    """Why the input shape the model declares (``keras.Input``) is not the data's ("" when it is, or when the model
    declares none). Keras runs a model on another length when its layers allow it (a Conv1D and a global pooling
    take any), with a warning only: a model built for 32 steps then trains on 64 and merely learns worse."""
    inputs = getattr(model, "inputs", None)
    if not isinstance(inputs, list) or len(inputs) != 1:
        return ""
    want = tuple(getattr(inputs[0], "shape", ()))[1:]
    if len(want) == len(given) and all(w is None or w == g for w, g in zip(want, given, strict=True)):
        return ""
    shown_want = "(" + ", ".join("None" if w is None else str(w) for w in want) + ("," if len(want) == 1 else "") + ")"
    return (f"the model declares input shape {shown_want} (keras.Input) but the data's examples have shape {given}: "
            "build it with keras.Input(shape) matching x_train.shape[1:]")


def portability(workload: str, data: str, backend: str) -> str:
    """The doctor's ``probability_loss`` warning for a user workload's model, as one line ("" without one): a loss
    read from probabilities trains differently under JAX and PyTorch than under TensorFlow. In the child."""
    from bench.readiness.findings import WARN
    from bench.readiness.framework_checks import loss_findings
    from bench.workloads.models import runnable

    wl = runnable(get_workload(workload, data))
    (found,) = loss_findings(wl.new_model(), wl.compile_settings(), workload, backend)
    return f"{found.evidence}; fix: {found.fix}" if found.status == WARN else ""


def main() -> int:
    """Child process: the job on stdin, one JSON line {"problems": {workload: problem or ""}, "warnings": {...}} on
    stdout."""
    job = json.loads(sys.stdin.readline())
    from bench.engines import prepare_process

    prepare_process(job["backend"], tensorflow=job.get("own_input_fn", False))  # a workload's own tf.data input_fn
    out = sys.stdout
    sys.stdout = sys.stderr  # Keras' prints stay out of the answer
    result, warned = {}, {}
    for w in job["workloads"]:
        try:
            result[w] = problems(w, job["data"], job["backend"])
            warned[w] = "" if result[w] else portability(w, job["data"], job["backend"])
        except Exception as e:  # the data or the pipeline: name it, never crash the check
            result[w] = f"{type(e).__name__}: {first_line(e)}"
    out.write(json.dumps({"problems": result, "warnings": warned}) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
