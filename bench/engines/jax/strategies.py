"""Strategy names -> a Keras distribution over JAX devices: the JAX engine's view of the hardware.

The same names as under TensorFlow: ``cpu`` = one CPU device, no distribution; ``cpu_xN`` =
``DataParallel`` over N host devices (the launcher set ``--xla_force_host_platform_device_count=N`` before
JAX started); ``gpu`` = one GPU, no distribution; ``gpus`` = ``DataParallel`` over every GPU; ``tpu`` =
``DataParallel`` over every TPU device (one device: no distribution); ``auto`` = tpu, else gpu, else cpu.
The ``*_onedevice`` wrappers and ``default`` are tf.distribute ideas and are refused before a run starts.
"""

from __future__ import annotations

from typing import Any

import jax
import keras

from bench.config import logical_cpus
from bench.engines import StrategyInfo, StrategyUnavailable

NO_DISTRIBUTION = "none (one device)"


def _devices(kind: str) -> list[Any]:
    """JAX's devices of ``kind`` ('cpu' | 'gpu' | 'tpu'); [] when that platform is absent."""
    try:
        return list(jax.devices(kind))
    except RuntimeError:  # "Unknown backend" / "no devices of that platform"
        return []


def _absent(kind: str) -> StrategyUnavailable:
    try:
        jax.devices(kind)
        reason = "no such devices"
    except RuntimeError as e:
        reason = str(e).strip().splitlines()[0]
    return StrategyUnavailable(f"no {kind.upper()} visible to JAX (jax.devices({kind!r}): {reason}; "
                               f"jax.devices() = {[str(d) for d in jax.devices()]})")


def _over(requested: str, name: str, kind: str, devices: list[Any]) -> tuple[Any, StrategyInfo]:
    """DataParallel over ``devices`` (several), or no distribution (one)."""
    names = [f"{kind}:{i}" for i in range(len(devices))]
    if len(devices) == 1:
        return None, StrategyInfo(requested, name, NO_DISTRIBUTION, 1, names, kind, {"scope": False})
    distribution = keras.distribution.DataParallel(devices=names)
    keras.distribution.set_distribution(distribution)  # fit shards its batches through the global distribution
    return distribution, StrategyInfo(requested, name, "DataParallel", len(devices), names, kind)


def make_strategy(requested: str, all_reduce: str = "auto", tpu: str = "",
                  tpu_connect_timeout_s: float = 60.0) -> tuple[Any, StrategyInfo]:
    """The Keras distribution named ``requested`` (None: one device, no distribution) and what it resolved to.

    ``all_reduce``, ``tpu`` and ``tpu_connect_timeout_s`` are tf.distribute settings; XLA chooses the JAX
    collectives and a TPU VM's devices are local. Raises StrategyUnavailable when the hardware is absent.
    """
    name = requested
    if requested == "auto":
        name = "tpu" if _devices("tpu") else "gpu" if _devices("gpu") else "cpu"
    n = logical_cpus(name)
    if n:
        cpus = _devices("cpu")
        if len(cpus) < n:
            raise StrategyUnavailable(f"JAX sees {len(cpus)} CPU device(s), not {n}: XLA_FLAGS must hold "
                                      f"--xla_force_host_platform_device_count={n} before JAX starts")
        return _over(requested, name, "cpu", cpus[:n])
    if name == "cpu":
        return _over(requested, "cpu", "cpu", _devices("cpu")[:1])
    if name in ("gpu", "gpus", "tpu"):
        kind = name.rstrip("s")
        devices = _devices(kind)
        if not devices:
            raise _absent(kind)
        return _over(requested, name, kind, devices[:1] if name == "gpu" else devices)
    raise ValueError(f"strategy {requested!r} has no meaning under the JAX backend")
