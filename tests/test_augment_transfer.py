"""Seed 001's transfer learning in one point, end to end under both backends: a module of its own, so that the
parallel test run starts it among the first (tests/conftest.py LONGEST_FIRST) beside the other long modules."""

from __future__ import annotations

import pytest

from bench.records import parse


@pytest.mark.slow
def test_plant_transfer_trains_in_two_stages_in_one_point_under_both_backends(tmp_path) -> None:
    """Seed 001's transfer learning: the backbone frozen for half the epochs, then unfrozen and recompiled at
    the fine-tuning learning rate, in one point: both stages' epochs recorded (tagged), the trainable
    parameters of each stage, random weights offline; the frozen stage computes the same under both
    backends, and the steady state is the fine-tuning stage's after its first epoch."""
    import importlib.util
    import json
    import math

    from tests.conftest import run_bench

    backends = ["tensorflow"] + (["jax"] if importlib.util.find_spec("jax") else [])
    proc = run_bench("suite=smoke", "workloads=[plant_transfer]", "strategies=[cpu]",
                     f"backends=[{','.join(backends)}]", "batch_sizes=[16]", "steps_per_execution=[2]", "n_train=32",
                     "n_val=16", "epochs=5",
                     f"results_dir={tmp_path / 'r'}", "report=false", "measure_peak=false", "measure_input=false")
    assert proc.returncode == 0, proc.stderr[-2000:]
    run_dir = next((tmp_path / "r").iterdir())
    recs = {r["backend"]: r for r in (json.loads(p.read_text()) for p in run_dir.glob("*.json")) if "point_id" in r}
    assert sorted(recs) == sorted(backends)
    for r in recs.values():
        assert r["status"] == "ok", r.get("error")
        assert [(s["name"], s["epochs"], s["trainable_params"]) for s in r["stages"]] == [
            ("frozen", 2, 5_124), ("fine_tune", 3, 401_252)]  # the head alone, then all but BatchNorm statistics
        assert [s["learning_rate"] for s in r["stages"]] == pytest.approx([1e-3, 1e-5])
        assert [(e["epoch"], e["stage"], e["steps"]) for e in r["epochs"]] == [
            (1, "frozen", 2), (2, "frozen", 2), (3, "fine_tune", 2), (4, "fine_tune", 2), (5, "fine_tune", 2)]
        assert [e.epoch for e in parse(r).steady_epochs()] == [4, 5]
        losses = [e["loss"] for e in r["epochs"]]
        assert all(math.isfinite(x) for x in losses) and len(set(losses)) == len(losses)  # both stages train
        assert r["pretrained_weights"] is None  # no ImageNet weights in this box's Keras cache
        assert "setup_s" in r["epochs"][0] and "setup_s" in r["epochs"][2]  # each fit's set-up, in its first epoch
    if len(recs) == 2:
        for a, b in zip(recs["tensorflow"]["epochs"][:2], recs["jax"]["epochs"][:2], strict=True):
            assert a["loss"] == pytest.approx(b["loss"], rel=1e-3)
