"""The Keras backends bench runs, each declared by its engine's folder (``bench/engines/<name>/backend.yaml``: its
name, words, install extra, colour, the frameworks only it imports, and how its compiler is named). Read as data, so
that the report side, which never imports an engine, asks the declaration instead of spelling a backend's name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

ENGINES_DIR = Path(__file__).resolve().parents[1] / "engines"
# More folders of engine folders, os.pathsep-separated: an engine declared outside bench (a plug-in's, a test's double)
ENGINE_DIRS = "BENCH_ENGINE_DIRS"


@dataclass(frozen=True)
class Backend:
    """One backend's declaration (the fields of its ``backend.yaml``)."""

    name: str
    order: int  # 0: the first backend (labels without a backend prefix; the default of ``backends``)
    display: str  # TensorFlow, JAX, PyTorch
    extra: str  # the install extra: pip install -e .[<extra>]
    colour: str  # its bars in the backends figure
    frameworks: tuple[str, ...]  # the modules only its engine imports
    always_compiles: bool  # every train step compiled: no compiler mark in labels
    compiler: str  # what jit_compile=true compiles with, as labels name it
    compiled_prefix: str  # how the record's ``compiler`` starts when that compiler ran
    uncompiled: str  # what runs the step without it
    auto_compiles: bool  # whether Keras' jit_compile="auto" may choose the compiler
    one_step_per_call: bool  # Keras' trainer runs one step a call whatever steps_per_execution asks
    spe_python_loop: bool  # several steps a call are a Python loop over the compiled step, not one program
    gpu_float32_matmul: str  # the arithmetic of its float32 matmuls on a GPU by default (tf32, fp32)
    install: str  # how to install it, where a run asks for it and it is not installed
    packages: tuple[str, ...]  # the packages whose versions key a cached peak probe
    multi_process: bool  # runs one point over several cooperating processes
    tf_data_native: bool  # Keras feeds it tf.data natively (else a tf.data pipeline makes its worker import TF)
    wrapper_strategies: bool  # the tf.distribute wrapper strategies mean something under it
    point_id_compiled: str  # what a point id adds after the strategy where jit_compile=true
    stalls_in_cpu_all_reduce: bool  # a worker may die in XLA's CPU all-reduce (run again with one step in flight)
    folder: Path  # the folder that declares it (its engine module's ``__init__.py``)


def _read(path: Path) -> Backend:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    if raw.get("name") != path.parent.name:
        raise ValueError(f"{path}: name={raw.get('name')!r}, the folder is {path.parent.name!r}")
    return Backend(**{**raw, "frameworks": tuple(raw["frameworks"]), "packages": tuple(raw["packages"]),
                      "folder": path.parent})


def declared(engines_dir: Path = ENGINES_DIR) -> dict[str, Backend]:
    """Every engine folder's declaration, by name, in their ``order``: bench's own (``engines_dir``), then those of
    the folders :data:`ENGINE_DIRS` names (ValueError for a name declared twice)."""
    more = [Path(p) for p in os.environ.get(ENGINE_DIRS, "").split(os.pathsep) if p]
    found = [_read(p) for d in (engines_dir, *more) for p in sorted(d.glob("*/backend.yaml"))]
    names = [b.name for b in found]
    twice = sorted(n for n in set(names) if names.count(n) > 1)
    if twice:
        raise ValueError(f"{ENGINE_DIRS}: a backend is declared twice: {', '.join(twice)}")
    return {b.name: b for b in sorted(found, key=lambda b: (b.order, b.name))}


SPECS = declared()
BACKENDS = tuple(SPECS)  # the engines' names, the first declared first


def spec(name: str | None) -> Backend | None:
    """A backend's declaration (None for a name no engine declares: a record of another bench)."""
    return SPECS.get(str(name))


Flag = Literal["always_compiles", "auto_compiles", "one_step_per_call", "spe_python_loop", "multi_process",
               "tf_data_native", "wrapper_strategies", "stalls_in_cpu_all_reduce"]


def declares(name: str | None, flag: Flag) -> bool:
    """Whether backend ``name`` declares ``flag`` true (False for a name no engine declares)."""
    b = spec(name)
    return b is not None and bool(getattr(b, flag))
