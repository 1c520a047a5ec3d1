"""Static proof that both engine modules satisfy :class:`bench.engines.Engine`, for the type checker.

``tox -e type`` fails when an engine's function is missing or its signature drifts from the contract (mypy
compares a module with a protocol on a direct assignment; inside ``if TYPE_CHECKING:`` it does not, so the
imports are plain). Nothing imports this module at run time: importing it would import both frameworks.
``tests/test_engine_contract.py`` checks the same at run time.
"""

from __future__ import annotations

from bench.engines import Engine
from bench.engines import jax as jax_engine
from bench.engines import tensorflow as tensorflow_engine

TENSORFLOW: Engine = tensorflow_engine
JAX: Engine = jax_engine
