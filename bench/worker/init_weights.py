"""One set of initial weights per (workload, seed) in a run, shared by every backend and strategy (Keras draws them
from each backend's own generator): the first worker saves them as ``init/<workload>-s<seed>.npz`` (atomically) and
every worker loads them; each record keeps the file's SHA-256 (``initial_weights``). NumPy only.
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

INIT_DIR = "init"


def weights_path(run_dir: Path, workload: str, seed: int) -> Path:
    """Where a run keeps the initial weights of ``workload`` at ``seed``."""
    return run_dir / INIT_DIR / f"{workload}-s{seed}.npz"


def _save(path: Path, weights: list[np.ndarray]) -> None:
    buf = io.BytesIO()
    np.savez(buf, *weights)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(buf.getvalue())
        if path.exists():  # another worker was first: its weights win
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def apply_shared_weights(model: Any, run_dir: Path, workload: str, seed: int) -> dict[str, Any]:
    """Give ``model`` the run's initial weights for (``workload``, ``seed``), saving its own first if there are
    none yet; returns the record's ``initial_weights`` object (``sha256`` of the file, ``path`` relative
    to the run folder, and whether this point ``created`` the file: its backend drew them).

    ValueError when the saved weights do not fit the model (a different architecture under the same name).
    """
    path = weights_path(run_dir, workload, seed)
    own = [np.asarray(w) for w in model.get_weights()]
    created = not path.exists()
    if created:
        _save(path, own)
    data = path.read_bytes()
    with np.load(io.BytesIO(data)) as npz:
        weights = [npz[f"arr_{i}"] for i in range(len(npz.files))]
    expected = [w.shape for w in own]
    if [w.shape for w in weights] != expected:
        raise ValueError(f"{path}: saved initial weights have shapes {[w.shape for w in weights]}, the model "
                         f"{expected}; delete the file to draw new ones")
    model.set_weights(weights)
    return {"sha256": hashlib.sha256(data).hexdigest(), "path": str(path.relative_to(run_dir)),
            "created": created}


def weights_digest(model: Any) -> str:
    """sha256 (hex) of a model's weights, in order: equal in two processes that hold the same model."""
    return hashlib.sha256(b"".join(np.asarray(w).tobytes() for w in model.get_weights())).hexdigest()
