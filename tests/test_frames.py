"""The frames a notebook gets: one row per point and one row per point and epoch, scalar columns only, each
documented with its unit in docs/reports.md."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from bench.records import as_records, load_records
from bench.reporting.frames.epochs import EPOCH_COLUMNS, epochs_table
from bench.reporting.frames.points import POINT_COLUMNS, points_frame, points_table
from bench.reporting.render.labels import with_labels
from tests.conftest import REPO
from tests.rows import labelled_epochs, labelled_points

RECORDS = [Path(__file__).parent / "data" / "records", Path(__file__).parent / "data" / "records_backends"]


def _scalar(value: object) -> bool:
    return value is None or isinstance(value, str | bool | int | float) or pd.api.types.is_scalar(value)


def test_one_row_per_point_with_documented_scalar_columns() -> None:
    records = load_records(RECORDS, warn=False).records
    table = points_table(records, with_labels)  # bench.run's frame
    assert list(table.columns) == [c for c, _, _ in POINT_COLUMNS] and len(table) == len(records)
    assert all(_scalar(v) for col in table.columns for v in table[col]), "a column holds tuples or lists"
    ok = table[table["status"] == "ok"]
    assert (ok["steady_train_s"] > 0).all() and (ok["n_steady_epochs"] >= 1).all()
    assert (ok["steady_epoch_s"] >= ok["steady_train_s"]).all()  # training and validation vs training alone


def test_one_row_per_point_and_epoch_matching_the_records() -> None:
    records = as_records(load_records(RECORDS, warn=False).records)
    long = epochs_table(records, with_labels)  # bench.epochs' frame
    assert list(long.columns) == [c for c, _, _ in EPOCH_COLUMNS]
    assert len(long) == sum(len(r.epochs) for r in records)
    assert all(_scalar(v) for col in long.columns for v in long[col])
    for r in records[:20]:
        rows = long[(long["run_id"] == r.run_id) & (long["point_id"] == r.point_id)]
        assert rows["epoch"].tolist() == [e.epoch for e in r.epochs]
        assert rows.loc[rows["steady"], "epoch"].tolist() == [e.epoch for e in r.steady_epochs()]
    table = points_table(records, with_labels)  # the same labels in both frames: joined on run_id, point_id
    joined = long.merge(table[["run_id", "point_id", "strategy", "dataset"]], on=["run_id", "point_id"],
                        suffixes=("", "_point"))
    assert len(joined) == len(long)
    assert (joined["strategy"] == joined["strategy_point"]).all()
    assert (joined["dataset"] == joined["dataset_point"]).all()


def test_the_docs_list_every_column_with_its_unit() -> None:
    text = (REPO / "docs" / "reports.md").read_text(encoding="utf-8")
    points, epochs = text.split("**One row per point** (`bench.run`):")[1].split("**One row per point and epoch**")
    for section, columns in ((points, POINT_COLUMNS), (epochs, EPOCH_COLUMNS)):
        documented = re.findall(r"^\| `([a-z0-9_]+)` \| ([^|]+) \|", section, flags=re.M)
        assert [(c, u.strip()) for c, u in documented] == [(c, u) for c, u, _ in columns]


def test_empty_runs_give_empty_frames_with_the_columns() -> None:
    assert list(points_table([], with_labels).columns) == [c for c, _, _ in POINT_COLUMNS]
    assert list(epochs_table([], with_labels).columns) == [c for c, _, _ in EPOCH_COLUMNS]


def test_one_data_set_at_two_paths_has_one_name_in_both_frames() -> None:
    """The same content under a path and under a name, the name only on a point that never trained (no epochs): the
    per-epoch frame names it as the per-point frame does (the report keys its figures by that name)."""
    from tests.conftest import make_record

    trained = make_record(point_id="a-cpu-b8-spe1-fp32-r0",
                          dataset={"name": "csv:/home/ana/plants.csv", "sha256": "f0"})
    never = make_record(point_id="b-cpu-b8-spe1-fp32-r1", repeat=1, status="failed", epochs=[],
                        dataset={"name": "csv:plants.csv", "sha256": "f0"})
    records = as_records([trained, never])
    assert set(labelled_points(records)["dataset"]) == set(labelled_epochs(records)["dataset"]) == {"csv:plants.csv"}


def test_configurations_are_keyed_by_identity_columns_and_labelled_from_them() -> None:
    """CONFIG_KEY holds no display label and the frames carry none: render makes them from the identity columns
    alone, and they name each configuration once: as many labelled configurations as keyed ones (and as coded ones:
    section, strategy and settings), over records of two hosts (one strategy on both: ``cpu@hostA``) and three
    backends."""
    from bench.reporting.frames.keys import CONFIG_KEY, ORDER, SETTINGS

    labels = ["strategy", "strategy_label", "dataset", "data", "host_shown"]
    assert not set(labels) & set(CONFIG_KEY)
    bare = points_frame(load_records(RECORDS, warn=False).records)
    assert not set(labels) & set(bare.columns)
    points = with_labels(bare)
    named = ["workload", "dataset", "strategy", *SETTINGS]
    assert points.groupby(CONFIG_KEY).ngroups == points.groupby(named).ngroups == points.groupby(ORDER).ngroups > 20
    assert {"cpu@hostA", "cpu@hostB"} <= set(points["strategy"]) and points["host_shown"].any()


def test_sections_and_strategies_are_ordered_by_their_columns_not_their_labels_words() -> None:
    """Sections by workload, data set and examples used (numbers as numbers: 6000 before 12000), the default pipeline
    first; strategies by backend in their declared order, then strategy, then the one asked, compiler, processes and
    host. Sorting the labels' words put ``jax/cpu`` between TensorFlow's ``cpu`` and ``mirrored_cpu``, and
    ``n_train=12000`` before ``n_train=6000``."""
    from bench.reporting.frames.keys import with_codes
    from tests.rows import identified

    def row(backend: str, name: str, n: int = 6000, pipeline: str = "default", asked: str = "", mark: str = "",
            host: str = "h") -> dict:
        return identified({"workload": "w", "dataset_n_train": n, "input_pipeline": pipeline, "backend": backend,
                           "strategy_requested": asked or name, "strategy_name": name, "compiler_mark": mark,
                           "host": host})

    rows = [row("jax", "cpu"), row("tensorflow", "mirrored_cpu"), row("tensorflow", "cpu", mark="XLA"),
            row("tensorflow", "cpu", asked="auto"), row("tensorflow", "cpu"), row("torch", "cpu"),
            row("tensorflow", "cpu", n=12000), row("tensorflow", "cpu", pipeline="autotune"),
            row("tensorflow", "cpu", host="g")]
    coded = with_codes(pd.DataFrame(rows).drop(columns=["section", "strategy_id", "host_key"]))
    shown = with_labels(coded)
    by_section = shown.drop_duplicates("section").sort_values("section")["dataset"].tolist()
    assert by_section == ["d (n_train=6000)", "d (n_train=6000, pipeline=autotune)", "d (n_train=12000)"]
    first = shown[shown["section"] == 0].sort_values("strategy_id")
    assert first["strategy"].tolist() == ["cpu@g", "cpu@h", "cpu (XLA)@h", "auto (cpu)@h", "mirrored_cpu", "jax/cpu",
                                          "torch/cpu"]
