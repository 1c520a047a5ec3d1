"""Findings about the frameworks that bench's comparisons depend on, each reproduced so that it is noticed the
day it changes (docs/findings.md). Each runs in a fresh interpreter per backend."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

ADAM_ON_REPEATED_TOKEN = """
import numpy as np, keras
m = keras.Sequential([keras.Input((2,), dtype="int32"), keras.layers.Embedding(5, 1), keras.layers.Flatten(),
                      keras.layers.Dense(1, use_bias=False)])
m.compile(keras.optimizers.Adam(0.1), "mse")
m(np.array([[1, 1]]))
m.set_weights([np.zeros((5, 1), "float32"), np.ones((2, 1), "float32")])
m.train_on_batch(np.array([[1, 1]]), np.array([1.0]))  # token 1 twice in one example
print(float(m.layers[0].get_weights()[0][1, 0]))
"""


def _first_adam_step(backend: str) -> float:
    env = {**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "3", "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run([sys.executable, "-c", ADAM_ON_REPEATED_TOKEN], capture_output=True, text=True, env=env,
                          timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return float(proc.stdout.split()[-1])


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs JAX (pip install 'bench[jax]')")
def test_jax_takes_adams_first_step_on_the_summed_embedding_gradient() -> None:
    assert _first_adam_step("jax") == pytest.approx(0.1, abs=1e-4)  # lr x g / |g|


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs PyTorch (pip install 'bench[torch]')")
def test_torch_takes_adams_first_step_on_the_summed_embedding_gradient() -> None:
    """Keras 3.15.1 on PyTorch 2.13 (a dense gradient for the Embedding): the step JAX takes."""
    assert _first_adam_step("torch") == pytest.approx(0.1, abs=1e-4)


def test_tensorflow_steps_sqrt_2_times_too_far_on_a_repeated_embedding_id() -> None:
    """Keras 3.15.1 on TensorFlow 2.21 (the Embedding's gradient is IndexedSlices): 0.1414, not 0.1. When this
    fails, Keras has changed: update docs/findings.md and the parity tests' loss tolerance (test_e2e.py)."""
    assert _first_adam_step("tensorflow") == pytest.approx(0.1 * 2**0.5, abs=1e-4)
