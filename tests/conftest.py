"""Shared fixtures and hardware markers: ``gpu``/``tpu`` tests skip themselves without the device."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def _hermetic_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Generated datasets go to a session folder unless the caller chose one (tox does)."""
    if "BENCH_CACHE_DIR" not in os.environ:
        os.environ["BENCH_CACHE_DIR"] = str(tmp_path_factory.mktemp("bench-cache"))
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def run_bench(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 600):
    """Run ``python -m bench ARGS`` in a subprocess (returns CompletedProcess with text output)."""
    import subprocess

    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-m", "bench", *args], capture_output=True, text=True,
                          cwd=cwd or REPO, env=full_env, timeout=timeout)


def _has_gpu() -> bool:
    import tensorflow as tf

    return bool(tf.config.list_physical_devices("GPU"))


def _has_tpu() -> bool:
    from bench.engines.tensorflow.strategies import looks_like_tpu_vm

    return looks_like_tpu_vm() or bool(os.environ.get("TPU_NAME"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    checks = {"gpu": _has_gpu, "tpu": _has_tpu}
    found: dict[str, bool] = {}
    for item in items:
        for name, check in checks.items():
            if item.get_closest_marker(name):
                if name not in found:
                    found[name] = check()
                if not found[name]:
                    item.add_marker(pytest.mark.skip(reason=f"needs a {name.upper()} (hardware run)"))
