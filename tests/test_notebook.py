"""The notebook API: ``bench.run`` runs what the CLI runs and returns the tidy frame; ``bench.report``
renders it; a workload defined in the notebook reaches the workers by value (cloudpickle)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import bench
from bench.config import ConfigError
from bench.notebook import config, workload_name
from tests.conftest import REPO, run_bench

SMALL = {"strategies": ["cpu"], "batch_sizes": [64], "steps_per_execution": [4], "epochs": 2, "n_train": 256,
         "n_val": 128, "measure_peak": False}


def test_the_facade_exports_workload_run_and_report() -> None:
    from bench.workloads import Workload

    assert bench.Workload is Workload and callable(bench.run) and callable(bench.report)
    with pytest.raises(AttributeError):
        _ = bench.no_such_name


@pytest.mark.parametrize(("keys", "message"), [
    ({"batch_size": [32]}, "batch_size: unknown key (did you mean batch_sizes?); allowed keys: description, workloads"),
    ({"batch_sizes": ["x"]}, "batch_sizes[0]: Value 'x' of type 'str' could not be converted to Integer"),
    ({"strategies": ["cpux"]}, "strategies[0]='cpux' is not a strategy"),
    ({"data": "bogus"}, "data='bogus': 'bogus' is not a data source"),
])
def test_bad_keys_raise_config_errors_naming_them(keys: dict, message: str) -> None:
    with pytest.raises(ConfigError) as e:
        config(["fashion_cnn"], **keys)
    assert message in str(e.value)


def test_an_axis_given_in_python_applies_to_every_workload_as_on_the_command_line() -> None:
    cfg = config(["fashion_cnn", "catsdogs_cnn"], suite="cnn", batch_sizes=[32])
    assert all("batch_sizes" not in axes for axes in cfg.workload_axes.values())


def local_factory():  # a module-level factory: passed by its import path
    from examples.digits import make

    return make()


def test_factories_become_import_paths_or_pickles(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    assert workload_name("fashion_cnn") == "fashion_cnn"
    assert workload_name(local_factory) == "tests.test_notebook:local_factory"

    def notebook_factory():  # defined in a function: no import path, pickled by value
        from examples.digits import make

        return make()

    path = workload_name(notebook_factory)
    assert path.startswith("bench.workloads.pickled:notebook_factory__w")
    code = f"from bench.workloads import get_workload; print(get_workload({path!r}).name)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert out.stdout.strip() == "digits_cnn", out.stderr[-1000:]  # a fresh process (a worker) resolves it


def test_a_notebook_workload_is_shown_by_its_name_in_warnings_and_errors(tmp_path: Path) -> None:
    """A factory defined in a notebook is named by its function (a Workload object by its own name) in what
    bench prints, not by its pickle's hash; the import path stays in the record's workload_source."""
    from bench.runner.inputs import clamp_warnings
    from bench.workloads import Workload, shown

    def tiny_digits():
        from examples.digits import make

        return make()

    path = workload_name(tiny_digits)
    assert shown(path) == "tiny_digits (defined in the notebook)"
    assert shown("fashion_cnn") == "fashion_cnn" and shown("pkg.mod:make") == "pkg.mod:make"
    assert shown("bench.workloads.pickled:w" + "0" * 64) == "a workload defined in the notebook"  # older paths
    cfg = config([tiny_digits], suite="smoke", strategies=["cpu"], batch_sizes=[64], steps_per_execution=[3],
                 n_train=256, n_val=128)
    (warning,) = clamp_warnings(cfg)
    assert "of one tiny_digits (defined in the notebook) epoch" in warning and "__w" not in warning
    with pytest.raises(ConfigError, match=r"larger than tiny_digits \(defined in the notebook\)'s"):
        config([tiny_digits], suite="smoke", strategies=["cpu"], batch_sizes=[512], n_train=256, n_val=128)
    from examples.digits import make

    given = make()
    assert isinstance(given, Workload) and shown(workload_name(given)) == f"{given.name} (defined in the notebook)"


def _records(run_dir: Path) -> dict[str, dict]:
    return {r["point_id"]: r for r in (json.loads(p.read_text()) for p in run_dir.glob("*.json"))
            if "point_id" in r}


@pytest.mark.slow
def test_bench_run_returns_the_same_records_as_the_cli(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    cli_args = ["workloads=[fashion_cnn]", "strategies=[cpu]", "batch_sizes=[64]",  # no suite: the defaults
                "steps_per_execution=[4]", "epochs=2", "n_train=256", "n_val=128", "measure_peak=false",
                f"results_dir={tmp_path / 'cli'}", "report=false"]
    proc = run_bench(*cli_args)
    assert proc.returncode == 0, proc.stderr[-2000:]

    def digits():  # a workload defined "in the notebook"
        from examples.digits import make

        return make()

    frame = bench.run([("fashion_cnn"), digits], results_dir=str(tmp_path / "nb"), **SMALL)
    (cli_dir,) = (tmp_path / "cli").iterdir()
    cli = _records(cli_dir)
    nb_dir = Path(frame.attrs["bench_run_dirs"][0])
    nb = _records(nb_dir)
    # the run ids name what ran: the workloads, a notebook one by its function
    assert "-fashion_cnn-" in cli_dir.name and "-fashion_cnn-digits-" in nb_dir.name
    assert {r["suite"] for r in cli.values()} == {"fashion_cnn"}
    assert set(frame["point_id"]) == set(nb) and len(frame) == 2
    (pid,) = cli
    assert nb[pid]["config_hash"] == cli[pid]["config_hash"] and nb[pid]["status"] == cli[pid]["status"] == "ok"
    assert nb[pid]["dataset"] == cli[pid]["dataset"] and nb[pid]["initial_weights"]["sha256"] == \
        cli[pid]["initial_weights"]["sha256"]
    assert nb[pid]["epochs"][0]["loss"] == pytest.approx(cli[pid]["epochs"][0]["loss"], rel=1e-4)
    row = frame[frame["workload"] == "digits_cnn"].iloc[0]
    assert row["status"] == "ok" and row["final_val_accuracy"] > 0.2 and row["repeat_examples_per_s"] > 0
    assert next(r for r in nb.values() if r["workload"] == "digits_cnn")["workload_source"].startswith(
        "bench.workloads.pickled:digits__w")
    path = bench.report(frame, out=tmp_path / "report", show=False)
    text = path.read_text()
    assert "digits_cnn" in text and "fashion_cnn" in text and list(path.parent.glob("*.png"))
