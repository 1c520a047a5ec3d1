"""The device memory a JAX point's model needs, from XLA's memory analysis of the compiled training step (JAX cannot
reset its allocator's peak, so the process peak includes what ran before the point), and XLA's cost analysis of the
same executable (FLOPs and bytes accessed: the compiler's count, every layer included). One device's share. The
fields: docs/records.md, *Fields* (memory, compute).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np


def _jitted(fn: Any, seen: set[int] | None = None) -> Any:
    """The ``jax.jit`` function inside Keras' ``train_function`` (it wraps the jitted step in a Python loop over
    ``steps_per_execution`` batches), or None where the model runs eagerly."""
    seen = set() if seen is None else seen
    if id(fn) in seen:
        return None
    seen.add(id(fn))
    if hasattr(fn, "lower") and hasattr(fn, "trace"):
        return fn
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            inner = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if callable(inner) and (found := _jitted(inner, seen)) is not None:
            return found
    return None


def step_memory(model: Any, batch: Any, global_batch_size: int) -> dict[str, float] | None:
    """XLA's memory analysis of the training step ``model`` compiled (bytes on one device): ``step_argument_bytes``,
    ``step_output_bytes``, ``step_alias_bytes`` (outputs written into donated arguments), ``step_temp_bytes`` and
    ``step_bytes`` = arguments + outputs - aliased + temporaries, what one step needs on the device at once; and
    XLA's cost analysis of the same executable, ``step_flops`` and ``step_bytes_accessed`` (one device's program).
    ``batch`` is one (x, y, ...) batch of the point's data, its first axis read as ``global_batch_size`` rows.
    None where there is no compiled step (``run_eagerly``, or a model ``fit`` never compiled)."""
    import keras

    step = _jitted(getattr(model, "train_function", None))
    if step is None:
        return None
    state = model._get_jax_state(trainable_variables=True, non_trainable_variables=True, optimizer_variables=True,
                                 metrics_variables=True)
    distribution = keras.distribution.distribution()

    def variable(a: Any) -> jax.ShapeDtypeStruct:
        return jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=a.sharding if distribution is not None else None)

    def data(a: Any) -> jax.ShapeDtypeStruct:
        shape = (global_batch_size, *np.shape(a)[1:])
        sharding = distribution.get_data_layout(shape).backend_layout if distribution is not None else None
        return jax.ShapeDtypeStruct(shape, jax.dtypes.canonicalize_dtype(np.asarray(a).dtype), sharding=sharding)

    compiled = step.lower(jax.tree.map(variable, state), jax.tree.map(data, tuple(batch))).compile()
    m = compiled.memory_analysis()
    if m is None:
        return None
    cost = compiled.cost_analysis()
    cost = (cost[0] if cost else {}) if isinstance(cost, list) else cost or {}  # one dict per program in older JAX
    counted = {k: float(cost[c]) for k, c in (("step_flops", "flops"), ("step_bytes_accessed", "bytes accessed"))
               if c in cost and float(cost[c]) > 0}
    out = {"step_argument_bytes": int(m.argument_size_in_bytes), "step_output_bytes": int(m.output_size_in_bytes),
           "step_alias_bytes": int(m.alias_size_in_bytes), "step_temp_bytes": int(m.temp_size_in_bytes)}
    out["step_bytes"] = (out["step_argument_bytes"] + out["step_output_bytes"] - out["step_alias_bytes"]
                         + out["step_temp_bytes"])
    return {**out, **counted}
