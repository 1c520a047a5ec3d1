"""Planning: points, their ids, order and grouping by strategy."""

from __future__ import annotations

from bench.cli import parse_config
from bench.runner.plan import Point, groups, plan


def test_plan_covers_the_product_grouped_by_strategy_with_repeats_interleaved() -> None:
    cfg = parse_config(["suite=cnn", "strategies=[cpu,cpu_x2]", "batch_sizes=[32,128]",
                        "steps_per_execution=[1,4]", "repeats=2", "~workload_axes"])
    points = plan(cfg)
    assert len(points) == 2 * 2 * 2 * 2 * 2  # workloads x strategies x batches x spe x repeats
    assert len({p.point_id for p in points}) == len(points)
    g = groups(points)
    assert list(g) == [("tensorflow", "cpu"), ("tensorflow", "cpu_x2")]
    cpu = g[("tensorflow", "cpu")]
    # repeats interleaved: every point's repeat 0 before any repeat 1
    assert [p.repeat for p in cpu] == [0] * 8 + [1] * 8
    assert cpu[0].point_id == "fashion_cnn-cpu-b32-spe1-fp32-r0"
    assert cpu[-1].point_id == "catsdogs_cnn-cpu-b128-spe4-fp32-r1"


def test_point_ids_name_scaling_and_precision() -> None:
    cfg = parse_config(["suite=smoke", "batch_scaling=per_replica", "batch_sizes=[16]",
                        "precisions=[mixed_bfloat16]", "strategies=[cpu_x2]"])
    p = plan(cfg)[0]
    assert p.point_id == "fashion_cnn-cpu_x2-pr16-spe1-bf16-r0"
    assert p.global_batch(2) == 32


def test_config_hash_changes_with_the_configuration_only() -> None:
    cfg = parse_config(["suite=smoke"])
    a = plan(cfg)[0]
    assert a.config_hash == Point.from_record(a.to_record()).config_hash
    b = Point.from_record({**a.to_record(), "epochs": a.epochs + 1})
    assert a.point_id == b.point_id and a.config_hash != b.config_hash


def test_repeats_share_the_seed_unless_asked_otherwise() -> None:
    same = plan(parse_config(["suite=smoke", "repeats=3", "seed=7"]))
    assert {p.seed for p in same} == {7}
    distinct = plan(parse_config(["suite=smoke", "repeats=3", "seed=7", "repeat_seeds=distinct"]))
    assert sorted({(p.repeat, p.seed) for p in distinct}) == [(0, 7), (1, 8), (2, 9)]


def test_group_settings_change_the_config_hash() -> None:
    base = plan(parse_config(["suite=smoke"]))[0]
    for override in ("all_reduce=reduce_to_one", "tpu=grpc://10.0.0.1:8470"):
        other = plan(parse_config(["suite=smoke", override]))[0]
        assert other.point_id == base.point_id and other.config_hash != base.config_hash, override


def test_workload_axes_give_a_heavy_model_fewer_points() -> None:
    """The default cnn suite sweeps fashion_cnn over batch x spe and runs catsdogs_cnn at one point."""
    cfg = parse_config(["suite=cnn", "strategies=[cpu]"])
    ids = [p.point_id for p in plan(cfg)]
    assert [i for i in ids if i.startswith("catsdogs")] == ["catsdogs_cnn-cpu-b32-spe8-fp32-r0"]
    assert len([i for i in ids if i.startswith("fashion")]) == 4
    cfg = parse_config(["suite=cnn", "strategies=[cpu]", "workload_axes.catsdogs_cnn.batch_sizes=[32,64]"])
    assert [p.point_id for p in plan(cfg) if p.workload == "catsdogs_cnn"] == [
        "catsdogs_cnn-cpu-b32-spe8-fp32-r0", "catsdogs_cnn-cpu-b64-spe8-fp32-r0"]
    cfg = parse_config(["suite=cnn", "strategies=[cpu]", "+workload_axes.fashion_cnn.batch_sizes=[64]"])
    assert [p.point_id for p in plan(cfg) if p.workload == "fashion_cnn"] == [
        "fashion_cnn-cpu-b64-spe1-fp32-r0", "fashion_cnn-cpu-b64-spe8-fp32-r0"]
    # a workload the run leaves out keeps its suite entry, unused
    assert {p.workload for p in plan(parse_config(["suite=cnn", "workloads=[fashion_cnn]"]))} == {"fashion_cnn"}


def test_the_record_form_of_a_point_and_its_hash_are_unchanged() -> None:
    """The record's ``point`` object is contract (schema 1): a resumed run must recognise records written by
    earlier versions of bench, so the form and the hash of a point may not change with the code."""
    old = {"workload": "fashion_cnn", "strategy": "cpu_x2", "batch_size": 16, "batch_scaling": "per_replica",
           "steps_per_execution": 8, "precision": "float32", "repeat": 1, "seed": 0, "epochs": 3, "n_train": 4096,
           "n_val": 1024, "data_scale": "reduced", "input_pipeline": "default", "all_reduce": "auto", "tpu": ""}
    p = Point.from_record(old)
    assert p.per_replica_batch_size == 16 and p.global_batch_size is None and p.global_batch(2) == 32
    assert p.to_record() == old
    assert p.config_hash == "0ef59e90171b7b57"  # sha256 of the sorted JSON of `old`, as bench has always computed it


def test_input_pipelines_are_an_axis_and_the_one_pipeline_key_is_its_shorthand() -> None:
    """The plant suite runs each configuration under the default and the cached pipeline; ids of a non-default
    pipeline say so (the default's ids are what bench always wrote); input_pipeline=NAME is one pipeline."""
    ids = [p.point_id for p in plan(parse_config(["suite=plant", "strategies=[cpu]"]))]
    assert ids == ["plant_cnn-cpu-b16-spe1-fp32-r0", "plant_cnn-cpu-b16-spe32-fp32-r0",
                   "plant_cnn-cpu-b16-spe1-fp32-cached-r0", "plant_cnn-cpu-b16-spe32-fp32-cached-r0"]
    one = plan(parse_config(["suite=plant", "strategies=[cpu]", "input_pipeline=slow_decode"]))
    assert {p.input_pipeline for p in one} == {"slow_decode"} and len(one) == 2
    assert one[0].point_id == "plant_cnn-cpu-b16-spe1-fp32-slow_decode-r0"
    default, cached = plan(parse_config(["suite=plant", "strategies=[cpu]", "steps_per_execution=[1]"]))
    assert default.config_hash != cached.config_hash


def test_the_plant_suite_runs_whole_executions_of_32_steps() -> None:
    """512 training images at batch 16: 32 steps, so steps_per_execution=32 runs as itself (no warning)."""
    from bench.config import clamp_warnings

    cfg = parse_config(["suite=plant"])
    assert [(p.n_train, p.n_val) for p in plan(cfg)][:1] == [(512, 128)]
    assert clamp_warnings(cfg) == []
