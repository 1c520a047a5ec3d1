"""Engines: the only code that knows a framework; this module imports none (the run side's parent and the report side
never need one). ``tensorflow``: ``tf.distribute`` and ``tf.data``; ``jax``: ``keras.distribution.DataParallel`` and
NumPy pipelines, no TensorFlow; ``torch``: one device, the same NumPy pipelines, neither TensorFlow nor JAX.

A worker loads an engine module with :func:`load`. The contract is :class:`Engine`, a Protocol that
``tests/test_engine_contract.py`` and the type checker hold every engine to (``make_pipelines`` returns
:class:`Pipelines`); a new engine is a folder: its module and its ``backend.yaml`` (:mod:`bench.records.backends`;
one outside bench is named by ``BENCH_ENGINE_DIRS``). Promises:
- ``make_strategy``: first thing in the process; :class:`StrategyUnavailable` when the hardware is absent;
- ``make_pipelines``: batches in :mod:`bench.data.order`'s order with :mod:`bench.data.augment`'s draws (equal under
  every backend); ``cached`` decodes once; ``autotune``: the ``tf.data.AUTOTUNE`` pipeline, or
  :class:`PipelineUnavailable`;
- ``matmul_chain``, ``dispatch_probe``, ``stream_chain``: one compiled call each (chained n x n matmuls; nothing;
  chained ``x + 1`` passes over a float32 vector, then its sum) for :mod:`bench.measure.probes`;
- ``framework_env``, out-of-memory (``is_out_of_memory``, ``out_of_memory_error``), device memory per device
  (``reset_peak_memory``, ``peak_memory_bytes``: None where unknown; ``step_memory``: the compiled step's own, JAX),
  the arithmetic that runs (``math_mode``, ``arithmetic`` per op class), ``set_float32_matmul``;
- ``autotune_mark`` / ``device_pipeline_autotune``: tf.data autotune seen on per-device pipelines since the mark;
- ``activate`` (puts a global distribution back before every point: ``clear_session`` drops it), ``lost``,
  ``placement`` (read back; :class:`PlacementError` when not what the strategy promises), ``compiler``;
- ``gather_processes``: every cooperating process's values by process index (a multi-process point, JAX only, reads
  its topology from Keras' variables: :func:`multi_process_env`).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from bench.config import logical_cpus
from bench.records import BACKENDS
from bench.records.backends import SPECS

if TYPE_CHECKING:
    from bench.workloads import Workload

ENGINES = BACKENDS  # an engine per Keras backend, of the same name (config key ``backends``)
# a record's ``data_order``: bench.data.order's seeded order; Keras shuffling arrays itself (``numpy``); tf.data
# reshuffling a finite dataset every epoch (``autotune``, as users write it); a workload's own pipeline (``user``)
BENCH_ORDER, KERAS_ORDER, TF_SHUFFLE, USER_ORDER = "bench", "keras shuffle", "tf.data shuffle", "input_fn"


class StrategyUnavailable(RuntimeError):
    """The hardware a strategy needs is not here; ``str(e)`` is the reason recorded as ``skipped``."""


class PipelineUnavailable(RuntimeError):
    """A point's input pipeline cannot run with its backend, strategy or data (``numpy`` for a workload that
    augments, ``autotune`` under JAX without TensorFlow); ``str(e)`` is the reason recorded as ``skipped``."""


class PlacementError(RuntimeError):
    """A point's model or batches are not laid out on the devices as its strategy promises (data parallelism
    lost, a batch on one device, variables not replicated); ``str(e)`` says what was found. The point fails
    with it instead of being timed."""


@dataclass
class StrategyInfo:
    """What a strategy resolved to; stored as the record's ``strategy`` object."""

    requested: str
    name: str
    cls: str
    num_replicas: int
    devices: list[str]
    device_kind: str  # cpu | gpu | tpu
    extra: dict[str, Any] = field(default_factory=dict)

    def as_record(self) -> dict[str, Any]:
        """The record's ``strategy`` object (``class`` for ``cls``; ``extra`` keys at the top level)."""
        return {"requested": self.requested, "name": self.name, "class": self.cls,
                "num_replicas": self.num_replicas, "devices": self.devices,
                "device_kind": self.device_kind, **self.extra}


@runtime_checkable
class Pipelines(Protocol):
    """A point's input pipelines, as an engine builds them (units: batches of ``global_batch_size`` examples)."""

    train: Any  # repeats (an epoch is ``steps_per_epoch`` batches), or one epoch that fit iterates afresh (autotune)
    val: Any  # ``validation_steps`` batches per evaluation, in the split's order
    steps_per_epoch: int
    validation_steps: int

    def rewind(self) -> Any:
        """The training data for a second ``fit`` (a later stage), from its first epoch again."""

    def val_pass(self) -> Iterator[tuple[Any, Any]]:
        """One ordered pass over the validation batches as NumPy arrays."""

    def fresh_train(self) -> Any:
        """The training data with nothing prepared ahead (the input-only probe)."""

    def fit_inputs(self, train: Any) -> dict[str, Any]:
        """``fit``'s data arguments for ``train`` (what :meth:`rewind` or the ``train`` field gives): the data and
        the steps of an epoch, or arrays and a batch size where Keras batches them itself."""


@runtime_checkable
class Engine(Protocol):
    """What the run side may ask of an engine module (module docstring). Functions, not methods: a module
    satisfies this protocol when it defines them with these signatures."""

    NAME: str

    def make_strategy(self, requested: str, all_reduce: str = "auto", tpu: str = "",
                      tpu_connect_timeout_s: float = 60.0) -> tuple[Any, StrategyInfo]: ...

    def make_pipelines(self, workload: Workload, arrays: Any, global_batch_size: int, seed: int,
                       slow_decode: bool = False, epochs: int = 1, cached: bool = False,
                       autotune: bool = False) -> Pipelines: ...

    def matmul_chain(self, device: str, dtype: str = "float32", n: int = 1024, chained: int = 1
                     ) -> Callable[[], None]: ...

    def dispatch_probe(self, device: str) -> Callable[[], None]: ...

    def stream_chain(self, device: str, n: int = 1 << 26, chained: int = 1) -> Callable[[], None]: ...

    def framework_env(self, info: StrategyInfo) -> dict[str, Any]: ...

    def is_out_of_memory(self, exc: BaseException) -> bool: ...

    def out_of_memory_error(self, message: str) -> Exception: ...

    def reset_peak_memory(self, info: StrategyInfo) -> bool: ...

    def peak_memory_bytes(self, info: StrategyInfo) -> list[int] | None: ...

    def step_memory(self, model: Any, batch: Any, global_batch_size: int) -> dict[str, float] | None: ...

    def math_mode(self, info: StrategyInfo, precision: str) -> str: ...

    def arithmetic(self, info: StrategyInfo, precision: str) -> dict[str, str]: ...

    def set_float32_matmul(self, setting: str) -> None: ...

    def autotune_mark(self) -> int: ...

    def device_pipeline_autotune(self, mark: int) -> str | None: ...

    def gather_processes(self, values: list[float]) -> list[list[float]]: ...

    def activate(self, strategy: Any) -> None: ...

    def lost(self, strategy: Any) -> str | None: ...

    def placement(self, model: Any, strategy: Any, info: StrategyInfo, batch: tuple[Any, Any] | None
                  ) -> dict[str, Any]: ...

    def compiler(self, model: Any, info: StrategyInfo) -> str: ...


def unresolved_strategy(requested: str) -> dict[str, Any]:
    """The record's ``strategy`` object of a point whose worker never resolved its strategy (skipped, or
    killed before it got that far): only the requested name is known."""
    return {"requested": requested, "name": requested, "class": None, "num_replicas": None, "devices": [],
            "device_kind": None}


def load(name: str) -> Engine:
    """The engine module ``bench.engines.<name>`` (imports its framework), as an :class:`Engine`; ValueError for
    an unknown one, TypeError for a module that does not provide the contract's names."""
    if name not in ENGINES:
        raise ValueError(f"unknown engine {name!r}; allowed: {', '.join(ENGINES)}")
    outside = SPECS[name].folder if name in SPECS and SPECS[name].folder.parent != Path(__file__).parent else None
    if outside is None:
        module = importlib.import_module(f"bench.engines.{name}")
    else:  # declared outside bench (BENCH_ENGINE_DIRS): its folder is the module
        found = importlib.util.spec_from_file_location(f"bench_engine_{name}", outside / "__init__.py")
        if found is None or found.loader is None:
            raise ValueError(f"engine {name!r}: no module at {outside / '__init__.py'}")
        module = importlib.util.module_from_spec(found)
        found.loader.exec_module(module)
    if not isinstance(module, Engine):
        missing = [m for m in contract_names() if not hasattr(module, m)]
        raise TypeError(f"engine {name!r} does not implement bench.engines.Engine: missing {', '.join(missing)}")
    return module


def contract_names() -> list[str]:
    """The names an engine module must define (:class:`Engine`'s members)."""
    return sorted(n for n in (*Engine.__annotations__, *vars(Engine)) if not n.startswith("_"))


# Keras' names for a multi-process job (keras.distribution.initialize reads them): the coordinator's HOST:PORT,
# the process count and this process's index
JOB_ADDRESSES, NUM_PROCESSES, PROCESS_ID = ("KERAS_DISTRIBUTION_JOB_ADDRESSES", "KERAS_DISTRIBUTION_NUM_PROCESSES",
                                            "KERAS_DISTRIBUTION_PROCESS_ID")


def multi_process_env(coordinator: str, processes: int, process_id: int) -> dict[str, str]:
    """The variables that make a worker process ``process_id`` of ``processes`` cooperating ones, joined through
    the coordinator at ``coordinator`` (HOST:PORT, process 0's); nothing for a single process."""
    if processes == 1:
        return {}
    return {JOB_ADDRESSES: coordinator, NUM_PROCESSES: str(processes), PROCESS_ID: str(process_id)}


def process_env(backend: str, strategy: str, environ: Mapping[str, str], processes: int = 1) -> dict[str, str]:
    """Environment variables a worker process of ``backend``/``strategy`` needs before Keras or the framework
    is imported (the launcher sets them; they cannot be changed once the framework has started).

    ``KERAS_BACKEND`` always (a user's own ``KERAS_BACKEND`` must not switch a worker's backend). Under
    jax: ``JAX_PLATFORMS=cpu`` for the CPU strategies (a visible GPU must not take a ``cpu`` point), and
    for ``cpu_xN`` the XLA flag that splits the host into N devices (N / ``processes`` in each of a multi-process
    point's processes), added to the user's ``XLA_FLAGS``.
    """
    env = {"KERAS_BACKEND": backend}
    if backend == "torch" and strategy in TORCH_DEVICES:
        env["KERAS_TORCH_DEVICE"] = TORCH_DEVICES[strategy]
    if backend != "jax":
        return env
    n = logical_cpus(strategy)
    n = n // processes if n else n
    if strategy == "cpu" or n:
        env["JAX_PLATFORMS"] = "cpu"
    if n:
        flags = [f for f in environ.get("XLA_FLAGS", "").split() if "xla_force_host_platform_device_count" not in f]
        env["XLA_FLAGS"] = " ".join([*flags, f"--xla_force_host_platform_device_count={n}"])
    return env


def cpu_child_env(backend: str, environ: Mapping[str, str]) -> dict[str, str]:
    """The environment of a short child process that checks models on the CPU (the preflight, the doctor): the
    backend's (:func:`process_env`), JAX on the CPU and no GPU visible (it must not take an accelerator the
    workers are about to use), TensorFlow quiet, the current folder importable (a user's modules)."""
    env = {**environ, **process_env(backend, "cpu", environ), "JAX_PLATFORMS": "cpu", "CUDA_VISIBLE_DEVICES": "-1",
           "TF_CPP_MIN_LOG_LEVEL": "3"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (os.getcwd(), env.get("PYTHONPATH", "")) if p)
    return env


def prepare_process(backend: str, tensorflow: bool = False) -> None:
    """First thing in a worker process, before Keras is imported: under jax and torch, make TensorFlow unimportable
    (unless ``tensorflow``: a worker whose points are fed by a ``tf.data`` pipeline, which needs it), and under torch
    JAX too (Keras' PyTorch backend needs neither: a PyTorch-only machine runs the same). Under tensorflow, JAX is
    unimportable only while TensorFlow and Keras import (:class:`NoJaxInsideTensorFlow`): both import it when it is
    installed, for nothing a point runs; a user's workload module may still import JAX afterwards.

    Keras imports TensorFlow whenever it is installed (``keras.utils.set_random_seed`` seeds it, some data
    adapters probe it), and many JAX images (Kaggle's TPU image ships ``tensorflow-cpu``) have it. A JAX
    worker must run the same with or without it, so ``import tensorflow`` fails in that process, as it
    would on a machine without TensorFlow.
    """
    blocked = ["tensorflow"] if backend in ("jax", "torch") and not tensorflow else []
    blocked += ["jax", "jaxlib"] if backend == "torch" else []
    for module in blocked:
        if module not in sys.modules:
            sys.modules[module] = None  # type: ignore[assignment]  # import tensorflow -> ImportError
    if backend == "tensorflow" and not any(isinstance(f, NoJaxInsideTensorFlow) for f in sys.meta_path):
        sys.meta_path.insert(0, NoJaxInsideTensorFlow())


class NoJaxInsideTensorFlow:
    """An import finder that refuses JAX while TensorFlow's or Keras' package is being imported, and defers to the
    other finders at every other time. When JAX is installed, ``tensorflow.lite.python.util`` imports ``jax.jit`` (None
    without it) and Keras' Orbax callback patches ``jax.monitoring``: 0.4 s of every TensorFlow process's start on the
    2-core box (docs/development.md), for a converter and a checkpointer bench never calls."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] in ("jax", "jaxlib") and (_initializing("tensorflow") or _initializing("keras")):
            raise ModuleNotFoundError(f"No module named {name!r} (not while TensorFlow imports)", name=name)
        return None


def _initializing(name: str) -> bool:
    """Whether module ``name`` is being executed by an import now (importlib marks its spec while it runs)."""
    spec = getattr(sys.modules.get(name), "__spec__", None)
    return bool(getattr(spec, "_initializing", False))


# Keras' PyTorch backend trains on one device, the one KERAS_TORCH_DEVICE names (read when Keras starts)
TORCH_DEVICES = {"cpu": "cpu", "gpu": "cuda"}
INPUT_THREADS_MAX = 16  # beyond this, more Python/tf.data threads preparing batches of these sizes bought nothing
SLOW_DECODE_S = 0.005  # per example, both engines' slow_decode: a stand-in for an expensive, un-parallelised
# decode (a large JPEG); 5 ms, not 2: at 2 ms a small CPU model's own step (0.2-0.6 ms an example on 2 cores) was a
# quarter of a sequential pipeline's time on a slow box, and the pipeline meant to be input-bound was not flagged
# (fresh-clone CI)


def input_threads(cpus: int | None = None) -> int:
    """Threads that prepare a point's batches ahead of ``fit``, under either engine (tf.data's parallel calls, the
    JAX engine's thread pool): one per CPU this process may run on (``cpus``; its CPU affinity by default), at least
    1, at most :data:`INPUT_THREADS_MAX`. One rule for both backends, so a backend comparison is not an input
    comparison, and scaled with the host, so a TPU host's or GPU box's cores are used (recorded as
    ``input_threads``)."""
    if cpus is None:
        try:
            cpus = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):  # not Linux
            cpus = os.cpu_count() or 1
    return max(1, min(INPUT_THREADS_MAX, cpus))
