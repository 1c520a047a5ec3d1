"""Static proof that every engine module satisfies :class:`bench.engines.Engine`, for the type checker (``tox -e
type``): plain imports, since mypy checks a module against a protocol on a direct assignment only. Nothing imports
this module at run time (it would import every framework); ``tests/test_engine_contract.py`` checks at run time.
"""

from __future__ import annotations

from bench.engines import Engine
from bench.engines import jax as jax_engine
from bench.engines import tensorflow as tensorflow_engine
from bench.engines import torch as torch_engine

TENSORFLOW: Engine = tensorflow_engine
JAX: Engine = jax_engine
TORCH: Engine = torch_engine
