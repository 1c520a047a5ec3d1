"""The import rules that import-linter's contracts cannot say. The contracts (``[tool.importlinter]`` in
pyproject.toml, run by ``lint-imports`` in ``tox -e lint``) hold the rules themselves, read from every ``import``
statement (lazy ones inside functions included) and through any chain of them: what each package may not import
(the report side no run side, engine, CLI, config or framework; the process boundary between ``bench.runner``,
``bench.worker`` and ``bench.job``; records at the bottom) and the report side's stages, each importing only the
stages below it. This file reads the same statements and checks what import-linter does not see or say:

- importing a module runs its packages' ``__init__`` too, so a chain may pass through a package's ``__init__``
  without an import statement naming it: the contracts' rules, checked with that step added;
- a report stage's ``__init__`` imports nothing;
- there is no import cycle anywhere in ``bench/`` (module by module);
- no module over 400 lines, function over 60, folder over 15 modules, reach into another module's private names,
  report-side record read as a dict, statistic or claim that returns text; every ``__all__`` name exists.

One exception, by design: the package root's module ``__getattr__`` (PEP 562) is the public facade
(``from bench import Workload``, ``bench.run``, ``bench.report``); its imports run only when a user touches
those names, never when any bench module is imported, so they are not part of any module's import chain (the
contracts ignore them too). ``test_the_facade_is_lazy`` checks that at run time.

``tests/test_report_no_tf.py`` checks the report side at run time too (``sys.modules`` after a report).
The checker itself is tested on a small tree with violations, so it can fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
FRAMEWORKS = ("tensorflow", "keras", "tf_keras", "jax", "jaxlib", "torch")
FACADE_IMPORTS = {"bench -> bench.notebook", "bench -> bench.workloads"}  # the root's __getattr__: no import chain


def contract_rules() -> dict[str, tuple[str, ...]]:
    """pyproject.toml's import-linter contracts as importer (prefix) -> what it must not import (prefixes): a
    forbidden contract's sources and forbidden modules; a layers contract's layers, each forbidden those above it."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads((BENCH.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    rules: dict[str, tuple[str, ...]] = {}
    for contract in config["contracts"]:
        # read_imports drops the facade's imports (see above); another exception would need its reading here
        assert set(contract.get("ignore_imports", ())) <= FACADE_IMPORTS, contract["id"]
        if contract["type"] == "forbidden":
            pairs = [(source, tuple(contract["forbidden_modules"])) for source in contract["source_modules"]]
        else:  # a new contract type (or a layer with | or parentheses) needs its reading here
            assert contract["type"] == "layers" and all(layer.isidentifier() for layer in contract["layers"]), contract
            pairs = [(f"{box}.{layer}", tuple(f"{box}.{above}" for above in contract["layers"][:i]))
                     for box in contract["containers"] for i, layer in enumerate(contract["layers"])]
        for source, banned in pairs:
            rules[source] = rules.get(source, ()) + banned
    return rules


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def read_imports(root: Path) -> dict[str, set[str]]:
    """module -> every module it imports (bench modules resolved to the module, not its package, where
    ``from package import module`` names one; third-party ones by their full dotted name)."""
    files = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for mod, path in files.items():
        is_package = path.name == "__init__.py"
        out: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        if mod == root.name:  # the package root: its lazy facade (module __getattr__) is no import chain
            tree.body = [n for n in tree.body if not (isinstance(n, ast.FunctionDef) and n.name == "__getattr__")]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                out.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative import
                    anchor = mod.split(".") if is_package else mod.split(".")[:-1]
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    out.add(sub if sub in files else base)
        graph[mod] = {m for m in out if m != mod}
    return graph


def _ancestors(mod: str) -> list[str]:
    parts = mod.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def closure(graph: dict[str, set[str]], start: str, inits: bool = True) -> dict[str, str]:
    """Every module ``start`` imports, directly or through bench modules, mapped to the bench module that imports
    it; with ``inits``, importing a module runs its packages' ``__init__`` too (without: import statements only,
    as import-linter reads them)."""
    seen: dict[str, str] = {}
    todo = [start]
    while todo:
        mod = todo.pop()
        for dep in sorted(graph.get(mod, ())) + [a for a in _ancestors(mod) if inits and a in graph]:
            if dep not in seen and dep != start:
                seen[dep] = mod
                if dep in graph:
                    todo.append(dep)
    return seen


def violations(graph: dict[str, set[str]], forbidden: dict[str, tuple[str, ...]], inits: bool = True) -> list[str]:
    """One line per forbidden import: ``importer -> imported (via chain)``."""
    out = []
    for mod in sorted(graph):
        rules = [banned for prefix, banned in forbidden.items() if mod == prefix or mod.startswith(prefix + ".")]
        for banned in rules:
            reached = closure(graph, mod, inits)
            for dep in sorted(reached):
                if any(dep == b or dep.startswith(b + ".") for b in banned):
                    chain, via = [dep], reached[dep]
                    while via != mod:
                        chain.append(via)
                        via = reached[via]
                    out.append(f"{mod} -> {' -> '.join(reversed(chain))}")
    return out


def through_package_inits(graph: dict[str, set[str]], forbidden: dict[str, tuple[str, ...]]) -> list[str]:
    """The forbidden imports that only a package's ``__init__`` brings: a rule's forbidden module that its
    importers reach, counting the ``__init__`` step, but not through import statements alone (lint-imports reads
    those and reports the rest)."""
    out = []
    for importer, banned in forbidden.items():
        def target(line: str, banned: tuple[str, ...] = banned) -> str:
            last = line.split(" -> ")[-1]
            return next(b for b in banned if last == b or last.startswith(b + "."))

        seen = {target(line) for line in violations(graph, {importer: banned}, inits=False)}
        out += [line for line in violations(graph, {importer: banned}) if target(line) not in seen]
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of two or more bench modules (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_a_package_init_brings_no_forbidden_import() -> None:
    graph = read_imports(BENCH)
    assert "bench.reporting.render.markdown.document" in graph and "bench.worker.main" in graph  # the tree was read
    rules = contract_rules()
    assert {"bench.reporting", "bench.reporting.stats", "bench.runner", "bench.worker", "bench.job"} <= set(rules)
    assert through_package_inits(graph, rules) == []


def test_the_package_init_step_catches_what_import_statements_do_not(tmp_path: Path) -> None:
    """config.keys imports a workloads module, whose package's ``__init__`` imports Keras: no chain of import
    statements leads from config to Keras, so only this check finds it; data.images' own ``import keras`` is
    lint-imports' to report."""
    root = tmp_path / "bench"
    files = {"__init__.py": "", "config/__init__.py": "", "config/keys.py": "from bench.workloads.base import W\n",
             "data/__init__.py": "", "data/images.py": "import keras\n",
             "workloads/__init__.py": "def f():\n    import keras\n", "workloads/base.py": "W = 1\n"}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    found = through_package_inits(read_imports(root), {"bench.config": ("keras",), "bench.data": ("keras",)})
    assert found == ["bench.config.keys -> bench.workloads.base -> bench.workloads -> keras"]


def test_the_report_stages_faces_import_nothing() -> None:
    """A report stage's package is a docstring-only face: a face that imported would leak its imports into every
    module below it (``render/figures/__init__.py`` selects matplotlib's Agg backend, nothing of bench)."""
    graph = read_imports(BENCH)
    report_side = sorted(m for m in graph if m.startswith("bench.reporting."))
    assert len(report_side) > 40, report_side  # the tree was walked, subpackages included
    faces = [m for m in report_side if (BENCH.parent / m.replace(".", "/") / "__init__.py").exists()]
    assert len(faces) == 7 and all(graph[f] <= {"matplotlib"} for f in faces), {f: graph[f] for f in faces}


def text_in_statistics(path: Path) -> list[str]:
    """Places where a statistics module writes text: a function annotated to return ``str`` or an f-string outside
    a ``raise`` (statistics return numbers; their sentences are bench.reporting.render's)."""
    tree = ast.parse(path.read_text())
    raised = {id(n) for r in ast.walk(tree) if isinstance(r, ast.Raise) for n in ast.walk(r)}
    out = [f"{path.name}:{fn.lineno} {fn.name} returns str" for fn in ast.walk(tree)
           if isinstance(fn, ast.FunctionDef) and fn.returns is not None and ast.unparse(fn.returns) == "str"]
    return out + sorted({f"{path.name}:{n.lineno} f-string" for n in ast.walk(tree)
                         if isinstance(n, ast.JoinedStr) and id(n) not in raised})


def test_claims_are_numbers_and_codes() -> None:
    """A workload's conclusions (bench.reporting.claims) hold no sentence: render words them."""
    assert text_in_statistics(BENCH / "reporting" / "claims.py") == []


def words_in(path: Path) -> list[str]:
    """Places where a module writes reader text: an f-string or a string constant with a space in it, outside
    docstrings, ``raise``, ``warnings.warn`` and a ``*_COLUMNS`` table (a frame's columns documented) (a code or a
    name has no space; a sentence, a label or a unit does)."""
    tree = ast.parse(path.read_text())
    skip: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Raise) or (isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "warn"):
            skip |= {id(x) for x in ast.walk(n)}
        body = getattr(n, "body", None)
        if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef) and body and isinstance(body[0], ast.Expr):
            skip.add(id(body[0].value))
        targets = [t.id for t in getattr(n, "targets", [getattr(n, "target", None)]) if isinstance(t, ast.Name)]
        if isinstance(n, ast.Assign | ast.AnnAssign) and any(t.endswith("_COLUMNS") for t in targets):
            skip |= {id(x) for x in ast.walk(n)}  # a frame's columns documented, (name, unit, meaning): docs
    out = []
    for n in ast.walk(tree):
        if id(n) in skip:
            continue
        if isinstance(n, ast.JoinedStr):
            skip |= {id(x) for x in ast.walk(n)}
            if " " in "".join(v.value for v in n.values if isinstance(v, ast.Constant)).strip():
                out.append(f"{path.name}:{n.lineno} f-string")
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and " " in n.value.strip():
            out.append(f"{path.name}:{n.lineno} {n.value[:40]!r}")
    return out


def test_no_reader_text_in_frames_analysis_verdicts_or_claims(tmp_path: Path) -> None:
    """Judgements are codes and numbers (issue 75): prices, race states, verdicts, the sources of a label's evidence
    and device names are worded in render/. frames/identity.py holds the identity columns as records name them: the
    compiler marks (``jit auto: XLA``) and a built-in's earlier definition (``sigmoid output, earlier definition``)."""
    reporting = BENCH / "reporting"
    files = [*sorted((reporting / "analysis").rglob("*.py")), reporting / "verdicts.py", reporting / "claims.py",
             *sorted(p for p in (reporting / "frames").rglob("*.py") if p.name != "identity.py")]
    assert len(files) > 25 and [w for f in files for w in words_in(f)] == []
    bad = tmp_path / "bad.py"
    bad.write_text('"""A docstring may talk."""\nSTATE = "misses target"\nCODE = "misses_target"\n'
                   'def f(x):\n    """So may this."""\n    if x:\n        raise ValueError(f"bad {x} here")\n'
                   '    return f"{x} x 2 GPUs"\n')
    assert words_in(bad) == ["bad.py:2 'misses target'", "bad.py:8 f-string"]  # the check can fail


LABEL_COLUMNS = {"dataset", "data", "strategy", "strategy_label", "host_shown", "baseline", "baseline_label",
                 "alt_strategy", "accuracy_ref"}  # what bench.reporting.render.labels adds to a table


def label_reads(path: Path) -> list[str]:
    """The places a module reads a label column (:data:`LABEL_COLUMNS`): a subscript, a dictionary key or an item of
    a list, tuple or set of column names (a frame's documented columns, ``*_COLUMNS``, are docs)."""
    tree = ast.parse(path.read_text())
    skip: set[int] = set()
    for n in ast.walk(tree):
        targets = [t.id for t in getattr(n, "targets", [getattr(n, "target", None)]) if isinstance(t, ast.Name)]
        if isinstance(n, ast.Assign | ast.AnnAssign) and any(t.endswith("_COLUMNS") for t in targets):
            skip |= {id(x) for x in ast.walk(n)}
    found = []
    for n in ast.walk(tree):
        if id(n) in skip:
            continue
        items = [n.slice] if isinstance(n, ast.Subscript) else n.keys if isinstance(n, ast.Dict) else \
            n.elts if isinstance(n, ast.List | ast.Tuple | ast.Set) else []
        found += [f"{path.name}:{x.lineno} {x.value}" for x in items
                  if isinstance(x, ast.Constant) and x.value in LABEL_COLUMNS]
    return found


def test_nothing_below_render_reads_a_label(tmp_path: Path) -> None:
    """Sections, strategies and the configurations a row refers to are codes below render (issue 75): the labels
    are made and joined in bench/reporting/render/labels.py. Two places name label columns without reading one:
    keys.LABELS, what render adds to the public frames, and compare's join of a report.json written before it
    carried its identity (its labels are all it has)."""
    reporting = BENCH / "reporting"
    files = [*sorted((reporting / "analysis").rglob("*.py")), reporting / "verdicts.py", reporting / "claims.py",
             *sorted((reporting / "frames").rglob("*.py"))]
    allowed = {"compare.py:27 dataset", "compare.py:27 strategy"}
    found = [r for f in files for r in label_reads(f) if r not in allowed]
    assert len(files) > 25 and [r for r in found if not r.startswith("keys.py:")] == []
    assert [r.split(" ")[1] for r in found] == ["dataset", "strategy"]  # keys.LABELS
    bad = tmp_path / "bad.py"
    bad.write_text('X_COLUMNS = [("strategy", "text", "docs")]\nkind = "strategy" if x else "backend"\n'
                   'y = frame["strategy"]\nz = frame.sort_values(["section", "dataset"])\n')
    assert label_reads(bad) == ["bad.py:3 strategy", "bad.py:4 dataset"]  # the check can fail


def test_statistics_return_numbers(tmp_path: Path) -> None:
    files = sorted((BENCH / "reporting" / "stats").rglob("*.py"))
    assert len(files) >= 5 and [p for f in files for p in text_in_statistics(f)] == []
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x: float) -> str:\n    return f'{x:.2f}x'\n"
                   "def g(x: float) -> float:\n    if x < 0:\n        raise ValueError(f'{x}')\n    return x\n")
    assert text_in_statistics(bad) == ["bad.py:1 f returns str", "bad.py:2 f-string"]  # the check can fail


def test_there_is_no_import_cycle_in_bench() -> None:
    assert cycles(read_imports(BENCH)) == []


def test_the_checker_finds_indirect_violations_and_cycles(tmp_path: Path) -> None:
    root = tmp_path / "bench"
    files = {
        "__init__.py": "",
        "records.py": "",
        "reporting/__init__.py": "",
        "reporting/frame.py": "from bench.reporting import helper\n",
        "reporting/helper.py": "def f():\n    import bench.runner.worker\n",
        "runner/__init__.py": "",
        "runner/worker.py": "import tensorflow as tf\nfrom bench.runner.a import x\n",
        "runner/a.py": "from . import b\n",
        "runner/b.py": "from bench.runner.a import y\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    graph = read_imports(root)
    found = violations(graph, {"bench.reporting": ("bench.runner", "tensorflow")})
    assert "bench.reporting.frame -> bench.reporting.helper -> bench.runner.worker" in found
    assert "bench.reporting.frame -> bench.reporting.helper -> bench.runner.worker -> tensorflow" in found
    assert "bench.reporting.helper -> bench.runner.worker -> bench.runner" in found  # its package runs too
    assert cycles(graph) == [["bench.runner.a", "bench.runner.b"]]


def test_the_facade_is_lazy() -> None:
    """``import bench`` (which every bench module's import runs) loads no workload, runner or framework code;
    ``bench.Workload``, ``bench.run`` and ``bench.report`` load theirs when first touched."""
    import subprocess
    import sys

    code = ("import sys, bench; before = set(sys.modules); "
            "import bench.reporting.build; mid = set(sys.modules); "
            "w = bench.Workload; r = bench.run; p = bench.report; "
            f"bad = lambda mods: sorted(m for m in mods if m.split('.')[0] in {FRAMEWORKS!r} "
            "or m.startswith(('bench.runner', 'bench.worker', 'bench.job', 'bench.workloads', 'bench.notebook'))); "
            "print(bad(before), bad(mid), w.__module__, r.__module__, p.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["[]", "[]", "bench.workloads", "bench.notebook", "bench.notebook"]


RECORD_PARAMS = {"record", "records", "rec", "records_or_points"}  # (``r`` is a frame row on the report side)


def record_reads(path: Path) -> list[str]:
    """Places in a report-side module where a record is read other than through the typed model: a parameter
    named like a record but not annotated ``Record``/``RecordLike``, or such a parameter subscripted or ``.get``."""
    problems = []
    for fn in ast.walk(ast.parse(path.read_text())):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for arg in fn.args.args + fn.args.kwonlyargs:
            if arg.arg not in RECORD_PARAMS:
                continue
            note = ast.unparse(arg.annotation) if arg.annotation else ""
            if "Record" not in note:
                problems.append(f"{path.name}:{fn.lineno} {fn.name}({arg.arg}: {note or 'unannotated'})")
            for node in ast.walk(fn):
                on_it = isinstance(getattr(node, "value", None), ast.Name) and node.value.id == arg.arg  # type: ignore
                as_dict = isinstance(node, ast.Subscript) or (isinstance(node, ast.Attribute) and node.attr == "get")
                if on_it and as_dict:
                    problems.append(f"{path.name}:{node.lineno} {fn.name} reads {arg.arg} as a dict")
    return problems


def test_reporting_reads_only_the_typed_record(tmp_path: Path) -> None:
    modules = sorted((BENCH / "reporting").rglob("*.py"))  # subpackages too: frames/points.py reads the records
    assert BENCH / "reporting" / "frames" / "points.py" in modules
    assert [p for f in modules for p in record_reads(f)] == []
    bad = tmp_path / "bad.py"
    bad.write_text("def f(record: dict, n: int):\n    return record['epochs']\n"
                   "def g(rec: Record):\n    return rec.get('x')\n")
    assert len(record_reads(bad)) == 3  # the checker itself can fail


MAX_MODULE_LINES, MAX_FUNCTION_LINES, MAX_FOLDER_MODULES = 400, 60, 15


def size_problems(root: Path) -> list[str]:
    """Modules over MAX_MODULE_LINES lines and functions over MAX_FUNCTION_LINES lines (a small room is read
    whole; a long function is several that were never named)."""
    out = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        if len(text.splitlines()) > MAX_MODULE_LINES:
            out.append(f"{path.relative_to(root.parent)}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    out.append(f"{path.relative_to(root.parent)}:{node.lineno} {node.name}: {n} lines")
    return out


def crowded_folders(root: Path) -> list[str]:
    """Folders holding more than MAX_FOLDER_MODULES modules (a folder is a package with one job)."""
    counts: dict[Path, int] = {}
    for path in root.rglob("*.py"):
        counts[path.parent] = counts.get(path.parent, 0) + 1
    return sorted(f"{d.relative_to(root.parent)}: {n} modules" for d, n in counts.items() if n > MAX_FOLDER_MODULES)


def private_reaches(root: Path) -> list[str]:
    """Uses of another bench module's underscore names: ``from bench.x import _y`` or ``x._y`` on an imported
    bench module (a private name is its module's business)."""
    out = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text())
        modules = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bench"):
                out += [f"{path.name}:{node.lineno} imports {a.name}" for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")]
                modules |= {a.asname or a.name for a in node.names}
            elif isinstance(node, ast.Import):
                modules |= {a.asname or a.name for a in node.names if a.name.startswith("bench")}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                out.append(f"{path.name}:{node.lineno} {node.value.id}.{node.attr}")
    return out


def test_small_rooms_and_no_private_reaches(tmp_path: Path) -> None:
    assert size_problems(BENCH) == []
    assert crowded_folders(BENCH) == []
    assert private_reaches(BENCH) == []
    root = tmp_path / "bench"
    root.mkdir()
    (root / "a.py").write_text("from bench.data import sources\nfrom bench.b import _x\n\n\ndef f():\n"
                               + "    y = 1\n" * 61 + "    return sources._keras_arrays\n")
    assert len(size_problems(root)) == 1 and len(private_reaches(root)) == 2  # the checks can fail
    for i in range(MAX_FOLDER_MODULES):
        (root / f"m{i}.py").write_text("")
    assert crowded_folders(root) == [f"bench: {MAX_FOLDER_MODULES + 1} modules"]


def test_every_name_a_package_exports_exists() -> None:
    """``__all__`` lists only names the module has (``from bench.records import *`` must not raise). The engines
    are left to tests/test_engine_contract.py (importing one imports its framework)."""
    import importlib

    for path in sorted(BENCH.rglob("*.py")):
        if "__all__" not in path.read_text() or "engines" in path.parts:
            continue
        module = importlib.import_module(module_name(path, BENCH))
        assert [n for n in getattr(module, "__all__", []) if not hasattr(module, n)] == [], module.__name__


def test_every_engine_folder_declares_its_backend_and_every_framework_ban_holds_all_of_them() -> None:
    """A backend is declared in its engine's folder (bench/engines/<name>/backend.yaml, read by
    bench.records.backends, issue 75): every engine package has one, named as its folder, and every import contract
    that bans a framework bans every declared backend's frameworks (a new engine's modules join each list)."""
    from bench.records.backends import BACKENDS, SPECS

    engines = sorted(p.name for p in (BENCH / "engines").iterdir() if (p / "__init__.py").is_file())
    assert engines == sorted(BACKENDS) and BACKENDS[0] == "tensorflow"  # the first: labels without a prefix
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads((BENCH.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    frameworks = {f for b in SPECS.values() for f in b.frameworks}
    banning = [c for c in config["contracts"] if set(c.get("forbidden_modules", ())) & frameworks]
    assert len(banning) >= 3  # the report side's, the run side's orchestrator's, the worker-free packages'
    for contract in banning:
        assert frameworks <= set(contract["forbidden_modules"]), (contract["id"], frameworks)
