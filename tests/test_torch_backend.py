"""The PyTorch backend (issue 37): what Keras' PyTorch backend cannot run is planned ``skipped`` with the reason before
the run, a torch worker imports neither TensorFlow nor JAX, its points train on the run's shared initial weights and
batches beside TensorFlow's, and the compiler axis (``jit_compile=[auto,true,false]``) records what really ran."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cli import parse_config
from bench.config import ConfigError
from bench.engines import process_env
from bench.engines.limits import unsupported
from bench.runner.plan import plan
from tests.conftest import REPO, run_bench

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                reason="needs PyTorch (pip install 'bench[torch]')")


def _ids(*overrides: str) -> list[str]:
    return [p.point_id for p in plan(parse_config(["suite=smoke", "workloads=[fashion_cnn]", *overrides]))]


def test_what_pytorch_cannot_run_is_known_from_the_plan() -> None:
    assert unsupported("torch", "cpu", 1) == "" and unsupported("torch", "gpu", 1) == ""
    assert unsupported("tensorflow", "cpu_x2", 8) == "" and unsupported("jax", "tpu", 8) == ""
    assert unsupported("torch", "cpu", 4).startswith("steps_per_execution=4: Keras' PyTorch backend runs one step "
                                                     "per call")
    assert unsupported("torch", "cpu_x2", 1).startswith("strategy cpu_x2 needs several replicas")
    assert unsupported("torch", "gpus", 1).startswith("strategy gpus needs several replicas")
    # and TensorFlow's XLA under MirroredStrategy, once a refusal of the whole config: now those points alone
    assert unsupported("tensorflow", "cpu_x2", 1, 1, True).startswith("jit_compile=true under TensorFlow's "
                                                                      "MirroredStrategy (cpu_x2) fails")
    assert unsupported("tensorflow", "cpu", 1, 1, True) == unsupported("tensorflow", "cpu_x2", 1, 1, "auto") == ""
    assert unsupported("torch", "tpu", 1).startswith("strategy tpu needs a TPU (PyTorch reaches TPUs through "
                                                     "torch_xla, which is not a Keras backend)")


def test_a_torch_worker_trains_on_the_device_its_strategy_names() -> None:
    assert process_env("torch", "cpu", {}) == {"KERAS_BACKEND": "torch", "KERAS_TORCH_DEVICE": "cpu"}
    assert process_env("torch", "gpu", {}) == {"KERAS_BACKEND": "torch", "KERAS_TORCH_DEVICE": "cuda"}
    assert process_env("torch", "auto", {}) == {"KERAS_BACKEND": "torch"}  # Keras' own choice


def test_the_compiler_axis_plans_one_point_per_setting_and_one_under_jax() -> None:
    ids = _ids("backends=[tensorflow,jax,torch]", "strategies=[cpu]", "steps_per_execution=[1]",
               "jit_compile=[auto,true,false]")
    assert ids == ["fashion_cnn-cpu-jitauto-b64-spe1-fp32-r0", "fashion_cnn-cpu-xla-b64-spe1-fp32-r0",
                   "fashion_cnn-cpu-b64-spe1-fp32-r0", "fashion_cnn-jax-cpu-b64-spe1-fp32-r0",
                   "fashion_cnn-torch-cpu-jitauto-b64-spe1-fp32-r0", "fashion_cnn-torch-cpu-compile-b64-spe1-fp32-r0",
                   "fashion_cnn-torch-cpu-b64-spe1-fp32-r0"]
    assert _ids("jit_compile=[true,false]", "strategies=[tpu]", "steps_per_execution=[1]") == [
        "fashion_cnn-tpu-b64-spe1-fp32-r0"]  # TPUStrategy always compiles with XLA: one point, not two alike
    assert _ids("jit_compile=true", "strategies=[cpu]", "steps_per_execution=[1]") == [
        "fashion_cnn-cpu-xla-b64-spe1-fp32-r0"]  # the bare value of before: a list of one, the same id
    points = plan(parse_config(["suite=smoke", "strategies=[cpu]", "jit_compile=[false]"]))
    assert all("jit_compile" not in p.to_record() for p in points)  # the default hashes as it always did


@pytest.mark.parametrize(("value", "message"), [
    ("[autoo]", "jit_compile[0]='autoo' is not allowed; allowed: auto, true, false"),
    ("[]", "jit_compile: must not be empty; allowed: auto, true, false"),
    ("[true,true]", "jit_compile: duplicate value(s) ['True']; list each value once"),
])
def test_a_bad_compiler_setting_is_refused_by_name(value: str, message: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(["suite=smoke", f"jit_compile={value}"])
    assert str(e.value) == message


def test_without_pytorch_the_backend_is_refused_with_the_install_command(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # find_spec now says: not installed
    with pytest.raises(ConfigError) as e:
        parse_config(["suite=smoke", "backends=[tensorflow,torch]"])
    assert str(e.value).startswith("backends: torch is not installed in this environment; install it with "
                                   "pip install 'bench[torch]'")


WORKER = r"""
import json, os, sys
from bench.engines import load, prepare_process, process_env
prepare_process("torch")
os.environ.update(process_env("torch", "cpu", os.environ))
import keras
engine = load("torch")
_, info = engine.make_strategy("cpu")
compilers = {}
for asked in (True, "auto", False):  # what the record's compiler reads off the compiled model (no fit)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
    model.compile("sgd", "mse", jit_compile=asked)
    compilers[str(asked)] = engine.compiler(model, info)
for name in ("tensorflow", "jax"):
    try:
        __import__(name)
        print(name, "imported")
    except ImportError:
        pass
loaded = sorted({m.split(".")[0] for m, mod in sys.modules.items() if mod is not None} & {"tensorflow", "jax"})
print(json.dumps({"backend": keras.backend.backend(), "frameworks": loaded, "compilers": compilers}))
"""


def test_a_torch_worker_imports_neither_tensorflow_nor_jax_and_reads_its_compiler_off_the_model() -> None:
    """Both are installed here; a torch worker runs as on a PyTorch-only machine: neither can be imported. The
    compiler a record names is read off the compiled model (Inductor itself compiles at the first step, not here)."""
    proc = subprocess.run([sys.executable, "-c", WORKER], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.splitlines()[-1]) == {
        "backend": "torch", "frameworks": [],
        "compilers": {"True": "torch.compile (Inductor)", "auto": "none (PyTorch eager)",
                      "False": "none (PyTorch eager)"}}


TINY = '''
import numpy as np
from bench.workloads import Workload

def data():  # labels a linear function of the inputs decides: learnable in a few steps
    rng = np.random.default_rng(0)
    x = rng.normal(size=(192, 8)).astype("float32")
    y = np.argmax(x[:, :3], axis=1)
    return x[:128], y[:128], x[128:], y[128:]

def build():
    import sys
    import keras
    if keras.backend.backend() == "torch":  # in bench's own torch worker: neither framework was ever loaded
        loaded = [m for m in ("tensorflow", "jax") if sys.modules.get(m) is not None]
        assert not loaded, f"a torch worker loaded {loaded}"
    return keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                             keras.layers.Dense(3, activation="softmax")])

def settings():
    import keras
    return {"optimizer": keras.optimizers.SGD(0.5), "loss": "sparse_categorical_crossentropy",
            "metrics": ["accuracy"]}

def make():
    return Workload(name="tiny", build_model=build, compile_kwargs=settings, data=data)
'''


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, dict], subprocess.CompletedProcess, Path]:
    """One run of a tiny model under TensorFlow and PyTorch on cpu and cpu_x2, at spe 1 and 4, with jit_compile false
    and auto, with its report. Nothing is compiled with torch.compile here: Inductor's first compile costs half a
    minute of both cores on this box (the record's compiler field is read off a compiled model, without a fit,
    by the worker test above; the compile time in the warm-up epoch is measured in docs/strategies.md)."""
    out = tmp_path_factory.mktemp("torch")
    (out / "tinywl.py").write_text(TINY)
    proc = run_bench("workloads=[tinywl:make]", "backends=[tensorflow,torch]", "strategies=[cpu,cpu_x2]",
                     "batch_sizes=[32]", "steps_per_execution=[1,4]", "jit_compile=[false,auto]", "epochs=2",
                     "measure_peak=false", "measure_input=false", "second_batch=false", "progress=off",
                     f"results_dir={out / 'results'}",
                     f"reports_dir={out / 'reports'}", cwd=out, env={"PYTHONPATH": f"{out}{os.pathsep}{REPO}"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    (run_dir,) = (out / "results").iterdir()
    recs = {r["point_id"]: r for r in (json.loads(f.read_text()) for f in run_dir.glob("*.json")) if "point_id" in r}
    return recs, proc, out / "reports" / run_dir.name


@pytest.mark.slow
def test_torch_trains_on_the_shared_weights_and_batches_beside_tensorflow(run) -> None:
    recs, _, _ = run
    torch, tf = recs["tiny-torch-cpu-b32-spe1-fp32-r0"], recs["tiny-cpu-b32-spe1-fp32-r0"]
    assert torch["status"] == "ok", torch["error"]
    # its worker built the model with neither TensorFlow nor JAX loaded (TINY's build() fails the point otherwise)
    assert torch["backend"] == "torch" and torch["env"]["torch"]
    assert torch["env"].get("jax") is None and torch["env"]["env_vars"]["KERAS_TORCH_DEVICE"] == "cpu"
    assert torch["compiler"] == "none (PyTorch eager)" and torch["math_mode"] == "fp32"
    assert torch["placement"] == {"mesh": "none (one device)", "variables": "4 on cpu:0", "batch": "32 rows on cpu:0"}
    assert torch["strategy"]["num_replicas"] == 1 and torch["strategy"]["devices"] == ["cpu:0"]
    assert torch["initial_weights"]["sha256"] == tf["initial_weights"]["sha256"]  # the run's one set of weights
    assert [e["steps"] for e in torch["epochs"]] == [e["steps"] for e in tf["epochs"]] == [4, 4]
    # the same weights and batches: the losses agree to float32 rounding; another start or order would not
    for a, b in zip(torch["epochs"], tf["epochs"], strict=True):
        assert a["loss"] == pytest.approx(b["loss"], rel=1e-4) and a["val_accuracy"] == b["val_accuracy"]


@pytest.mark.slow
def test_what_a_backend_cannot_run_is_said_before_and_recorded_skipped_without_a_worker(run) -> None:
    recs, proc, _ = run
    skipped = {i: r for i, r in recs.items() if r["status"] == "skipped"}
    torch_ids = {f"tiny-torch-{s}{j}-b32-spe{n}-fp32-r0" for s in ("cpu", "cpu_x2") for n in (1, 4)
                 for j in ("", "-jitauto")} - {f"tiny-torch-cpu{j}-b32-spe1-fp32-r0" for j in ("", "-jitauto")}
    assert set(skipped) == torch_ids
    for r in skipped.values():
        assert r["error"]["type"] == "BackendUnsupported" and r["epochs"] == [] and r.get("process") is None
    assert skipped["tiny-torch-cpu-b32-spe4-fp32-r0"]["error"]["message"].startswith("steps_per_execution=4")
    assert "bench: 2 planned point(s) recorded skipped, not run: torch: steps_per_execution=4" in proc.stderr
    assert "bench: 4 planned point(s) recorded skipped, not run: torch: strategy cpu_x2 needs" in proc.stderr
    assert {r["status"] for i, r in recs.items() if i not in skipped} == {"ok"}  # the rest all ran


@pytest.mark.slow
def test_the_compiler_that_ran_is_recorded_and_labelled(run) -> None:
    """On the CPU Keras' auto is TensorFlow's graph executor (no GPU or TPU here) and PyTorch eager."""
    recs, _, report_dir = run
    compilers = {i: (r["point"].get("jit_compile", False), r["compiler"]) for i, r in recs.items()
                 if i.startswith(("tiny-cpu-", "tiny-torch-cpu-")) and "-spe1-" in i}
    assert compilers == {
        "tiny-cpu-b32-spe1-fp32-r0": (False, "TensorFlow graph (tf.function, no XLA)"),
        "tiny-cpu-jitauto-b32-spe1-fp32-r0": ("auto", "TensorFlow graph (tf.function, no XLA)"),
        "tiny-torch-cpu-b32-spe1-fp32-r0": (False, "none (PyTorch eager)"),
        "tiny-torch-cpu-jitauto-b32-spe1-fp32-r0": ("auto", "none (PyTorch eager)")}
    md = (report_dir / "report.md").read_text()
    for label in ("cpu (jit auto: graph)", "torch/cpu (jit auto: eager)"):
        assert f"| {label} " in md, label
    name = "`torch/cpu_x2 (jit auto: eager)` ("
    absent = next(line for line in md.splitlines() if "Absent: " in line and name in line)
    said = absent.split(name, 1)[1]
    assert "BackendUnsupported" in said.split("`", 1)[0]  # absent, named as it would have run (under its table)


def _rec(backend: str, asked: object, compiler: str | None, strategy: str = "cpu") -> object:
    from bench.records import upgrade
    from tests.conftest import make_record

    point = {} if asked is False else {"jit_compile": asked}
    return upgrade(make_record(backend=backend, compiler=compiler, point=point,
                               strategy={"name": strategy, "requested": strategy, "device_kind": "cpu"}))


@pytest.mark.parametrize(("backend", "asked", "compiler", "mark"), [
    ("tensorflow", False, "TensorFlow graph (tf.function, no XLA)", ""),
    ("tensorflow", True, "XLA (tf.function, jit_compile=True)", "XLA"),
    ("tensorflow", True, "TensorFlow graph (tf.function, no XLA)", "jit true: graph"),  # Keras turned it off
    ("tensorflow", "auto", "XLA (tf.function, jit_compile=True)", "jit auto: XLA"),  # a GPU box without a scope
    ("tensorflow", "auto", None, "jit auto"),  # never compiled: what Keras would choose depends on the hardware
    ("torch", True, "torch.compile (Inductor)", "torch.compile"),
    ("torch", True, None, "torch.compile"),
    ("torch", "auto", None, "jit auto: eager"),
    ("jax", False, "XLA (jax.jit)", ""),
    ("tensorflow", False, "XLA (tf.function, jit_compile=True)", "XLA"),  # the workload's compile settings set it
])
def test_a_label_names_the_compiler_that_ran(backend: str, asked: object, compiler: str | None, mark: str) -> None:
    from bench.reporting.frames.identity import compiler_mark
    from tests.rows import strategy_labels

    r = _rec(backend, asked, compiler)
    assert compiler_mark(r) == mark
    prefix = "cpu" if backend == "tensorflow" else f"{backend}/cpu"
    assert strategy_labels([r]) == [f"{prefix} ({mark})" if mark else prefix]


@pytest.mark.slow
def test_the_report_names_the_fastest_backend_and_shows_pytorch(run) -> None:
    _, _, report_dir = run
    md = (report_dir / "report.md").read_text()
    line = next(ln for ln in md.splitlines() if ln.startswith("- **Fastest backend per strategy:**"))
    assert line.startswith("- **Fastest backend per strategy:** `cpu`: **")
    assert "then torch " in line or "then tensorflow " in line
    assert "| PyTorch " in md and "torch/cpu_x2" in md
    assert len(list(report_dir.glob("*-backends.png"))) == 1


def test_a_wrappers_cost_compares_it_with_its_own_backend_and_compiler_only() -> None:
    """cpu_onedevice under TensorFlow against TensorFlow's own cpu, not against torch/cpu or cpu (XLA), which ran
    beside it in the same sweep (the wrapper cost would otherwise mix a backend's or a compiler's speed into it)."""
    import pandas as pd

    from bench.reporting.verdicts import wrapper_costs

    def row(name: str, backend: str, mark: str, rate: float) -> dict:
        return {"workload": "w", "section": 0, "status": "ok", "strategy_name": name, "host": "h",
                "backend": backend, "compiler_mark": mark, "global_batch_size": 64, "steps_per_execution": 1,
                "precision": "float32", "examples_per_s": rate}

    summary = pd.DataFrame([row("cpu_onedevice", "tensorflow", "", 500.0), row("cpu", "tensorflow", "", 1000.0),
                            row("cpu", "torch", "", 300.0), row("cpu", "tensorflow", "XLA", 2000.0)])
    (cost,) = wrapper_costs(summary).to_dict("records")
    assert cost["ratios"] == (2.0,) and cost["cost"] == pytest.approx(2.0)


def test_a_repeat_that_never_compiled_keeps_its_configurations_label() -> None:
    """One configuration, two repeats: the second failed before Keras compiled it. Labelled by what the first ran,
    it stays the same configuration in every table (not a second one named by what was asked)."""
    from bench.records import upgrade
    from tests.conftest import make_record
    from tests.rows import strategy_labels

    strategy = {"name": "cpu", "requested": "cpu", "device_kind": "cpu"}
    ran = make_record(point_id="w-cpu-jitauto-b8-spe1-fp32-r0", point={"jit_compile": "auto"}, strategy=strategy,
                      compiler="TensorFlow graph (tf.function, no XLA)")
    lost = make_record(point_id="w-cpu-jitauto-b8-spe1-fp32-r1", point={"jit_compile": "auto"}, strategy=strategy,
                       compiler=None, repeat=1, status="failed", error={"type": "RuntimeError", "message": "x"})
    assert strategy_labels([upgrade(ran), upgrade(lost)]) == ["cpu (jit auto: graph)"] * 2

