"""Strategy names -> ``tf.distribute`` strategies: the TensorFlow engine's view of the hardware (docs/strategies.md).
Call :func:`make_strategy` once, first thing in a worker process: logical devices and TPU initialisation must come
before TensorFlow's runtime starts, hence a process per strategy; absent hardware: :class:`StrategyUnavailable`.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any

import tensorflow as tf

from bench.config import logical_cpus
from bench.engines import StrategyInfo, StrategyUnavailable
from bench.engines.presence import looks_like_tpu_vm

_CROSS_DEVICE_OPS = {
    "hierarchical_copy": lambda: tf.distribute.HierarchicalCopyAllReduce(),
    "reduce_to_one": lambda: tf.distribute.ReductionToOneDevice(),
    "nccl": lambda: tf.distribute.NcclAllReduce(),
    "collective": lambda: None,  # TF's default (collective all-reduce): fails with spe > 1, keras#19246
}


def _mirrored(devices: list[str], all_reduce: str, default: str) -> tuple[tf.distribute.Strategy, str]:
    choice = default if all_reduce == "auto" else all_reduce
    ops = _CROSS_DEVICE_OPS[choice]()
    strategy = tf.distribute.MirroredStrategy(devices=devices, cross_device_ops=ops)
    used = type(strategy.extended._cross_device_ops).__name__ if ops is not None else "CollectiveAllReduce"
    return strategy, used



def tpu_target(tpu: str) -> str:
    """What to hand TPUClusterResolver: the configured address, the env's TPU name, or 'local'.

    ``tpu='local'`` is right on TPU VMs (Colab, Kaggle, Cloud); an env ``TPU_NAME`` must be resolved by
    TPUClusterResolver itself (passing it as 'local' is wrong: 'local' means this machine's own TPU).
    """
    if tpu:
        return tpu
    if any(os.environ.get(k) for k in ("TPU_NAME", "KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS", "TPU_CONFIG")):
        return ""  # let the resolver read the environment
    return "local"


def _make_tpu(tpu: str, connect_timeout_s: float) -> tuple[tf.distribute.Strategy, dict[str, Any]]:
    target = tpu_target(tpu)
    shown = target or f"TPU_NAME={os.environ.get('TPU_NAME', '')!r}"
    try:
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=target or None)
    except (ValueError, OSError) as e:  # no name to resolve / GCE metadata unreachable
        raise StrategyUnavailable(f"TPUClusterResolver(tpu={shown}) failed: {type(e).__name__}: {e}") from e
    if target.startswith("grpc://"):
        # A grpc:// address that nobody answers blocks forever inside TensorFlow: give it a limit.
        errors: list[BaseException] = []
        t = threading.Thread(target=lambda: _connect(resolver, errors), daemon=True)
        t.start()
        t.join(connect_timeout_s)
        if t.is_alive():
            raise StrategyUnavailable(
                f"connecting to TPU {target} did not finish within tpu_connect_timeout_s={connect_timeout_s:g}")
        if errors:
            first = errors[0]
            raise StrategyUnavailable(f"connecting to TPU {target} failed: {type(first).__name__}: {first}") from first
    else:
        tf.config.experimental_connect_to_cluster(resolver)  # a no-op for tpu='local'
    try:
        tf.tpu.experimental.initialize_tpu_system(resolver)
        strategy = tf.distribute.TPUStrategy(resolver)
    except (tf.errors.OpError, IndexError, RuntimeError, ValueError) as e:
        hint = ""
        if "ConfigureDistributedTPU" in str(e):
            hint = (" (this TensorFlow build has no TPU kernels: on a TPU VM install tensorflow-tpu, "
                    "see docs/accelerators.md)")
        msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
        msg = msg.split(" used by {{node")[0]  # TF appends the node's full attribute dump: not a reason
        raise StrategyUnavailable(
            f"initialize_tpu_system(TPUClusterResolver(tpu={shown!r})) failed: {type(e).__name__}: {msg}{hint}"
        ) from e
    devices = [d.name for d in tf.config.list_logical_devices("TPU")]
    return strategy, {"tpu": target or os.environ.get("TPU_NAME", ""), "devices": devices}


def _connect(resolver: Any, errors: list[BaseException]) -> None:
    try:
        tf.config.experimental_connect_to_cluster(resolver)
    except BaseException as e:  # reported by the caller
        errors.append(e)


def _gpus() -> list[str]:
    return [d.name for d in tf.config.list_physical_devices("GPU")]


NO_SCOPE_CLASS = "none (no strategy scope)"


def hide_gpus() -> None:
    """Make TensorFlow see no GPU (before its runtime starts): a ``cpu`` point must run on the CPU."""
    with contextlib.suppress(RuntimeError, ValueError):  # no GPU support in this build: nothing to hide
        tf.config.set_visible_devices([], "GPU")


OBSERVED_DEVICE_AUTOTUNE: list[bool] = []  # autotune.enabled of every per-device pipeline the hook saw built


def observed_device_autotune(since: int) -> str:
    """The autotune state of the per-device pipelines built after the first ``since`` the hook saw: ``off`` when
    every one had it off, ``on`` when any had it on, ``not observed`` when the hook saw none built (TensorFlow
    built them some other way: their state is unknown, never assumed off)."""
    seen = OBSERVED_DEVICE_AUTOTUNE[since:]
    if not seen:
        return "not observed"
    return "on" if any(seen) else "off"


def device_pipelines_without_autotune() -> bool:
    """Switch tf.data autotune off in the per-device pipelines a strategy builds; True when applied.

    ``tf.distribute`` feeds each replica through a ``MultiDeviceIterator`` whose per-device datasets are
    built by a private TF function and never inherit the input dataset's options, so autotune stays on
    there whatever bench sets on its own pipelines. Destroying such an iterator at the end of ``fit``
    races tf.data's autotune thread (docs/findings.md: "fit's slow ending is tf.data's autotune thread"). This wraps
    that function so its datasets get ``autotune.enabled = False`` (except for a point of the ``autotune``
    pipeline, which measures what a user's own pipeline gets: ``options.DEVICE_AUTOTUNE``); on a TensorFlow without
    it, nothing changes and False is recorded (``strategy.device_pipeline_autotune``).
    """
    try:
        from tensorflow.python.data.ops import multi_device_iterator_ops as mdi
    except ImportError:
        return False
    original = getattr(mdi, "_create_device_dataset", None)
    if original is None:
        return False
    if getattr(original, "_bench_no_autotune", False):
        return True

    from bench.engines.tensorflow.options import DEVICE_AUTOTUNE, autotune_on, no_autotune

    def create_device_dataset(*args: Any, **kwargs: Any) -> tf.data.Dataset:
        ds = original(*args, **kwargs).with_options(autotune_on() if DEVICE_AUTOTUNE[0] else no_autotune())
        # what the pipeline really got (unset, None, is TensorFlow's default: on)
        OBSERVED_DEVICE_AUTOTUNE.append(ds.options().autotune.enabled is not False)
        return ds

    create_device_dataset._bench_no_autotune = True  # type: ignore[attr-defined]
    mdi._create_device_dataset = create_device_dataset
    return True


def _scoped(strategy: tf.distribute.Strategy, info: StrategyInfo) -> tuple[tf.distribute.Strategy, StrategyInfo]:
    """A strategy with a scope: its per-device pipelines get autotune off too. Whether the hook could be installed
    is recorded here; each point's record then says what its per-device pipelines were observed to get."""
    info.extra["device_pipeline_autotune_hook"] = "installed" if device_pipelines_without_autotune() else "unavailable"
    return strategy, info


def make_strategy(requested: str, all_reduce: str = "auto", tpu: str = "",
                  tpu_connect_timeout_s: float = 60.0) -> tuple[tf.distribute.Strategy | None, StrategyInfo]:
    """Create the strategy named ``requested``; a ``None`` strategy means "no scope".

    ``cpu`` and ``gpu`` are what a plain notebook runs: Keras with no strategy scope, on the CPU (GPUs
    hidden) or with a visible GPU. ``cpu_onedevice``/``gpu_onedevice`` are ``OneDeviceStrategy``
    wrappers around the same device (they cost time: the report shows how much). Raises
    StrategyUnavailable when the hardware is absent.
    """
    name = requested
    if requested == "auto":  # the tutorials' fallback: TPU if present, else tf.distribute.get_strategy()
        if looks_like_tpu_vm() or tpu or os.environ.get("TPU_NAME"):
            try:
                strategy, extra = _make_tpu(tpu, tpu_connect_timeout_s)
                return _scoped(strategy, StrategyInfo(requested, "tpu", "TPUStrategy", strategy.num_replicas_in_sync,
                                                      extra.pop("devices"), "tpu", extra))
            except StrategyUnavailable:
                pass
        name = "gpu" if _gpus() else "cpu"

    n = logical_cpus(name)
    if n:
        hide_gpus()
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * n)
        devices = [d.name for d in tf.config.list_logical_devices("CPU")]
        strategy, ops = _mirrored(devices, all_reduce, "hierarchical_copy")
        return _scoped(strategy, StrategyInfo(requested, name, "MirroredStrategy", n, devices, "cpu",
                                              {"cross_device_ops": ops}))
    if name in ("cpu", "cpu_onedevice"):
        hide_gpus()
        if name == "cpu":
            return None, StrategyInfo(requested, "cpu", NO_SCOPE_CLASS, 1, ["/cpu:0"], "cpu", {"scope": False})
        return _scoped(tf.distribute.OneDeviceStrategy("/cpu:0"),
                       StrategyInfo(requested, name, "OneDeviceStrategy", 1, ["/cpu:0"], "cpu"))
    if name in ("gpu", "gpus", "gpu_onedevice"):
        gpus = _gpus()
        if not gpus:
            raise StrategyUnavailable("no GPU visible to TensorFlow (tf.config.list_physical_devices('GPU') == [])")
        if name == "gpu":
            return None, StrategyInfo(requested, "gpu", NO_SCOPE_CLASS, 1, ["/gpu:0"], "gpu", {"scope": False})
        if name == "gpu_onedevice":
            return _scoped(tf.distribute.OneDeviceStrategy("/gpu:0"),
                           StrategyInfo(requested, name, "OneDeviceStrategy", 1, ["/gpu:0"], "gpu"))
        devices = [f"/gpu:{i}" for i in range(len(gpus))]
        strategy, ops = _mirrored(devices, all_reduce, "nccl")
        return _scoped(strategy, StrategyInfo(requested, "gpus", "MirroredStrategy", len(devices), devices, "gpu",
                                              {"cross_device_ops": ops}))
    if name == "tpu":
        strategy, extra = _make_tpu(tpu, tpu_connect_timeout_s)
        return _scoped(strategy, StrategyInfo(requested, "tpu", "TPUStrategy", strategy.num_replicas_in_sync,
                                              extra.pop("devices"), "tpu", extra))
    if name == "default":  # no scope, on whatever device TensorFlow picks (a GPU when one is visible)
        kind = "gpu" if _gpus() else "cpu"
        return None, StrategyInfo(requested, "default", NO_SCOPE_CLASS, 1, [f"/{kind}:0"], kind, {"scope": False})
    raise ValueError(f"unknown strategy {requested!r}")
