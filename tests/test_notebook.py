"""The notebook API (its end-to-end run: tests/test_example_notebook.py): ``bench.run`` runs what the CLI runs
and returns the tidy frame; ``bench.report`` renders it; a workload defined in the notebook reaches the workers
by value (cloudpickle) and is named by its function."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import bench
from bench.config import ConfigError
from bench.notebook import config, workload_name
from tests.conftest import REPO


def test_the_facade_exports_workload_run_and_report() -> None:
    from bench.workloads import Workload

    assert bench.Workload is Workload and callable(bench.run) and callable(bench.report) and callable(bench.doctor)
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


def test_one_workload_or_one_value_given_bare_is_a_list_of_one() -> None:
    """Issue 39: ``bench.run(workloads="my_models:make_ts")`` was split into characters; ``batch_sizes=32`` gave
    OmegaConf's "AnyNode is not a ListConfig"."""
    cfg = config("fashion_cnn", batch_sizes=32, strategies="cpu_x2")
    assert (cfg.workloads, cfg.batch_sizes, cfg.strategies) == (["fashion_cnn"], [32], ["cpu_x2"])
    with pytest.raises(ConfigError) as e:
        config("fashion_cnn", epochs="many")
    assert str(e.value).startswith("epochs: ") and "allowed: an integer >= 2" in str(e.value)


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

