"""The JSON Schema of the current record, generated from :class:`bench.records.model.Record`.

``python -m bench.records.schema > docs/record.schema.json`` regenerates the published copy; the test suite
fails when the two differ, so the published schema is always the model's.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from bench.records.model import Record
from bench.records.upgrade import SCHEMA_VERSION


def record_schema() -> dict[str, Any]:
    """The record's JSON Schema (draft 2020-12) as stored: aliases, extra fields allowed."""
    schema = Record.model_json_schema(by_alias=True, mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"bench point record, schema_version {SCHEMA_VERSION}"
    return schema


def schema_text() -> str:
    """The schema as the published file holds it (sorted keys, two-space indent, final newline)."""
    return json.dumps(record_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    sys.stdout.write(schema_text())
