"""The quickstart's own cost: ``python -m bench suite=cnn`` from this checkout with an empty cache, timed from outside,
and how much of its wall time was not the training epochs it measures (issue 65: the epochs inside ``fit`` at least
half of it; the whole run about a minute on the project's 2-core box, 0.8x or less of 079c469 in one sitting).

    python -m pytest tests/benchmarks/test_quickstart.py -q -s --benchmark-enable

Reports (``benchmark.extra_info`` and stdout), in seconds and shares of the outside wall time: ``wall_s``; what
run.json's ``parent`` says of it (before the workers, the report); the workers' start-ups; ``fit_s`` (inside ``fit``)
and ``training_s`` (its epochs' training seconds); ``non_training_s`` = wall - training. One run per call: compare
commits side by side in one sitting (``farm-bench --vs``), never seconds across days. The figures are reported;
with ``--benchmark-enable`` the share inside ``fit`` is checked against its target, the seconds are not (the box's
speed moves 1.3x between days). The normal test run skips it: tests/test_e2e.py checks on the smoke run that the
report's table adds up to the wall time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIT_SHARE_TARGET = 0.5  # issue 65: the epochs inside fit are >= 50 % of the wall time


def test_quickstart_non_training_share(benchmark, tmp_path) -> None:
    if benchmark.disabled:
        pytest.skip("a timing of the whole quickstart: run with --benchmark-enable (the table adding up to the wall "
                    "time: tests/test_e2e.py)")
    env = {**os.environ, "BENCH_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}
    figures: dict[str, float] = {}

    def run() -> None:
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "bench", "suite=cnn", f"results_dir={tmp_path / 'results'}",
                               f"reports_dir={tmp_path / 'reports'}"], env=env, cwd=tmp_path, capture_output=True,
                              text=True, timeout=900)
        figures["wall_s"] = time.perf_counter() - started
        assert proc.returncode == 0, proc.stderr[-3000:]

    benchmark.pedantic(run, rounds=1, iterations=1)
    (run_dir,) = (tmp_path / "results").iterdir()
    parent = json.loads((run_dir / "run.json").read_text())["parent"]
    records = [json.loads(p.read_text()) for p in run_dir.glob("*-r*.json")]
    ran = [r for r in records if r["status"] == "ok"]
    startups = {r["process"]["pid"]: r["process"]["startup_s"] for r in ran}
    wall = figures["wall_s"]
    figures.update(before_workers_s=parent["before_workers_s"], report_s=parent["report_s"],
                   startup_s=sum(startups.values()), fit_s=sum(r["fit_wall_s"] for r in ran),
                   training_s=sum(e["train_s"] for r in ran for e in r["epochs"]))
    figures["non_training_s"] = wall - figures["training_s"]
    benchmark.extra_info.update(figures)
    print("\nquickstart, empty cache: " + ", ".join(
        f"{k} {v:.1f} ({100 * v / wall:.0f}%)" if k != "wall_s" else f"wall {v:.1f} s" for k, v in figures.items()))
    assert len(ran) == 10 and parent["wall_s"] <= wall  # what ran: the suite's ten CPU points, timed inside the run
    assert figures["fit_s"] >= FIT_SHARE_TARGET * wall, f"inside fit: {figures['fit_s'] / wall:.0%} of the wall time"
