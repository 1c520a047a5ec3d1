"""Why a plain script's ``prefetch(tf.data.AUTOTUNE)`` pipeline trains at one of two speeds on a 2-core machine
(docs/findings.md, "tf.data autotune on two cores"): the variants of :mod:`plain_fit`'s ``tfdata`` pipeline that
take autotune apart, each in many fresh processes, interleaved (variant after variant, round after round) so
that a slow hour of a shared machine hits every variant alike.

    python tests/benchmarks/autotune_cause.py OUT.jsonl [--rounds 10] [--variants guide,fixed,...]
    python tests/benchmarks/autotune_cause.py OUT.jsonl --summary     # the table, from what OUT.jsonl holds

Independent of bench, like :mod:`plain_fit` (Fashion-MNIST's CNN of tutorial 002, n_train 4096, batch 128,
steps_per_execution 8, 6 epochs; a process's figure is the median of its epochs 2-6). Appends one JSON line
per process to OUT.jsonl (plain_fit's line plus ``variant`` and ``round``), so an interrupted experiment keeps
what it measured and ``--summary`` reads it. Never run it beside anything else that uses the CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
POINT = ["4096", "1024", "128", "8", "6"]
VARIANTS: dict[str, tuple[list[str], dict[str, str], list[str]]] = {  # plain_fit flags, env, command prefix
    "guide": (["--pipeline", "tfdata"], {}, []),  # map and prefetch on AUTOTUNE, autotune on
    "fixed": (["--pipeline", "tfdata", "--autotune", "off", "--map", "2", "--prefetch", "2"], {}, []),
    "guide_persistent": (["--pipeline", "tfdata", "--persistent"], {}, []),  # one iterator for the whole fit
    "on_fixed": (["--pipeline", "tfdata", "--map", "2", "--prefetch", "2"], {}, []),  # autotune on, nothing to tune
    "off_auto": (["--pipeline", "tfdata", "--autotune", "off"], {}, []),  # AUTOTUNE values, the optimiser off
    "prefetch_auto": (["--pipeline", "tfdata", "--map", "2"], {}, []),  # only the prefetch buffer tuned
    "map_auto": (["--pipeline", "tfdata", "--prefetch", "2"], {}, []),  # only the map's parallelism tuned
    "budget1": (["--pipeline", "tfdata", "--cpu-budget", "1"], {}, []),  # the optimiser told of one core
    "private2": (["--pipeline", "tfdata", "--private-threads", "2"], {}, []),  # tf.data's own thread pool
    "intra1": (["--pipeline", "tfdata", "--intra-op", "1"], {}, []),  # tf.data's ops one thread each
    "numpy": (["--pipeline", "numpy"], {}, []),  # arrays straight into fit (tutorial 002)
    "guide_1core": (["--pipeline", "tfdata"], {}, ["taskset", "-c", "0"]),
    "fixed_1core": (["--pipeline", "tfdata", "--autotune", "off", "--map", "2", "--prefetch", "2"], {},
                    ["taskset", "-c", "0"]),
    "guide_jax": (["--pipeline", "tfdata"], {"KERAS_BACKEND": "jax", "JAX_PLATFORMS": "cpu"}, []),
    "fixed_jax": (["--pipeline", "tfdata", "--autotune", "off", "--map", "2", "--prefetch", "2"],
                  {"KERAS_BACKEND": "jax", "JAX_PLATFORMS": "cpu"}, []),
}


def steady(line: dict) -> float:
    """A process's figure: the median of its steady epochs' training seconds."""
    return statistics.median(line["train_s"][1:])


def run_one(variant: str, round_: int) -> dict:
    flags, env, prefix = VARIANTS[variant]
    cmd = [*prefix, sys.executable, str(HERE / "plain_fit.py"), *POINT, *flags]
    full_env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "KERAS_BACKEND": "tensorflow", **env}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"{variant}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    return {"variant": variant, "round": round_, **json.loads(proc.stdout.strip().splitlines()[-1])}


SLOW = 1.6  # a slow epoch: at least this many times the fastest steady epoch of its own process
LONG_TEARDOWN_S = 0.3


def slow_epochs(line: dict) -> int:
    """A process's steady epochs at least :data:`SLOW` times its fastest steady epoch."""
    steady = line["train_s"][1:]
    return sum(t >= SLOW * min(steady) for t in steady)


def summary(lines: list[dict]) -> str:
    """The table of docs/findings.md: per variant, processes, slow steady epochs (and in how many processes),
    teardowns over 0.3 s, each process's median steady epoch, the median, the fit's CPU seconds and the steal."""
    out = ["| variant | processes | slow steady epochs (processes) | teardown > 0.3 s (max s) | steady train s/epoch, "
           "each process, sorted | median | fit CPU s (median) | steal s (max) |", "|---|---|---|---|---|---|---|---|"]
    for v in VARIANTS:
        got = [ln for ln in lines if ln["variant"] == v]
        if not got:
            continue
        xs = sorted(steady(ln) for ln in got)
        slow = [slow_epochs(ln) for ln in got]
        teardowns = [ln["teardown_s"] for ln in got]
        out.append(f"| {v} | {len(xs)} | {sum(slow)} of {sum(len(ln['train_s']) - 1 for ln in got)} "
                   f"({sum(k > 0 for k in slow)}) | {sum(t > LONG_TEARDOWN_S for t in teardowns)} "
                   f"({max(teardowns):.2f}) | {' '.join(f'{x:.2f}' for x in xs)} | {statistics.median(xs):.3f} | "
                   f"{statistics.median(ln['fit_cpu_s'] for ln in got):.1f} | "
                   f"{max(ln.get('steal_s', 0) for ln in got):.2f} |")
    return "\n".join(out)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--variants", default="guide,fixed,on_fixed,off_auto,numpy")
    p.add_argument("--summary", action="store_true")
    a = p.parse_args()
    if not a.summary:
        names = a.variants.split(",")
        unknown = [n for n in names if n not in VARIANTS]
        if unknown:
            raise SystemExit(f"--variants: {unknown} not known; known: {', '.join(VARIANTS)}")
        for r in range(a.rounds):
            for v in names:
                line = run_one(v, r)
                with a.out.open("a") as f:
                    f.write(json.dumps(line) + "\n")
                print(f"round {r} {v}: {steady(line):.3f} s", flush=True)
    lines = [json.loads(ln) for ln in a.out.read_text().splitlines() if ln.strip()] if a.out.exists() else []
    print(summary(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
