"""The package's hard lines, read from the source (every ``import`` statement, lazy ones inside functions
included):

- the report side (``bench.reporting``) never imports the run side (``bench.runner``, ``bench.worker``,
  ``bench.job``), the engines, the CLI, TensorFlow, Keras or JAX, not even through another bench module: it must
  run on any laptop;
- the process boundary: the orchestrator (``bench.runner``, bench's own process) imports no framework and no
  worker module; the worker (``bench.worker``, inside a worker process) imports nothing of the orchestrator; the job
  both share (``bench.job``) imports neither side, nor a framework;
- each layer imports only the layers below it (records and config at the bottom, engines below the run
  side, nothing imports the CLI);
- there is no import cycle anywhere in ``bench/``.

One exception, by design: the package root's module ``__getattr__`` (PEP 562) is the public facade
(``from bench import Workload``, ``bench.run``, ``bench.report``); its imports run only when a user touches
those names, never when any bench module is imported, so they are not part of any module's import chain.
``test_the_facade_is_lazy`` checks that at run time.

``tests/test_report_no_tf.py`` checks the first line at run time too (``sys.modules`` after a report).
The checker itself is tested on a small tree with violations, so it can fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
FRAMEWORKS = ("tensorflow", "keras", "tf_keras", "jax", "jaxlib", "torch")

RUN_SIDE = ("bench.runner", "bench.worker", "bench.job")  # the orchestrator, the worker, the job both share

# package prefix -> what it must not import, directly or through other bench modules (prefix match)
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "bench.reporting": (*RUN_SIDE, "bench.engines", "bench.cli", "bench.config", *FRAMEWORKS),
    "bench.records": (*RUN_SIDE, "bench.engines", "bench.reporting", "bench.cli", "bench.config",
                      "bench.workloads", "bench.data", *FRAMEWORKS),
    "bench.predictions": (*RUN_SIDE, "bench.engines", "bench.reporting", "bench.cli", "bench.config",
                          "bench.workloads", "bench.data", *FRAMEWORKS),
    "bench.config": (*RUN_SIDE, "bench.engines", "bench.reporting", "bench.cli", *FRAMEWORKS),
    "bench.workloads": (*RUN_SIDE, "bench.engines", "bench.reporting", "bench.cli"),
    "bench.data": (*RUN_SIDE, "bench.engines", "bench.reporting", "bench.cli", *FRAMEWORKS),
    "bench.engines": (*RUN_SIDE, "bench.reporting", "bench.cli"),
    "bench.measure": (*RUN_SIDE, "bench.reporting", "bench.cli"),
    "bench.readiness": (*RUN_SIDE, "bench.reporting", "bench.cli"),
    # the process boundary: bench's own process starts workers (``python -m bench.worker``), never imports them
    "bench.job": ("bench.runner", "bench.worker", "bench.reporting", "bench.cli", *FRAMEWORKS),
    "bench.runner": ("bench.worker", "bench.cli", *FRAMEWORKS),
    "bench.worker": ("bench.runner", "bench.reporting", "bench.cli"),
}
# The report side's stages (bench/reporting/__init__.py): each imports only the stages below it,
# stats < load < frames < analysis < verdicts < claims < render < build < commands.
STAGES = ("stats", "load", "frames", "analysis", "verdicts", "claims", "render", "build", "commands")
DRAWING = ("matplotlib", "seaborn", "tabulate")  # output libraries: render's alone
STAGE_RULES: dict[str, tuple[str, ...]] = {
    f"bench.reporting.{stage}": tuple(f"bench.reporting.{above}" for above in STAGES[i + 1:])
    + (("pandas", *DRAWING) if stage == "stats"
       else DRAWING if stage in ("load", "frames", "analysis", "verdicts", "claims") else ())
    for i, stage in enumerate(STAGES)
}
STAGE_RULES["bench.reporting.render.markdown"] = ("bench.reporting.render.figures",)  # a figure is a path to it
STAGE_RULES["bench.reporting.render.report_json"] = ("bench.reporting.render.markdown",
"bench.reporting.render.figures")


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


def closure(graph: dict[str, set[str]], start: str) -> dict[str, str]:
    """Every module ``start`` imports, directly or through bench modules (importing a module runs its
    packages' ``__init__`` too), mapped to the bench module that imports it."""
    seen: dict[str, str] = {}
    todo = [start]
    while todo:
        mod = todo.pop()
        for dep in sorted(graph.get(mod, ())) + [a for a in _ancestors(mod) if a in graph]:
            if dep not in seen and dep != start:
                seen[dep] = mod
                if dep in graph:
                    todo.append(dep)
    return seen


def violations(graph: dict[str, set[str]], forbidden: dict[str, tuple[str, ...]]) -> list[str]:
    """One line per forbidden import: ``importer -> imported (via chain)``."""
    out = []
    for mod in sorted(graph):
        rules = [banned for prefix, banned in forbidden.items() if mod == prefix or mod.startswith(prefix + ".")]
        for banned in rules:
            reached = closure(graph, mod)
            for dep in sorted(reached):
                if any(dep == b or dep.startswith(b + ".") for b in banned):
                    chain, via = [dep], reached[dep]
                    while via != mod:
                        chain.append(via)
                        via = reached[via]
                    out.append(f"{mod} -> {' -> '.join(reversed(chain))}")
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


def test_every_layer_imports_only_what_it_may() -> None:
    graph = read_imports(BENCH)
    assert "bench.reporting.render.markdown.document" in graph and "bench.worker.main" in graph  # the tree was read
    assert violations(graph, FORBIDDEN) == []


def test_the_process_boundary_rules_catch_a_crossing(tmp_path: Path) -> None:
    """FORBIDDEN itself, on a small tree: the orchestrator reaching a worker module (and its Keras), the worker
    reaching the launcher, the job reaching the plan."""
    root = tmp_path / "bench"
    files = {"__init__.py": "", "runner/__init__.py": "", "worker/__init__.py": "", "job/__init__.py": "",
             "runner/launcher.py": "def f():\n    from bench.worker.fit import PointFit\n",
             "runner/plan.py": "from bench.job.point import Point\n", "job/point.py": "from bench.runner import plan\n",
             "worker/fit.py": "import keras\nfrom bench.job.point import Point\n",
             "worker/main.py": "from bench.runner.launcher import Launcher\n"}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    found = violations(read_imports(root), FORBIDDEN)
    assert "bench.runner.launcher -> bench.worker.fit" in found
    assert "bench.runner.launcher -> bench.worker.fit -> keras" in found
    assert "bench.worker.main -> bench.runner.launcher" in found
    assert "bench.job.point -> bench.runner.plan" in found


def test_every_report_stage_imports_only_the_stages_below_it() -> None:
    """Every module of bench/reporting/ belongs to one stage (a subpackage, or build.py / commands.py / verdicts.py
    on top) and imports only what lies below it, directly or through other modules; the stages' packages are
    docstring-only faces (a face that imported would leak its imports into every module below it)."""
    graph = read_imports(BENCH)
    report_side = sorted(m for m in graph if m.startswith("bench.reporting."))
    assert len(report_side) > 40, report_side  # the tree was walked, subpackages included
    unplaced = [m for m in report_side if m.split(".")[2] not in STAGES]
    assert unplaced == []
    assert violations(graph, STAGE_RULES) == []
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


def test_statistics_return_numbers(tmp_path: Path) -> None:
    files = sorted((BENCH / "reporting" / "stats").rglob("*.py"))
    assert len(files) >= 5 and [p for f in files for p in text_in_statistics(f)] == []
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x: float) -> str:\n    return f'{x:.2f}x'\n"
                   "def g(x: float) -> float:\n    if x < 0:\n        raise ValueError(f'{x}')\n    return x\n")
    assert text_in_statistics(bad) == ["bad.py:1 f returns str", "bad.py:2 f-string"]  # the check can fail


def test_the_stage_rules_catch_an_upward_import(tmp_path: Path) -> None:
    root = tmp_path / "bench"
    files = {"__init__.py": "", "reporting/__init__.py": "", "reporting/stats/__init__.py": "",
             "reporting/stats/sample.py": "import pandas\n", "reporting/frames/__init__.py": "",
             "reporting/frames/points.py": "from bench.reporting.render.text import DASH\n",
             "reporting/render/__init__.py": "", "reporting/render/text.py": "import tabulate\n",
             "reporting/analysis/__init__.py": "", "reporting/analysis/cost.py": "def f():\n    import seaborn\n"}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    found = violations(read_imports(root), STAGE_RULES)
    assert "bench.reporting.stats.sample -> pandas" in found
    assert "bench.reporting.frames.points -> bench.reporting.render.text" in found
    assert "bench.reporting.frames.points -> bench.reporting.render.text -> tabulate" in found
    assert "bench.reporting.analysis.cost -> seaborn" in found


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


MAX_MODULE_LINES, MAX_FUNCTION_LINES, MAX_FOLDER_MODULES = 300, 60, 15


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
