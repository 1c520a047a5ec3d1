"""Records: round trip, atomic writes, contract checks, tolerant loading."""

from __future__ import annotations

import json

import pytest

from bench.records import (
    RecordError,
    load_records,
    read_record,
    upgrade,
    write_record,
)
from tests.conftest import make_record
from tests.rows import labelled_points

record = make_record


def test_round_trip_keeps_fields_and_turns_nan_into_null(tmp_path) -> None:
    path = write_record(tmp_path, record(extra={"a": 1}))
    back = read_record(path)
    assert back["extra"] == {"a": 1}
    assert back["epochs"][1]["loss"] is None  # strict JSON: NaN stored as null
    assert [e.epoch for e in upgrade(back).steady_epochs()] == [2]
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left behind


def test_write_refuses_an_incomplete_record(tmp_path) -> None:
    r = record()
    del r["env"]
    with pytest.raises(RecordError, match="missing required field"):
        write_record(tmp_path, r)
    assert not list(tmp_path.iterdir())


def test_loader_skips_corrupt_foreign_and_newer_files_by_name(tmp_path) -> None:
    write_record(tmp_path, record())
    (tmp_path / "corrupt.json").write_text('{"schema_version": 1, "run_id": ')
    (tmp_path / "foreign.json").write_text(json.dumps({"hello": "world"}))
    (tmp_path / "newer.json").write_text(json.dumps(record(schema_version=99, point_id="newer")))
    (tmp_path / "run.json").write_text(json.dumps({"run_id": "run"}))  # a manifest, not a record
    with pytest.warns(UserWarning):
        out = load_records([tmp_path])
    assert [r["point_id"] for r in out.records] == ["p-cpu-b8-spe1-fp32-r0"]
    reasons = dict(out.skipped)
    assert set(reasons) == {str(tmp_path / n) for n in ("corrupt.json", "foreign.json", "newer.json")}
    assert "unreadable" in reasons[str(tmp_path / "corrupt.json")]
    assert "not a bench record" in reasons[str(tmp_path / "foreign.json")]
    assert "schema_version 99 is newer" in reasons[str(tmp_path / "newer.json")]


def test_bad_status_is_refused() -> None:
    from bench.records import validate_record

    with pytest.raises(RecordError, match="status 'weird' is not one of ok, failed, skipped, diverged"):
        validate_record(record(status="weird"))


@pytest.mark.parametrize(("field", "value"), [("steps_per_execution", None), ("epochs", None),
                                              ("global_batch_size", "8"), ("repeat", True), ("backend", 3),
                                              ("memory", 12), ("strategy", "cpu"), ("process", {"pid": "12"})])
def test_wrongly_typed_fields_are_refused_not_crashing_a_report(tmp_path, field, value) -> None:
    (tmp_path / "bad.json").write_text(json.dumps(record(**{field: value})))
    out = load_records([tmp_path], warn=False)
    assert out.records == [] and f"field {field}" in out.skipped[0][1]


def test_epoch_without_its_number_is_refused(tmp_path) -> None:
    (tmp_path / "bad.json").write_text(json.dumps(record(epochs=[{"epoch": None, "epoch_s": 1.0}])))
    out = load_records([tmp_path], warn=False)
    assert out.records == [] and "field epochs[0].epoch is None" in out.skipped[0][1]


def test_backend_memory_and_initial_weights_are_read_and_old_records_are_tensorflow(tmp_path) -> None:

    jax = record(point_id="p-jax-cpu-b8-spe1-fp32-r0", backend="jax", initial_weights={"sha256": "ab"},
                 memory={"peak_rss_bytes": 3 * 2**20, "device_peak_bytes": None})
    write_record(tmp_path, jax)
    write_record(tmp_path, record())  # written before the backend field existed
    loaded = load_records([tmp_path], warn=False)
    assert loaded.skipped == [] and len(loaded.records) == 2
    frame = labelled_points(loaded.records).set_index("point_id")
    assert frame.loc["p-jax-cpu-b8-spe1-fp32-r0", "backend"] == "jax"
    assert frame.loc["p-jax-cpu-b8-spe1-fp32-r0", "strategy"] == "jax/cpu"
    assert frame.loc["p-jax-cpu-b8-spe1-fp32-r0", "peak_rss_mib"] == 3.0
    assert frame.loc["p-cpu-b8-spe1-fp32-r0", "backend"] == "tensorflow"
    assert frame.loc["p-cpu-b8-spe1-fp32-r0", "strategy"] == "cpu"


def test_steady_epochs_of_a_staged_point_are_its_last_stage_after_that_stage_s_first() -> None:
    plain = upgrade(record(epochs=[{"epoch": i} for i in (1, 2, 3)]))
    assert [e.epoch for e in plain.steady_epochs()] == [2, 3]
    staged = upgrade(record(epochs=[{"epoch": i, "stage": "frozen" if i <= 2 else "fine_tune"} for i in range(1, 6)]))
    assert [e.epoch for e in staged.steady_epochs()] == [4, 5]
