"""The README and docs/ stay true: links resolve, every ``python -m bench`` command uses keys, suites, strategies,
backends and workloads that exist (and parses where it names no file or placeholder), the record fields
docs/records.md names are fields of the typed record, the tests and files the pages cite exist, and an example
that runs the JAX backend names the install it needs where it stands (the quickstart installs TensorFlow only)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from bench.cli import available_suites, parse_config
from bench.config import ConfigError, user_keys
from bench.records import Record
from bench.reporting.load.prices import load_table

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SUBCOMMAND_KEYS = {"report": {"out", "baseline", "parity_margin", "prices"}, "compare": {"fail_above", "metric"},
                   "export-tfrecord": {"data", "out", "shard_mb"}, "validate": set()}


def commands(text: str) -> list[str]:
    """Every ``python -m bench …`` invocation in a page: code-block lines (continuations joined, comments and
    ``!cd … &&`` prefixes dropped) and inline code."""
    joined = re.sub(r"\\\n\s*", " ", text)
    found = []
    for m in re.finditer(r"python -m bench(?![.\w])([^`\n#|;&]*)", joined):
        cmd = m.group(1).strip()
        while cmd.endswith(")") and cmd.count(")") > cmd.count("("):  # the end of a parenthesis around it
            cmd = cmd[:-1].rstrip()
        found.append(cmd)
    return found


def test_every_page_is_reachable_from_the_readme_and_every_link_resolves() -> None:
    readme = (REPO / "README.md").read_text()
    for page in PAGES[1:]:
        if page.suffix == ".md":
            assert f"docs/{page.name}" in readme, f"README does not link {page.name}"
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.name}: broken link {target}"


def test_the_readme_answers_first_and_stays_short() -> None:
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= 160, len(lines)
    quick = lines.index("## Quickstart")
    block = lines[quick:quick + 8]
    assert any('pip install -e ".[tensorflow]" && python -m bench suite=cnn' in ln for ln in block)
    assert any("pip install tox && tox" in ln for ln in block)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_command_uses_keys_and_names_that_exist(page: Path) -> None:
    from bench.engines import ENGINES
    from bench.workloads import WORKLOADS

    suites, keys = set(available_suites()), set(user_keys())
    names = {"strategies": None, "backends": set(ENGINES), "workloads": set(WORKLOADS)}
    for cmd in commands(page.read_text()):
        args = [a for a in shlex.split(cmd.replace("[", "'[").replace("]", "]'")) if a]
        doctor = args[:1] == ["doctor"]
        if doctor:  # the doctor takes a run's keys (a batch larger than the data is checked, not refused)
            args = args[1:] or ["--help"]
        if args and args[0] in SUBCOMMAND_KEYS:
            for a in args[1:]:
                if "=" in a:  # ([key=value] is an optional key in a usage line)
                    key = a.lstrip("[").split("=", 1)[0]
                    if args[0] == "report" and key.startswith("price."):  # one price of the shipped table
                        assert key.removeprefix("price.") in load_table(), f"{page.name}: {cmd}: no price {key}"
                        continue
                    assert key in SUBCOMMAND_KEYS[args[0]], f"{page.name}: {cmd}"
            continue
        if args in ([], ["--help"]):
            continue
        overrides = [a for a in args if "=" in a]
        assert overrides, f"{page.name}: {cmd!r} runs nothing"
        for a in overrides:
            key, value = a.split("=", 1)
            key = key.lstrip("+~").split(".")[0]
            assert key == "suite" or key in keys, f"{page.name}: {cmd!r}: unknown key {key}"
            if key == "suite":
                assert value in suites, f"{page.name}: {cmd!r}: no suite {value}"
            if key in names and names[key] and "<" not in value and ":" not in value:
                listed = set(value.strip("[]").split(","))
                assert listed <= names[key], f"{page.name}: {cmd!r}: {listed - names[key]}"
        concrete = not any(c in cmd for c in "<…") and "data=" not in cmd and ":" not in cmd
        if concrete and any(a.startswith(("suite=", "workloads=")) for a in overrides):  # a suite, or none
            try:
                parse_config(overrides, batches_fit_data=not doctor)
            except ConfigError as e:  # e.g. a batch the suite's data cannot fill: the docs would be wrong
                pytest.fail(f"{page.name}: {cmd!r}: {e}")


JAX_RUN = re.compile(r"backends=\[[^\]]*jax|backends=\[\"jax")  # a run that needs the JAX extra
JAX_INSTALL = re.compile(r"\.\[(?:[a-z]+,)*jax[\],]|bench\[jax\]|jax\[(?:cuda12|tpu)\]|with both installed")
TORCH_RUN = re.compile(r"backends=\[[^\]]*torch|backends=\[\"torch")  # a run that needs the PyTorch extra
TORCH_INSTALL = re.compile(r"\.\[(?:[a-z]+,)*torch[\],]|bench\[torch\]|pip install torch")


def units(text: str) -> list[str]:
    """A page cut where a reader reads an example as one piece: each fenced code block (with the line that
    introduces it) and each paragraph or list item of prose."""
    out, prose = [], []
    for i, part in enumerate(re.split(r"^\s*```", text, flags=re.M)):
        if i % 2:  # a code block: with the last prose line before it, which often says what it needs
            out.append((prose[-1] if prose else "") + "\n" + part)
        else:
            prose = [p for p in re.split(r"\n\s*\n|\n(?=\s*- )", part) if p.strip()]
            out.extend(prose)
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_an_example_that_needs_jax_says_so_where_it_stands(page: Path) -> None:
    """The quickstart installs ``.[tensorflow]`` only: a command or ``bench.run`` call that runs the JAX backend
    names the JAX extra (or jax's own install) in the same code block or paragraph."""
    missing = [u.strip()[:120] for u in units(page.read_text()) if JAX_RUN.search(u) and not JAX_INSTALL.search(u)]
    assert missing == [], f"{page.name}: JAX examples without the install they need: {missing}"
    missing = [u.strip()[:120] for u in units(page.read_text()) if TORCH_RUN.search(u) and not TORCH_INSTALL.search(u)]
    assert missing == [], f"{page.name}: PyTorch examples without the install they need: {missing}"


def _field_exists(path: str) -> bool:
    from pydantic import BaseModel

    model: type[BaseModel] = Record
    parts = path.split(".")
    for i, part in enumerate(parts):
        fields = {f.alias or name: f for name, f in model.model_fields.items()}
        if part not in fields:
            return False
        ann = fields[part].annotation
        nested = [a for a in getattr(ann, "__args__", (ann,)) if isinstance(a, type) and issubclass(a, BaseModel)]
        inner = [a for arg in getattr(ann, "__args__", ()) for a in getattr(arg, "__args__", ())
                 if isinstance(a, type) and issubclass(a, BaseModel)]
        if i < len(parts) - 1:
            if not (nested or inner):
                return False
            model = (nested or inner)[0]
    return True


def test_the_record_fields_docs_name_are_fields_of_the_typed_record() -> None:
    text = (REPO / "docs" / "records.md").read_text()
    table = text[text.index("## Fields"):]
    named = set(re.findall(r"`([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)`", table))
    epoch_fields = {"epoch", "steps", "examples", "epoch_s", "train_s", "val_s", "setup_s", "loss", "accuracy",
                    "val_loss", "val_accuracy", "val_examples", "val_accuracy_batches", "val_rest_s", "stage"}
    stage_fields = {"name", "epochs", "trainable_params", "learning_rate", "flops_per_example", "warmup_overhead_s"}
    values = {"ok", "failed", "skipped", "diverged", "notes", "sha256", "path", "created", "env",
              "integer", "one_hot", "binary"}  # label_format's values
    unknown = {n for n in named - epoch_fields - stage_fields - values if not _field_exists(n)}
    assert unknown == set()
    assert {n for n in epoch_fields if not _field_exists(f"epochs.{n}")} == set()
    assert {n for n in stage_fields if not _field_exists(f"stages.{n}")} == set()
    documented = named | {n.split(".")[0] for n in named}
    assert set(Record.model_fields) - documented == set(), "record fields docs/records.md does not name"


def test_the_tests_and_files_the_pages_cite_exist() -> None:
    test_names = {m for p in (REPO / "tests").rglob("test_*.py")
                  for m in re.findall(r"^def (test_\w+)", p.read_text(), flags=re.M)}
    for page in PAGES:
        text = page.read_text()
        for name in re.findall(r"`(test_\w+)`", text):
            assert name in test_names, f"{page.name}: no test {name}"
        cited = r"`((?:bench|tests|suites|examples|docs)/[\w./-]+\.(?:py|yaml|json\.gz|json|md|ipynb))"
        for path in re.findall(cited, text):
            assert (REPO / path).exists(), f"{page.name}: {path} does not exist"


def test_the_readmes_answer_is_what_todays_bench_renders_from_its_records(tmp_path) -> None:
    """README quotes the answer of a quickstart run and says it is "the text rendered by today's bench" from the
    records it names: rendered again here, the answer is the quoted one (the in-report evidence links dropped)."""
    import re

    from bench.reporting.build import build_report

    readme = (REPO / "README.md").read_text()
    folder = re.search(r"its records are `(tests/data/quickstart_[0-9_]+)`", readme).group(1)
    quoted = "\n".join(line[2:] if line.startswith("> ") else "" for line in readme.splitlines()
                       if line.startswith(">")).strip()
    report = build_report([REPO / folder], tmp_path / "out").read_text()
    answer = report[report.index("## The answer") + len("## The answer"):report.index("## Environment")].strip()
    assert re.sub(r" \(\[evidence\]\(#[^)]*\)\)", "", answer) == quoted


def test_tox_runs_alone_every_test_marked_serial_and_only_those_modules() -> None:
    """tox's second pytest call collects only the modules that hold a ``serial`` test (collecting all of tests/ cost
    it ~5 s on the 2-core box); a serial test anywhere else would run in neither call."""
    import configparser

    tox = configparser.ConfigParser(interpolation=None)
    tox.read(REPO / "tox.ini")
    (alone,) = [line for line in tox["testenv"]["commands"].splitlines() if "-m serial" in line]
    named = set(re.search(r"\{posargs:([^}]*)\}", alone).group(1).split())
    marked = {f"tests/{p.name}" for p in (REPO / "tests").rglob("test_*.py")
              if re.search(r"^@pytest\.mark\.serial\b", p.read_text(), flags=re.M)}
    assert marked and named == marked, (named, marked)
