"""``python -m bench compare A B``: matching, noise-aware verdicts and the CI exit code."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench.reporting.commands import compare_main

HOST_A = Path(__file__).parent / "data" / "records" / "hostA"


def slowed_copy(dst: Path, factor: float, pattern: str = "*cpu-b256*.json") -> Path:
    shutil.copytree(HOST_A, dst)
    for p in dst.rglob(pattern):
        r = json.loads(p.read_text())
        for e in r["epochs"]:
            e["epoch_s"] *= factor
            e["train_s"] *= factor
        p.write_text(json.dumps(r))
    return dst


def test_identical_folders_pass(capsys):
    assert compare_main([str(HOST_A), str(HOST_A)]) == 0
    out = capsys.readouterr().out
    verdicts = [line.rsplit("  ", 1)[-1] for line in out.splitlines() if line.startswith(("fashion", "imdb"))]
    assert verdicts[:10] == ["~ not significant"] * 10
    assert "A and B: skipped (StrategyUnavailable" in out


def test_significant_slowdown_above_threshold_fails(tmp_path, capsys):
    b = slowed_copy(tmp_path / "b", 1.3)
    assert compare_main([str(HOST_A), str(b), "--fail-above", "1.2"]) == 1
    out = capsys.readouterr().out
    assert out.count("slower (> 1.2x)") == 2 and "FAIL: 2 point(s)" in out
    assert "1.30x [" in out


def test_slowdown_below_threshold_passes(tmp_path, capsys):
    b = slowed_copy(tmp_path / "b", 1.3)
    assert compare_main([str(HOST_A), str(b), "fail_above=1.5"]) == 0
    out = capsys.readouterr().out
    assert sum(line.endswith("  slower") for line in out.splitlines()) == 2 and "FAIL" not in out


def test_speedup_never_fails(tmp_path, capsys):
    b = slowed_copy(tmp_path / "b", 0.5)
    assert compare_main([str(HOST_A), str(b)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sum(line.endswith("  faster") for line in lines) == 2


def test_insignificant_large_ratio_does_not_fail(tmp_path, capsys):
    # One repeat per side: no interval, no claim, so even 3x cannot fail the gate.
    a = tmp_path / "a"
    a.mkdir()
    rec = json.loads(next(HOST_A.rglob("fashion_cnn-cpu-b64-spe1-fp32-r0.json")).read_text())
    rec["epochs"] = rec["epochs"][:2]
    (a / "p.json").write_text(json.dumps(rec))
    b = tmp_path / "b"
    b.mkdir()
    rec["epochs"][1]["train_s"] *= 3
    (b / "p.json").write_text(json.dumps(rec))
    assert compare_main([str(a), str(b), "--fail-above", "1.1"]) == 0
    out = capsys.readouterr().out
    assert "3.00x (n=1)" in out and "no claim (n < 3)" in out and "cannot fail the gate" in out


def test_the_gate_uses_repeats_not_epochs(tmp_path, capsys):
    """Many epochs of a single process each are not a sample of process-to-process noise: no claim."""
    for side, factor in (("a", 1.0), ("b", 1.3)):
        d = tmp_path / side
        d.mkdir()
        rec = json.loads(next(HOST_A.rglob("fashion_cnn-cpu-b64-spe1-fp32-r0.json")).read_text())
        rec["epochs"] = [dict(rec["epochs"][1], epoch=i + 1, train_s=rec["epochs"][1]["train_s"] * factor
                              * (1 + 0.001 * i)) for i in range(20)]
        (d / "p.json").write_text(json.dumps(rec))
    assert compare_main([str(tmp_path / "a"), str(tmp_path / "b"), "fail_above=1.1"]) == 0
    assert "no claim (n < 3)" in capsys.readouterr().out


def test_unmatched_points_are_listed(tmp_path, capsys):
    b = tmp_path / "b"
    shutil.copytree(HOST_A, b)
    for p in b.rglob("imdb_lstm-*.json"):
        p.unlink()
    assert compare_main([str(HOST_A), str(b), "--metric", "train_s"]) == 0
    out = capsys.readouterr().out
    assert out.count("only in A") == 1 and "A train_s median" in out  # one line per strategy and reason
    (line,) = [ln for ln in out.splitlines() if "only in A" in ln]
    assert line.split()[1] == "2" and "imdb_lstm" in line


@pytest.mark.parametrize("argv,needle", [([], "need two result folders"),
                                         (["X", "missing"], "results folder B not found: missing"),
                                         (["X", "X"], "no point records found in A"),
                                         (["X", "X", "--metric", "loss"], "invalid choice")])
def test_bad_input(tmp_path, monkeypatch, capsys, argv, needle):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "X").mkdir()
    assert compare_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("bench compare: ") and err.count("\n") == 1 and needle in err


def test_nothing_to_compare_is_bad_input_not_a_pass(tmp_path, capsys):
    # a CI gate pointed at folders with no common point must not pass silently
    other = tmp_path / "other"
    shutil.copytree(HOST_A, other)
    for p in other.rglob("*.json"):
        try:
            rec = json.loads(p.read_text())
        except json.JSONDecodeError:
            continue  # the fixtures' deliberately corrupt file
        rec["workload"] = "something_else"
        p.write_text(json.dumps(rec))
    assert compare_main([str(HOST_A), str(other)]) == 2
    assert "nothing to compare" in capsys.readouterr().err


def test_two_report_jsons_gate_as_their_records_do(tmp_path, capsys):
    """compare reads report.json (issue 33): the reports of host A and of its 1.3x slower copy give the verdicts
    the records give (the same per-repeat samples), and a report.json can face a results folder."""
    from bench.reporting.build import build_report

    b = slowed_copy(tmp_path / "b", 1.3)
    ra = build_report([HOST_A], tmp_path / "ra").parent / "report.json"
    rb = build_report([b], tmp_path / "rb").parent / "report.json"
    assert compare_main([str(HOST_A), str(b), "--fail-above", "1.2"]) == 1
    from_records = capsys.readouterr().out
    assert compare_main([str(ra), str(rb.parent), "--fail-above", "1.2"]) == 1
    from_reports = capsys.readouterr().out
    assert "configurations of a report.json" in from_reports
    assert from_reports.count("slower (> 1.2x)") == from_records.count("slower (> 1.2x)") == 2
    rows = [ln for ln in from_reports.splitlines() if "slower (> 1.2x)" in ln]
    assert all("1.30x [" in ln for ln in rows)
    assert compare_main([str(ra), str(HOST_A)]) == 0  # a report against the records it was built from
    assert "~ not significant" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text('{"configurations": 3}')
    assert compare_main([str(bad), str(HOST_A)]) == 2
    assert f"bench compare: {bad} is not a bench report.json" in capsys.readouterr().err


def _compared(out: str) -> tuple[list[str], list[list[str]]]:
    """compare's table of matched points, and the strategy and point count of each row not compared."""
    table, _, rest = out.partition("Not compared:")
    rows = [ln.split()[:2] for ln in rest.splitlines()[3:] if ln.strip() and not ln.startswith("skipped")]
    return [ln for ln in table.splitlines() if ln.startswith(("fashion", "imdb"))], rows


def test_two_reports_join_on_identity_not_on_labels(tmp_path, capsys):
    """compare joins configurations on their identity columns (report.json's ``identity``), not their display
    labels: a report whose labels were all reworded still meets its records point for point; a report.json written
    before it carried an identity is joined on its labels, as it was."""
    from bench.reporting.build import build_report

    ra = build_report([HOST_A], tmp_path / "ra").parent / "report.json"
    assert compare_main([str(HOST_A), str(HOST_A)]) == 0
    same = _compared(capsys.readouterr().out)
    report = json.loads(ra.read_text())
    assert all(c["identity"]["strategy_name"] for c in report["configurations"])
    for c in report["configurations"]:
        c["strategy"], c["dataset"] = f"renamed {c['strategy']}", f"renamed {c['dataset']}"
    relabelled = tmp_path / "relabelled.json"
    relabelled.write_text(json.dumps(report))
    assert compare_main([str(HOST_A), str(relabelled)]) == 0
    out = _compared(capsys.readouterr().out)
    assert out == same and len(out[0]) > 0  # every point met, in A's labels; what was not compared, the same
    for c in report["configurations"]:
        del c["identity"]  # an older report.json: labels alone, here reworded, so nothing meets
    relabelled.write_text(json.dumps(report))
    assert compare_main([str(HOST_A), str(relabelled)]) == 2
    assert "nothing to compare" in capsys.readouterr().err
