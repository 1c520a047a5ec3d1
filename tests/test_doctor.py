"""``python -m bench doctor``: every check made to fail and to pass, on the CPU (issue 23, first part)."""

from __future__ import annotations

import glob
import importlib.util
import os
import textwrap

import numpy as np
import pytest

from bench.cli import parse_config
from bench.config import ConfigError
from bench.readiness import FAIL, OK, WARN, Finding, exit_status
from bench.readiness.plan_checks import batch_findings, data_findings, gpu_findings, precision_findings
from tests.conftest import REPO, run_bench

W, B = "w", "tensorflow"


def statuses(findings: list[Finding]) -> dict[str, str]:
    return {f.check: f.status for f in findings}


@pytest.mark.parametrize(("batch", "check", "status", "evidence"), [
    (60, "batch_divides", FAIL, "global batch 60 does not divide over tpu (8 replicas)"),
    (1000, "batch_multiple_of_8", WARN, "125 per TPU core, not a multiple of 8"),
    (64, "batch_fills_matrix_units", WARN, "8 per TPU core, under the 128 rows"),
    (1024, "batch", OK, "128 per TPU core"),
])
def test_batch_against_a_tpu_host_and_the_strategies_asked(batch, check, status, evidence) -> None:
    cfg = parse_config(["suite=smoke", "strategies=[cpu,cpu_x2]", f"batch_sizes=[{batch}]", "n_train=4096",
                        "n_val=1024"])
    (f,) = batch_findings(cfg, "fashion_cnn", B)
    assert (f.check, f.status) == (check, status) and evidence in f.evidence, f
    assert (f.fix != "") == (status != OK)


@pytest.mark.parametrize(("told", "batch", "check", "status", "evidence"), [
    # Colab's v5e-1 has one replica: 36 divides (it failed against the 8 assumed before), 36 rows pad to 40
    (["tpu_type=v5litepod-1"], 36, "batch_multiple_of_8", WARN, "36 per TPU core, not a multiple of 8 (XLA pads it; "
     "tpu_type=v5litepod-1)"),
    (["tpu_type=v5litepod-1"], 128, "batch", OK, "128 per TPU core"),
    # a v4-8 shows 4 megacore chips: 96 is 24 per replica (fails on 8 replicas: 12 each is no multiple of 8)
    (["tpu_type=v4-8"], 96, "batch_fills_matrix_units", WARN, "24 per TPU core, under the 128 rows of a v4"),
    (["tpu_type=v3-8"], 96, "batch_multiple_of_8", WARN, "12 per TPU core"),
    (["tpu_type=v6e-1"], 128, "batch_fills_matrix_units", WARN, "under the 256 rows of a v6e matrix unit"),
    ([], 36, "batch_divides", FAIL, "global batch 36 does not divide over tpu (8 replicas) (v5litepod-8 assumed;"),
])
def test_the_tpus_replicas_come_from_its_type(told, batch, check, status, evidence) -> None:
    cfg = parse_config(["suite=smoke", "strategies=[cpu]", f"batch_sizes=[{batch}]", "n_train=4096", "n_val=1024",
                        *told])
    (f,) = batch_findings(cfg, "fashion_cnn", B)
    assert (f.check, f.status) == (check, status) and evidence in f.evidence, f


def test_a_tpu_vm_names_its_own_type_and_a_bad_type_is_refused(monkeypatch) -> None:
    from bench.config import ConfigError

    monkeypatch.setenv("TPU_ACCELERATOR_TYPE", "v5litepod-1")
    cfg = parse_config(["suite=smoke", "strategies=[cpu]", "batch_sizes=[36]", "n_train=4096", "n_val=1024"])
    (f,) = batch_findings(cfg, "fashion_cnn", B)
    assert f.check == "batch_multiple_of_8" and "TPU_ACCELERATOR_TYPE=v5litepod-1" in f.evidence
    with pytest.raises(ConfigError, match=r"^tpu_type='v5-lite-8' is not a Cloud TPU type; allowed: v2-N, v3-N"):
        parse_config(["suite=smoke", "tpu_type=v5-lite-8"])


def test_a_batch_the_run_would_refuse_fails_the_doctor_as_well() -> None:
    """Issue 39: the doctor said "batch ok: 128 per TPU core" for batch 1024 on 600 validation examples, and the run
    then exited 2. The same sizes the run checks, the same words."""
    cfg = parse_config(["suite=smoke", "strategies=[cpu]", "batch_sizes=[1024]", "n_train=4096", "n_val=600"],
                       batches_fit_data=False)
    (f,) = batch_findings(cfg, "fashion_cnn", B)
    assert (f.check, f.status) == ("batch_fits_data", FAIL), f
    assert "global batch 1024 (cpu) is larger than fashion_cnn's validation split (4096 train / 600 val" in f.evidence
    with pytest.raises(ConfigError, match="global batch 1024 \\(cpu\\) is larger than fashion_cnn's validation"):
        parse_config(["suite=smoke", "strategies=[cpu]", "batch_sizes=[1024]", "n_train=4096", "n_val=600"])


@pytest.mark.parametrize(("backend", "spe", "status", "evidence"), [
    ("tensorflow", "[1]", WARN, "steps_per_execution=[1]: one host call per step, so a TPU waits on Python"),
    ("tensorflow", "[1,32]", OK, "steps_per_execution=[1, 32]: up to 32 steps per host call"),
    ("jax", "[8]", OK, "runs an execution as a Python loop of jitted steps"),
])
def test_steps_per_execution_1_alone_is_the_classic_slow_tpu_run(backend, spe, status, evidence) -> None:
    from bench.readiness.plan_checks import spe_findings

    cfg = parse_config(["suite=smoke", f"steps_per_execution={spe}"], batches_fit_data=False)
    (f,) = spe_findings(cfg, "fashion_cnn", backend)
    assert (f.check, f.status) == ("steps_per_execution", status) and evidence in f.evidence, f
    assert (f.fix == "") == (status == OK) and (status == OK or "steps_per_execution=[1,32]" in f.fix)


def test_the_augmentation_fix_names_the_workloads_own_augment_kinds() -> None:
    from bench.readiness.framework_checks import augment_fix, no_jit_fix

    fix = no_jit_fix(["RandomRotation (random_rotation)", "RandomFlip (random_flip)"])
    assert 'Workload(..., augment=("flip", "rot90"))' in fix and "tutorial 001" not in fix
    assert 'augment=("rot90",)' in augment_fix(["RandomRotation (r)"])
    assert "docs/your-model-and-data.md" in augment_fix([])


def test_a_per_replica_batch_is_judged_per_core() -> None:
    cfg = parse_config(["suite=smoke", "batch_scaling=per_replica", "batch_sizes=[12]", "strategies=[cpu]"])
    (f,) = batch_findings(cfg, "fashion_cnn", B)
    assert f.status == WARN and "batch 12 per replica: 12 per TPU core" in f.evidence and f.fix == "batch_sizes=[16]"


@pytest.mark.parametrize(("data", "status"), [
    ("synthetic", OK), ("keras:mnist", OK), ("tfrecord:gs://bucket/train-*.tfrec", OK),
    ("csv:/home/me/plants/train.csv", WARN), ("folder:pets", WARN),
])
def test_data_a_tpu_node_cannot_read_is_a_warning(data, status) -> None:
    (f,) = data_findings(W, data, B)
    assert f.status == status, f


@pytest.mark.parametrize(("precisions", "status"), [
    ("[float32]", WARN), ("[float32,mixed_bfloat16]", OK), ("[mixed_float16]", WARN)])
def test_precision_advice_for_a_tpu(precisions, status) -> None:
    (f,) = precision_findings(parse_config(["suite=smoke", f"precisions={precisions}"]), W, B)
    assert f.status == status


@pytest.mark.parametrize(("strategies", "precisions", "batch", "found"), [
    ("[cpu,gpu]", "[float32]", 100, {"gpu_precision": WARN, "gpu_batch_multiple_of_8": WARN}),
    ("[gpus]", "[mixed_float16]", 128, {"gpu_precision": OK}),
    ("[cpu,cpu_x2,tpu]", "[float32]", 100, {}),  # no GPU asked: no GPU advice
])
def test_gpu_advice_where_a_gpu_is_asked(strategies, precisions, batch, found) -> None:
    cfg = parse_config(["suite=smoke", f"strategies={strategies}", f"precisions={precisions}",
                        f"batch_sizes=[{batch}]", "n_train=4096", "n_val=1024"])
    got = gpu_findings(cfg, W, B)
    assert statuses(got) == found
    assert all(f.fix == "" for f in got if f.status == OK) and all(f.fix for f in got if f.status == WARN)
    if "gpu_batch_multiple_of_8" in found:
        (odd,) = [f for f in got if f.check == "gpu_batch_multiple_of_8"]
        assert odd.evidence.startswith("batch 100: not a multiple of 8") and odd.fix == "batch_sizes=[104]"


def test_exit_status_fails_on_a_failure_only() -> None:
    ok, warn, fail = (Finding(W, B, "c", s, "e") for s in (OK, WARN, FAIL))
    assert (exit_status([ok, warn]), exit_status([ok, fail, warn]), exit_status([])) == (0, 1, 0)


# --- framework checks, in this process (Keras on TensorFlow) -------------------------------------------------

def _model(*layers, shape=(16, 16, 3), dtype="float32"):
    import keras

    return keras.Sequential([keras.Input(shape, dtype=dtype), *layers, keras.layers.Flatten(),
                             keras.layers.Dense(3, activation="softmax", dtype=dtype)])


SETTINGS = {"optimizer": "adam", "loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]}


def test_tutorial_001_augmentation_layers_in_the_model_fail_xla_and_the_layer_check() -> None:
    """Tutorial 001's first attempt: RandomRotation inside the model lowers to ImageProjectiveTransformV3, which
    XLA cannot compile (TPUStrategy fails); RandomFlip alone compiles."""
    keras = pytest.importorskip("keras")
    from bench.readiness.framework_checks import layer_findings, xla_tensorflow

    x, y = np.random.default_rng(0).random((8, 16, 16, 3), dtype=np.float32), np.arange(8) % 3
    broken = _model(keras.layers.RandomFlip(), keras.layers.RandomRotation(0.1))
    (xla,) = xla_tensorflow(broken, SETTINGS, x, y, W, B)
    assert xla.status == FAIL and "ImageProjectiveTransformV3" in xla.evidence and "input pipeline" in xla.fix
    (layers,) = layer_findings(broken, W, B)
    assert layers.status == FAIL and "RandomRotation" in layers.evidence and "RandomFlip" not in layers.evidence
    clean = _model(keras.layers.RandomFlip())
    assert [f.status for f in xla_tensorflow(clean, SETTINGS, x, y, W, B)] == [OK]
    (layers,) = layer_findings(clean, W, B)
    assert layers.status == OK and "RandomFlip compile with XLA" in layers.evidence


def test_a_tensorflow_that_cannot_compile_xla_on_its_cpu_gets_a_warning_not_a_failure(monkeypatch) -> None:
    """Issue 38: a tensorflow-tpu build compiles XLA for the TPU only; forcing jit_compile=True on its CPU fails
    every model alike (tensorflow#58934). The probe that tells: a trivial jitted function on this CPU compiles
    here (None), and a build that cannot gets a warning naming why, the model never compiled on the CPU."""
    keras = pytest.importorskip("keras")
    from bench.readiness import framework_checks as fc

    assert fc.host_xla_error() is None  # this TensorFlow compiles XLA on the CPU: the check runs as before
    monkeypatch.setattr(fc, "host_xla_error", lambda: "XLA compilation disabled")
    x, y = np.random.default_rng(0).random((8, 16, 16, 3), dtype=np.float32), np.arange(8) % 3
    (xla,) = fc.xla_tensorflow(_model(keras.layers.RandomRotation(0.1)), SETTINGS, x, y, W, B)
    assert xla.status == WARN and xla.evidence.startswith(
        "not compiled here: this TensorFlow cannot compile XLA on the host CPU (XLA compilation disabled; ")
    assert "strategies=[tpu]" in xla.fix


def test_a_loss_read_from_probabilities_is_a_portability_warning() -> None:
    """Issue 51: a cross-entropy on a sigmoid or softmax output trains under TensorFlow (which computes it from the
    logits behind the output) and can stop learning under JAX and PyTorch (which clip the probabilities): tutorial 000's
    catsdogs_cnn predicted one class under JAX. The doctor warns, naming the layer, the loss and the fix; a linear
    head with from_logits=True passes. On the tutorial's own model and on a user's."""
    keras = pytest.importorskip("keras")
    from bench.readiness.framework_checks import loss_findings
    from bench.workloads.models import build_model, compile_kwargs

    published = build_model("catsdogs_cnn_sigmoid")  # tutorial 000 as published
    (f,) = loss_findings(published, compile_kwargs("catsdogs_cnn_sigmoid"), "catsdogs_cnn_sigmoid", B)
    assert f.status == WARN and f.check == "probability_loss"
    assert f.evidence.startswith(f"BinaryCrossentropy reads probabilities from {published.layers[-1].name} (sigmoid)")
    assert "BinaryCrossentropy(from_logits=True)" in f.fix and "activation=None" in f.fix
    for name in ("catsdogs_cnn", "fashion_cnn", "reuters_textcnn", "plant_cnn"):  # the built-ins read logits
        (ok,) = loss_findings(build_model(name), compile_kwargs(name), name, B)
        assert (ok.status, ok.evidence) == (OK, "reads logits (from_logits=True): the same math under every backend")

    def user(activation, loss):
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation=activation, name="head")])
        return loss_findings(model, {"loss": loss}, "mine:make", B)[0]

    assert user("softmax", "sparse_categorical_crossentropy").status == WARN  # the string form
    assert "from head (softmax)" in user("softmax", keras.losses.SparseCategoricalCrossentropy()).evidence
    assert user(None, keras.losses.SparseCategoricalCrossentropy(from_logits=True)).status == OK
    assert user("softmax", "mse").status == OK  # no cross-entropy: nothing read as a probability here


def test_float64_and_string_inputs_fail_the_dtype_check() -> None:
    pytest.importorskip("keras")
    from bench.readiness.framework_checks import dtype_findings

    x = np.zeros((2, 16, 16, 3), np.float32)
    assert statuses(dtype_findings(_model(), x, W, B)) == {"dtypes": OK}
    (f,) = dtype_findings(_model(dtype="float64"), x.astype(np.float64), W, B)
    assert f.status == FAIL and "float64 weights" in f.evidence and "float64 inputs" in f.evidence
    (f,) = dtype_findings(_model(), np.array([["a b"], ["c"]]), W, B)
    assert f.status == FAIL and "string inputs" in f.evidence


def test_python_in_the_pipeline_and_unknown_shapes_fail() -> None:
    tf = pytest.importorskip("tensorflow")
    from bench.readiness.framework_checks import pipeline_findings

    x, y = np.zeros((20, 4), np.float32), np.arange(20) % 3
    clean = tf.data.Dataset.from_tensor_slices((x, y)).batch(8, drop_remainder=True)
    assert statuses(pipeline_findings(clean, "p", W, B)) == {"pipeline_python[p]": OK, "static_shapes[p]": OK}
    py = clean.map(lambda a, b: (tf.py_function(lambda v: v * 2, [a], tf.float32), b))
    gen = tf.data.Dataset.from_generator(lambda: iter(x), output_signature=tf.TensorSpec((4,), tf.float32)).batch(
        8, drop_remainder=True)
    numpy_fn = clean.map(lambda a, b: (tf.ensure_shape(tf.numpy_function(lambda v: v, [a], tf.float32), (8, 4)), b))
    for ds, op in [(py, "EagerPyFunc"), (gen, "GeneratorDataset"), (numpy_fn, "PyFunc")]:
        f = {f.check: f for f in pipeline_findings(ds, "p", W, B)}["pipeline_python[p]"]
        assert f.status == FAIL and op in f.evidence, (op, f)
    ragged = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)  # no drop_remainder: a partial last batch
    f = {f.check: f for f in pipeline_findings(ragged, "p", W, B)}["static_shapes[p]"]
    assert f.status == FAIL and "x: (None, 4)" in f.evidence and "drop_remainder=True" in f.fix
    seqs = tf.data.Dataset.from_generator(lambda: ([1] * n for n in (3, 5)),
                                          output_signature=tf.TensorSpec((None,), tf.int32)).padded_batch(
        2, drop_remainder=True)
    f = {f.check: f for f in pipeline_findings(seqs, "p", W, B)}["static_shapes[p]"]
    assert f.status == FAIL and "(2, None)" in f.evidence  # a sequence length XLA would compile once per value


# --- the command, end to end ------------------------------------------------------------------------------------

NO_JIT = textwrap.dedent('''
    import keras
    import numpy as np
    from bench.workloads import Workload

    class Slow(keras.layers.Layer):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.supports_jit = False

        def call(self, x):
            return x

    def data():
        rng = np.random.default_rng(0)
        return (rng.random((64, 6), dtype=np.float32), rng.integers(0, 3, 64),
                rng.random((16, 6), dtype=np.float32), rng.integers(0, 3, 16))

    def make():
        return Workload(name="no_jit", data=data, build_model=lambda: keras.Sequential(
            [keras.Input((6,)), Slow(), keras.layers.Dense(3, activation="softmax")]),
            compile_kwargs={"optimizer": "adam", "loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]})
''')


@pytest.mark.slow
def test_the_doctor_fails_tutorial_001s_model_and_a_python_pipeline(tmp_path) -> None:
    """One TensorFlow check process for two workloads and two pipelines: fashion_cnn passes everything
    but the advice; the slow_decode pipeline (bench's own numpy_function) and the augmentation layers fail;
    exit status 1 (0 with warnings alone: test_exit_status_fails_on_a_failure_only, and float32's TPU advice is a
    warning: test_precision_advice_for_a_tpu)."""
    proc = run_bench("doctor", "workloads=[fashion_cnn,plant_cnn_layer_aug]", "backends=[tensorflow]",
                     "input_pipelines=[default,slow_decode]", "batch_sizes=[1024]", "precisions=[mixed_bfloat16]",
                     "n_train=4096", "n_val=1024", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    fashion, plants = out.split("plant_cnn_layer_aug under tensorflow")
    assert "fashion_cnn under tensorflow: fail" in fashion  # slow_decode
    for line in ("xla_compile", "pipeline_python[default]", "static_shapes[default]", "layers", "dtypes",
                 "batch ", "precision"):
        row = next(r for r in fashion.splitlines() if r.startswith(line))
        assert row.split()[1] == "ok", row
    assert next(r for r in fashion.splitlines() if r.startswith("pipeline_python[slow_decode]")).split()[1] == "fail"
    assert "PyFunc" in fashion and "ImageProjectiveTransformV3" in plants
    assert next(r for r in plants.splitlines() if r.startswith("xla_compile")).split()[1] == "fail"
    assert "doctor: " in out and " failed" in out


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs JAX (pip install 'bench[jax]')")
def test_under_jax_a_layer_keras_will_not_jit_fails(tmp_path) -> None:
    """keras#23229: a layer with supports_jit=False makes Keras run the whole model un-jitted under JAX (on a
    TPU, 10 min became 2.5 h): the doctor fails it, and passes fashion_cnn under JAX."""
    (tmp_path / "uw_nojit.py").write_text(NO_JIT)
    proc = run_bench("doctor", "workloads=[fashion_cnn,uw_nojit:make]", "backends=[jax]", "batch_sizes=[64]",
                     cwd=tmp_path, env={"PYTHONPATH": f"{tmp_path}:{REPO}"})
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    fashion, mine = proc.stdout.split("no_jit under jax")
    assert next(r for r in fashion.splitlines() if r.startswith("xla_compile")).split()[1] == "ok"
    row = next(r for r in mine.splitlines() if r.startswith("xla_compile"))
    assert row.split()[1] == "fail" and "Keras turned jit_compile off" in mine and "Slow" in mine


def test_bad_input_exits_2_naming_the_key(tmp_path) -> None:
    proc = run_bench("doctor", "workloads=[fashion_cnn]", "batch_size=[64]", cwd=tmp_path)
    assert proc.returncode == 2 and "batch_size" in proc.stderr and "batch_sizes" in proc.stderr
    assert proc.stdout == ""


@pytest.mark.slow
def test_a_run_with_tpu_points_checks_first_and_records_the_findings(tmp_path) -> None:
    """strategies=[tpu] on this box made to look like a TPU VM (ISTPUVM=1, which TPU VMs set): the doctor runs before
    the points, names the failure (bench's own slow_decode pipeline runs Python) on stderr and in doctor.json, and the
    TPU point's record (skipped by its worker: TensorFlow finds no TPU) carries its findings; a point of another
    strategy carries none."""
    import json

    from bench.records import load_records

    proc = run_bench("workloads=[fashion_cnn]", "strategies=[cpu,tpu]", "input_pipelines=[slow_decode]",
                     "batch_sizes=[64]", "epochs=2", "n_train=128", "n_val=64", f"results_dir={tmp_path}",
                     "report=false", "measure_peak=false", "measure_input=false", "second_batch=false",
                     env={"ISTPUVM": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "bench: doctor: fashion_cnn under tensorflow: pipeline_python[slow_decode] failed" in proc.stderr
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    found = json.loads((run_dir / "doctor.json").read_text())
    assert {(f["check"], f["status"]) for f in found} >= {("pipeline_python[slow_decode]", FAIL), ("xla_compile", OK)}
    loaded = load_records([run_dir])
    assert loaded.skipped == []  # doctor.json is the run's, not a record the report should name as skipped
    by = {r["strategy"]["requested"]: r for r in loaded.records}
    assert by["tpu"]["status"] == "skipped" and by["cpu"]["status"] == "ok"
    checks = {c["check"]: c["status"] for c in by["tpu"]["tpu_checks"]}
    assert checks["pipeline_python[slow_decode]"] == FAIL and checks["static_shapes[slow_decode]"] == OK
    assert by["cpu"].get("tpu_checks") is None


def test_a_machine_without_a_tpu_records_its_tpu_points_skipped_without_a_worker_or_the_doctor(tmp_path) -> None:
    """The same run where nothing says a TPU is here: the parent records the TPU point skipped with what it looked
    for, starts no worker for it and runs no doctor (python -m bench doctor checks a workload for a TPU anywhere)."""
    import json

    from bench.engines.presence import TPU_ENV, TPU_FILES

    if any(os.environ.get(k) for k in TPU_ENV) or any(glob.glob(f) for f in TPU_FILES):
        pytest.skip("this machine shows signs of a TPU")
    proc = run_bench("workloads=[fashion_cnn]", "strategies=[tpu]", "batch_sizes=[64]", "epochs=2", "n_train=128",
                     "n_val=64", f"results_dir={tmp_path}", "report=false")
    assert "no TPU on this machine" in proc.stderr and "bench: doctor" not in proc.stderr
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert not (run_dir / "doctor.json").exists() and not (run_dir / "logs").exists()
    (rec,) = [json.loads(f.read_text()) for f in run_dir.glob("fashion_cnn-*.json")]
    assert rec["status"] == "skipped" and rec["error"]["type"] == "StrategyUnavailable"
    assert rec["error"]["message"].startswith("no TPU on this machine (none of /dev/accel*")


@pytest.mark.slow
def test_bench_doctor_in_a_notebook_returns_one_row_per_check(tmp_path, monkeypatch) -> None:
    """bench.doctor: the same checks as the command, as a frame; a workload defined in the notebook (pickled by
    value) is checked in the child process and shown by its name."""
    import bench
    from bench.workloads import Workload

    def tiny() -> Workload:
        import keras

        def data():
            rng = np.random.default_rng(0)
            return (rng.random((64, 6), dtype=np.float32), rng.integers(0, 3, 64),
                    rng.random((16, 6), dtype=np.float32), rng.integers(0, 3, 16))

        return Workload(name="tiny_f64", data=data, build_model=lambda: keras.Sequential(
            [keras.Input((6,)), keras.layers.Dense(3, activation="softmax", dtype="float64")]),
            compile_kwargs={"optimizer": "adam", "loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]})

    monkeypatch.chdir(tmp_path)
    # larger than its data: no config error (the doctor reports every check), a failed check as the run would refuse it
    frame = bench.doctor([tiny], backends=["tensorflow"], batch_sizes=[1024])
    assert list(frame.columns) == ["workload", "backend", "check", "status", "evidence", "fix"]
    assert set(frame["workload"]) == {"tiny_f64"} and frame.attrs["exit_status"] == 1
    row = frame.set_index("check").loc["dtypes"]
    assert row["status"] == FAIL and "float64 weights" in row["evidence"]
    fits = frame.set_index("check").loc["batch_fits_data"]
    assert fits["status"] == FAIL
    assert "larger than tiny (defined in the notebook)'s training split (64 train" in fits["evidence"]
