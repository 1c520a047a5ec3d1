"""Environment capture is an allowlist: secrets in the environment never reach a record, log or report.

``TF_`` is also Terraform's prefix (``TF_VAR_*``, ``TF_TOKEN_*``) and CI/cloud machines hold credentials in
their environment, while records, ``run.json``, worker logs and reports are shared publicly.
"""

from __future__ import annotations

import json
import os

import pytest

from bench.measure.env import RECORDED_ENV_VARS, host_env
from tests.conftest import run_bench

SECRETS = {
    "TF_VAR_password": "hunter2-secret",
    "TF_TOKEN_app_terraform_io": "tok-secret-123",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-456",
    "GITHUB_TOKEN": "ghp_secret789",
    "HF_TOKEN": "hf_secret",
    "TPU_API_KEY": "tpu-secret-000",  # the old TPU_ prefix match would have recorded it
    "XLA_FLAGS_TOKEN": "xla-secret-111",  # an allowed name as a prefix of another: exact names only
}


def test_allowlist_is_exact_names_without_secret_looking_ones() -> None:
    assert len(set(RECORDED_ENV_VARS)) == len(RECORDED_ENV_VARS)
    for name in RECORDED_ENV_VARS:
        assert name == name.strip() and name.isupper() and not name.endswith("_"), name
        assert not any(word in name for word in ("TOKEN", "SECRET", "PASSWORD", "KEY", "CREDENTIAL")), name
    assert {"TF_CPP_MIN_LOG_LEVEL", "XLA_FLAGS", "CUDA_VISIBLE_DEVICES", "TPU_NAME", "BENCH_FAULT"} <= set(
        RECORDED_ENV_VARS)


def test_host_env_records_only_allowlisted_vars(monkeypatch) -> None:
    for name in list(os.environ):
        if name in RECORDED_ENV_VARS:
            monkeypatch.delenv(name)
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("XLA_FLAGS", "--xla_dummy")
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "2")

    env = host_env()
    assert env["env_vars"] == {"TF_CPP_MIN_LOG_LEVEL": "2", "XLA_FLAGS": "--xla_dummy"}
    assert list(env["env_vars"]) == sorted(env["env_vars"])
    dumped = json.dumps(env)
    for name, value in SECRETS.items():
        assert name not in dumped and value not in dumped
    assert env["cpu"]  # the CPU model stays: the report's environment table shows it


@pytest.mark.slow
def test_no_secret_reaches_records_logs_or_reports(tmp_path) -> None:
    results, reports = tmp_path / "results", tmp_path / "reports"
    proc = run_bench("suite=smoke", "workloads=[fashion_cnn]", "strategies=[cpu]", "steps_per_execution=[1]",
                     "n_train=256", "n_val=64", "epochs=2", f"results_dir={results}", f"reports_dir={reports}",
                     env={**SECRETS, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""})
    assert proc.returncode == 0, proc.stderr[-3000:]

    files = [p for root in (results, reports) for p in root.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert "run.json" in names and "report.md" in names, sorted(names)
    assert any(p.suffix == ".log" for p in files) and any(p.name.startswith("fashion_cnn-cpu") for p in files)
    for path in files:
        data = path.read_bytes()
        for value in SECRETS.values():
            assert value.encode() not in data, f"{value!r} leaked into {path}"
    for value in SECRETS.values():
        assert value not in proc.stdout and value not in proc.stderr

    # Capture still works: the allowlisted variable is in every record and in the manifest.
    (run_dir,) = results.iterdir()
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["host"]["env_vars"]["TF_CPP_MIN_LOG_LEVEL"] == "2"
    records = [json.loads(p.read_text()) for p in run_dir.glob("fashion_cnn-cpu*.json")]
    assert records and all(r["status"] == "ok" for r in records)
    for r in records:
        assert r["env"]["env_vars"]["TF_CPP_MIN_LOG_LEVEL"] == "2"
        assert set(r["env"]["env_vars"]) <= set(RECORDED_ENV_VARS)
        assert r["env"]["cpu"]
