"""examples/compare_strategies.ipynb, executed end to end by a real Jupyter kernel (nbclient): every cell runs
as written, the frames and the seaborn plot come out, and the report renders inline without empty outputs or
a stray repr."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import REPO

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
    runs = sorted(p.name for p in (tmp_path / "results").iterdir())
    assert any("-fashion_cnn-" in r for r in runs) and any("-tiny_cnn-" in r for r in runs)  # named by what ran
