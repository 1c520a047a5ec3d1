"""Before a run: does each user workload's model take its inputs and fit its labels? One short process.

A user workload (an import path) brings its own model. One that cannot train on its data (an output of 5
values for labels up to 9, a sigmoid output for 10 classes, an input shape that is not the data's) should
be refused before any point runs, not recorded as failed in every point. Checking needs the model built,
which needs Keras and a backend, so it happens in a child process (``python -m bench.runner.preflight``,
the job as one JSON line on stdin), on the CPU (``JAX_PLATFORMS=cpu``, no visible GPU: it must not take
an accelerator the workers are about to use), under the run's first backend. It builds each model, runs
it on one small batch from the workload's own input pipeline (labels in the format the compiled loss wants:
:mod:`bench.workloads.labels`) and evaluates the compiled loss and metrics on it. Built-in workloads are
not checked: their models are built for their data (:func:`bench.workloads.on_source`) and pinned by tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from bench.config import ConfigError, SuiteConfig
from bench.engines import cpu_child_env
from bench.readiness.findings import first_line
from bench.workloads import is_import_path, shown

PREFLIGHT_TIMEOUT_S = 300.0
BATCH = 4


def problems(workload: str, data: str, backend: str) -> str:
    """Why the workload's model does not fit its data ("" when it does). Runs in the child process."""
    import numpy as np

    from bench.engines import load
    from bench.runner.plan import Point
    from bench.runner.worker import point_data
    from bench.workloads import get_workload
    from bench.workloads.labels import label_fix
    from bench.workloads.models import runnable

    wl = runnable(get_workload(workload, data))
    n = max(1, min(BATCH, *wl.full))
    point = Point(workload=workload, strategy="cpu", steps_per_execution=1, precision="float32", repeat=0, seed=0,
                  epochs=2, n_train=n, n_val=n, data_scale="full", global_batch_size=n, data=data)
    pipes = load(backend).make_pipelines(wl, point_data(point, {}), n, 0)
    x, y = next(iter(pipes.train))
    try:
        model = wl.new_model()
    except Exception as e:
        return f"build_model() raised {type(e).__name__}: {first_line(e)}"
    try:
        out = model(x)
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
    return ""


def model_problems(cfg: SuiteConfig) -> dict[str, str]:
    """{user workload: why its model does not fit its data, "" when it does}, every user workload of ``cfg``
    checked in one child process ({} without user workloads); ConfigError when the check itself fails."""
    users = [w for w in cfg.workloads if is_import_path(w)]
    if not users:
        return {}
    backend = cfg.backends[0]
    env = cpu_child_env(backend, os.environ)
    job = json.dumps({"workloads": users, "data": cfg.data, "backend": backend})
    try:
        proc = subprocess.run([sys.executable, "-m", "bench.runner.preflight"], input=job + "\n", text=True,
                              capture_output=True, env=env, timeout=PREFLIGHT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ConfigError(f"workloads: checking the user models took over {PREFLIGHT_TIMEOUT_S:.0f} s") from None
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
        raise ConfigError(f"workloads: the check of the user models failed (exit {proc.returncode}): {tail}")
    found: dict[str, str] = json.loads(lines[-1])
    return found


def check_models(cfg: SuiteConfig) -> None:
    """ConfigError naming every user workload whose model does not fit its data, first one first, each with
    its index in ``workloads`` (nothing runs then)."""
    found = model_problems(cfg)
    bad = [f"workloads[{i}]={shown(w)!r}: {found[w]}" for i, w in enumerate(cfg.workloads) if found.get(w)]
    if bad:
        raise ConfigError("; ".join(bad))


def main() -> int:
    """Child process: the job on stdin, one JSON line {workload: problem or ""} on stdout."""
    job = json.loads(sys.stdin.readline())
    from bench.engines import prepare_process

    prepare_process(job["backend"])
    out = sys.stdout
    sys.stdout = sys.stderr  # Keras' prints stay out of the answer
    result = {}
    for w in job["workloads"]:
        try:
            result[w] = problems(w, job["data"], job["backend"])
        except Exception as e:  # the data or the pipeline: name it, never crash the check
            result[w] = f"{type(e).__name__}: {first_line(e)}"
    out.write(json.dumps(result) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
