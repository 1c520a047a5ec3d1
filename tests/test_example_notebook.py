"""examples/compare_strategies.ipynb, executed end to end by a real Jupyter kernel (nbclient): every cell runs
as written, the frames and the seaborn plot come out, the report renders inline without empty outputs or a
stray repr, and ``bench.run`` in the notebook writes the records the command line writes for the same
configuration (this test absorbed the notebook-vs-CLI test: one run serves both)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import REPO, run_bench

NOTEBOOK = REPO / "examples" / "compare_strategies.ipynb"


@pytest.mark.slow
def test_the_example_notebook_runs_in_a_kernel_and_shows_a_clean_report(tmp_path: Path, monkeypatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "the notebook ships without outputs"
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()  # raises on a failing cell
    code = [c for c in nb.cells if c.cell_type == "code"]
    outputs = [o for c in code for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    frames = [o for o in outputs if "text/html" in o.get("data", {}) and "steady_train_s" in o["data"]["text/html"]]
    assert len(frames) == 2  # the built-in's frame and the notebook model's
    assert "tiny_cnn" in frames[1]["data"]["text/html"] and "cpu_x2" in frames[0]["data"]["text/html"]
    plot, report = code[-2].outputs, code[-1].outputs
    assert any("image/png" in o.get("data", {}) for o in plot)  # the seaborn figure
    shown = [o for o in report if o.output_type == "display_data"]
    markdown = [o["data"]["text/markdown"] for o in shown if "text/markdown" in o["data"]]
    assert markdown and all(m.strip() for m in markdown)  # no empty Markdown outputs between figures
    assert any("image/png" in o["data"] for o in shown)  # the report's figures, inline
    assert not [o for o in report if o.output_type == "execute_result"]  # no PosixPath('…/report.md') after it
    assert "# " in markdown[0] and "fashion_cnn" in "".join(markdown)
    assert list((tmp_path / "results").iterdir()) and list((tmp_path / "reports").glob("*/report.md"))
    runs = {p.name.split("-")[1]: p for p in (tmp_path / "results").iterdir()}  # <time>-<what ran>-<commit>
    assert sorted(runs) == ["fashion_cnn", "tiny_cnn"]  # run folders named by what ran, not by a pickle's hash
    # each bench.run's wall time counts from its call, not from the kernel's start: the second run's time before its
    # workers is shorter than the whole first run, which it would include from the kernel's start
    parent = {k: json.loads((p / "run.json").read_text())["parent"] for k, p in runs.items()}
    assert parent["tiny_cnn"]["before_workers_s"] < parent["fashion_cnn"]["wall_s"]
    assert all(0 < t["before_workers_s"] < t["wall_s"] for t in parent.values())
    nb = {name: _records(path) for name, path in runs.items()}
    assert all(r["status"] == "ok" for recs in nb.values() for r in recs.values())
    (tiny,) = [r for r in nb["tiny_cnn"].values() if r["strategy"]["name"] == "cpu"]
    assert tiny["workload"] == "tiny_cnn" and tiny["label_format"] == "one_hot"
    assert tiny["workload_source"].startswith("bench.workloads.pickled:tiny_cnn__w")  # the pickle, for provenance
    assert tiny["epochs"][-1]["val_accuracy"] > 0.3  # chance is 0.1

    # the command line writes the same records for the same configuration (no suite there either)
    proc = run_bench("workloads=[fashion_cnn]", "strategies=[cpu]", "batch_sizes=[64]", "steps_per_execution=[4]",
                     "epochs=3", "n_train=1024", "n_val=256", f"results_dir={tmp_path / 'cli'}", "report=false",
                     "second_batch=false")  # a job option: the point and its config_hash are the same
    assert proc.returncode == 0, proc.stderr[-2000:]
    ((pid, cli),) = _records(next((tmp_path / "cli").iterdir())).items()
    mine = nb["fashion_cnn"][pid]
    assert mine["config_hash"] == cli["config_hash"] and mine["dataset"] == cli["dataset"]
    assert mine["initial_weights"]["sha256"] == cli["initial_weights"]["sha256"]
    assert mine["epochs"][0]["loss"] == pytest.approx(cli["epochs"][0]["loss"], rel=1e-4)


def _records(run_dir: Path) -> dict[str, dict]:
    return {r["point_id"]: r for r in (json.loads(p.read_text()) for p in run_dir.glob("*.json"))
            if "point_id" in r}
