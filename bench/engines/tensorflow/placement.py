"""What runs where under TensorFlow: the replicas a point's strategy splits each batch over and the devices its
variables live on, read back from TensorFlow and checked against what the strategy promises before anything is
timed; and the compiler that really runs the train step."""

from __future__ import annotations

import re
from typing import Any

import tensorflow as tf

from bench.engines import PlacementError, StrategyInfo


def activate(strategy: Any) -> None:
    """Nothing to put in force: a tf.distribute strategy is an object the model holds (its scope is entered around
    build and compile), not global state that ``clear_session`` could drop."""


def lost(strategy: Any) -> str | None:
    """None: a TensorFlow strategy cannot be lost between points (see :func:`activate`)."""
    return None


def _kind(device: str) -> str:
    """``cpu`` / ``gpu`` / ``tpu`` of a TensorFlow device string (``/job:…/device:CPU:0``, ``/cpu:0``)."""
    found = re.findall(r"(cpu|gpu|tpu)(?=:\d+$)", device.lower())
    return found[-1] if found else "?"


def _devices(variable: Any) -> list[str]:
    """The devices holding a Keras variable's TensorFlow value (each component of a mirrored one)."""
    value = getattr(variable, "value", variable)
    components = getattr(value, "values", None)
    return sorted(str(c.device) for c in components) if components else [str(value.device)]


def _per_replica_rows(strategy: Any, batch: tuple[Any, Any]) -> list[int]:
    """Rows each replica gets of one global batch, split the way ``fit`` splits it
    (``experimental_distribute_dataset``)."""
    ds = tf.data.Dataset.from_tensors((batch[0], batch[1]))
    x, _ = next(iter(strategy.experimental_distribute_dataset(ds)))
    parts = strategy.experimental_local_results(x)
    return [int(p.shape[0]) for p in parts]


def placement(model: Any, strategy: Any, info: StrategyInfo, batch: tuple[Any, Any] | None) -> dict[str, Any]:
    """Replicas, batch split and variable devices as TensorFlow reports them (the record's ``placement``);
    PlacementError when they are not what the strategy promises (``info.num_replicas`` replicas, each variable on
    one device of ``info.device_kind`` per replica, each batch split into equal per-replica parts)."""
    n = info.num_replicas
    replicas = strategy.num_replicas_in_sync if strategy is not None else 1
    found: dict[str, Any] = {"mesh": f"{type(strategy).__name__}: {replicas} replica(s)" if strategy is not None
                             else "none (no strategy scope)"}
    problems = [f"{replicas} replicas in sync, expected {n}"] if replicas != n else []
    held = [_devices(v) for v in model.variables]
    counts = sorted({len(d) for d in held})
    kinds = sorted({_kind(d) for ds in held for d in ds})
    found["variables"] = (f"{len(held)} on {counts[0] if len(counts) == 1 else counts} {'/'.join(kinds)} "
                          f"device(s) each") if held else "none"
    if held and (counts != [n] or kinds != [info.device_kind]):
        problems.append(f"variables held on {counts} device(s) of kind {kinds}, expected {n} {info.device_kind}")
    if batch is not None and strategy is not None:
        rows = _per_replica_rows(strategy, batch)
        total = sum(rows)
        found["batch"] = f"{total} rows split over {len(rows)} replica(s), {rows[0]} each"
        if len(rows) != n or len(set(rows)) != 1:
            problems.append(f"batch split into {rows}, expected {n} equal parts")
    elif batch is not None:
        found["batch"] = f"{len(batch[1])} rows, whole (no strategy splits it)"
    if problems:
        raise PlacementError(f"placement is not what {info.name} promises ({'; '.join(problems)})")
    return found


def compiler(model: Any, info: StrategyInfo) -> str:
    """The compiler of the train step, from the compiled model: TPUStrategy compiles every step with XLA; else XLA
    when the model's ``jit_compile`` resolved to True, TensorFlow's graph executor (``tf.function``) otherwise."""
    if info.device_kind == "tpu":
        return "XLA (TPUStrategy compiles every step)"
    if getattr(model, "run_eagerly", False):
        return "none (eager)"
    return "XLA (tf.function, jit_compile=True)" if model.jit_compile else "TensorFlow graph (tf.function, no XLA)"
