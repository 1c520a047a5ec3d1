"""Both engines implement bench.engines.Engine: every member, with the contract's parameters, and nothing else
decides which backends exist but bench.records.BACKENDS."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import re

import pytest

from bench import engines, records
from bench.engines import Engine, contract_names, load

pytest.importorskip("tensorflow")
pytest.importorskip("jax")


def _parameters(fn) -> list[tuple[str, object]]:
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values() if p.name != "self"]


@pytest.mark.parametrize("name", records.BACKENDS)
def test_each_engine_satisfies_the_contract(name: str) -> None:
    """Checked in a fresh interpreter per backend would be stricter; here both load in one process, which the
    worker never does, but the contract only needs names and signatures."""
    if name == "jax":
        import os

        os.environ.setdefault("KERAS_BACKEND", "tensorflow")  # importing keras here must not switch the suite's
    engine = load(name)
    assert isinstance(engine, Engine) and engine.NAME == name
    for member in contract_names():
        if member == "NAME":
            continue
        impl, spec = getattr(engine, member), getattr(Engine, member)
        assert _parameters(impl)[: len(_parameters(spec))] == _parameters(spec), (name, member)


def test_backends_are_defined_once() -> None:
    for module in ("bench.config.validate",):
        assert importlib.import_module(module).BACKENDS is records.BACKENDS
    assert engines.ENGINES is records.BACKENDS
    speedups = importlib.import_module("bench.reporting.frames.speedups")  # baseline=<backend>/<strategy> names one
    assert speedups.BACKENDS is records.BACKENDS


def test_a_module_that_lacks_a_member_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    fake = types.ModuleType("bench.engines.fake")
    fake.NAME = "fake"  # type: ignore[attr-defined]
    monkeypatch.setitem(__import__("sys").modules, "bench.engines.fake", fake)
    monkeypatch.setattr(engines, "ENGINES", (*records.BACKENDS, "fake"))
    missing = "does not implement bench.engines.Engine: missing activate, arithmetic, autotune_mark"
    with pytest.raises(TypeError, match=re.escape(missing)):
        load("fake")
    with pytest.raises(ValueError, match=re.escape("unknown engine 'mxnet'; allowed: tensorflow, jax, torch")):
        load("mxnet")


BLOCKED = """
import sys
from bench.engines import prepare_process
prepare_process(sys.argv[1], tensorflow=sys.argv[2] == "tf.data")
print(sorted(m for m in ("tensorflow", "jax", "jaxlib") if m in sys.modules and sys.modules[m] is None))
"""


@pytest.mark.parametrize(("backend", "pipeline", "blocked"), [
    ("tensorflow", "default", []),  # JAX only while TensorFlow imports: the next test
    ("jax", "default", ["tensorflow"]), ("jax", "tf.data", []),
    ("torch", "default", ["jax", "jaxlib", "tensorflow"]), ("torch", "tf.data", ["jax", "jaxlib"])])
def test_a_worker_makes_the_other_frameworks_unimportable(backend: str, pipeline: str, blocked: list[str]) -> None:
    """A worker process loads its own backend's framework only (TensorFlow too where a tf.data pipeline feeds it)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", BLOCKED, backend, pipeline], capture_output=True,
                         text=True, check=True, timeout=60)
    assert out.stdout.strip() == repr(blocked)


NO_JAX_INSIDE = """
import sys
from bench.engines import prepare_process
prepare_process("tensorflow")
import keras
import tensorflow
inside = "jax" in sys.modules
import jax  # a user's workload module may
print(inside, jax.numpy.add(1, 2))
"""


@pytest.mark.skipif(not (importlib.util.find_spec("jax") and importlib.util.find_spec("tensorflow")),
                    reason="needs TensorFlow and JAX")
def test_a_tensorflow_worker_imports_no_jax_with_tensorflow_and_keras_but_a_user_module_may() -> None:
    """TensorFlow's TFLite module and Keras' Orbax callback import JAX when it is installed; in a TensorFlow worker
    neither does, and JAX imports as usual once they are in (bench.engines.NoJaxInsideTensorFlow)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", NO_JAX_INSIDE], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "KERAS_BACKEND": "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["False", "3"]
