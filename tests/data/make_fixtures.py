"""Write the committed fixture records under tests/data/records/ (deterministic; no TensorFlow).

Run from the repository root::

    python tests/data/make_fixtures.py

then regenerate the golden report (``BENCH_REGEN_GOLDEN=1 python -m pytest tests/test_report.py``).

``records/``: two machines, shaped like real runs of the ``cnn`` and ``text`` suites (TensorFlow only):

* ``hostA`` (2-core CPU box), records as bench wrote them before targets, predictions and one process per repeat
  (no ``target_accuracy``, ``val_predictions`` or ``process``): fashion_cnn on ``cpu`` (no strategy scope) and
  ``cpu_x2`` at global batch 64/256 x spe 1/8, three repeats; ``cpu_onedevice`` (the OneDeviceStrategy wrapper,
  0.6x the throughput) at b256; ``gpu`` skipped (no GPU); ``cpu_x2`` b256 spe8 is its fastest configuration but
  lands 2.6 pp below ``cpu`` (parity flag and below the baseline by the unpaired rule: not ranked); imdb_lstm on
  ``cpu`` does not learn; reuters_textcnn at b104 has 37 steps per epoch (a prime): its spe8 point ran as spe1
  (``effective_steps_per_execution``), the same configuration as its spe1 point; a truncated (corrupt) file.
* ``hostB`` (TPU VM, 8 replicas), records as bench writes them now: a target (0.85), per-example validation
  predictions, one worker process per repeat with its start-up and wall times: fashion_cnn on ``tpu`` at
  256/1024 x spe 1/32 (two repeats), ``cpu`` on the same host (one repeat); the spe32 points (and the bf16 one)
  are input-bound; b1024 reaches only ~0.79 in the same epochs (target not reached: faster, but not ranked); a
  mixed_bfloat16 point, a diverged one at b2048, an out-of-memory failure at b4096, and a record of a newer
  schema version.

``records_backends/``: both Keras backends from three machines (:func:`backend_records`).

:func:`synthetic_records` also makes any number of records for the report-speed benchmark.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.records import atomic_write_json, write_record  # noqa: E402

OUT = Path(__file__).resolve().parent / "records"
OUT_BACKENDS = Path(__file__).resolve().parent / "records_backends"
CNN_DATA = {"name": "synthetic", "scale": "reduced", "n_train": 12288, "n_val": 2048, "shape": [28, 28, 1],
            "classes": 10, "chance_accuracy": 0.1}
TEXT_DATA = {"name": "imdb", "scale": "reduced", "n_train": 4096, "n_val": 1024, "shape": [200],
             "classes": 2, "chance_accuracy": 0.5}
REUTERS_DATA = {"name": "synthetic", "scale": "reduced", "n_train": 3848, "n_val": 1024, "shape": [300],
                "classes": 46, "chance_accuracy": 0.349}
CNN_FLOPS = 15_780_000  # 3 x analytic forward FLOPs of the small CNN (research/exp/mfu.py)
ENV_A = {"hostname": "hostA", "platform": "Linux-6.8.0-x86_64-with-glibc2.39", "python": "3.11.7",
         "tensorflow": "2.21.0", "keras": "3.15.1", "cpu": "Intel Xeon Platinum 8370C", "cpu_count": 2,
         "accelerator": None, "device_kind": "cpu", "device_count": 1, "bench_version": "0.1.0",
         "git_commit": "3f2a9c1", "git_dirty": False}
ENV_B = {"hostname": "hostB", "platform": "Linux-5.19.0-gcp-x86_64-with-glibc2.35", "python": "3.11.9",
         "tensorflow": "2.18.0", "keras": "3.8.0", "cpu": "AMD EPYC 7B12", "cpu_count": 96,
         "accelerator": "TPU v3", "device_kind": "tpu", "device_count": 8, "bench_version": "0.1.0",
         "git_commit": "9b1e0d2", "git_dirty": False}
STRATEGIES = {
    "cpu": {"class": "none (no strategy scope)", "num_replicas": 1, "devices": ["/cpu:0"], "device_kind": "cpu",
            "scope": False},
    "cpu_onedevice": {"class": "OneDeviceStrategy", "num_replicas": 1, "devices": ["/cpu:0"], "device_kind": "cpu",
                      "device_pipeline_autotune": "off"},
    "cpu_x2": {"class": "MirroredStrategy", "num_replicas": 2, "devices": ["/device:CPU:0", "/device:CPU:1"],
               "device_kind": "cpu", "cross_device_ops": "HierarchicalCopyAllReduce"},
    "tpu": {"class": "TPUStrategy", "num_replicas": 8,
            "devices": [f"/job:worker/replica:0/task:0/device:TPU:{i}" for i in range(8)],
            "device_kind": "tpu"},
    "gpu": {"class": None, "num_replicas": 0, "devices": [], "device_kind": None},
    # the JAX engine's resolutions of the same names (keras.distribution over JAX devices)
    "jax/cpu": {"class": "none (one device)", "num_replicas": 1, "devices": ["cpu:0"], "device_kind": "cpu",
                "scope": False},
    "jax/cpu_x2": {"class": "DataParallel", "num_replicas": 2, "devices": ["cpu:0", "cpu:1"], "device_kind": "cpu"},
    "jax/gpu": {"class": "none (one device)", "num_replicas": 1, "devices": ["gpu:0"], "device_kind": "gpu",
                "scope": False},
    "jax/tpu": {"class": "DataParallel", "num_replicas": 8, "devices": [f"tpu:{i}" for i in range(8)],
                "device_kind": "tpu"},
}
PREC_SHORT = {"float32": "fp32", "mixed_bfloat16": "mbf16"}


def _r(x: float, nd: int = 4) -> float:
    return float(f"{x:.{nd}g}")


def make_record(*, run_id: str, suite: str, env: dict[str, Any], workload: str, dataset: dict[str, Any],
                strategy: str, gb: int, spe: int, repeat: int, rng: random.Random, precision: str = "float32",
                status: str = "ok", error: dict[str, Any] | None = None, epochs: int = 5,
                rate: float = 5000.0, call_s: float = 0.002, warmup_s: float = 2.0, noise: float = 0.03,
                final_acc: float = 0.86, start_acc: float = 0.70, loss_end: float = 0.38,
                loss_start: float = 0.80, diverge_at: int | None = None,
                extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """One point record. ``rate`` = compute examples/s, ``call_s`` = host cost per execution (s)."""
    strat = STRATEGIES[strategy]
    backend, _, name = strategy.rpartition("/")
    replicas = strat["num_replicas"] or 1
    steps = dataset["n_train"] // gb
    val_steps = max(1, dataset["n_val"] // gb)
    recs = []
    if status in ("ok", "diverged"):
        for ep in range(1, epochs + 1):
            jitter = math.exp(rng.gauss(0.0, noise))
            train_s = (steps * gb / rate + math.ceil(steps / spe) * call_s) * jitter
            val_s = (val_steps * gb / (3 * rate) + math.ceil(val_steps / spe) * call_s) * jitter
            if ep == 1:
                train_s += warmup_s * math.exp(rng.gauss(0.0, 0.02))
            k = math.exp(-(ep - 1) / 1.5)
            loss = loss_end + (loss_start - loss_end) * k + rng.gauss(0.0, 0.003)
            acc = final_acc - (final_acc - start_acc) * k + rng.gauss(0.0, 0.002)
            e = {"epoch": ep, "epoch_s": _r(train_s + val_s), "train_s": _r(train_s), "val_s": _r(val_s),
                 "steps": steps, "examples": steps * gb, "loss": _r(loss), "accuracy": _r(acc + 0.01),
                 "val_loss": _r(loss * 0.9), "val_accuracy": _r(acc)}
            if diverge_at is not None and ep >= diverge_at:
                e.update(loss=None, val_loss=None, accuracy=0.1, val_accuracy=0.1)
            recs.append(e)
    steady = sorted(e["epoch_s"] for e in recs[1:])
    med = (steady[len(steady) // 2] + steady[(len(steady) - 1) // 2]) / 2 if steady else None
    point_id = f"{workload}-{strategy.replace('/', '-')}-b{gb}-spe{spe}-{PREC_SHORT[precision]}-r{repeat}"
    started = f"{run_id[:4]}-{run_id[4:6]}-{run_id[6:8]}T{run_id[9:11]}:{run_id[11:13]}:00Z"
    rec = {
        "schema_version": 1, "run_id": run_id, "point_id": point_id, "suite": suite, "status": status,
        "error": error, "workload": workload, "workload_variant": None, "dataset": dataset,
        "strategy": {"requested": name, "name": name, **strat}, "global_batch_size": gb,
        "per_replica_batch_size": gb // replicas, "batch_scaling": "global", "steps_per_execution": spe,
        "precision": precision, "repeat": repeat, "seed": 0, "steps_per_epoch": steps,
        "validation_steps": val_steps, "epochs": recs,
        "fit_wall_s": _r(sum(e["epoch_s"] for e in recs) + 0.05) if recs else None,
        "warmup_overhead_s": _r(recs[0]["epoch_s"] - med) if med is not None else None,
        "notes": [], "env": env, "started_at": started, "finished_at": started,
    }
    if backend:
        rec["backend"] = backend
    rec.update(extra or {})
    return rec


def with_predictions(rec: dict[str, Any], rng: random.Random, classes: int = 10) -> dict[str, Any]:
    """``rec`` with per-example validation predictions whose accuracy is its final ``val_accuracy`` (rewritten to
    the exact fraction). Every record shares each example's difficulty (``EXAMPLE_U``: common random numbers), so
    two records agree on most examples, as models trained on identical batches do; 3 % are drawn afresh."""
    from bench.predictions import encode

    if rec["status"] != "ok":
        return rec
    n = rec["validation_steps"] * rec["global_batch_size"]
    acc = rec["epochs"][-1]["val_accuracy"]
    labels = [(7 * i) % classes for i in range(n)]
    correct = [(rng.random() if rng.random() < 0.03 else EXAMPLE_U[i]) < acc for i in range(n)]
    predicted = [y if ok else (y + 1) % classes for y, ok in zip(labels, correct, strict=True)]
    rec["val_predictions"] = encode(predicted, labels)
    rec["epochs"][-1]["val_accuracy"] = sum(correct) / n
    return rec


_EXAMPLES = random.Random(7)
EXAMPLE_U = [_EXAMPLES.random() for _ in range(1 << 14)]


def with_process(rec: dict[str, Any], worker: int, startup_s: float) -> dict[str, Any]:
    """``rec`` as written by one worker process per repeat: its process and where its wall time went."""
    fit = rec.get("fit_wall_s") or 0.0
    rec["process"] = {"worker": worker, "pid": 4000 + worker, "log": f"logs/worker{worker}.log",
                      "startup_s": startup_s}
    rec["point_wall_s"] = _r(fit + 1.9) if rec["status"] != "skipped" else 0.0
    rec["teardown_s"] = 0.004 if fit else None
    return rec


def host_a(rng: random.Random) -> list[dict[str, Any]]:
    run, out = "20261121T101500Z-cnn-3f2a9c1", []
    perf = {("cpu", 64): 4300.0, ("cpu", 256): 5200.0, ("cpu_x2", 64): 3500.0, ("cpu_x2", 256): 5400.0,
            ("cpu_onedevice", 256): 3100.0}
    acc = {64: 0.884, 256: 0.876}
    for strategy in ("cpu", "cpu_x2", "cpu_onedevice"):
        for gb in (64, 256):
            if (strategy, gb) not in perf:
                continue
            for spe in (1, 8):
                for repeat in (0, 1, 2):
                    parity_gap = (strategy, gb, spe) == ("cpu_x2", 256, 8)
                    final = acc[gb] + (-0.026 if parity_gap else 0.001 * spe / 8)
                    out.append(make_record(
                        run_id=run, suite="cnn", env=ENV_A, workload="fashion_cnn", dataset=CNN_DATA,
                        strategy=strategy, gb=gb, spe=spe, repeat=repeat, rng=rng, rate=perf[strategy, gb],
                        call_s=0.004 if strategy == "cpu_x2" else 0.002,
                        warmup_s=(3.4 if strategy == "cpu_x2" else 1.6) + 0.3 * (spe > 1), final_acc=final,
                        extra={"flops_per_example": CNN_FLOPS, "peak_flops_per_s": {"float32": 2.3e11},
                               "datasheet_peak_flops_per_s": None, "input_examples_per_s": 250000.0}))
    for gb in (64, 256):
        out.append(make_record(
            run_id=run, suite="cnn", env=ENV_A, workload="fashion_cnn", dataset=CNN_DATA, strategy="gpu",
            gb=gb, spe=8, repeat=0, rng=rng, status="skipped",
            error={"type": "StrategyUnavailable",
                   "message": "strategy 'gpu' needs a GPU; tf.config.list_physical_devices('GPU') is empty"}))
    text = "20261121T113000Z-text-3f2a9c1"
    for spe in (1, 8):
        out.append(make_record(
            run_id=text, suite="text", env=ENV_A, workload="imdb_lstm", dataset=TEXT_DATA, strategy="cpu",
            gb=64, spe=spe, repeat=0, rng=rng, epochs=4, rate=900.0, warmup_s=4.1, final_acc=0.503,
            start_acc=0.499, loss_start=0.6932, loss_end=0.6921, noise=0.02))
    for spe in (1, 8):  # 37 steps per epoch (prime): spe 8 ran as 1, the configuration of the spe 1 point
        out.append(make_record(
            run_id=text, suite="text", env=ENV_A, workload="reuters_textcnn", dataset=REUTERS_DATA, strategy="cpu",
            gb=104, spe=spe, repeat=0, rng=rng, epochs=4, rate=2600.0, warmup_s=2.5, final_acc=0.55, start_acc=0.38,
            loss_start=3.1, loss_end=1.9, extra={"effective_steps_per_execution": 1}))
    return out


def host_b(rng: random.Random) -> list[dict[str, Any]]:
    out = host_b_points(rng)
    workers: dict[tuple[str, int], int] = {}  # one worker process per (strategy, repeat), in run order
    for rec in out:
        key = (rec["strategy"]["name"], rec["repeat"])
        workers.setdefault(key, len(workers))
        with_process(rec, workers[key], 11.0 if key[0] == "cpu" else 38.0)
        rec.update(target_accuracy=0.85, target_source="workload", math_mode="bf16" if key[0] == "tpu" else "fp32",
                   flop_count="forward+weight_grads+input_grads_where_needed")
        with_predictions(rec, rng)
    return out


def host_b_points(rng: random.Random) -> list[dict[str, Any]]:
    run, out = "20261122T080000Z-cnn-9b1e0d2", []
    peaks = {"peak_flops_per_s": {"float32": 3.1e13, "bfloat16": 1.0e14},
             "datasheet_peak_flops_per_s": {"bfloat16": 4.2e14}, "input_examples_per_s": 62000.0,
             "flops_per_example": CNN_FLOPS}
    acc = {256: 0.876, 1024: 0.792, 2048: 0.74}
    for gb in (256, 1024):
        for spe in (1, 32):
            for repeat in (0, 1):
                out.append(make_record(
                    run_id=run, suite="cnn", env=ENV_B, workload="fashion_cnn", dataset=CNN_DATA,
                    strategy="tpu", gb=gb, spe=spe, repeat=repeat, rng=rng, epochs=6, rate=60000.0,
                    call_s=0.0045, warmup_s=24.0 + 9.0 * (spe > 1), noise=0.05, final_acc=acc[gb] - 0.002,
                    extra=peaks))
            out.append(make_record(
                run_id=run, suite="cnn", env=ENV_B, workload="fashion_cnn", dataset=CNN_DATA, strategy="cpu",
                gb=gb, spe=spe, repeat=0, rng=rng, epochs=6, rate=21000.0, call_s=0.003, warmup_s=2.2,
                final_acc=acc[gb], extra={**peaks, "peak_flops_per_s": {"float32": 1.9e12},
                                          "datasheet_peak_flops_per_s": None}))
    out.append(make_record(
        run_id=run, suite="cnn", env=ENV_B, workload="fashion_cnn", dataset=CNN_DATA, strategy="tpu", gb=1024,
        spe=32, repeat=0, rng=rng, precision="mixed_bfloat16", epochs=6, rate=64000.0, call_s=0.0045,
        warmup_s=36.0, noise=0.05, final_acc=0.79, extra=peaks))
    out.append(make_record(
        run_id=run, suite="cnn", env=ENV_B, workload="fashion_cnn", dataset=CNN_DATA, strategy="tpu", gb=2048,
        spe=32, repeat=0, rng=rng, precision="mixed_bfloat16", status="diverged", epochs=6, rate=64000.0,
        call_s=0.0045, warmup_s=35.0, noise=0.05, final_acc=0.74, diverge_at=3,
        error={"type": "Diverged", "message": "training loss became NaN at epoch 3"}, extra=peaks))
    out.append(make_record(
        run_id=run, suite="cnn", env=ENV_B, workload="fashion_cnn", dataset=CNN_DATA, strategy="tpu", gb=4096,
        spe=32, repeat=0, rng=rng, status="failed",
        error={"type": "ResourceExhaustedError",
               "message": "Attempting to reserve 18.41G at the bottom of memory. That was not possible. "
                          "There are 15.48G free, 0B reserved, and 15.48G reservable.",
               "traceback": "  File \"bench/worker.py\", line 88, in run_point\n    model.fit(...)"},
        extra=peaks))
    return out


# --- a second set: one workload under both Keras backends, from three machines --------------------------------
ENV_L = {**ENV_A, "hostname": "laptop", "cpu": "Intel Core i7-1185G7", "cpu_count": 4, "git_commit": "dd21165"}
ENV_L_JAX = {k: v for k, v in ENV_L.items() if k != "tensorflow"} | {"jax": "0.10.2", "jaxlib": "0.10.2",
                                                                      "libtpu": None}
ENV_G = {"hostname": "gpubox", "platform": "Linux-6.8.0-x86_64-with-glibc2.39", "python": "3.12.3",
         "jax": "0.10.2", "jaxlib": "0.10.2", "libtpu": None, "keras": "3.15.1", "cpu": "AMD EPYC 9454",
         "cpu_count": 16, "accelerator": "NVIDIA H100 80GB HBM3", "device_kind": "gpu", "device_count": 1,
         "bench_version": "0.1.0", "git_commit": "dd21165", "git_dirty": False}
ENV_K = {"hostname": "kaggle", "platform": "Linux-6.6.0-x86_64-with-glibc2.35", "python": "3.11.11",
         "jax": "0.10.2", "jaxlib": "0.10.2", "libtpu": "0.0.51", "keras": "3.15.1", "cpu": "AMD EPYC 7B13",
         "cpu_count": 224, "accelerator": "TPU v5 lite", "device_kind": "tpu", "device_count": 8,
         "bench_version": "0.1.0", "git_commit": "dd21165", "git_dirty": False}
WEIGHTS = {"sha256": "fd88b64c568f5b384b13647a6fc94c08a3e87581790941257559e122ff4160a9",
           "path": "init/fashion_cnn-s0.npz", "created": False}


def _mem(rss_mib: float, device_mib: float | None = None, replicas: int = 1, scope: str = "process") -> dict:
    per = None if device_mib is None else [int(device_mib * 2**20)] * replicas
    return {"peak_rss_bytes": int(rss_mib * 2**20), "rss_scope": "point",
            "device_peak_bytes": per[0] if per else None, "per_device": per,
            "device_scope": scope if per else None}


def backend_records(rng: random.Random) -> list[dict[str, Any]]:
    """fashion_cnn at b128/b512 x spe 1/8: a laptop running both backends on its CPU (TensorFlow ~3x faster
    there), a GPU box with JAX only, a Kaggle v5e-8 TPU with JAX only (its GPU strategy skipped); peak
    memory everywhere, device memory on the GPU and TPU, the same initial weights; the JAX laptop points
    agree with TensorFlow's accuracy."""
    out = []
    laptop, gpubox, kaggle = ("20261123T090000Z-cnn-dd21165", "20261123T120000Z-cnn-dd21165",
                              "20261124T070000Z-cnn-dd21165")
    common = {"flops_per_example": CNN_FLOPS, "initial_weights": WEIGHTS}
    rates = {"cpu": 5200.0, "cpu_x2": 4300.0, "jax/cpu": 1700.0, "jax/cpu_x2": 1500.0}
    for strategy, rate in rates.items():
        env = ENV_L_JAX if strategy.startswith("jax/") else ENV_L
        for gb in (128, 512):
            for spe in (1, 8):
                for repeat in (0, 1, 2):
                    out.append(make_record(
                        run_id=laptop, suite="cnn", env=env, workload="fashion_cnn", dataset=CNN_DATA,
                        strategy=strategy, gb=gb, spe=spe, repeat=repeat, rng=rng, epochs=4,
                        rate=rate * (1.1 if gb == 512 else 1.0), call_s=0.003,
                        warmup_s=5.5 if strategy.startswith("jax/") else 2.0, noise=0.02,
                        final_acc=(0.880 if gb == 128 else 0.861) + 0.0005 * strategy.startswith("jax/"),
                        extra={**common, "peak_flops_per_s": {"float32": 2.1e11 if "jax" in strategy else 3.0e11},
                               "memory": _mem(640.0 if "jax" in strategy else 910.0)}))
                    with_predictions(out[-1], rng)
    for gb in (128, 512):
        for spe in (1, 8):
            for repeat in (0, 1, 2):
                out.append(make_record(
                    run_id=gpubox, suite="cnn", env=ENV_G, workload="fashion_cnn", dataset=CNN_DATA,
                    strategy="jax/gpu", gb=gb, spe=spe, repeat=repeat, rng=rng, epochs=4,
                    rate=90000.0 if gb == 128 else 260000.0, call_s=0.0012 if spe == 1 else 0.0003,
                    warmup_s=3.2, noise=0.03, final_acc=0.880 if gb == 128 else 0.861,
                    extra={**common, "peak_flops_per_s": {"float32": 4.9e13},
                           "datasheet_peak_flops_per_s": {"float32": 6.7e13},
                           "memory": _mem(2400.0, 310.0 + gb / 4)}))
    for gb in (512, 2048):
        for spe in (1, 8):
            for repeat in (0, 1):
                out.append(make_record(
                    run_id=kaggle, suite="cnn", env=ENV_K, workload="fashion_cnn", dataset=CNN_DATA,
                    strategy="jax/tpu", gb=gb, spe=spe, repeat=repeat, rng=rng, epochs=4,
                    rate=400000.0, call_s=0.004 if spe == 1 else 0.0008, warmup_s=21.0, noise=0.04,
                    final_acc=0.861 if gb == 512 else 0.83,
                    extra={**common, "datasheet_peak_flops_per_s": {"float32": 1.576e15},
                           "input_examples_per_s": 400000.0 if gb == 2048 else 900000.0,
                           "memory": _mem(3100.0, 180.0 + gb / 8, replicas=8)}))
    for gb in (512, 2048):
        out.append(make_record(
            run_id=kaggle, suite="cnn", env=ENV_K, workload="fashion_cnn", dataset=CNN_DATA, strategy="jax/gpu",
            gb=gb, spe=8, repeat=0, rng=rng, status="skipped",
            error={"type": "StrategyUnavailable", "message": "no GPU visible to JAX (jax.devices('gpu'): "
                   "Unknown backend gpu; jax.devices() = ['TPU_0(process=0,(0,0,0,0))', ...])"}))
    return out


def write_backend_fixtures(out: Path = OUT_BACKENDS) -> list[Path]:
    """(Re)write the two-backend fixture set under ``out``; returns the paths written, sorted."""
    if out.exists():
        shutil.rmtree(out)
    written = []
    for rec in backend_records(random.Random(20261123)):
        written.append(write_record(out / rec["env"]["hostname"] / rec["run_id"], rec))
    return sorted(written)


def write_fixtures(out: Path = OUT) -> list[Path]:
    """(Re)write every fixture file under ``out``; returns the paths written, sorted."""
    if out.exists():
        shutil.rmtree(out)
    rng = random.Random(20261121)
    written = []
    for host, records in (("hostA", host_a(rng)), ("hostB", host_b(rng))):
        for rec in records:
            written.append(write_record(out / host / rec["run_id"], rec))
        for run_id in sorted({r["run_id"] for r in records}):
            n = sum(r["run_id"] == run_id for r in records)
            written.append(atomic_write_json(out / host / run_id / "run.json",
                                             {"run_id": run_id, "host": host, "n_points": n}))
    corrupt = out / "hostA" / "20261121T101500Z-cnn-3f2a9c1" / "fashion_cnn-cpu_x2-b512-spe8-fp32-r0.json"
    corrupt.write_text('{"schema_version": 1, "run_id": "20261121T101500Z-cnn-3f2a9c1", "epochs": [{"epo',
                       encoding="utf-8")
    future = json.loads((out / "hostB" / "20261122T080000Z-cnn-9b1e0d2" /
                         "fashion_cnn-tpu-b256-spe1-fp32-r0.json").read_text(encoding="utf-8"))
    future.update(schema_version=2, point_id="fashion_cnn-tpu-b256-spe1-fp32-r9", repeat=9)
    newer = atomic_write_json(out / "hostB" / "20261122T080000Z-cnn-9b1e0d2" /
                              "fashion_cnn-tpu-b256-spe1-fp32-r9.json", future)
    return sorted([*written, corrupt, newer])


def synthetic_records(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` ok/failed records over 2 workloads x 3 strategies x 5 batches x 4 spe x repeats (benchmark)."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    strategies = ("cpu", "cpu_x2", "tpu")
    i = 0
    while len(out) < n:
        workload = ("fashion_cnn", "cifar_resnet")[i % 2]
        strategy = strategies[(i // 2) % 3]
        gb = (64, 128, 256, 512, 1024)[(i // 6) % 5]
        spe = (1, 4, 16, 64)[(i // 30) % 4]
        repeat = i // 120
        failed = rng.random() < 0.02
        out.append(make_record(
            run_id=f"20261201T000000Z-bench-{repeat:04d}", suite="bench",
            env=ENV_B if strategy == "tpu" else ENV_A,
            workload=workload, dataset=CNN_DATA, strategy=strategy, gb=gb, spe=spe, repeat=repeat, rng=rng,
            status="failed" if failed else "ok",
            error={"type": "ResourceExhaustedError", "message": "OOM"} if failed else None,
            rate=70000.0 if strategy == "tpu" else 5000.0, warmup_s=30.0 if strategy == "tpu" else 2.0,
            extra={"flops_per_example": CNN_FLOPS, "peak_flops_per_s": {"float32": 2.3e11},
                   "input_examples_per_s": 65000.0}))
        i += 1
    return out


if __name__ == "__main__":
    for p in [*write_fixtures(), *write_backend_fixtures()]:
        print(p.relative_to(ROOT))
