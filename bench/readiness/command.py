"""``python -m bench doctor key=value …``: the checks of every workload under every backend asked, one child
process per backend, then the framework-free checks, printed as one table per workload and backend.

Exit status: 0 when no check failed, 1 when one did (a CI gate), 2 for bad input (the command line's).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bench.config import SuiteConfig
from bench.engines import cpu_child_env
from bench.engines.limits import unsupported
from bench.readiness.findings import FAIL, WARN, Finding, exit_status, table
from bench.readiness.plan_checks import (
    batch_findings,
    data_findings,
    gpu_findings,
    precision_findings,
    spe_findings,
)
from bench.records import DOCTOR_FILE, atomic_write_json
from bench.workloads import get_workload, shown

CHILD_TIMEOUT_S = 600.0


def framework_findings(cfg: SuiteConfig, backend: str) -> list[Finding]:
    """The child process's findings for every workload under ``backend`` (a failed child is a finding)."""
    env = cpu_child_env(backend, os.environ)
    own = any(get_workload(w, cfg.data).input_fn is not None for w in cfg.workloads)  # may be tf.data under JAX
    job = json.dumps({"workloads": list(cfg.workloads), "data": cfg.data, "data_scale": cfg.data_scale,
                      "backend": backend, "pipelines": list(cfg.input_pipelines), "own_input_fn": own})
    try:
        proc = subprocess.run([sys.executable, "-m", "bench.readiness.child"], input=job + "\n", text=True,
                              capture_output=True, env=env, timeout=CHILD_TIMEOUT_S)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("[")]
        if proc.returncode == 0 and lines:
            return [Finding(**f) for f in json.loads(lines[-1])]
        why = f"exit {proc.returncode}: " + " | ".join(proc.stderr.strip().splitlines()[-2:])
    except subprocess.TimeoutExpired:
        why = f"no answer within {CHILD_TIMEOUT_S:.0f} s"
    return [Finding(w, backend, "checks_ran", FAIL, f"the check process failed ({why})",
                    "run python -m bench with this workload on the CPU to see the whole error") for w in cfg.workloads]


def named(findings: list[Finding], cfg: SuiteConfig) -> list[Finding]:
    """``findings`` with each workload shown by the name its user gave (a user workload's ``Workload.name``,
    not its import path)."""
    names = {}
    for w in cfg.workloads:
        try:
            names[w] = get_workload(w, cfg.data).name
        except Exception:  # refused already by the config check; here only a label is at stake
            names[w] = shown(w)
    return [Finding(**{**f.as_dict(), "workload": names.get(f.workload, f.workload)}) for f in findings]


def findings_for(cfg: SuiteConfig) -> list[Finding]:
    """Every finding for every workload under every backend of ``cfg`` (framework checks first)."""
    findings: list[Finding] = []
    for backend in cfg.backends:
        no_tpu = unsupported(backend, "tpu", 1)
        if no_tpu:  # the backend has no TPU path at all: that is the answer, nothing else to check
            fix = "run the TPU points under backends=[jax] or [tensorflow]; bench records this backend's skipped"
            findings += [Finding(w, backend, "tpu_backend", FAIL, no_tpu, fix) for w in cfg.workloads]
            continue
        checked = framework_findings(cfg, backend)
        for w in cfg.workloads:
            findings += [f for f in checked if f.workload == w]
            findings += batch_findings(cfg, w, backend) + spe_findings(cfg, w, backend)
            findings += data_findings(w, cfg.data, backend)
            findings += precision_findings(cfg, w, backend) + gpu_findings(cfg, w, backend)
    return findings


def before_tpu_points(cfg: SuiteConfig, run_dir: Path) -> list[Finding]:
    """The doctor before a run's TPU points: the findings for the run's workloads and backends, written to
    ``run_dir/doctor.json`` (by the workloads as configured: each TPU point's record carries its own) and the
    failures named on stderr."""
    findings = findings_for(cfg)
    atomic_write_json(run_dir / DOCTOR_FILE, [f.as_dict() for f in findings])
    failed = [f for f in named(findings, cfg) if f.status == FAIL]
    for f in failed:
        print(f"bench: doctor: {f.workload} under {f.backend}: {f.check} failed: {f.evidence} ({f.fix})",
              file=sys.stderr)
    warned = sum(f.status == WARN for f in findings)
    print(f"bench: doctor: {len(failed)} check(s) failed, {warned} warned before the TPU points ({DOCTOR_FILE} in "
          "the run folder; python -m bench doctor shows them all)", file=sys.stderr)
    return findings


def run_doctor(cfg: SuiteConfig) -> int:
    """Print every workload's findings under every backend; the exit status (0 / 1)."""
    findings = named(findings_for(cfg), cfg)
    print(table(findings))
    failed = sum(f.status == FAIL for f in findings)
    warned = sum(f.status == WARN for f in findings)
    print(f"doctor: {failed} failed, {warned} warnings, {len(findings) - failed - warned} ok "
          f"({_count(len(cfg.workloads), 'workload')} x {_count(len(cfg.backends), 'backend')}; checked on the CPU for "
          "a TPU host)")
    return exit_status(findings)


def _count(n: int, noun: str) -> str:
    """``1 backend``, ``2 workloads``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
