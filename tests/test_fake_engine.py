"""A fourth engine, declared in one folder (tests/data/engines/fake, named by ``BENCH_ENGINE_DIRS``) and edited
nowhere else: the plan, the records, the report, its labels, figures and parity take it as they take the three of
bench (issue 75). Its records come from a double that writes what a worker would, without training."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from tests.conftest import REPO

ENGINES = Path(__file__).parent / "data" / "engines"
RUN = "20261205T120000Z-cnn-fake000"
COLOUR = (0xE5, 0x39, 0x35)  # the fake's declared colour, #e53935


def double(out: str) -> None:
    """In a process that declared the fake engine: plan a sweep under tensorflow and fake (two batches, the compiler
    off and on, three repeats), write each planned point's record as its worker would (the fake half as fast as
    TensorFlow, as accurate, its predictions paired by seed), and build the report."""
    import random

    from bench.cli import parse_config
    from bench.reporting.build import build_report
    from bench.runner.plan import plan
    from tests.data.make_fixtures import CNN_DATA, ENV_L, make_record, with_predictions

    cfg = parse_config(["workloads=[fashion_cnn]", "backends=[tensorflow,fake]", "strategies=[cpu]",
                        "batch_sizes=[64,256]", "steps_per_execution=[1]", "repeats=3", "epochs=4",
                        "jit_compile=[false,true]"])
    run = Path(out) / "results" / RUN
    run.mkdir(parents=True)
    rng = random.Random(0)
    for p in plan(cfg):
        fake = p.backend == "fake"
        rec = make_record(run_id=RUN, suite="cnn", env=ENV_L, workload=p.workload, dataset=CNN_DATA, strategy="cpu",
                          gb=int(p.global_batch_size or 0), spe=p.steps_per_execution, repeat=p.repeat, rng=rng,
                          epochs=4, rate=2600.0 if fake else 5200.0, final_acc=0.88 if p.global_batch_size == 64
                          else 0.86)
        with_predictions(rec, random.Random(p.repeat))  # one seed, one set of predictions, whatever the backend
        compiled = {"tensorflow": "XLA (tf.function(jit_compile=True))", "fake": "FakeJIT (whole step)"}[p.backend]
        rec.update(point_id=p.point_id, backend=p.backend, seed=p.repeat, point=p.to_record(),
                   compiler=compiled if p.jit_compile is True else "")
        (run / f"{p.point_id}.json").write_text(json.dumps(rec))
    build_report([run], Path(out) / "report")
    from bench.engines import load

    try:
        load("fake")  # its module is its folder's __init__.py, which implements nothing of the contract
        loaded = "loaded"
    except TypeError as e:
        loaded = str(e)
    print(json.dumps({"ids": sorted(p.point_id for p in plan(cfg)), "load": loaded}))


def test_a_fourth_engine_declared_in_one_folder_runs_through_plan_records_report_figures_and_parity(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(ENGINES)]), "BENCH_ENGINE_DIRS": str(ENGINES)}
    code = f"from tests.test_fake_engine import double; double({str(tmp_path)!r})"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    said = json.loads(proc.stdout.strip().splitlines()[-1])
    ids = said["ids"]
    assert said["load"].startswith("engine 'fake' does not implement bench.engines.Engine: missing NAME, activate")
    # the plan: the fake's points carry its name and its declared compiler mark in their ids
    assert "fashion_cnn-fake-cpu-b64-spe1-fp32-r0" in ids and "fashion_cnn-fake-cpu-fakejit-b256-spe1-fp32-r2" in ids
    assert "fashion_cnn-cpu-xla-b64-spe1-fp32-r0" in ids and len(ids) == 2 * 2 * 2 * 3
    report = tmp_path / "report"
    md = (report / "report.md").read_text()
    data = json.loads((report / "report.json").read_text())
    fakes = [c for c in data["configurations"] if c["backend"] == "fake"]
    # labels: the backend's prefix and its compiler, from its declaration; its display name in the tables
    assert sorted({c["strategy"] for c in fakes}) == ["fake/cpu", "fake/cpu (FakeJIT)"] and len(fakes) == 4
    assert "FakeBackend" in md and "(FakeJIT)" in md
    # parity: each fake configuration against TensorFlow's of the same label (``cpu``: the compiler off on both),
    # paired by seed over 3 runs; the compiled ones name different compilers, so no backend comparison
    plain = [c for c in fakes if c["strategy"] == "fake/cpu"]
    assert [[(p["vs"], p["seeds"]) for p in c["parity"] if p["kind"] == "backend"] for c in plain] == [[("cpu", 3)]] * 2
    # the speedup against the baseline: half TensorFlow's throughput
    assert [(round(c["speedup"]["ratio"], 1), c["speedup"]["vs"]) for c in plain] == [(0.5, "cpu")] * 2
    rows = [r for r in csv.DictReader((report / "results.csv").open()) if r["backend"] == "fake"]
    assert len(rows) == 4
    # figures: the backends figure draws the fake's bars in its declared colour
    import matplotlib.image

    png = next(report.glob("*-backends.png"))
    pixels = (np.asarray(matplotlib.image.imread(png))[..., :3] * 255).round().astype(int)
    assert int((np.abs(pixels - np.array(COLOUR)).sum(axis=-1) <= 6).sum()) > 500


def test_an_engine_declared_twice_is_refused(tmp_path, monkeypatch):
    """A folder named by BENCH_ENGINE_DIRS that declares a backend bench declares: a clear error, not a silent pick."""
    import shutil

    from bench.records.backends import ENGINE_DIRS, ENGINES_DIR, declared

    shutil.copytree(ENGINES_DIR / "jax", tmp_path / "jax", ignore=lambda *_: [n for n in _[1] if n != "backend.yaml"])
    monkeypatch.setenv(ENGINE_DIRS, str(tmp_path))
    try:
        declared()
    except ValueError as e:
        assert "declared twice: jax" in str(e)
    else:
        raise AssertionError("a backend declared twice was accepted")
    monkeypatch.setenv(ENGINE_DIRS, str(ENGINES))
    assert list(declared()) == ["tensorflow", "jax", "torch", "fake"]
