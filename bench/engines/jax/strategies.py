"""Strategy names -> a Keras distribution over JAX devices: the JAX engine's view of the hardware (the names and what
each runs: docs/strategies.md, *Backends*). A multi-process point first joins its processes through JAX's coordinator
(``jax.distributed.initialize``, before anything starts JAX's backend), then runs ``DataParallel`` over every
process's devices, each feeding its own rows of every global batch (docs/scale.md).
"""

from __future__ import annotations

import os
from typing import Any

import jax
import keras

from bench.config import logical_cpus
from bench.engines import JOB_ADDRESSES, NUM_PROCESSES, PROCESS_ID, StrategyInfo, StrategyUnavailable

NO_DISTRIBUTION = "none (one device)"
JOIN_TIMEOUT_S = 60  # seconds a process waits for the others to reach the coordinator (JAX's default: 300)


def join_processes() -> dict[str, Any]:
    """Join the point's cooperating processes (nothing in a single-process worker); what the record's strategy
    says about them. The coordinator binds to the address the processes were given (loopback when bench starts
    them on one machine), not to every interface."""
    n = int(os.environ.get(NUM_PROCESSES, "1") or 1)
    if n == 1:
        return {}
    address, index = os.environ[JOB_ADDRESSES].split(",")[0], int(os.environ[PROCESS_ID])
    jax.distributed.initialize(coordinator_address=address, num_processes=n, process_id=index,
                               coordinator_bind_address=address, initialization_timeout=JOIN_TIMEOUT_S)
    local = [f"{d.platform}:{d.id}" for d in jax.local_devices()]
    return {"processes": n, "process_id": index, "coordinator": address, "local_devices": local}


def _devices(kind: str) -> list[Any]:
    """JAX's devices of ``kind`` ('cpu' | 'gpu' | 'tpu'); [] when that platform is absent."""
    try:
        return list(jax.devices(kind))
    except RuntimeError:  # "Unknown backend" / "no devices of that platform"
        return []


PLATFORMS = {"gpu": ("cuda", "rocm"), "tpu": ("tpu",)}  # JAX's platforms of each device kind


def init_errors(kind: str) -> dict[str, str]:
    """The errors JAX's plugins raised while initialising ``kind``'s platforms (JAX keeps them in
    ``xla_bridge._backend_errors`` and says only "Unknown backend" when asked for the devices afterwards)."""
    from jax._src import xla_bridge

    errors = getattr(xla_bridge, "_backend_errors", None) or {}
    return {p: str(errors[p]) for p in PLATFORMS.get(kind, ()) if p in errors}


def _visible() -> list[str]:
    """Every device JAX shows, for a message (empty when JAX cannot start any backend)."""
    try:
        return [str(d) for d in jax.devices()]
    except RuntimeError:
        return []


def _absent(kind: str) -> StrategyUnavailable:
    """Why ``kind`` has no devices: the plugin's own initialisation error when one failed (a CUDA plugin that does
    not match the driver, a TPU held by another process), else what ``jax.devices(kind)`` says."""
    failed = init_errors(kind)
    if failed:
        shown = "; ".join(f"{p}: {err.strip()}" for p, err in failed.items())
        return StrategyUnavailable(f"JAX's {kind.upper()} backend failed to initialise ({shown}); "
                                   f"jax.devices() = {_visible()}")
    try:
        jax.devices(kind)
        reason = "no such devices"
    except RuntimeError as e:
        reason = str(e).strip().splitlines()[0]
    return StrategyUnavailable(f"no {kind.upper()} visible to JAX (jax.devices({kind!r}): {reason}; "
                               f"jax.devices() = {_visible()})")


def _over(requested: str, name: str, kind: str, devices: list[Any],
          joined: dict[str, Any] | None = None) -> tuple[Any, StrategyInfo]:
    """DataParallel over ``devices`` (several; of every joined process), or no distribution (one)."""
    names = [f"{kind}:{d.id}" for d in devices]
    if len(devices) == 1:
        return None, StrategyInfo(requested, name, NO_DISTRIBUTION, 1, names, kind, {"scope": False})
    # several processes: each feeds its own rows of a global batch (the engine's pipelines), nothing to re-shard
    distribution = keras.distribution.DataParallel(devices=names, auto_shard_dataset=not joined)
    keras.distribution.set_distribution(distribution)  # fit shards its batches through the global distribution
    return distribution, StrategyInfo(requested, name, "DataParallel", len(devices), names, kind, dict(joined or {}))


def make_strategy(requested: str, all_reduce: str = "auto", tpu: str = "",
                  tpu_connect_timeout_s: float = 60.0) -> tuple[Any, StrategyInfo]:
    """The Keras distribution named ``requested`` (None: one device, no distribution) and what it resolved to.

    ``all_reduce``, ``tpu`` and ``tpu_connect_timeout_s`` are tf.distribute settings; XLA chooses the JAX
    collectives and a TPU VM's devices are local. Raises StrategyUnavailable when the hardware is absent.
    """
    joined = join_processes()  # first: JAX's backend must not start before the processes have joined
    name = requested
    if requested == "auto":
        name = "tpu" if _devices("tpu") else "gpu" if _devices("gpu") else "cpu"
    n = logical_cpus(name)
    if n:
        cpus = _devices("cpu")
        if len(cpus) < n:
            raise StrategyUnavailable(f"JAX sees {len(cpus)} CPU device(s), not {n}: XLA_FLAGS must hold "
                                      f"--xla_force_host_platform_device_count={n} before JAX starts")
        return _over(requested, name, "cpu", cpus[:n], joined)
    if name == "cpu":
        return _over(requested, "cpu", "cpu", _devices("cpu")[:1])
    if name in ("gpu", "gpus", "tpu"):
        kind = name.rstrip("s")
        devices = _devices(kind)
        if not devices:
            raise _absent(kind)
        return _over(requested, name, kind, devices[:1] if name == "gpu" else devices, joined)
    raise ValueError(f"strategy {requested!r} has no meaning under the JAX backend")
