"""Every Python example in the README and docs/ runs as written (with short settings: fewer examples per run),
on what the quickstart installs; a block that cannot run on its own says so on its first line (``# excerpt``,
with where the complete version is or what it needs). The command-line examples are checked by
tests/test_docs.py (keys, names, the extra they need, and a parse of each concrete one)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.test_docs import JAX_RUN, PAGES


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^\s*```python\n(.*?)^\s*```", text, flags=re.S | re.M)


def test_every_python_block_is_an_example_or_a_marked_excerpt() -> None:
    blocks = [b for page in PAGES for b in python_blocks(page.read_text())]
    assert len(blocks) >= 5
    for b in blocks:
        first = b.splitlines()[0]
        if first.startswith("# excerpt"):
            assert len(first) > len("# excerpt: ") + 10, f"an excerpt says what it is: {first!r}"


@pytest.mark.slow
def test_every_python_example_runs_as_written(tmp_path: Path, monkeypatch) -> None:
    from bench import notebook

    real_run = notebook.run

    def short_run(workloads, suite=None, **keys):  # the example's call, on fewer examples
        keys.setdefault("n_train", 256)
        keys.setdefault("n_val", 128)
        keys.setdefault("second_batch", False)  # no extra stage: nothing here reads it
        return real_run(workloads, suite, **keys)

    monkeypatch.setattr(notebook, "run", short_run)
    monkeypatch.chdir(tmp_path)  # records and reports of the examples land here
    # the walk-through imports its model file from the folder it runs in, as a user's would be (a fresh install has
    # no examples/ on its path): a copy of examples/ there
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    ran = []
    for page in PAGES:
        for block in python_blocks(page.read_text()):
            if block.startswith("# excerpt"):
                continue
            assert not JAX_RUN.search(block), f"{page.name}: a runnable example needs only the quickstart's install"
            exec(compile(block, str(page.relative_to(page.parents[1])), "exec"), {"__name__": "__main__"})
            ran.append(page.name)
    assert ran, "no runnable Python example"
    assert list((tmp_path / "results").iterdir())  # they ran bench, not just imported it
