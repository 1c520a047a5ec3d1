"""The doctor's child process: ``python -m bench.readiness.child`` (the job as one JSON line on stdin, one JSON
line of findings on stdout). It imports the backend, so it runs apart from the command's process, on the CPU,
like the preflight's (:mod:`bench.worker.preflight`)."""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np

from bench.config import USER_PIPELINE
from bench.readiness.findings import FAIL, Finding, first_line
from bench.records.backends import declares

BATCH = 8  # examples in the one batch the checks compile and run (the shapes, not the size, matter)


def workload_findings(workload: str, data: str, data_scale: str, backend: str, pipelines: list[str]) -> list[Finding]:
    """Every framework check of one workload under the current process's backend."""
    from bench.engines import load
    from bench.readiness import framework_checks as fc
    from bench.workloads import get_workload
    from bench.workloads.examples import load_examples
    from bench.workloads.models import runnable

    wl = runnable(get_workload(workload, data))
    n = max(1, min(BATCH, *wl.full)) if all(wl.full) else BATCH
    examples = load_examples(workload, data, data_scale, n, n, 0) if wl.input_fn is None else None
    engine = load(backend)
    native = declares(backend, "tf_data_native")  # tf.data is this backend's own input
    out: list[Finding] = []
    batch: tuple[Any, Any] | None = None
    if wl.input_fn is not None:  # its own pipeline: checked as the workers will feed it, the model on its batch
        from bench.engines.user_feed import KINDS, UserFeed

        feed = UserFeed(wl, n, 0)
        if native and feed.kind == KINDS[0]:
            out.extend(fc.pipeline_findings(feed.train, USER_PIPELINE, workload, backend))
        batch, pipelines = feed.first_batch(), []
    # numpy: arrays straight into fit, no pipeline of the user's to check; under a backend not fed tf.data natively,
    # autotune is a tf.data pipeline (its graph is checked under tensorflow) and this process, like such a worker of
    # the other pipelines, has no TensorFlow: the model's checks run on bench's default batches
    checked = [p for p in pipelines if native or p != "autotune"] or ([] if batch else ["default"])
    for pipeline in checked:
        pipes = engine.make_pipelines(wl, examples, n, 0, slow_decode=pipeline == "slow_decode",
                                      cached=pipeline == "cached", autotune=pipeline == "autotune")
        if native and pipeline != "numpy":
            out.extend(fc.pipeline_findings(pipes.train, pipeline, workload, backend))
        if batch is None:
            x_first, y_first = next(iter(pipes.train))
            batch = (np.asarray(x_first), np.asarray(y_first))  # NumPy under every backend
    assert batch is not None
    x, y = batch
    model = wl.new_model()
    settings = dict(wl.compile_settings())
    out.extend(fc.layer_findings(model, workload, backend))
    out.extend(fc.loss_findings(model, settings, workload, backend))
    try:
        model(x)  # built on the data, as fit builds it: an error here is the model's, not XLA's
    except Exception as e:
        return [Finding(workload, backend, "build", FAIL, f"the model does not run on the CPU: {first_line(e)}",
                        "fix this before any accelerator: python -m bench runs it and records the error"), *out]
    out.extend(fc.dtype_findings(model, x, workload, backend))
    xla = fc.xla_tensorflow if native else fc.xla_jax
    out[:0] = xla(model, settings, x, y, workload, backend)  # the first row: does it compile at all
    return out


def main() -> int:
    job = json.loads(sys.stdin.readline())
    from bench.engines import prepare_process

    prepare_process(job["backend"], tensorflow=job.get("own_input_fn", False))  # a workload's own tf.data input_fn
    out = sys.stdout
    sys.stdout = sys.stderr  # Keras' prints stay out of the answer
    findings: list[Finding] = []
    for w in job["workloads"]:
        try:
            findings.extend(workload_findings(w, job["data"], job["data_scale"], job["backend"], job["pipelines"]))
        except Exception as e:  # the model or the data could not even be built: that is the finding
            findings.append(Finding(w, job["backend"], "build", FAIL, f"{type(e).__name__}: {first_line(e)}",
                                    "run python -m bench with this workload on the CPU to see the whole error"))
    out.write(json.dumps([f.as_dict() for f in findings]) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
