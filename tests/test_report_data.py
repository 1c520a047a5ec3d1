"""report.json (issue 33): the report's verdicts as data, validated against the published JSON Schema."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench.reporting.build import build_report
from bench.reporting.render.report_json import ReportData, json_schema
from tests.conftest import REPO

DATA = Path(__file__).parent / "data"
SCHEMA = REPO / "docs" / "report.schema.json"


def validate(document: dict) -> ReportData:
    """A report.json against the model (the schema is generated from it; jsonschema is not a dependency)."""
    return ReportData.model_validate(document)


def test_the_published_schema_is_the_models() -> None:
    assert json.loads(SCHEMA.read_text()) == json_schema(), "regenerate: python -m bench.reporting.render.report_json"


@pytest.mark.parametrize("folder", ["records", "records_backends"])
def test_every_report_writes_its_verdicts_as_data(tmp_path, folder) -> None:
    md = build_report([DATA / folder], tmp_path / "out")
    text = (md.parent / "report.json").read_text()
    def not_json(constant: str) -> None:  # NaN, Infinity: not JSON numbers (a reason's text may say "NaN")
        raise AssertionError(f"report.json holds {constant}")

    json.loads(text, parse_constant=not_json)  # JSON numbers or null
    data = validate(json.loads(text))
    assert data.baseline == "cpu" and data.parity_margin_pp == 2.0 and data.configurations
    for c in data.configurations:
        assert c.examples_per_s.n == len(c.examples_per_s.samples)
        if c.examples_per_s.samples:
            lo, hi = c.examples_per_s.low, c.examples_per_s.high  # the geometric mean lies in the range (1 ulp)
            assert lo * (1 - 1e-12) <= c.examples_per_s.value <= hi * (1 + 1e-12)
        if c.val_accuracy.seeds > 1:
            assert c.val_accuracy.min <= c.val_accuracy.median <= c.val_accuracy.max
        for p in c.parity:
            assert p.verdict in ("differs", "equivalent", "inconclusive", "no_claim")
    answers = {(w.workload, w.dataset): w for w in data.workloads}
    assert len(answers) == len({(c.workload, c.dataset) for c in data.configurations})


def test_the_json_says_what_the_markdown_says(tmp_path) -> None:
    md = build_report([DATA / "records"], tmp_path / "out")
    data = validate(json.loads((md.parent / "report.json").read_text()))
    fashion = next(w for w in data.workloads if w.workload == "fashion_cnn")
    assert fashion.fastest_that_learns == "tpu at b256 spe32 float32"
    assert f"the tables' {fashion.fastest_that_learns}" in md.read_text()
    assert fashion.vs_baseline is not None and fashion.vs_baseline.ratio == pytest.approx(2.77, abs=0.005)
    assert fashion.vs_baseline.n == 2 and not fashion.vs_baseline.significant  # under 3 repeats: no claim
    tpu = next(c for c in data.configurations if c.strategy == "tpu" and c.global_batch_size == 1024
               and c.steps_per_execution == 32 and c.precision == "float32")
    assert not tpu.learns and tpu.target is not None and not tpu.target.reached
    assert tpu.target.reached_seeds == 0 and tpu.target.seeds == 1
    assert "target 0.85 not reached in 0/1 training runs" in tpu.flags
    x2 = next(c for c in data.configurations if c.strategy == "cpu_x2" and c.global_batch_size == 256
              and c.steps_per_execution == 8)
    (par,) = x2.parity
    assert (par.vs, par.kind, par.verdict, par.seeds) == ("cpu@hostA", "strategy", "no_claim", 1)
    assert par.diff_pp.mean == pytest.approx(-2.3, abs=0.1) and par.diff_pp.low is None
    # the ranking figure is the geometric mean of the repeats' rates, what the results table prints
    assert x2.examples_per_s.value == pytest.approx(math.prod(x2.examples_per_s.samples) ** (1 / x2.examples_per_s.n))


def test_the_notebook_api_returns_the_same_verdicts(tmp_path) -> None:
    import bench

    md = build_report([DATA / "records"], tmp_path / "out")
    assert bench.verdicts(DATA / "records") == json.loads((md.parent / "report.json").read_text())
    wider = bench.verdicts([DATA / "records"], parity_margin_pp=5.0)
    assert wider["parity_margin_pp"] == 5.0 and validate(wider).configurations


def test_plain_rows_hold_what_iterrows_holds() -> None:
    """The report reads summary rows as plain dictionaries (:func:`bench.reporting.frames.keys.plain_rows`, one
    object array for the frame instead of a Series a row): every value equal to iterrows', NaN where it is NaN,
    over the column kinds a summary has (text, int, float with NaN, bool, tuples, None)."""
    import pandas as pd

    from bench.reporting.frames.keys import plain_rows

    frame = pd.DataFrame({"strategy": ["cpu", "tpu", "cpu_x2"], "global_batch_size": [32, 64, 128],
                          "examples_per_s": [1.5, math.nan, 3.0], "learns": [True, False, True],
                          "epochs": [(1, 2), (), (3,)], "error": [None, "oom", ""]}, index=[7, 3, 9])
    rows = plain_rows(frame)
    assert len(rows) == 3 and [r["strategy"] for r in rows] == ["cpu", "tpu", "cpu_x2"]
    for row, (_, series) in zip(rows, frame.iterrows(), strict=True):
        assert list(row) == list(series.index)
        for k, v in series.items():
            assert (math.isnan(row[k]) and math.isnan(v)) if isinstance(v, float) and math.isnan(v) else row[k] == v
    assert plain_rows(frame.iloc[:0]) == []


def test_a_point_failed_without_a_reason_says_so_in_every_file(tmp_path) -> None:
    """A record that failed and recorded no error: the summary keeps its reason empty (frames write no text); the
    results table, results.csv and report.json each say that no reason was recorded."""
    import csv
    import shutil

    from bench.reporting.render.text import NO_REASON

    run = tmp_path / "records" / "run"
    shutil.copytree(DATA / "records" / "hostA" / "20261121T101500Z-cnn-3f2a9c1", run)
    for p in run.glob("fashion_cnn-cpu-b256-spe1-fp32-r*.json"):
        rec = json.loads(p.read_text())
        rec.update(status="failed", error=None, epochs=[])
        p.write_text(json.dumps(rec))
    md = build_report([run], tmp_path / "out").read_text()
    out = tmp_path / "out"
    assert NO_REASON in md
    rows = [r for r in csv.DictReader((out / "results.csv").open()) if r["status"] == "failed"]
    assert rows and all(r["error"] == NO_REASON for r in rows)
    failed = [c for c in json.loads((out / "report.json").read_text())["configurations"] if c["status"] == "failed"]
    assert failed and all(c["reason"]["text"] == NO_REASON for c in failed)
