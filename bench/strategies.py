"""Strategy names -> ``tf.distribute`` strategies. The only module that knows about hardware.

Call :func:`make_strategy` once, first thing in a worker process, before any other TensorFlow op:
logical CPU devices and TPU initialisation must happen before the runtime starts, and a process can
hold only one strategy configuration (tf-keras-facts.md §3.5).

Absent hardware raises :class:`StrategyUnavailable` with the exact reason; the worker turns it into
``skipped`` records and the run goes on.
"""

from __future__ import annotations

import glob
import os
import re
import threading
from dataclasses import dataclass, field
from typing import Any

import tensorflow as tf


class StrategyUnavailable(RuntimeError):
    """The hardware a strategy needs is not here; ``str(e)`` is the reason recorded as ``skipped``."""


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
        return {"requested": self.requested, "name": self.name, "class": self.cls,
                "num_replicas": self.num_replicas, "devices": self.devices,
                "device_kind": self.device_kind, **self.extra}


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


def looks_like_tpu_vm() -> bool:
    """A hint, not proof: TPU VMs expose /dev/accel* (v2-v4) or /dev/vfio/N (v5e+), or set TPU env vars."""
    return bool(glob.glob("/dev/accel*") or glob.glob("/dev/vfio/[0-9]*")
                or os.environ.get("TPU_ACCELERATOR_TYPE") or os.environ.get("ISTPUVM"))


def tpu_target(tpu: str) -> str:
    """What to hand TPUClusterResolver: the configured address, the env's TPU name, or 'local'.

    ``tpu='local'`` is right on TPU VMs (Colab, Kaggle, Cloud); an env ``TPU_NAME`` must be resolved by
    TPUClusterResolver itself (passing it as 'local' is wrong, tf-keras-facts.md §1.1).
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
        # A grpc:// address that nobody answers blocks forever (tf-keras-facts.md §1.2): give it a limit.
        errors: list[BaseException] = []
        t = threading.Thread(target=lambda: _connect(resolver, errors), daemon=True)
        t.start()
        t.join(connect_timeout_s)
        if t.is_alive():
            raise StrategyUnavailable(
                f"connecting to TPU {target} did not finish within tpu_connect_timeout_s={connect_timeout_s:g}")
        if errors:
            e = errors[0]
            raise StrategyUnavailable(f"connecting to TPU {target} failed: {type(e).__name__}: {e}") from e
    else:
        tf.config.experimental_connect_to_cluster(resolver)  # a no-op for tpu='local'
    try:
        tf.tpu.experimental.initialize_tpu_system(resolver)
        strategy = tf.distribute.TPUStrategy(resolver)
    except (tf.errors.OpError, IndexError, RuntimeError, ValueError) as e:
        hint = ""
        if "ConfigureDistributedTPU" in str(e):
            hint = (" (this TensorFlow build has no TPU kernels: on a TPU VM install tensorflow-tpu, "
                    "see README 'Running on a TPU')")
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


def make_strategy(requested: str, all_reduce: str = "auto", tpu: str = "",
                  tpu_connect_timeout_s: float = 60.0) -> tuple[tf.distribute.Strategy | None, StrategyInfo]:
    """Create the strategy named ``requested``; ``None`` strategy means "no scope" (``default``).

    Raises StrategyUnavailable when the hardware is absent.
    """
    name = requested
    if requested == "auto":  # the seeds' fallback: TPU if present, else GPU(s), else CPU
        if looks_like_tpu_vm() or tpu or os.environ.get("TPU_NAME"):
            try:
                strategy, extra = _make_tpu(tpu, tpu_connect_timeout_s)
                return strategy, StrategyInfo(requested, "tpu", "TPUStrategy", strategy.num_replicas_in_sync,
                                              extra.pop("devices"), "tpu", extra)
            except StrategyUnavailable:
                pass
        gpus = _gpus()
        name = "gpus" if len(gpus) > 1 else "gpu" if gpus else "cpu"

    m = re.fullmatch(r"cpu_x(\d+)", name)
    if m:
        n = int(m.group(1))
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * n)
        devices = [d.name for d in tf.config.list_logical_devices("CPU")]
        strategy, ops = _mirrored(devices, all_reduce, "hierarchical_copy")
        return strategy, StrategyInfo(requested, name, "MirroredStrategy", n, devices, "cpu",
                                      {"cross_device_ops": ops})
    if name == "cpu":
        return (tf.distribute.OneDeviceStrategy("/cpu:0"),
                StrategyInfo(requested, "cpu", "OneDeviceStrategy", 1, ["/cpu:0"], "cpu"))
    if name in ("gpu", "gpus"):
        gpus = _gpus()
        if not gpus:
            raise StrategyUnavailable("no GPU visible to TensorFlow (tf.config.list_physical_devices('GPU') == [])")
        if name == "gpu":
            return (tf.distribute.OneDeviceStrategy("/gpu:0"),
                    StrategyInfo(requested, "gpu", "OneDeviceStrategy", 1, ["/gpu:0"], "gpu"))
        devices = [f"/gpu:{i}" for i in range(len(gpus))]
        strategy, ops = _mirrored(devices, all_reduce, "nccl")
        return strategy, StrategyInfo(requested, "gpus", "MirroredStrategy", len(devices), devices, "gpu",
                                      {"cross_device_ops": ops})
    if name == "tpu":
        strategy, extra = _make_tpu(tpu, tpu_connect_timeout_s)
        return strategy, StrategyInfo(requested, "tpu", "TPUStrategy", strategy.num_replicas_in_sync,
                                      extra.pop("devices"), "tpu", extra)
    if name == "default":
        strategy = tf.distribute.get_strategy()
        kind = "gpu" if _gpus() else "cpu"
        return None, StrategyInfo(requested, "default", type(strategy).__name__, 1,
                                  [f"/{kind}:0"], kind)
    raise ValueError(f"unknown strategy {requested!r}")
