"""Workload factories defined in a notebook, reaching the worker processes by value: :func:`bench.notebook.run` pickles
such a factory with cloudpickle into ``$BENCH_CACHE_DIR/workloads/<sha256>.pkl`` and names it
``bench.workloads.pickled:<name>__w<sha256>``; resolving that path (like any user workload's) loads the pickle here.
The file stays in the cache, so ``resume`` works. Usage: docs/your-model-and-data.md, *From a notebook*.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.workloads.base import PICKLED_SEP as SEP

PREFIX = "w"


def folder() -> Path:
    """``$BENCH_CACHE_DIR/workloads`` (default ``~/.cache/bench/workloads``)."""
    return Path(os.environ.get("BENCH_CACHE_DIR") or Path.home() / ".cache" / "bench") / "workloads"


def store(factory: Callable[[], Any], name: str | None = None) -> str:
    """Pickle ``factory`` by value; returns its import path ``bench.workloads.pickled:<name>__w<sha256>``,
    ``name`` the factory's ``__name__`` unless given (made an identifier: ``<lambda>`` -> ``lambda``)."""
    import cloudpickle

    blob = cloudpickle.dumps(factory)
    digest = hashlib.sha256(blob).hexdigest()
    path = folder() / f"{digest}.pkl"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(blob)
        os.replace(tmp, path)
    label = re.sub(r"\W+", "_", name or getattr(factory, "__name__", "") or "workload").strip("_") or "workload"
    return f"{__name__}:{label}{SEP}{digest}"


def __getattr__(name: str) -> Any:
    """``<name>__w<sha256>`` (or the older ``w<sha256>``): the factory pickled under that hash (module
    attributes resolve to pickles)."""
    digest = name.rpartition(SEP)[2] if SEP in name else name.removeprefix(PREFIX)
    path = folder() / f"{digest}.pkl"
    if not (SEP in name or name.startswith(PREFIX)) or not path.is_file():
        raise AttributeError(f"no pickled workload {name!r} in {folder()} (a notebook workload is kept there; "
                             "run it from its notebook again)")
    import cloudpickle

    return cloudpickle.loads(path.read_bytes())
