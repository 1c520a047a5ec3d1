"""Worker point logic in-process, without the hardware: guards that fail a point with a clear reason."""

from __future__ import annotations

import io
import json

import pytest

pytest.importorskip("tensorflow")

from bench.engines import StrategyInfo
from bench.job.point import Point, WorkerJob
from bench.worker.main import Worker


def test_per_replica_batch_larger_than_the_data_fails_its_point_with_the_reason(tmp_path) -> None:
    worker = Worker(WorkerJob("r", str(tmp_path), "s", "tpu", ()), io.StringIO())
    # an 8-core TPU: the replica count was unknown when the configuration was validated
    worker.info = StrategyInfo("tpu", "tpu", "TPUStrategy", 8, [f"/TPU:{i}" for i in range(8)], "tpu")
    point = Point(workload="catsdogs_cnn", strategy="tpu", per_replica_batch_size=128, steps_per_execution=4,
                  precision="float32", repeat=0, seed=0, epochs=3, n_train=512, n_val=256, data_scale="reduced")
    worker.run_point(point)
    rec = json.loads((tmp_path / f"{point.point_id}.json").read_text())
    assert rec["status"] == "failed" and rec["error"]["type"] == "ValueError"
    assert rec["error"]["message"].startswith(
        "global batch 1024 (128 per replica x 8 replicas of tpu) is larger than catsdogs_cnn's split "
        "(512 train / 256 val examples)")
    assert rec["global_batch_size"] == 1024 and rec["per_replica_batch_size"] == 128
    events = [json.loads(line) for line in worker.events.getvalue().splitlines()]
    assert [e["event"] for e in events] == ["start", "done"]


def test_a_failure_with_augmentation_layers_is_classified_for_the_tpu_and_for_jax() -> None:
    """Tutorial 001 on a TPU: a model holding Keras augmentation layers fails to compile there under TensorFlow;
    the record names that (kind and advice) instead of a bare XLA error. No TPU here: the classification
    the worker applies to the error is checked with the device kind a TPU worker reports."""
    from bench.job.point_record import failure_kind

    xla = RuntimeError("Detected unsupported operations when trying to compile graph ... ImageProjectiveTransformV3")
    layers = ["RandomFlip", "RandomRotation", "RandomContrast"]
    tpu = failure_kind(xla, False, layers, "tpu")
    assert tpu["kind"] == "augmentation_layers_on_tpu" and "augment in the input pipeline" in tpu["hint"]
    assert failure_kind(xla, False, None, "tpu") == {}  # no augmentation layers: not this failure
    assert failure_kind(xla, False, layers, "cpu") == {}
    jax = failure_kind(ImportError("This requires the tensorflow module."), False, layers, "cpu")
    assert jax["kind"] == "augmentation_layers_need_tensorflow"
    assert failure_kind(xla, True, layers, "tpu") == {"kind": "out_of_memory"}
