"""The JAX engine's input pipelines: bench's NumPy pipelines (:mod:`bench.engines.host_pipelines`), each process of
a multi-process point making its own rows of every global batch."""

from __future__ import annotations

from typing import Any

from bench.data.sources import Encoded
from bench.data.synthetic import Arrays
from bench.engines.host_pipelines import Batches, Pipelines
from bench.engines.host_pipelines import make_pipelines as host_pipelines
from bench.workloads import Workload

__all__ = ["Batches", "Pipelines", "make_pipelines"]


def make_pipelines(workload: Workload, arrays: Arrays | Encoded, global_batch_size: int, seed: int,
                   slow_decode: bool = False, epochs: int = 1, cached: bool = False, autotune: bool = False) -> Any:
    """:func:`bench.engines.host_pipelines.make_pipelines` with this process's share of each batch (JAX's process
    index and count)."""
    import jax

    return host_pipelines(workload, arrays, global_batch_size, seed, slow_decode, epochs, cached, autotune,
                          part=(jax.process_index(), jax.process_count()))
