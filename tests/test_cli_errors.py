"""Bad input: every key is refused before TensorFlow is imported, with one line naming the key and what is
allowed, exit status 2, and nothing written. Corrupt or foreign files in a results folder are named and
skipped by the loader (a report or a resume survives them)."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import cli
from bench.records import RUN_MANIFEST, SCHEMA_VERSION, load_records
from bench.runner.rundir import finished_points
from tests.conftest import REPO

FIXTURE_RUN = REPO / "tests" / "data" / "records" / "hostA" / "20261121T101500Z-cnn-3f2a9c1"

# (overrides, the key the message must name, what it must say is allowed / expected)
BAD_INPUT = [
    # wrong types
    (["batch_sizes=[foo]"], "batch_sizes[0]", "converted to Integer"),
    (["epochs=abc"], "epochs", "converted to Integer"),
    (["seed=1.5"], "seed", "converted to Integer"),
    (["point_timeout_s=soon"], "point_timeout_s", "converted to Float"),
    (["report=maybe"], "report", "not a valid bool"),
    (["strategies=[cpu,cpu_x2"], "strategies=[cpu,cpu_x2: not a value bench can read", "a list as key=[a,b]"),
    (["strategies=cpu,cuda"], "strategies[1]='cuda'", "allowed: cpu, cpu_onedevice, cpu_xN"),
    # empty lists
    (["workloads=[]"], "workloads", "must not be empty; allowed: fashion_cnn"),
    (["strategies=[]"], "strategies", "must not be empty; allowed: cpu"),
    (["batch_sizes=[]"], "batch_sizes", "must not be empty; allowed: positive integers"),
    (["steps_per_execution=[]"], "steps_per_execution", "must not be empty; allowed: positive integers"),
    (["precisions=[]"], "precisions", "must not be empty; allowed: float32"),
    # non-positive sizes
    (["batch_sizes=[0]"], "batch_sizes[0]=0", "must be a positive integer"),
    (["batch_sizes=[64,-32]"], "batch_sizes[1]=-32", "must be a positive integer"),
    (["steps_per_execution=[0]"], "steps_per_execution[0]=0", "must be a positive integer"),
    (["epochs=1"], "epochs=1", "must be >= 2"),
    (["repeats=0"], "repeats=0", "allowed: an integer >= 1, or auto"),
    (["repeats=often"], "repeats='often'", "allowed: an integer >= 1, or auto"),
    (["repeats=2.5"], "repeats=2.5", "allowed: an integer >= 1, or auto"),
    (["repeats=auto", "max_repeats=1"], "max_repeats=1", "must be >= 2"),
    (["repeats=auto", "budget_s=-1"], "budget_s=-1.0", "must be a number of seconds >= 0"),
    (["repeats=auto", "backends=[jax]", "strategies=[cpu_x2]", "processes=[2]", "process_id=0",
      "coordinator=127.0.0.1:7000"], "repeats=auto: not with process_id", "allowed: a whole number of repeats"),
    (["repeats=auto", "shard=1/2"], "repeats=auto: not with shard", "allowed: a whole number of repeats"),
    (["repeats=auto", "repeat_seeds=same"], "repeats=auto: not with repeat_seeds=same",
     "allowed: repeat_seeds=distinct"),
    (["n_train=-1"], "n_train=-1", "must be >= 0"),
    (["point_timeout_s=0"], "point_timeout_s=0", "must be a positive number of seconds"),
    (["point_timeout_s=-5"], "point_timeout_s=-5", "must be a positive number of seconds"),
    (["batch_sizes=[100000]"], "batch_sizes", "larger than fashion_cnn's training split"),
    # unknown names
    (["workloads=[resnet]"], "workloads[0]='resnet'", "allowed: fashion_cnn, fashion_cnn_softmax, catsdogs_cnn"),
    (["strategies=[cpu,cuda]"], "strategies[1]='cuda'", "allowed: cpu, cpu_onedevice, cpu_xN"),
    (["strategies=[cpu_x1]"], "strategies[0]='cpu_x1'", "allowed: cpu, cpu_onedevice, cpu_xN"),
    (["precisions=[fp8]"], "precisions[0]='fp8'", "allowed: float32, mixed_float16, mixed_bfloat16"),
    (["batchsize=64"], "batchsize: unknown key", "allowed keys: description, workloads"),
    (["suite=nope"], "suite='nope'", "allowed: cnn, plant, regimes, smoke, text"),
    (["progress=loud"], "progress='loud'", "allowed: auto, on, off"),
    (["resume=../elsewhere"], "resume='../elsewhere'", "allowed: latest or a run_id"),
    # cross-field rules
    (["strategies=[cpu_x2]", "batch_sizes=[33]"], "batch_sizes", "allowed: multiples of 2"),
    (["strategies=[cpu_x4]", "batch_sizes=[64,66]"], "batch_sizes", "allowed: multiples of 4"),
]


def _argv(tmp_path: Path, overrides: list[str]) -> list[str]:
    argv = [f"results_dir={tmp_path / 'results'}", f"reports_dir={tmp_path / 'reports'}", *overrides]
    return argv if any(a.startswith("suite=") for a in overrides) else ["suite=smoke", *argv]


class _Unimportable(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Installed but not importable: ``find_spec`` still finds ``tensorflow``/``keras`` (bench checks that a
    backend is installed without importing it) while ``import`` of either fails."""

    names = ("tensorflow", "keras")

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in self.names:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec):
        raise ImportError(f"{spec.name} must not be imported while a configuration is checked")

    def exec_module(self, module):  # pragma: no cover - create_module already raised
        raise ImportError(module.__name__)


@pytest.fixture
def no_tensorflow(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """Make ``import tensorflow`` / ``import keras`` fail (they stay installed), and run from an empty
    working folder."""
    for name in [m for m in sys.modules if m.split(".")[0] in _Unimportable.names]:
        monkeypatch.delitem(sys.modules, name)
    before = set(sys.modules)
    monkeypatch.setattr(sys, "meta_path", [_Unimportable(), *sys.meta_path])
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    yield cwd
    for name in set(sys.modules) - before:  # six.moves' lazy modules, half-made while keras could not be
        if name.split(".")[0] in ("six", *_Unimportable.names):  # imported: gone, so a later test imports
            del sys.modules[name]                                # them afresh


def _assert_nothing_written(tmp_path: Path) -> None:
    assert not (tmp_path / "results").exists()
    assert not (tmp_path / "reports").exists()
    assert list((tmp_path / "cwd").iterdir()) == []  # no Hydra outputs/, .hydra or log files either


@pytest.mark.parametrize(("overrides", "key", "allowed"), BAD_INPUT, ids=lambda v: " ".join(v) if isinstance(v, list)
                         else None)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(overrides, key, allowed, tmp_path, no_tensorflow,
                                                         capsys) -> None:
    status = cli.main(_argv(tmp_path, overrides))
    out, err = capsys.readouterr()
    assert status == cli.EXIT_BAD_INPUT == 2
    assert out == ""
    first, *rest = err.splitlines()
    assert first.startswith(f"bench: error: {key}"), first
    assert allowed in first, first
    assert rest == ["(python -m bench --help lists suites, keys and allowed values)"]
    _assert_nothing_written(tmp_path)


def test_results_dir_under_a_file_is_refused(tmp_path, no_tensorflow, capsys) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a folder should be")
    status = cli.main(["suite=smoke", f"results_dir={blocker / 'results'}", f"reports_dir={tmp_path / 'reports'}"])
    err = capsys.readouterr().err.splitlines()[0]
    assert status == 2
    assert err == (f"bench: error: results_dir='{blocker / 'results'}': {blocker} is not a folder; allowed: a "
                   "writable folder path")
    assert blocker.read_text() == "a file where a folder should be"
    _assert_nothing_written(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only folder")
def test_unwritable_results_dir_is_refused(tmp_path, no_tensorflow, capsys) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        status = cli.main(["suite=smoke", f"results_dir={locked / 'results'}", f"reports_dir={tmp_path / 'reports'}"])
        err = capsys.readouterr().err.splitlines()[0]
        assert status == 2
        assert err.startswith(f"bench: error: results_dir='{locked / 'results'}'") and "not writable" in err
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o700)


def test_unwritable_reports_dir_is_refused_only_when_a_report_is_asked_for(tmp_path, no_tensorflow, capsys) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    status = cli.main(["suite=smoke", f"results_dir={tmp_path / 'results'}", f"reports_dir={blocker / 'r'}"])
    assert status == 2
    assert capsys.readouterr().err.startswith(f"bench: error: reports_dir='{blocker / 'r'}'")
    _assert_nothing_written(tmp_path)
    cfg = cli.parse_config(["suite=smoke", f"results_dir={tmp_path / 'results'}", f"reports_dir={blocker / 'r'}",
                            "report=false"])
    assert cfg.report is False  # report=false: the reports folder is never used, so it is not checked


@pytest.mark.parametrize("resume", ["latest", "20261121T000000Z-smoke-0000000"])
def test_resume_without_a_run_to_resume_is_refused(resume, tmp_path, no_tensorflow, capsys) -> None:
    status = cli.main(_argv(tmp_path, [f"resume={resume}"]))
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(f"bench: error: resume={resume}: no run")
    _assert_nothing_written(tmp_path)


@pytest.mark.parametrize("overrides", [["epochs=abc"], ["strategies=[cpu_x2]", "batch_sizes=[33]"], ["suite=nope"]])
def test_real_command_line_exits_2_before_importing_tensorflow(overrides, tmp_path) -> None:
    """The real entry point (``python -m bench``) in a fresh process where TensorFlow cannot be imported."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    code = ("import runpy, sys; sys.modules['tensorflow'] = None; sys.modules['keras'] = None; "  # bad keys: refused
            "sys.argv = ['bench', *sys.argv[1:]]; runpy.run_module('bench', run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", code, *_argv(tmp_path, overrides)], capture_output=True,
                          text=True, cwd=cwd, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("bench: error: ")
    assert len(proc.stderr.splitlines()) == 2 and "Traceback" not in proc.stderr
    _assert_nothing_written(tmp_path)


@pytest.mark.parametrize("overrides", [["strategies=cpu,cpu_x2", "batch_sizes=32"],
                                       ["strategies=[cpu,cpu_x2]", "batch_sizes=[32]"]])
def test_a_list_key_takes_one_value_or_values_with_commas_as_a_list(overrides, no_tensorflow) -> None:
    """Issue 39: ``strategies=cpu,cpu_x2`` (Hydra: "Ambiguous value") and ``batch_sizes=32`` ("int is not a
    ListConfig") read as the lists a user meant, like the bracketed form."""
    cfg = cli.parse_config(["workloads=fashion_cnn", *overrides])
    assert (cfg.workloads, cfg.strategies, cfg.batch_sizes) == (["fashion_cnn"], ["cpu", "cpu_x2"], [32])


@pytest.mark.parametrize(("argv", "message"), [
    # without suite=, a typo'd key used to read as a missing suite
    (["workload=[fashion_cnn]"], "bench: error: workload: unknown key (did you mean workloads?); allowed keys: "),
    (["doctor", "workload=[fashion_cnn]"], "bench doctor: error: workload: unknown key (did you mean workloads?)"),
    (["sute=cnn"], "bench: error: sute: unknown key (did you mean suite?); allowed keys: "),  # the quickstart's key
    # a word that is no key=value: a mistyped command, or a workload named without its key
    (["doctr", "workloads=[fashion_cnn]"], "bench: error: 'doctr': not key=value, and not a command (did you mean "
     "doctor?); commands: report, compare, validate, doctor, export-tfrecord"),
    (["doctor", "fashion_cnn"], "bench doctor: error: 'fashion_cnn': not key=value, and not a command; commands: "),
])
def test_a_typo_is_named_even_without_a_suite(argv, message, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(message), err
    assert not list(tmp_path.iterdir())


# --- corrupt or foreign files in a results folder -------------------------------------------------------------

def _messy_run(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A run folder with two good records and one file of every kind of junk (name -> what must be said)."""
    run = tmp_path / "results" / FIXTURE_RUN.name
    run.mkdir(parents=True)
    good = sorted(FIXTURE_RUN.glob("*.json"))[:2]
    for f in good:
        shutil.copy(f, run / f.name)
    text = good[0].read_text()
    newer = {**json.loads(text), "schema_version": SCHEMA_VERSION + 1}
    missing = {k: v for k, v in json.loads(text).items() if k != "epochs"}
    bad_status = {**json.loads(text), "status": "exploded"}
    junk = {
        "truncated.json": (text[: len(text) // 2], "unreadable (JSONDecodeError"),
        "empty.json": ("", "unreadable (JSONDecodeError"),
        "binary.json": (b"\xff\xfe\x00garbage", "unreadable (UnicodeDecodeError"),
        "foreign.json": (json.dumps({"name": "package.json", "version": "1.0"}), "no integer schema_version"),
        "list.json": ("[1, 2, 3]", "not a JSON object"),
        "newer.json": (json.dumps(newer), f"schema_version {SCHEMA_VERSION + 1} is newer"),
        "missing.json": (json.dumps(missing), "missing required field(s) epochs"),
        "bad_status.json": (json.dumps(bad_status), "status 'exploded' is not one of"),
    }
    for name, (content, _) in junk.items():
        (run / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    # never read as records at all: the run manifest and a temporary file of an interrupted atomic write
    (run / RUN_MANIFEST).write_text(json.dumps({"run_id": run.name, "points": []}))
    (run / ".fashion_cnn-cpu-b64-spe1-fp32-r0.json.x1y2.tmp").write_text('{"schema_version": 1, "run')
    return run, {name: why for name, (_, why) in junk.items()}


def test_loader_names_and_skips_corrupt_and_foreign_files(tmp_path) -> None:
    run, expected = _messy_run(tmp_path)
    with pytest.warns(UserWarning) as caught:
        loaded = load_records([tmp_path / "results"])
    assert sorted(r["point_id"] for r in loaded.records) == sorted(
        f.stem for f in sorted(FIXTURE_RUN.glob("*.json"))[:2])
    skipped = {Path(path).name: reason for path, reason in loaded.skipped}
    assert set(skipped) == set(expected)  # every bad file named; run.json and the .tmp file not even tried
    for name, why in expected.items():
        assert str(run / name) in skipped[name] and why in skipped[name], skipped[name]
    warned = [str(w.message) for w in caught]
    assert len(warned) == len(expected) and all(w.startswith("skipping ") for w in warned)


def test_resume_bookkeeping_survives_corrupt_files(tmp_path) -> None:
    run, _ = _messy_run(tmp_path)
    done = finished_points(run)
    assert set(done) == {f.stem for f in sorted(FIXTURE_RUN.glob("*.json"))[:2]}


def test_resume_of_a_run_of_another_suite_is_refused(tmp_path, no_tensorflow, capsys) -> None:
    run = tmp_path / "results" / "20261121T000000Z-text-abc1234"
    run.mkdir(parents=True)
    manifest = {"schema_version": 1, "run_id": run.name, "suite": "text", "points": []}
    (run / "run.json").write_text(json.dumps(manifest))
    status = cli.main(_argv(tmp_path, [f"resume={run.name}"]))
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(f"bench: error: resume={run.name}: {run.name} is a run of suite 'text', not 'smoke'")
    assert cli.main(_argv(tmp_path, ["resume=latest"])) == 2  # the latest run of this suite: there is none
    err = capsys.readouterr().err
    assert "resume=latest: no run of suite 'smoke' under" in err
    assert "(runs there: text; a run without a suite is named by its workloads" in err  # issue 39: what is there
    assert json.loads((run / "run.json").read_text()) == manifest  # untouched
    assert sorted(p.name for p in run.iterdir()) == ["run.json"]


def test_resume_latest_is_the_latest_run_of_the_same_suite(tmp_path) -> None:
    """``suite=cnn resume=latest`` finishes the interrupted cnn run even when a text run came after it."""
    import os

    from bench.runner.rundir import find_run

    for age, (suite, name) in enumerate([("text", "old-text"), ("smoke", "smoke-run"), ("text", "new-text")]):
        (tmp_path / name).mkdir()
        (tmp_path / name / "run.json").write_text(json.dumps({"suite": suite, "points": []}))
        os.utime(tmp_path / name / "run.json", (1_000_000 + age, 1_000_000 + age))
    (tmp_path / "not-a-run").mkdir()
    assert find_run(tmp_path, "latest", "smoke") == tmp_path / "smoke-run"
    assert find_run(tmp_path, "latest", "text") == tmp_path / "new-text"
