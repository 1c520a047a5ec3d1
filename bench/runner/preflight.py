"""Before a run: does each user workload's model take its inputs and fit its labels? One short child process
(``python -m bench.worker.preflight``, the job as one JSON line on stdin), on the CPU (it takes no accelerator the
workers need), under the run's first backend; this side starts it and reads its answer, importing no framework.
Built-ins are not checked. What it catches: docs/your-model-and-data.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from bench.config import ConfigError, SuiteConfig
from bench.engines import cpu_child_env
from bench.workloads import get_workload, is_import_path, shown

PREFLIGHT_TIMEOUT_S = 300.0


def preflight(cfg: SuiteConfig) -> tuple[dict[str, str], dict[str, str]]:
    """({user workload: why its model does not fit its data, "" when it does}, {user workload: a portability
    warning, "" without one}), every user workload of ``cfg`` checked in one child process ({}, {} without user
    workloads); ConfigError when the check itself fails."""
    users = [w for w in cfg.workloads if is_import_path(w)]
    if not users:
        return {}, {}
    backend = cfg.backends[0]
    env = cpu_child_env(backend, os.environ)
    own = any(get_workload(w, cfg.data).input_fn is not None for w in users)  # may be tf.data under JAX
    job = json.dumps({"workloads": users, "data": cfg.data, "backend": backend, "own_input_fn": own})
    try:
        proc = subprocess.run([sys.executable, "-m", "bench.worker.preflight"], input=job + "\n", text=True,
                              capture_output=True, env=env, timeout=PREFLIGHT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ConfigError(f"workloads: checking the user models took over {PREFLIGHT_TIMEOUT_S:.0f} s") from None
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
        raise ConfigError(f"workloads: the check of the user models failed (exit {proc.returncode}): {tail}")
    answer = json.loads(lines[-1])
    return dict(answer["problems"]), dict(answer["warnings"])


def check_models(cfg: SuiteConfig) -> None:
    """ConfigError naming every user workload whose model does not fit its data, first one first, each with
    its index in ``workloads`` (nothing runs then); a portability warning on stderr for each model whose loss
    reads probabilities (the run goes on)."""
    found, warned = preflight(cfg)
    bad = [f"workloads[{i}]={shown(w)!r}: {found[w]}" for i, w in enumerate(cfg.workloads) if found.get(w)]
    if bad:
        raise ConfigError("; ".join(bad))
    for i, w in enumerate(cfg.workloads):
        if warned.get(w):
            print(f"bench: warning: workloads[{i}]={shown(w)!r}: {warned[w]}", file=sys.stderr)
