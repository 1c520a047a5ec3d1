"""Environment capture is an allowlist: secrets in the environment never reach a record, log or report (the
end-to-end check reads the shared smoke run, which runs with these secrets set: tests/test_e2e.py).

``TF_`` is also Terraform's prefix (``TF_VAR_*``, ``TF_TOKEN_*``) and CI/cloud machines hold credentials in
their environment, while records, ``run.json``, worker logs and reports are shared publicly.
"""

from __future__ import annotations

import json
import os

from bench.measure.env import RECORDED_ENV_VARS, host_env
from tests.conftest import SECRETS


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


def test_run_json_carries_no_absolute_path(tmp_path) -> None:
    """run.json is shared with the records: a results or reports folder given as an absolute path keeps its last
    part only."""
    from bench.config import SuiteConfig
    from bench.runner.rundir import write_manifest

    cfg = SuiteConfig(results_dir=str(tmp_path / "mine" / "results"), reports_dir="reports",
                      prices=str(tmp_path / "prices.yaml"))
    write_manifest(tmp_path, "r", cfg, [])
    text = (tmp_path / "run.json").read_text()
    assert str(tmp_path) not in text and "/mine/" not in text
    saved = json.loads(text)["config"]
    assert saved["results_dir"] == "…/results" and saved["reports_dir"] == "reports"
    assert saved["prices"] == "…/prices.yaml"
