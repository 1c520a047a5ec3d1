"""Planning: points, their ids, order and grouping by strategy."""

from __future__ import annotations

from bench.cli import parse_config
from bench.job.point import Point
from bench.runner.plan import groups, plan


def test_plan_covers_the_product_one_process_per_repeat_interleaved_across_strategies() -> None:
    """Every (backend, strategy, repeat) is its own worker process, and the groups run repeat-major: all
    strategies' repeat 0, then all strategies' repeat 1 (asv's processes + interleave-processes)."""
    cfg = parse_config(["suite=cnn", "strategies=[cpu,cpu_x2]", "batch_sizes=[32,128]",
                        "steps_per_execution=[1,4]", "repeats=2", "~workload_axes"])
    points = plan(cfg)
    assert len(points) == 2 * 2 * 2 * 2 * 2  # workloads x strategies x batches x spe x repeats
    assert len({p.point_id for p in points}) == len(points)
    g = groups(points)
    assert list(g) == [("tensorflow", "cpu", 1, 0, False), ("tensorflow", "cpu_x2", 1, 0, False),
                       ("tensorflow", "cpu", 1, 1, False), ("tensorflow", "cpu_x2", 1, 1, False)]
    # (backend, strategy, processes, repeat, a JAX worker that may import TensorFlow)
    assert all({p.repeat for p in pts} == {key[3]} and {p.strategy for p in pts} == {key[1]}
               for key, pts in g.items())
    assert [p.repeat for p in points] == [0] * 16 + [1] * 16
    cpu0 = g[("tensorflow", "cpu", 1, 0, False)]
    assert cpu0[0].point_id == "fashion_cnn-cpu-b32-spe1-fp32-r0"
    # catsdogs_cnn has 512 training images: 4 steps at b128, so spe 8 runs (and is named) as spe 4
    last = plan(parse_config(["suite=cnn", "workloads=[catsdogs_cnn]", "strategies=[cpu]", "batch_sizes=[128]",
                              "steps_per_execution=[8]", "workload_axes={}"]))[-1]
    assert last.point_id == "catsdogs_cnn-cpu-b128-spe4-fp32-r0"


def test_the_plan_names_the_steps_per_execution_that_will_run() -> None:
    """fashion_cnn at global batch 104 has 4096 // 104 = 39 steps per epoch: spe 8 runs as 3, spe 4 also as 3
    (one point, not two), spe 13 as itself. The point id and the record say spe3; the request is kept."""
    cfg = parse_config(["suite=cnn", "workloads=[fashion_cnn]", "strategies=[cpu]", "batch_sizes=[104]",
                        "steps_per_execution=[8,13,4]"])
    points = plan(cfg)
    assert [(p.point_id, p.requested_steps_per_execution) for p in points] == [
        ("fashion_cnn-cpu-b104-spe3-fp32-r0", 8), ("fashion_cnn-cpu-b104-spe13-fp32-r0", None)]
    assert points[0].to_record()["requested_steps_per_execution"] == 8
    assert "requested_steps_per_execution" not in points[1].to_record()  # as asked: the form of every old point
    assert Point.from_record(points[0].to_record()) == points[0]
    # asked exactly as it runs as well: that request names the point
    both = plan(parse_config(["suite=cnn", "workloads=[fashion_cnn]", "strategies=[cpu]", "batch_sizes=[104]",
                              "steps_per_execution=[8,3]"]))
    assert [(p.point_id, p.requested_steps_per_execution) for p in both] == [("fashion_cnn-cpu-b104-spe3-fp32-r0",
                                                                               None)]
    # a per-replica batch on a strategy whose replicas only the hardware knows: resolved by the worker instead
    tpu = plan(parse_config(["suite=cnn", "workloads=[fashion_cnn]", "strategies=[tpu]", "batch_scaling=per_replica",
                             "batch_sizes=[13]", "steps_per_execution=[8]"]))
    assert [(p.steps_per_execution, p.requested_steps_per_execution) for p in tpu] == [(8, None)]
    cpu2 = plan(parse_config(["suite=cnn", "workloads=[fashion_cnn]", "strategies=[cpu_x2]",
                              "batch_scaling=per_replica", "batch_sizes=[52]", "steps_per_execution=[8]"]))
    assert [(p.steps_per_execution, p.requested_steps_per_execution) for p in cpu2] == [(3, 8)]


def test_a_torch_point_asked_only_for_several_steps_per_call_runs_one_and_keeps_the_request(monkeypatch) -> None:
    """Keras' PyTorch backend runs one step per call. suite=cnn asks catsdogs_cnn for spe 8 alone: under torch that
    point runs as spe 1 (it was skipped, so `backends=[torch]` trained no catsdogs_cnn), the request kept; beside a
    requested 1, fashion_cnn's spe 8 stays as asked (the plan then records it skipped: it would repeat spe 1)."""
    points = plan(parse_config(["suite=cnn", "backends=[torch]", "strategies=[cpu]"]))
    ids = {p.point_id: p.requested_steps_per_execution for p in points}
    assert ids["catsdogs_cnn-torch-cpu-b32-spe1-fp32-r0"] == 8
    assert ids["fashion_cnn-torch-cpu-b32-spe8-fp32-r0"] is ids["fashion_cnn-torch-cpu-b32-spe1-fp32-r0"] is None
    assert len(points) == 5
    from bench.runner.session import tpu_backends

    monkeypatch.setenv("ISTPUVM", "1")  # what a TPU VM sets: its TPU points may run
    both = parse_config(["suite=cnn", "backends=[tensorflow,torch]"])
    alone = parse_config(["suite=cnn", "backends=[torch]"])
    assert tpu_backends(both, plan(both)) == ["tensorflow"]
    assert tpu_backends(alone, plan(alone)) == []  # torch's TPU points: recorded skipped


def test_points_whose_device_is_surely_absent_are_skipped_before_any_worker(monkeypatch, tmp_path) -> None:
    """On a Linux box without GPU device files or TPU signs, the gpu and tpu points are recorded skipped by the
    parent (StrategyUnavailable, naming what was looked for): no worker starts for them and the TPU doctor does not
    run; a sign of a TPU (a TPU VM's env var, a configured address) or a job over several hosts leaves it to the
    worker."""
    from bench.engines import presence
    from bench.runner.session import tpu_backends
    from bench.runner.unsupported import why_skipped

    for var in presence.TPU_ENV:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(presence.glob, "glob", lambda pattern: [])
    monkeypatch.setattr(presence.sys, "platform", "linux")
    cfg = parse_config(["suite=cnn"])
    by = {p.point_id: why_skipped(cfg, p) for p in plan(cfg)}
    gpu, tpu = by["fashion_cnn-gpu-b32-spe1-fp32-r0"], by["fashion_cnn-tpu-b32-spe1-fp32-r0"]
    assert gpu[0] == tpu[0] == "StrategyUnavailable"
    assert "no GPU on this machine" in gpu[1] and "/dev/nvidia[0-9]*" in gpu[1]
    assert "no TPU on this machine" in tpu[1] and "python -m bench doctor" in tpu[1]
    assert by["fashion_cnn-cpu-b32-spe1-fp32-r0"] == by["catsdogs_cnn-cpu_x2-b32-spe8-fp32-r0"] == ("", "")
    assert tpu_backends(cfg, plan(cfg)) == []
    assert why_skipped(parse_config(["suite=cnn", "tpu=grpc://10.0.0.2:8470"]), plan(cfg)[-1]) == ("", "")
    several = parse_config(["suite=cnn", "backends=[jax]", "process_id=0", "coordinator=127.0.0.1:1234",
                            "processes=[2]"])
    assert not any(why_skipped(several, p)[1] for p in plan(several) if p.strategy == "gpu")
    monkeypatch.setattr(presence.glob, "glob", lambda pattern: ["/dev/nvidia0"] if "nvidia" in pattern else [])
    assert why_skipped(cfg, plan(cfg)[0]) == ("", "") and not presence.absent("gpu")
    monkeypatch.setenv("TPU_NAME", "my-tpu")
    assert not presence.absent("tpu")


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


def test_a_repeat_is_a_training_run_from_its_own_seed_unless_asked_otherwise() -> None:
    """Issue 33: repeat r trains from seed + r under every strategy and backend (paired by seed); repeat_seeds=same
    is the opt-in that isolates timing noise."""
    distinct = plan(parse_config(["suite=smoke", "repeats=3", "seed=7", "backends=[tensorflow,jax]"]))
    assert sorted({(p.repeat, p.seed) for p in distinct}) == [(0, 7), (1, 8), (2, 9)]
    for r in range(3):  # every strategy, workload and backend of a repeat: one seed
        assert {p.seed for p in distinct if p.repeat == r} == {7 + r}
    same = plan(parse_config(["suite=smoke", "repeats=3", "seed=7", "repeat_seeds=same"]))
    assert {p.seed for p in same} == {7}


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
    cfg = parse_config(["suite=cnn", "strategies=[cpu]", "workload_axes.catsdogs_cnn.batch_sizes=[32,128]"])
    assert [p.point_id for p in plan(cfg) if p.workload == "catsdogs_cnn"] == [
        "catsdogs_cnn-cpu-b32-spe8-fp32-r0", "catsdogs_cnn-cpu-b128-spe4-fp32-r0"]  # 4 steps at b128: spe 8 runs as 4
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
    from bench.runner.inputs import clamp_warnings

    cfg = parse_config(["suite=plant"])
    assert [(p.n_train, p.n_val) for p in plan(cfg)][:1] == [(512, 128)]
    assert clamp_warnings(cfg) == []


def test_n_shards_cover_the_sweep_exactly_once_with_repeats_together() -> None:
    """shard=I/N (issue 24): each machine runs a deterministic 1/N of the configurations, all their repeats with
    them; the N shards together plan every point of the whole sweep once, whatever N."""
    base = ["suite=cnn", "strategies=[cpu,cpu_x2,tpu]", "batch_sizes=[32,128]", "steps_per_execution=[1,8]",
            "repeats=2", "backends=[tensorflow,jax]", "~workload_axes"]
    whole = [p.point_id for p in plan(parse_config(base))]
    for n in (1, 2, 3, 7):
        shards = [[p.point_id for p in plan(parse_config([*base, f"shard={i}/{n}"]))] for i in range(1, n + 1)]
        assert sorted(pid for s in shards for pid in s) == sorted(whole)  # every point once: no gap, no overlap
        sizes = [len(s) for s in shards]
        assert max(sizes) - min(sizes) <= 2  # configurations dealt round-robin: the shards differ by one at most
        for s in shards:
            configs = {pid.rsplit("-r", 1)[0] for pid in s}
            assert len(s) == 2 * len(configs)  # both repeats of each configuration on one machine
    again = [p.point_id for p in plan(parse_config([*base, "shard=2/3"]))]
    assert again == [p.point_id for p in plan(parse_config([*base, "shard=2/3"]))]  # the same split every time


def test_a_bad_shard_names_the_key_and_the_form() -> None:
    import pytest

    from bench.config import ConfigError

    for bad in ("0/3", "4/3", "2", "a/b", "1/0"):
        with pytest.raises(ConfigError, match=r"shard='[^']*': allowed: '' \(the whole sweep\) or I/N with 1 <= I"):
            parse_config(["suite=smoke", f"shard={bad}"])


def test_tuned_pipelines_get_workers_of_their_own() -> None:
    """Points whose pipelines tf.data autotunes run apart from the fixed pipelines' (a process autotune slowed never
    times a fixed pipeline); under JAX the autotune pipeline is tf.data, so only its worker may import TensorFlow."""
    cfg = parse_config(["suite=cnn", "workloads=[fashion_cnn]", "strategies=[cpu]", "backends=[tensorflow,jax]",
                        "input_pipelines=[default,autotune,numpy]", "batch_sizes=[32]", "steps_per_execution=[1]",
                        "~workload_axes"])
    g = groups(plan(cfg))
    assert {k: sorted(p.input_pipeline for p in pts) for k, pts in g.items()} == {
        ("tensorflow", "cpu", 1, 0, False): ["default"],
        ("tensorflow", "cpu", 1, 0, True): ["autotune", "numpy"],  # Keras autotunes the arrays' tf.data too
        ("jax", "cpu", 1, 0, False): ["default", "numpy"],
        ("jax", "cpu", 1, 0, True): ["autotune"]}
