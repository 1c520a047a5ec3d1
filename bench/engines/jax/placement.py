"""What runs where under JAX: the distribution put in force before every point (:func:`activate`: Keras'
``clear_session`` drops it), the placement a point's train step will see (:func:`placement`, read through the
function ``fit`` uses) checked against its strategy's promise before anything is timed, and :func:`lost`, asked
again at ``fit``'s start and each epoch's. Docs: docs/strategies.md.
"""

from __future__ import annotations

from typing import Any

import keras
import numpy as np

from bench.engines import PlacementError, StrategyInfo


def activate(strategy: Any) -> None:
    """Put the worker's distribution in force for the next point (``None``: one device, nothing to set)."""
    if strategy is not None:
        keras.distribution.set_distribution(strategy)


def lost(strategy: Any) -> str | None:
    """Why the distribution Keras reads now is not the worker's (None when it is)."""
    current = keras.distribution.distribution()
    if current is strategy:
        return None
    return (f"the Keras distribution in force is {type(current).__name__ if current else 'none'}, not the worker's "
            f"{type(strategy).__name__ if strategy is not None else 'none'}: the train step would not run as planned")


def _name(device: Any) -> str:
    return f"{device.platform}:{device.id}"


def _layout(array: Any) -> tuple[list[str], list[int], bool]:
    """Devices an array lives on (sorted names), the rows each addressable shard holds, fully replicated?"""
    sharding = array.sharding
    devices = sorted(_name(d) for d in sharding.device_set)
    rows = [int(s.data.shape[0]) if s.data.ndim else 1 for s in array.addressable_shards]
    return devices, rows, bool(sharding.is_fully_replicated)


def _batch(strategy: Any, batch: tuple[Any, Any]) -> Any:
    """The batch's inputs as ``fit`` places them: Keras' own ``_distribute_data`` under the distribution now in
    force (``jax.device_put`` on the default device without one)."""
    from keras.src.backend.jax.trainer import _distribute_data

    return _distribute_data((np.asarray(batch[0]), np.asarray(batch[1])))[0]


def placement(model: Any, strategy: Any, info: StrategyInfo, batch: tuple[Any, Any] | None) -> dict[str, Any]:
    """How the point's model and a batch are laid out on the devices, as JAX reports it (the record's
    ``placement``); PlacementError when it is not what the strategy promises: data parallelism over
    ``info.devices`` shards every batch along its first axis over all of them (``gb / N`` rows each) and replicates
    every variable on all of them; one device holds both whole."""
    why = lost(strategy)
    if why:
        raise PlacementError(why)
    expected = sorted(info.devices)
    n = len(expected)
    found: dict[str, Any] = {}
    if strategy is not None:
        mesh = strategy.device_mesh
        found["mesh"] = ", ".join(f"{a}: {s}" for a, s in zip(mesh.axis_names, mesh.shape, strict=True))
    else:
        found["mesh"] = NO_MESH
    problems = []
    variables = [v.value for v in model.variables]
    on = {tuple(_layout(v)[0]) for v in variables}
    if variables and on != {tuple(expected)}:
        problems.append(f"variables on {sorted(on)}, expected {expected}")
    replicated = all(_layout(v)[2] for v in variables)
    if n == 1:
        found["variables"] = f"{len(variables)} on {expected[0]}"
    else:
        found["variables"] = (f"{len(variables)} replicated on {n} devices" if replicated
                              else f"{len(variables)} not all replicated")
    if not replicated and n > 1:
        problems.append("some variables are not replicated")
    if batch is not None:
        x = _batch(strategy, batch)
        devices, rows, whole = _layout(x)
        global_rows = int(x.shape[0])
        if n == 1:
            found["batch"] = f"{global_rows} rows on {devices[0]}"
            if devices != expected:
                problems.append(f"batch on {devices}, expected {expected}")
        else:
            found["batch"] = (f"{global_rows} rows replicated on {len(devices)} devices" if whole else
                              f"{global_rows} rows sharded over {len(devices)} devices, {rows[0]} each")
            if whole or devices != expected or any(r * n != global_rows for r in rows):
                problems.append(f"batch: {found['batch']}, expected {global_rows // n} rows on each of {expected}")
    if problems:
        raise PlacementError(f"placement is not what {info.name} promises ({'; '.join(problems)})")
    return found


NO_MESH = "none (one device)"


def compiler(model: Any, info: StrategyInfo) -> str:
    """The compiler of the train step, from the compiled model: XLA through ``jax.jit`` (bench always compiles
    with ``jit_compile=True`` under JAX, Keras' choice too), or none when Keras runs the step eagerly."""
    if getattr(model, "run_eagerly", False) or not model.jit_compile:
        return "none (eager)"
    return "XLA (jax.jit)"
