"""Records from strangers (issue 40): every string a record brings reaches the report inert and capped, numbers that
must be finite and positive are checked by the record model, and the report and ``compare`` neither crash nor emit
markup from a record, whatever the files hold. Property-based: records mutated from a real one, and records
generated from the record model's JSON Schema (hypothesis, hypothesis-jsonschema), a bounded number of examples
with a fixed seed (``derandomize``), so ``tox`` stays fast and a failure reproduces."""

from __future__ import annotations

import copy
import json
import math
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from bench.records import as_records, load_records
from bench.reporting.analysis.cost import priced_summary
from bench.reporting.commands import compare_main
from bench.reporting.load import untrusted
from bench.reporting.load.prices import load_table
from bench.reporting.render.markdown.document import render_markdown
from tests.conftest import REPO
from tests.rows import analyzed

RECORDS = REPO / "tests" / "data" / "records"
REAL = json.loads((RECORDS / "hostA" / "20261121T101500Z-cnn-3f2a9c1" / "fashion_cnn-cpu-b256-spe1-fp32-r0.json")
                  .read_text())
SCRIPT, IMAGE, ROW = "<script>alert(1)</script>", "![x](http://t.invalid/t.png)", "a | b |\n| --- | c"
HOSTILE_TEXT = [SCRIPT, IMAGE, ROW, "x" * 10_000, "", "$x^2$", "# heading\n## more", "\udc80 lone", "`code`",
                "[link](http://t.invalid)", "**bold**", "\\"]
BAD_NUMBERS = [math.nan, math.inf, -math.inf, 1e308, 2 ** 63, -1, -0.5, 0]
WRONG_TYPES = [[], {}, "7", True, None]
SETTINGS = settings(max_examples=12, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def leaf_paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a leaf of a JSON value (the predictions' base64 left out: a field no report renders)."""
    if isinstance(value, dict):
        return [p for k, v in value.items() if k != "val_predictions" for p in leaf_paths(v, (*prefix, k))]
    if isinstance(value, list) and value:
        return [p for i, v in enumerate(value) for p in leaf_paths(v, (*prefix, i))]
    return [prefix]


PATHS = leaf_paths(REAL)


def mutate(record: dict, path: tuple, new: Any) -> dict:
    """``record`` with the value at ``path`` replaced by ``new`` (``...``: the field dropped)."""
    out = copy.deepcopy(record)
    node = out
    for k in path[:-1]:
        node = node[k]
    if new is ...:
        node.pop(path[-1]) if isinstance(node, dict) else node.__setitem__(path[-1], None)
    else:
        node[path[-1]] = new
    return out


mutations = st.lists(st.tuples(st.sampled_from(PATHS), st.one_of(
    st.sampled_from(HOSTILE_TEXT), st.sampled_from(BAD_NUMBERS), st.sampled_from(WRONG_TYPES), st.just(...),
    st.text(max_size=40))), min_size=1, max_size=4)


def unescaped(text: str, char: str) -> int:
    """How often ``char`` occurs in ``text`` without a backslash before it."""
    return len(re.findall(rf"(?<!\\){re.escape(char)}", text))


def assert_inert(md: str) -> None:
    """No markup a record could have brought: no tag, image or link (but bench's own links from the answer to a
    workload's section, whose target keeps letters, digits, ``-`` and ``_`` only), no table row with a cell too many,
    bounded."""
    assert not re.search(r"(?<!\\)<[A-Za-z/!]", md), "an HTML tag"  # bench's own markdown has none
    md = re.sub(r"\(\[evidence\]\(#[\w-]*\)\)", "", md)  # the answer's own links (render.text.anchor)
    assert not re.search(r"(?<!\\)!(?<!\\)\[", md) and not re.search(r"(?<!\\)\]\(", md), "an image or a link"
    lines = md.splitlines()
    assert max(map(len, lines)) < 8_000 and len(md) < 500_000
    for i, line in enumerate(lines[1:], 1):  # every row of a table has its header's cells
        if line.startswith("|") and lines[i - 1].startswith("|"):
            assert unescaped(line, "|") == unescaped(lines[i - 1], "|"), (lines[i - 1], line)


def report_of(folder: Path) -> tuple[str, Any]:
    """The markdown the report would write for ``folder`` (figures left out: they read the same frames), and what the
    loader saw."""
    loaded = untrusted.load([folder])
    if not loaded.records:
        return "", loaded
    a = analyzed(as_records(loaded.records))
    table = load_table()
    return render_markdown(a, loaded, [folder], {}, priced_summary(a.summary, table), table), loaded


def write(folder: Path, records: list[Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, rec in enumerate(records):
        (folder / f"r{i}.json").write_text(json.dumps(rec) if not isinstance(rec, bytes) else rec.decode("latin-1"))


def check_folder(folder: Path) -> None:
    md, loaded = report_of(folder)
    assert_inert(md)
    if md:
        skipped = md.split("## Files skipped by the loader", 1)[1]
        rows = [ln for ln in skipped.splitlines() if ln.startswith("| ") and not ln.startswith("| file")]
        assert len(rows) == len(loaded.skipped) or (not loaded.skipped and "None." in skipped)
    assert compare_main([str(folder), str(RECORDS)]) in (0, 1, 2)  # a verdict or a refusal, never a crash


@SETTINGS
@given(st.lists(mutations, min_size=1, max_size=3))
def test_mutated_records_never_crash_the_report_nor_bring_markup(changes: list) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        records = [REAL] + [mutate_all(REAL, ch) for ch in changes]
        write(Path(tmp) / "run", records)
        check_folder(Path(tmp) / "run")


def mutate_all(record: dict, changes: list) -> dict:
    for path, new in changes:
        try:
            record = mutate(record, path, new)
        except (KeyError, IndexError, TypeError):  # an earlier change removed the path's parent
            continue
    return record


@SETTINGS
@given(from_schema(json.loads((REPO / "docs" / "record.schema.json").read_text())))
def test_records_generated_from_the_schema_never_crash_the_report(record: dict) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        write(Path(tmp) / "run", [REAL, record])
        check_folder(Path(tmp) / "run")


@pytest.mark.parametrize("text", HOSTILE_TEXT)
def test_a_string_is_made_inert_and_capped(text: str) -> None:
    out = untrusted.inert(text, 80)
    assert "\n" not in out and len(out.replace("\\", "")) <= 80
    for char in "`*[]<>|$!#":
        assert unescaped(out, char) == 0, (text, out)
    out.encode("utf-8")  # a lone surrogate is replaced, so the report can be written


def test_names_bench_writes_pass_unchanged() -> None:
    for name in ("fashion_cnn", "jax/cpu_x2@hostA", "synthetic (reduced, n_train=4096)", "b128 spe8 float32",
                 "csv:plants/train.csv", "20261121T101500Z-cnn-3f2a9c1", "Intel(R) Xeon(R) Processor"):
        assert untrusted.inert(name) == name


@pytest.mark.parametrize(("path", "value", "field"), [
    (("global_batch_size",), 0, "global_batch_size"), (("global_batch_size",), -64, "global_batch_size"),
    (("epochs", 1, "train_s"), math.nan, "train_s"), (("epochs", 1, "epoch_s"), math.inf, "epoch_s"),
    (("epochs", 1, "train_s"), -0.5, "train_s"), (("steps_per_execution",), 0, "steps_per_execution"),
    (("epochs", 1, "val_accuracy"), 1.5, "val_accuracy"), (("repeat",), -1, "repeat"),
])
def test_a_number_that_must_be_finite_and_positive_is_refused_by_the_model(tmp_path, path, value, field) -> None:
    """The record is skipped with the field named, never rendered as NaN, inf or a negative time."""
    write(tmp_path, [mutate(REAL, path, value)])
    loaded = load_records([tmp_path], warn=False)
    assert loaded.records == [] and field in loaded.skipped[0][1], loaded.skipped


def test_a_hostile_host_and_workload_reach_headings_tables_and_text_inert(tmp_path) -> None:
    """The issue's own finds: ``<script>`` and a remote image in a host name and a workload (a heading)."""
    rec = mutate(mutate(REAL, ("env", "hostname"), SCRIPT + "x" * 10_000), ("workload",), IMAGE)
    write(tmp_path, [rec, REAL])
    md, loaded = report_of(tmp_path)
    assert len(loaded.records) == 2 and "## \\!\\[x\\](http://t.invalid/t.png) on" in md
    assert "\\<script\\>alert(1)\\</script\\>xxx" in md and "x" * 100 not in md
    assert_inert(md)


def test_the_report_loader_reads_a_file_once_and_refuses_what_the_file_holds(tmp_path) -> None:
    """untrusted.load checks a file's header as stored, then makes the record inert and parses it once: a file nested
    too deeply to walk is skipped with the reason (no crash), a value refused by the model is quoted as stored, and
    a status that only whitespace made valid stays refused."""
    deep = json.dumps({**REAL, "point_id": "deep"})[:-1] + ', "extra": ' + "[" * 900 + "]" * 900 + "}"
    (tmp_path / "deep.json").write_text(deep)
    (tmp_path / "foreign.json").write_text("[" * 900 + "]" * 900)
    write(tmp_path, [mutate(REAL, ("status",), "ok\n"), mutate(REAL, ("global_batch_size",), "<b>"), REAL])
    loaded = untrusted.load([tmp_path])
    assert len(loaded.records) == 1 and loaded.records[0].status == "ok"
    reasons = sorted(reason.split(": ", 1)[1] for _, reason in loaded.skipped)
    assert reasons == ["field global_batch_size is '<b>'; input should be a valid integer",
                       "nested too deeply to be a record", "not a JSON object",
                       "status 'ok\\n' is not one of ok, failed, skipped, diverged"], reasons


def test_a_deep_file_is_refused_whatever_the_recursion_limit(tmp_path) -> None:
    """The depth is counted, not left to RecursionError: a library that raises the interpreter's limit (the
    tests' parallel workers import several) made the 900-deep file above load as a record."""
    import sys

    deep = json.dumps({**REAL, "point_id": "deep"})[:-1] + ', "extra": ' + "[" * 900 + "]" * 900 + "}"
    (tmp_path / "deep.json").write_text(deep)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(50_000)
    try:
        loaded = untrusted.load([tmp_path])
    finally:
        sys.setrecursionlimit(limit)
    assert loaded.records == [] and "nested too deeply" in loaded.skipped[0][1]
    assert untrusted.too_deep([[[]]], limit=2) and not untrusted.too_deep([[]], limit=2)


def test_a_runs_own_seconds_are_read_only_as_finite_non_negative_numbers(tmp_path) -> None:
    """run.json's ``parent`` is read field by field: numbers only, finite and >= 0, of the known fields; a manifest
    that is not JSON, has no parent or a parent of another shape adds nothing; the run id is made inert as the
    records' are."""
    from bench.reporting.load.parents import parent_times

    def manifest(folder: str, body: object) -> None:
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "run.json").write_text(body if isinstance(body, str) else json.dumps(body))

    manifest("a", {"run_id": "ra", "parent": {"before_workers_s": 1.5, "workers_s": 80, "report_s": float("nan"),
                                                "wall_s": -1, "extra_s": 3.0}})
    manifest("b", {"run_id": "r|b", "parent": {"wall_s": True, "report_s": "4", "before_workers_s": 0.25}})
    manifest("c", "{not json")
    manifest("d", {"run_id": "rd", "parent": [1, 2]})
    manifest("e", {"run_id": "re"})
    assert parent_times([tmp_path]) == {"ra": {"before_workers_s": 1.5, "workers_s": 80.0},
                                        "r\\|b": {"before_workers_s": 0.25}}
