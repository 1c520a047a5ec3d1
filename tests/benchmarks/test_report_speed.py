"""How long a report over 1,000 point records takes (target: < 2 s on the project's 2-core box, issue 40).

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
from bench.reporting.build import build_report

_spec = importlib.util.spec_from_file_location(
    "make_fixtures", Path(__file__).resolve().parents[1] / "data" / "make_fixtures.py")
make_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_fixtures)

TARGET_S = 2.0  # issue 40


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


HOSTILE_TARGET_S = 10.0


def hostile_corpus(folder: Path, n: int = 300, seed: int = 0) -> None:
    """Issue 40's experiment: ``n`` copies of a real record with 1-4 fields each dropped or replaced (NaN, inf,
    1e308, 2^63, negatives, empty or 10,000-character strings, ``<script>``, a remote image, a table row, wrong
    types), 5 intact ones, a truncated file and random bytes."""
    import json
    import random

    from tests.test_untrusted import BAD_NUMBERS, HOSTILE_TEXT, PATHS, REAL, WRONG_TYPES, mutate_all

    rng = random.Random(seed)
    folder.mkdir(parents=True)
    values = [*HOSTILE_TEXT, *BAD_NUMBERS, *WRONG_TYPES, ...]
    for i in range(n):
        changes = [(rng.choice(PATHS), rng.choice(values)) for _ in range(rng.randint(1, 4))]
        (folder / f"m{i}.json").write_text(json.dumps(mutate_all(REAL, changes)))
    for i in range(5):
        (folder / f"ok{i}.json").write_text(json.dumps({**REAL, "point_id": f"{REAL['point_id']}-{i}", "repeat": i}))
    (folder / "truncated.json").write_text(json.dumps(REAL)[:300])
    (folder / "bytes.json").write_bytes(bytes(rng.randrange(256) for _ in range(500)))


def test_report_over_300_hostile_records(benchmark, tmp_path):
    """The report over issue 40's hostile corpus: no crash, no markup from a record, bounded, every skipped file
    listed; with ``--benchmark-enable`` within HOSTILE_TARGET_S."""
    from tests.test_untrusted import assert_inert

    hostile_corpus(tmp_path / "results")
    durations: list[float] = []

    def timed() -> Path:
        t0 = time.perf_counter()
        out = build_report([tmp_path / "results"], tmp_path / "report")
        durations.append(time.perf_counter() - t0)
        return out

    path = benchmark.pedantic(timed, rounds=1, iterations=1)
    md = path.read_text(encoding="utf-8")
    assert_inert("\n".join(ln for ln in md.splitlines() if not ln.startswith("![")))  # bench's own figure links
    from bench.records import load_records

    skipped = load_records([tmp_path / "results"], warn=False).skipped
    section = md.split("## Files skipped by the loader", 1)[1]
    rows = [ln for ln in section.splitlines() if ln.startswith("| ") and not ln.startswith("| file")]
    assert len(skipped) > 150 and len(rows) == len(skipped)  # every skipped file listed, with its reason
    benchmark.extra_info["report_s"] = max(durations)
    print(f"\nreport over 300 hostile records: {max(durations):.2f} s, {len(md):,} characters (target < "
          f"{HOSTILE_TARGET_S:g} s)")
    if not benchmark.disabled:
        assert max(durations) < HOSTILE_TARGET_S
