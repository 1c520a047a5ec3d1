"""Every ``python -m bench …`` command in the README and docs/ runs end to end, with short settings (fewer examples,
two epochs): what tests/test_docs.py checks by parsing, done. About 40 runs, 46 minutes on the 2-core box, so it
runs on request only, in one process (it times nothing):

    BENCH_DOC_COMMANDS=1 pytest tests/test_doc_commands.py -p no:xdist

Placeholders are filled from the runs before them (``results/<a>`` is an earlier run's folder, ``<my-prices.yaml>``
a price file written here); a command that needs what this machine cannot have (a Dask scheduler at an address,
SLURM, a TPU slice's hosts, the user's own module) is skipped with that reason. A run must exit 0 and write records
(``compare`` may exit 1: its gate). Runs on the quickstart's install plus the JAX extra (``pip install -e
".[test,tensorflow,jax]"``), as tox installs."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest

from tests.conftest import REPO, run_bench
from tests.test_docs import PAGES, commands

SHORT = {"n_train": "256", "n_val": "128", "epochs": "2"}  # short settings: fewer examples, two epochs
NOT_HERE = [  # (a pattern in the command, why it cannot run on this machine)
    (r"dask_scheduler=tcp://10\.", "needs a Dask scheduler at that address"),
    (r"launcher=slurm", "needs a SLURM cluster"),
    (r"process_id=|coordinator=", "needs one bench per host of a multi-host job"),
    (r"my_pkg\.my_module", "needs the user's own module"),
    (r"^\s*$", "a bare `python -m bench` in prose: nothing to run"),
    (r"^doctor$", "the doctor's name in prose: a check names a suite or workloads"),
]
pytestmark = pytest.mark.skipif(os.environ.get("BENCH_DOC_COMMANDS") != "1",
                                reason="runs every docs command (46 min on 2 cores): set BENCH_DOC_COMMANDS=1")

def _reads_runs(cmd: str) -> bool:
    return cmd.startswith(("report", "compare", "export-tfrecord"))


# the runs first, in page order, then what reads their folders
CASES = sorted(((page, cmd) for page in PAGES for cmd in commands(page.read_text())), key=lambda c: _reads_runs(c[1]))


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The working folder every command runs in: its results/, reports/ and a user's price file."""
    tmp = tmp_path_factory.mktemp("doc-commands")
    yaml_block = re.search(r"```yaml\n(prices:.*?)```", (REPO / "docs" / "cost.md").read_text(), flags=re.S)
    assert yaml_block, "docs/cost.md shows a price file of your own"
    (tmp / "my-prices.yaml").write_text(yaml_block.group(1))  # the docs' own example file
    return tmp


def runs(work: Path) -> list[str]:
    """Run folders written so far, oldest first, relative to ``work``."""
    found = sorted((work / "results").glob("*/run.json"), key=lambda p: p.stat().st_mtime)
    return [str(p.parent.relative_to(work)) for p in found]


def concrete(cmd: str, work: Path) -> list[str]:
    """The command's arguments with its placeholders filled and short settings added."""
    cmd = re.sub(r"\s*\[shard_mb=\d+\]", "", cmd).replace("<my-prices.yaml>", "my-prices.yaml")
    args = shlex.split(cmd)
    if args and args[0] in ("report", "compare"):
        earlier = runs(work)
        if args[0] == "compare":  # before and after: the two latest runs of one suite
            suite = {f: json.loads((work / f / "run.json").read_text())["suite"] for f in earlier}
            twice = [f for f in earlier if list(suite.values()).count(suite[f]) >= 2]
            earlier = [f for f in twice if suite[f] == suite[twice[-1]]] if twice else []
        folders = [a for a in args[1:] if "=" not in a]
        assert len(earlier) >= len(folders), "the run commands come before the report commands"
        return [args[0], *earlier[-len(folders):], *(a for a in args[1:] if "=" in a)]
    if args[:1] == ["export-tfrecord"]:
        csv = next(Path(os.environ["BENCH_CACHE_DIR"]).glob("data/plants*/train.csv"), None)
        if csv is None:
            pytest.skip("no plant photos generated yet (suite=plant makes them)")
        return ["export-tfrecord", f"data=csv:{csv}", "out=plants-tfrec/"]
    if args[:1] == ["doctor"] or args in ([], ["--help"]):
        return args
    keys = {a.split("=", 1)[0]: a.split("=", 1)[1] for a in args if "=" in a}
    batch = max((int(b) for b in re.findall(r"\d+", keys.get("batch_sizes", ""))), default=0)
    short = {**SHORT, "n_train": str(max(int(SHORT["n_train"]), 2 * batch)),  # every batch still fits
             "n_val": str(max(int(SHORT["n_val"]), batch))}
    return args + [f"{k}={v}" for k, v in short.items() if k not in keys]


@pytest.mark.slow
@pytest.mark.parametrize(("page", "cmd"), CASES, ids=[f"{p.name}:{c[:60]}" for p, c in CASES])
def test_the_command_runs_as_written(page: Path, cmd: str, work: Path) -> None:
    for pattern, why in NOT_HERE:
        if re.search(pattern, cmd):
            pytest.skip(why)
    args = concrete(cmd, work)
    before = set(runs(work))
    proc = run_bench(*args, cwd=work, timeout=900)
    gate = args[:1] in (["compare"], ["doctor"]) and proc.returncode == 1  # their verdict: slower; a check failed
    assert proc.returncode == 0 or gate, f"{page.name}: python -m bench {' '.join(args)}\n{proc.stderr[-3000:]}"
    if args and "=" in args[0] and not args[0].startswith("doctor"):  # a run: it wrote a run folder with records
        where = next((work / a.split("=", 1)[1] for a in args if a.startswith("results_dir=")), None)
        if where is not None:  # the command's own results folder (e.g. /tmp/r): its newest run is this one
            folder = max(where.glob("*/run.json"), key=lambda p: p.stat().st_mtime).parent
        elif "resume=latest" in args:
            assert set(runs(work)) == before, f"{page.name}: {cmd}: resume opened a new run folder"
            return
        else:
            new = set(runs(work)) - before
            assert len(new) == 1, f"{page.name}: {cmd}: no new run folder"
            folder = work / next(iter(new))
        assert len(list(folder.glob("*.json"))) >= 2, f"{page.name}: {cmd}: no records in {folder}"
