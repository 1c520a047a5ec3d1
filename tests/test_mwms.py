"""TensorFlow's MultiWorkerMirroredStrategy with Keras 3: a finding, not a hack (issue 24). bench refuses the
strategy with the reason and the upstream issue, and the upstream failure is reproduced here with two localhost
workers, as a strict xfail: the day Keras fixes keras-team/keras#20585 the test passes, strict turns that into a
failure, and whoever sees it can lift the refusal."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cli import parse_config
from bench.config import ConfigError

REPRO = Path(__file__).resolve().parent / "mwms_repro.py"
UPSTREAM = "Attempt to convert a value (PerReplica"  # keras-team/keras#20585, in _maybe_symbolic_build


@pytest.mark.parametrize("name", ["multi_worker", "MultiWorkerMirrored", "mwms"])
def test_asking_for_multi_worker_mirrored_is_refused_with_the_reason(name) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(["suite=smoke", f"strategies=[cpu,{name}]"])
    assert str(e.value).startswith(f"strategies[1]={name!r}: TensorFlow's MultiWorkerMirroredStrategy does not "
                                   "train Keras 3 models (keras-team/keras#20585")
    assert "gpus, tpu or cpu_xN" in str(e.value)


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


@pytest.mark.slow
@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="keras-team/keras#20585: Keras 3 cannot fit under MultiWorkerMirroredStrategy")
def test_two_localhost_workers_train_under_multi_worker_mirrored(tmp_path) -> None:
    """Two workers on 127.0.0.1 (TF_CONFIG), a 4-input Dense model, two steps. Today both fail in ``fit`` with
    the upstream error (xfail); any other failure (a hang, a port, an import) is an error, not the finding."""
    hosts = [f"127.0.0.1:{p}" for p in _free_ports(2)]
    procs = []
    for i in range(2):
        env = {**os.environ, "TF_CONFIG": json.dumps({"cluster": {"worker": hosts}, "task": {"type": "worker",
                                                                                          "index": i}}),
               "CUDA_VISIBLE_DEVICES": "", "KERAS_BACKEND": "tensorflow"}
        procs.append(subprocess.Popen([sys.executable, str(REPRO)], env=env, cwd=tmp_path, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    try:
        outs = [p.communicate(timeout=180) for p in procs]
    finally:
        for p in procs:
            p.kill()
    trained = [p.returncode == 0 and "TRAINED" in out for p, (out, _) in zip(procs, outs, strict=True)]
    if not all(trained) and not all(UPSTREAM in err for _, err in outs):
        raise RuntimeError("the workers failed, but not with keras-team/keras#20585's error:\n"
                           + "\n".join(err[-1500:] for _, err in outs))
    assert all(trained), "keras-team/keras#20585: " + UPSTREAM
