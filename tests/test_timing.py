"""EpochTimer with a fake clock and a fake model: split of train/val time, exact steps, divergence."""

from __future__ import annotations

import math

import pytest

from bench.measure.timing import EpochTimer


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


class FakeIterations:
    def __init__(self) -> None:
        self.value = 0

    def numpy(self) -> int:
        return self.value


class FakeModel:
    def __init__(self) -> None:
        self.optimizer = type("Opt", (), {})()
        self.optimizer.iterations = FakeIterations()
        self.stop_training = False


def make_timer():
    clock, model = FakeClock(), FakeModel()
    seen = []
    timer = EpochTimer(global_batch_size=32, clock=clock, on_epoch=seen.append)
    timer.set_model(model)
    return timer, clock, model, seen


def test_epoch_row_splits_train_and_validation_and_counts_real_steps() -> None:
    timer, clock, model, seen = make_timer()
    timer.on_epoch_begin(0)
    clock.t += 3.0
    model.optimizer.iterations.value += 10  # steps come from optimizer.iterations, not callback indices
    timer.on_test_begin()
    clock.t += 0.5
    timer.on_test_begin()  # a second call (e.g. an inner evaluate) must not move the split
    clock.t += 0.25
    timer.on_epoch_end(0, {"loss": 1.5, "accuracy": 0.25, "val_loss": 1.0, "val_accuracy": 0.5})
    (row,) = timer.rows
    assert row == {"epoch": 1, "epoch_s": 3.75, "train_s": 3.0, "val_s": 0.75, "steps": 10, "examples": 320,
                   "accuracy": 0.25, "loss": 1.5, "val_accuracy": 0.5, "val_loss": 1.0}
    assert seen == [row]
    assert not timer.diverged and not model.stop_training


def test_epoch_without_validation_has_zero_val_time() -> None:
    timer, clock, model, _ = make_timer()
    timer.on_epoch_begin(1)
    clock.t += 2.0
    model.optimizer.iterations.value += 7
    timer.on_epoch_end(1, {"loss": 0.5})
    assert timer.rows[0]["epoch"] == 2
    assert (timer.rows[0]["train_s"], timer.rows[0]["val_s"], timer.rows[0]["steps"]) == (2.0, 0.0, 7)


def test_nan_loss_marks_divergence_and_stops_training() -> None:
    timer, clock, model, _ = make_timer()
    timer.on_epoch_begin(0)
    clock.t += 1.0
    timer.on_epoch_end(0, {"loss": math.nan})
    assert timer.diverged and model.stop_training


def test_timer_does_not_override_batch_hooks() -> None:
    import keras

    # Overriding on_train_batch_end turns off Keras' async dispatch (Keras 3 then synchronises after every batch).
    assert EpochTimer.on_train_batch_end is keras.callbacks.Callback.on_train_batch_end
    assert EpochTimer.on_train_batch_begin is keras.callbacks.Callback.on_train_batch_begin


def test_warm_up_epoch_includes_fit_set_up_before_the_first_epoch() -> None:
    timer, clock, _, _ = make_timer()
    timer.fit_started()
    clock.t += 4.0  # Keras builds the model and distributes the dataset before on_epoch_begin
    timer.on_epoch_begin(0)
    clock.t += 1.0
    timer.on_epoch_end(0, {"loss": 1.0})
    timer.on_epoch_begin(1)
    clock.t += 1.0
    timer.on_epoch_end(1, {"loss": 0.9})
    first, second = timer.rows
    assert (first["epoch_s"], first["train_s"], first["setup_s"]) == (5.0, 5.0, 4.0)
    assert second["epoch_s"] == 1.0 and "setup_s" not in second


def test_each_fit_of_a_staged_point_puts_its_set_up_in_its_first_epoch_and_tags_its_stage() -> None:
    timer, clock, _, _ = make_timer()
    for stage, epochs, setup in (("frozen", (0, 1), 4.0), ("fine_tune", (2, 3), 3.0)):
        timer.stage = stage
        timer.fit_started()
        clock.t += setup  # the second fit traces the recompiled model
        for epoch in epochs:
            timer.on_epoch_begin(epoch)
            clock.t += 1.0
            timer.on_epoch_end(epoch, {"loss": 1.0})
    assert [(r["epoch"], r["stage"], r.get("setup_s"), r["epoch_s"]) for r in timer.rows] == [
        (1, "frozen", 4.0, 5.0), (2, "frozen", None, 1.0), (3, "fine_tune", 3.0, 4.0), (4, "fine_tune", None, 1.0)]


def test_the_split_waits_for_the_last_train_step_before_validation_starts() -> None:
    """Under JAX ``fit`` reaches ``on_test_begin`` while train steps are still running (asynchronous
    dispatch): reading the step counter waits for them, and that wait is training time, not validation."""
    timer, clock, model, _ = make_timer()
    timer.on_epoch_begin(0)
    clock.t += 1.0  # dispatching the steps

    def wait_for_device() -> int:
        clock.t += 2.0  # the device finishes the dispatched steps
        return 10

    model.optimizer.iterations.numpy = wait_for_device
    timer.on_test_begin()
    model.optimizer.iterations.numpy = lambda: 10
    clock.t += 0.5
    timer.on_epoch_end(0, {"loss": 1.0})
    (row,) = timer.rows
    assert (row["train_s"], row["val_s"]) == (3.0, 0.5)


def test_the_peak_probe_grows_the_matrix_then_chains_products_far_above_a_calls_fixed_cost(monkeypatch) -> None:
    """Issue 38: one 2048 x 2048 product lasts about one call's fixed cost on an H100. The probe grows the matrix
    until a product takes MIN_PRODUCT_S, then chains products in one call for about REGION_S. An engine whose
    product time follows n**3 at 1 TFLOP/s (simulated clock) ends at n = 2048 (17 ms) chained 12 times."""
    from bench.measure import probes

    clock = [0.0]
    calls: list[tuple[int, int]] = []

    class FakeEngine:
        def matmul_chain(self, device, dtype="float32", n=1024, chained=1):
            def run() -> None:
                calls.append((n, chained))
                clock[0] += 2 * n**3 * chained / 1e12 + 20e-6  # the work, and 20 µs of fixed cost
            return run

        def dispatch_probe(self, device):
            def run() -> None:
                clock[0] += 20e-6
            return run

    monkeypatch.setattr(probes.time, "perf_counter", lambda: clock[0])
    flops, sized = probes.matmul_peak(FakeEngine(), "gpu:0", "float32")  # type: ignore[arg-type]
    assert sized["n"] == 2048 and sized["chained"] == 12  # 2.2 ms at n = 1024 is below 5 ms; 17 ms is not
    assert sized["dispatch_s"] == pytest.approx(20e-6) and sized["region_s"] / sized["dispatch_s"] > 5000
    assert flops == pytest.approx(1e12, rel=1e-3)  # the device's rate, not the fixed cost's
    assert calls[:4] == [(1024, 1), (1024, 1), (2048, 1), (2048, 1)]  # each size run untimed first


def test_the_input_probe_reads_through_one_stall_and_reads_a_slow_pipeline_once(monkeypatch) -> None:
    """The input-only probe (bench.measure.probes.input_only_rate) on a simulated clock. Epochs of 4 batches of 64:
    at 1 ms a batch, with one 50 ms stall of the process, it reads 64,000 examples/s over its 7 passes (a single
    timed pass read 4,741); at 25 ms a batch, 3 passes; at 100 ms a batch (a pass of 0.4 s), one pass after the
    3 warm-up batches, as before."""
    from bench.measure import probes

    clock = [0.0]
    drawn = [0]

    def batches(batch_s: float, stall_at: int = 0):
        while True:
            drawn[0] += 1
            clock[0] += batch_s + (0.05 if drawn[0] == stall_at else 0.0)
            yield drawn[0]

    monkeypatch.setattr(probes.time, "perf_counter", lambda: clock[0])
    for batch_s, stall_at, rate, passes in [(0.001, 5, 64_000, 7), (0.025, 5, 2_560, 3), (0.1, 0, 640, 1)]:
        drawn[0] = 0
        assert probes.input_only_rate(batches(batch_s, stall_at), 4, 64) == pytest.approx(rate)
        assert drawn[0] == 3 + 4 * passes
