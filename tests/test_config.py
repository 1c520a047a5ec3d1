"""Config composition and validation: exact messages, before any TensorFlow import."""

from __future__ import annotations

import pytest

from bench.cli import parse_config
from bench.config import ConfigError


def err(*overrides: str) -> str:
    with pytest.raises(ConfigError) as e:
        parse_config(list(overrides))
    return str(e.value)


def test_suite_and_overrides_compose() -> None:
    cfg = parse_config(["suite=cnn", "strategies=[cpu,cpu_x2]", "batch_sizes=[32,256]",
                        "steps_per_execution=[1,16]", "epochs=3", "repeats=2", "results_dir=/tmp/r"])
    assert cfg.name == "cnn"
    assert cfg.strategies == ["cpu", "cpu_x2"]
    assert cfg.batch_sizes == [32, 256]
    assert cfg.steps_per_execution == [1, 16]
    assert (cfg.epochs, cfg.repeats, cfg.results_dir) == (3, 2, "/tmp/r")
    assert cfg.workloads == ["fashion_cnn", "catsdogs_cnn"]  # from suites/cnn.yaml


def test_every_suite_file_is_valid() -> None:
    from bench.cli import available_suites

    suites = available_suites()
    assert {"cnn", "text", "smoke", "plant"} <= set(suites)
    for name in suites:
        assert parse_config([f"suite={name}"]).name == name


def test_unknown_suite_names_the_allowed_ones() -> None:
    assert err("suite=cnnn") == "suite='cnnn' is not a suite; allowed: cnn, plant, regimes, smoke, text"


def test_missing_suite() -> None:
    assert err() == ("suite: missing; allowed: cnn, plant, regimes, smoke, text (e.g. suite=cnn), or name the "
                     "workloads without a suite (e.g. workloads=[fashion_cnn])")
    assert err("epochs=2").startswith("suite: missing")  # keys alone name nothing to run


def test_workloads_without_a_suite_run_with_the_keys_defaults_named_by_the_workloads() -> None:
    from bench.config import SuiteConfig

    cfg = parse_config(["workloads=[fashion_cnn,reuters_textcnn]", "epochs=2"])
    defaults = SuiteConfig()
    assert cfg.name == "fashion_cnn-reuters_textcnn" and cfg.workloads == ["fashion_cnn", "reuters_textcnn"]
    assert (cfg.strategies, cfg.batch_sizes, cfg.steps_per_execution, cfg.epochs) == (
        defaults.strategies, defaults.batch_sizes, defaults.steps_per_execution, 2)
    assert cfg.workload_axes == {}  # no suite's per-workload axes
    assert parse_config(["suite=smoke", "workloads=[fashion_cnn]"]).name == "smoke"  # a suite still names its runs
    assert err("workloads=[fashion_cnnn]").startswith("workloads[0]='fashion_cnnn' is not a workload")


def test_a_run_without_a_suite_is_named_by_its_workloads() -> None:
    from bench.workloads import run_name

    assert run_name(["fashion_cnn"]) == "fashion_cnn"
    assert run_name(["examples.digits:make", "pkg.models:build"]) == "digits-models"
    # issue 39: two factories of one module were "my_models-my_models"
    assert run_name(["my_models:make_ts", "my_models:make_mlp"]) == "my_models.make_ts-my_models.make_mlp"
    assert run_name(["bench.workloads.pickled:tiny_cnn__w" + "0" * 64]) == "tiny_cnn"
    assert run_name(["a", "b", "c", "d", "e"]) == "a-b-c-and-2-more"


def test_the_resume_command_of_a_run_without_a_suite_names_its_workloads() -> None:
    from bench.runner.session import resume_command

    cfg = parse_config(["workloads=[fashion_cnn]", "results_dir=/r"])
    assert resume_command(cfg, "RUN", []) == "python -m bench 'workloads=[fashion_cnn]' results_dir=/r resume=RUN"
    argv = ["workloads=[fashion_cnn]", "epochs=2"]
    assert resume_command(cfg, "RUN", argv) == "python -m bench 'workloads=[fashion_cnn]' epochs=2 resume=RUN"


def test_type_error_names_the_key() -> None:
    assert err("suite=cnn", "batch_sizes=[foo]") == (
        "batch_sizes[0]: Value 'foo' of type 'str' could not be converted to Integer; allowed: a list of "
        "positive integers (global batch sizes), e.g. [32,128]")


def test_zero_steps_per_execution() -> None:
    assert err("suite=cnn", "steps_per_execution=[0]") == (
        "steps_per_execution[0]=0: must be a positive integer (1 = one step per call)")


def test_unknown_strategy() -> None:
    assert err("suite=cnn", "strategies=[tpux]") == (
        "strategies[0]='tpux' is not a strategy; allowed: cpu, cpu_onedevice, cpu_xN (N >= 2 logical CPUs, "
        "e.g. cpu_x2), gpu, gpu_onedevice, gpus, tpu, default, auto")


def test_negative_epochs() -> None:
    assert err("suite=cnn", "epochs=-1") == (
        "epochs=-1: must be >= 2 (epoch 1 is warm-up; steady state is epochs 2..n)")


def test_unknown_key_lists_keys() -> None:
    msg = err("suite=cnn", "batchsizes=[1]")
    assert msg.startswith("batchsizes: unknown key (did you mean batch_sizes?); allowed keys: description, "
                          "workloads, strategies, batch_sizes")


def test_unknown_workload() -> None:
    assert err("suite=cnn", "workloads=[resnet]") == (
        "workloads[0]='resnet' is not a workload; allowed: fashion_cnn, fashion_cnn_softmax, catsdogs_cnn, "
        "catsdogs_cnn_sigmoid, reuters_textcnn, reuters_textcnn_logits_bug, plant_cnn, plant_cnn_layer_aug, "
        "plant_transfer, or an import path my_pkg.my_module:make")


def test_empty_list() -> None:
    assert err("suite=cnn", "strategies=[]").startswith(
        "strategies: must not be empty; allowed: cpu, cpu_onedevice, cpu_xN")


def test_batch_not_divisible_by_replicas() -> None:
    assert err("suite=cnn", "strategies=[cpu_x4]", "batch_sizes=[30]") == (
        "batch_sizes: global batch 30 is not divisible by the 4 replicas of cpu_x4; allowed: multiples of 4 "
        "(or batch_scaling=per_replica)")


def test_steps_per_execution_longer_than_epoch_is_clamped_with_a_warning() -> None:
    from bench.runner.inputs import clamp_warnings

    # fashion_cnn at the reduced scale has 4096 training examples: 32 steps at global batch 128.
    cfg = parse_config(["suite=cnn", "workloads=[fashion_cnn]", "strategies=[cpu]", "batch_sizes=[128]",
                        "steps_per_execution=[16,64]"])
    assert clamp_warnings(cfg) == [
        "steps_per_execution=64 exceeds the 32 steps of one fashion_cnn epoch at global batch 128 (cpu): runs "
        "with 32 (points and reports name spe32)"]


def test_steps_per_execution_that_does_not_divide_the_epoch_runs_as_a_divisor() -> None:
    """Keras 3.15 runs whole executions per epoch (36 steps at spe 32: 64 steps), so a point runs with the
    largest divisor of the epoch's steps instead, and says so."""
    from bench.config import effective_steps_per_execution
    from bench.runner.inputs import clamp_warnings

    assert [effective_steps_per_execution(32, s) for s in (36, 64, 32, 8, 37, 91)] == [18, 32, 32, 8, 1, 13]
    assert effective_steps_per_execution(1, 36) == 1
    cfg = parse_config(["suite=cnn", "workloads=[fashion_cnn]", "strategies=[cpu]", "batch_sizes=[128]",
                        "n_train=4608", "steps_per_execution=[1,12,32]"])  # 36 steps
    assert clamp_warnings(cfg) == [
        "steps_per_execution=32 does not divide the 36 steps of one fashion_cnn epoch at global batch 128 (cpu): "
        "runs with 18 (points and reports name spe18)"]


def test_an_axis_typed_on_the_command_line_applies_to_every_workload() -> None:
    cfg = parse_config(["suite=cnn", "batch_sizes=[64]"])
    assert cfg.workload_axes == {"catsdogs_cnn": {"steps_per_execution": [8]}}  # the suite's spe entry stays
    cfg = parse_config(["suite=cnn", "batch_sizes=[64]", "workload_axes.catsdogs_cnn.batch_sizes=[16]"])
    assert cfg.workload_axes["catsdogs_cnn"]["batch_sizes"] == [16]


def test_batch_larger_than_the_data_is_refused() -> None:
    assert err("suite=cnn", "workloads=[catsdogs_cnn]", "batch_sizes=[1024]") == (
        "batch_sizes: global batch 1024 (cpu) is larger than catsdogs_cnn's training split (512 train / 256 val "
        "examples at data_scale=reduced); use a smaller batch or more data")


def test_per_replica_scaling_multiplies_for_known_replicas() -> None:
    msg = err("suite=cnn", "workloads=[catsdogs_cnn]", "strategies=[cpu_x4]", "batch_scaling=per_replica",
              "batch_sizes=[256]", "steps_per_execution=[1]")
    assert msg.startswith("batch_sizes: global batch 1024 (cpu_x4) is larger than catsdogs_cnn's training split")


def test_collective_all_reduce_with_spe_is_refused() -> None:
    assert "keras-team/keras#19246" in err("suite=cnn", "all_reduce=collective")


def test_bad_choice_values() -> None:
    assert err("suite=cnn", "data_scale=huge") == "data_scale='huge' is not allowed; allowed: reduced, full"
    assert err("suite=cnn", "precisions=[fp8]") == (
        "precisions[0]='fp8' is not allowed; allowed: float32, mixed_float16, mixed_bfloat16")
    assert err("suite=plant", "input_pipelines=[default,cachd]") == (
        "input_pipelines[1]='cachd' is not allowed; allowed: default, cached, slow_decode, autotune, numpy")
    assert err("suite=plant", "input_pipeline=cachd") == (
        "input_pipeline='cachd' is not allowed; allowed: default, cached, slow_decode, autotune, numpy")
    assert err("suite=plant", "input_pipelines=[cached,cached]") == (
        "input_pipelines: duplicate value(s) ['cached']; list each value once")


def test_a_two_stage_workload_needs_four_epochs() -> None:
    assert err("suite=smoke", "workloads=[plant_transfer]", "epochs=3") == (
        "epochs=3: plant_transfer trains in two stages (frozen backbone, then fine-tuning, half the epochs each): "
        "must be >= 4")
    assert parse_config(["suite=smoke", "workloads=[plant_transfer]", "epochs=4"]).epochs == 4


def test_unwritable_results_dir(tmp_path) -> None:
    f = tmp_path / "a-file"
    f.write_text("x")
    assert err("suite=cnn", f"results_dir={f}/sub") == (
        f"results_dir='{f}/sub': {f} is not a folder; allowed: a writable folder path")


@pytest.mark.parametrize(("override", "message"), [
    ("+workload_axes.imdb.batch_sizes=[32]", "workload_axes.imdb: not a workload; allowed: fashion_cnn, "
                                             "fashion_cnn_softmax, catsdogs_cnn, catsdogs_cnn_sigmoid, "
                                             "reuters_textcnn, reuters_textcnn_logits_bug, plant_cnn, "
                                             "plant_cnn_layer_aug, plant_transfer, this run's workloads or a "
                                             "user's workload (module:attribute)"),
    ("workload_axes.fashion_cnn.batch_sizes=[32]", "workload_axes.fashion_cnn.batch_sizes: not in this suite's "
     "workload_axes; add it with Hydra's +: +workload_axes.fashion_cnn.batch_sizes=[...] (allowed keys per "
     "workload: batch_sizes, steps_per_execution)"),
    ("+workload_axes.catsdogs_cnn.epochs=[3]", "workload_axes.catsdogs_cnn: ['epochs'] not allowed; allowed keys: "
                                              "batch_sizes, steps_per_execution"),
    ("workload_axes.catsdogs_cnn.batch_sizes=[0]", "workload_axes.catsdogs_cnn.batch_sizes[0]=0: must be a positive "
                                                   "integer"),
])
def test_bad_workload_axes(override: str, message: str) -> None:
    assert err("suite=cnn", override) == message


def test_a_suites_axes_for_a_user_workload_the_run_leaves_out_are_unused_not_an_error() -> None:
    """``suite=regimes workloads=[examples.regimes:overhead_bound]``: the suite's axes for its other workloads
    (``examples.regimes:compute_bound`` ...) stay unused, as a built-in's do."""
    cfg = parse_config(["suite=regimes", "workloads=[examples.regimes:overhead_bound]"])
    assert cfg.workloads == ["examples.regimes:overhead_bound"]
    assert "examples.regimes:compute_bound" in cfg.workload_axes


def test_validation_reads_no_data_and_the_run_side_checks_it(tmp_path, monkeypatch) -> None:
    """Config validation is about keys; describing and hashing the data, and importing a user's workload, happen
    on the run side (bench.runner.inputs), still before anything runs."""
    import bench.workloads
    from bench.config import validate
    from bench.data import sources
    from bench.runner.inputs import check_inputs

    def no_data(*args, **kwargs):
        raise AssertionError("config validation read data")

    monkeypatch.setattr(sources, "describe", no_data)
    monkeypatch.setattr(bench.workloads, "get_workload", no_data)
    from bench.config import SuiteConfig

    cfg = SuiteConfig(name="t", workloads=["fashion_cnn", "my_pkg.mod:make"], strategies=["cpu"], batch_sizes=[32],
                      steps_per_execution=[1], data=f"folder:{tmp_path / 'nowhere'}", results_dir=str(tmp_path / "r"),
                      reports_dir=str(tmp_path / "p"))
    assert validate(cfg) is cfg
    monkeypatch.undo()
    with pytest.raises(ConfigError, match="data='folder:"):
        check_inputs(cfg)
