"""How long a report over 1,000 point records takes (target: < 10 s on a slow 2-core machine).

    python -m pytest tests/benchmarks/test_report_speed.py -q -s --benchmark-enable

A benchmark reports a figure; it is not a timed unit test. In the normal test run (pyproject's addopts
disable benchmarking) it builds the report once and checks only what the report contains, so a slow CI
machine cannot fail it. With ``--benchmark-enable`` it also checks the target.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

from bench.records import write_record
from bench.reporting.markdown import build_report

_spec = importlib.util.spec_from_file_location(
    "make_fixtures", Path(__file__).resolve().parents[1] / "data" / "make_fixtures.py")
make_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_fixtures)

TARGET_S = 10.0


def test_report_from_1000_records(benchmark, tmp_path):
    results = tmp_path / "results"
    records = make_fixtures.synthetic_records(1000)
    for rec in records:
        write_record(results / rec["run_id"], rec)
    durations: list[float] = []

    def timed() -> Path:
        t0 = time.perf_counter()
        out = build_report([results], tmp_path / "report")
        durations.append(time.perf_counter() - t0)
        return out

    path = benchmark.pedantic(timed, rounds=1 if benchmark.disabled else 2, iterations=1)  # CI: contents only
    assert path.exists()
    assert path.read_text(encoding="utf-8").count("\n| cpu_x2 ") >= 40  # 2 workloads x 20 configurations
    benchmark.extra_info["report_s"] = max(durations)
    print(f"\nreport over 1,000 records: {', '.join(f'{d:.2f} s' for d in durations)} (target < {TARGET_S:g} s)")
    if not benchmark.disabled:
        assert max(durations) < TARGET_S, f"report over 1,000 records took {max(durations):.1f} s"
