"""repeats=auto end to end (issue 36): a real race runs fewer points than the fixed number of repeats it is capped at
and names the winner those repeats name (the fixed run completed by resuming the same folder with repeats=3: the same
points, seeds and configurations a repeats=3 run plans), the report says how the repeats went, and a race resumed after
its last round was lost runs that round again and goes on.

The pair must be far apart in *training* throughput (validation excluded), or the race rightly runs to its cap, and must
train the same math, or the slower one stays in the race for being more accurate. It is one overhead-bound model (a
16-8-2 MLP at batch 8, as examples/regimes.py's) at ``steps_per_execution`` 1 and 32: the same steps on the same batches
from the same weights, one dispatch a step against one per 32. Under TensorFlow here the two trained 3,600-4,200 and
15,600-19,800 examples/s (4.5-4.7x, 2026-12-02); at ``max_repeats=3`` the race stops the slower at its one look unless
the gap falls under 2x or the spread rises above a third (t at 0.025 on 2 df: 4.3). Its epochs are long enough that one
stall does not make the spread (16,384 examples: ~1 s an epoch at spe 32)."""

from __future__ import annotations

import json
import re

import pytest

from bench.records import load_records
from tests.conftest import run_bench
from tests.rows import analyzed, labelled_points

RACER = '''
import numpy as np
from bench.workloads import Workload

def data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16384 + 256, 16)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    return x[:16384], y[:16384], x[16384:], y[16384:]

def build():
    import keras
    return keras.Sequential([keras.Input((16,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(2)])

def compile_kwargs():
    import keras
    return {"optimizer": "adam", "loss": keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            "metrics": ["accuracy"]}

def make():
    return Workload(name="racer", build_model=build, compile_kwargs=compile_kwargs, data=data)
'''
SWEEP = ("workloads=[race_racer:make]", "backends=[tensorflow]", "strategies=[cpu]", "batch_sizes=[8]",
         "steps_per_execution=[1,32]", "epochs=2", "measure_peak=false", "measure_input=false", "second_batch=false")


def fastest(records: list[dict]) -> int:
    (row,) = [r for _, r in analyzed(records).winners.iterrows()]
    return int(row["steps_per_execution"])


def spe(record: dict) -> int:
    return int(record["steps_per_execution"])


@pytest.mark.slow
@pytest.mark.serial  # alone: a race compares throughputs, which the other half of the test run would move
def test_a_race_runs_fewer_points_than_its_cap_and_names_the_same_winner(tmp_path) -> None:
    (tmp_path / "race_racer.py").write_text(RACER)
    raced = run_bench(*SWEEP, "repeats=auto", "max_repeats=3", f"results_dir={tmp_path / 'r'}",
                      f"reports_dir={tmp_path / 'reports'}", cwd=tmp_path)
    assert raced.returncode == 0, raced.stderr[-3000:]
    (run_dir,) = (tmp_path / "r").iterdir()
    records = load_records([run_dir]).records
    assert all(r["race"] == {"max_repeats": 3, "budget_s": 0.0} for r in records)
    race_lines = [line for line in raced.stderr.splitlines() if "repeats=auto" in line]  # evidence when it fails
    assert all(r["status"] == "ok" for r in records), [r.get("error") for r in records]
    rates = labelled_points(records).set_index("point_id")["repeat_examples_per_s"].round().to_dict()
    assert len(records) < 2 * 3, (race_lines, rates)  # fewer points than repeats=3
    by = {}
    for r in records:
        by.setdefault(spe(r), []).append(r["repeat"])
    assert all(sorted(v) == list(range(len(v))) for v in by.values())  # repeats 0..n-1, no gap
    manifest = json.loads((run_dir / "run.json").read_text())
    assert sorted(manifest["points"]) == sorted(r["point_id"] for r in records)  # what the rounds planned
    assert re.search(r"repeats=auto: [12] of 2 configuration\(s\) get repeat 2", raced.stderr), raced.stderr
    report = next((tmp_path / "reports").glob("*/report.md")).read_text()
    section = report.split("## How the repeats were spent (repeats=auto)", 1)[1].split("\n## ", 1)[0]
    assert "repeats=3 everywhere" in section and ("**settled**" in section or "**not settled**" in section)
    rows = {cells[0]: cells for line in section.splitlines() if line.startswith("| ")
            for cells in [[c.strip() for c in line.strip("|").split("|")]]}
    for k, repeats in by.items():  # each configuration's repeats and why it stopped
        assert rows[f"cpu at b8 spe{k} float32"][2] == str(len(repeats)) and rows[f"cpu at b8 spe{k} float32"][3]
    data = json.loads(next((tmp_path / "reports").glob("*/report.json")).read_text())["race"]
    assert data["max_repeats"] == 3 and 0 < data["used_s"] < data["full_s"]
    assert sorted((c["steps_per_execution"], c["repeats"]) for c in data["configurations"]) == sorted(
        (k, len(repeats)) for k, repeats in by.items())
    # resumed, the race decides the same from the same records: nothing more to run
    again = run_bench(*SWEEP, "repeats=auto", "max_repeats=3", f"results_dir={tmp_path / 'r'}",
                      f"resume={run_dir.name}", "report=false", cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert sorted(p.name for p in run_dir.glob("*.json")) == sorted(
        [f"{r['point_id']}.json" for r in records] + ["run.json"])
    # mid-race: the last round's record lost (a run killed between rounds); resumed, the race decides from the
    # rounds before it as it did, runs that repeat again and goes on from there (spe 32's: the cheap one to rerun)
    last = max((r for r in records if spe(r) == 32), key=lambda r: r["repeat"])
    assert last["repeat"] == max(r["repeat"] for r in records)
    (run_dir / f"{last['point_id']}.json").unlink()
    resumed = run_bench(*SWEEP, "repeats=auto", "max_repeats=3", f"results_dir={tmp_path / 'r'}",
                        f"resume={run_dir.name}", "report=false", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    after = {r["point_id"]: r for r in load_records([run_dir]).records}
    assert last["point_id"] in after and after[last["point_id"]]["process"]["pid"] != last["process"]["pid"]
    repeats = {}
    for r in after.values():
        repeats.setdefault(spe(r), []).append(r["repeat"])
    assert all(sorted(v) == list(range(len(v))) for v in repeats.values())  # still no gap
    # the same folder completed to three repeats of everything: what repeats=3 would have measured
    full = run_bench(*SWEEP, "repeats=3", f"results_dir={tmp_path / 'r'}", f"resume={run_dir.name}",
                     "report=false", cwd=tmp_path)
    assert full.returncode == 0, full.stderr[-3000:]
    everything = load_records([run_dir]).records
    assert len(everything) == 6
    if "**settled**" in section:
        assert fastest(records) == fastest(everything)
