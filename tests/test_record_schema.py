"""The typed record: every generation of stored record upgrades to the current model, stored fields survive a
round trip, the published JSON Schema is the model's, and what the worker writes is all declared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.records import Record, RecordError, load_records, parse, upgrade
from bench.records.schema import record_schema, schema_text
from bench.records.upgrade import LEGACY_FLOP_COUNT, UPGRADES

DATA = Path(__file__).parent / "data"
SCHEMA_FIXTURES = sorted((DATA / "schema").glob("*.json"))
DOCS_SCHEMA = Path(__file__).resolve().parents[1] / "docs" / "record.schema.json"


def undeclared(model: object, where: str = "") -> list[str]:
    """Fields of a parsed record (and its parts) that the model does not declare. An epoch keeps whatever Keras'
    logs name (a workload's own metrics: ``top5_accuracy``, ``val_top5_accuracy``), so its extras are allowed."""
    from pydantic import BaseModel

    from bench.records import Epoch

    out: list[str] = []
    if isinstance(model, BaseModel):
        out += [f"{where}{k}" for k in model.model_extra or {} if not isinstance(model, Epoch)]
        for name in type(model).model_fields:
            out += undeclared(getattr(model, name), f"{where}{name}.")
    elif isinstance(model, list):
        for i, item in enumerate(model):
            out += undeclared(item, f"{where.rstrip('.')}[{i}].")
    return out


def test_there_is_a_fixture_and_an_upgrade_for_every_schema_version() -> None:
    versions = {json.loads(p.read_text())["schema_version"] for p in SCHEMA_FIXTURES}
    assert versions == set(UPGRADES) == {1}


@pytest.mark.parametrize("path", SCHEMA_FIXTURES, ids=lambda p: p.stem)
def test_each_stored_generation_round_trips_and_upgrades(path: Path) -> None:
    raw = json.loads(path.read_text())
    assert parse(raw, path.name).to_json() == raw  # what was stored is kept, unknown fields included
    r = upgrade(raw)
    assert r.backend == "tensorflow"
    assert r.effective_spe() == r.steps_per_execution == 4 and r.requested_steps_per_execution == 4
    assert all(e.examples == e.steps * 64 for e in r.epochs)
    assert r.dataset.chance_accuracy is not None and r.strategy.device_kind == "cpu"
    assert [e.epoch for e in r.steady_epochs()] == [2]
    assert raw == json.loads(path.read_text())  # upgrading never touches its input


def test_the_first_generation_reads_with_what_its_absent_fields_meant() -> None:
    first = upgrade(json.loads((DATA / "schema" / "v1-first.json").read_text()))
    assert first.flop_count == LEGACY_FLOP_COUNT and first.dataset.chance_accuracy == pytest.approx(0.1)
    assert first.strategy.name == first.strategy.requested == "cpu_onedevice"  # cpu was OneDeviceStrategy then
    assert first.process is None and first.memory is None and first.target_accuracy is None
    assert first.model_extra == {} and first.peak_devices == 1  # the first bench's field, a field again today
    raw = json.loads((DATA / "schema" / "v1-first.json").read_text())
    carried = upgrade({**raw, "a_field_of_a_later_bench": [1, 2]})
    assert carried.model_extra == {"a_field_of_a_later_bench": [1, 2]}  # unknown fields are carried, not dropped


def test_the_current_generation_declares_every_field_it_stores() -> None:
    current = parse(json.loads((DATA / "schema" / "v1-current.json").read_text()))
    assert undeclared(current) == []
    assert current.process is not None and current.process.worker == 0 and current.memory is not None


def test_every_record_fixture_loads_but_the_two_that_must_not() -> None:
    loaded = load_records([DATA / "records", DATA / "records_backends"], warn=False)
    assert len(loaded.records) > 100
    assert sorted(Path(p).name for p, _ in loaded.skipped) == [
        "fashion_cnn-cpu_x2-b512-spe8-fp32-r0.json", "fashion_cnn-tpu-b256-spe1-fp32-r9.json"]
    for raw in loaded.records:
        assert isinstance(upgrade(raw), Record)


def test_a_newer_or_unknown_schema_version_is_refused_by_name() -> None:
    raw = json.loads((DATA / "schema" / "v1-current.json").read_text())
    with pytest.raises(RecordError, match="schema_version 2 is newer than this bench reads"):
        upgrade({**raw, "schema_version": 2})
    with pytest.raises(RecordError, match="schema_version 0 was never written"):
        upgrade({**raw, "schema_version": 0})


def test_the_published_json_schema_is_the_model_s() -> None:
    regenerate = "python -m bench.records.schema > docs/record.schema.json"
    assert DOCS_SCHEMA.read_text() == schema_text(), regenerate
    schema = record_schema()
    assert set(schema["required"]) == {n for n, f in Record.model_fields.items() if f.is_required()}
    assert "class" in schema["$defs"]["Strategy"]["properties"]  # stored names, not Python's
    current = json.loads((DATA / "schema" / "v1-current.json").read_text())
    assert set(current) <= set(schema["properties"])
