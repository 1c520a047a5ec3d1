"""The speed-limit classifier: its two-point fit, every line (input 80 %, roof 40 %, host 2 %, fixed 50 %, mixed 25 %,
agreement 80 %) at and around its boundary, and the rate at which noise between processes makes it claim a label the
truth does not support (A/A-style simulation)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from bench.reporting.analysis.limits import (
    COMPUTE,
    FIXED_SHARE,
    HOST,
    INPUT,
    KERNEL,
    MEMORY,
    MISSING_FLOOR,
    MIXED,
    NO_FLOORS,
    ONE_BATCH,
    OVERHEAD,
    PROCESS_CV,
    STRADDLES,
    UNDETERMINED,
    Evidence,
    classify,
    fixed_share,
)
from tests.rows import identified, summarized

TIGHT = 1e-9  # a log spread so small that the interval is the point: the thresholds alone decide


def test_the_two_point_fit_recovers_fixed_cost_and_slope() -> None:
    a, b = 0.6e-3, 1e-6  # 0.6 ms fixed, 1 µs an example
    t = lambda n: a + b * n  # noqa: E731
    assert fixed_share(100, t(100), 200, t(200)) == pytest.approx(a / t(100))
    assert fixed_share(200, t(200), 100, t(100)) == pytest.approx(a / t(200))  # the second batch may be smaller
    assert fixed_share(128, 1.0, 256, 2.0) == pytest.approx(0.0)  # proportional: no fixed part
    assert fixed_share(128, 1.0, 256, 1.0) == pytest.approx(1.0)  # flat: all fixed


def _step2(phi: float, batch: int = 128, batch2: int = 256, step: float = 1.0) -> float:
    """The second step time that gives fixed share ``phi`` at ``batch``."""
    return step + (1 - phi) * step / batch * (batch2 - batch)


def test_input_bound_is_read_first_at_80_percent() -> None:
    flat = Evidence(128, 1.0, 256, _step2(0.95), log_sd=TIGHT)
    assert classify(Evidence(128, 1.0, input_share=0.80)).label == INPUT
    assert classify(Evidence(128, 1.0, 256, 1.0, input_share=0.80)).label == INPUT  # before any batch rule
    assert classify(Evidence(128, 1.0, input_share=0.79)).label == UNDETERMINED  # no second batch
    assert classify(Evidence(**{**flat.__dict__, "input_share": 0.79})).label == OVERHEAD


def test_overhead_needs_half_the_step_fixed_and_the_floors_under_a_quarter() -> None:
    at = lambda phi, **kw: classify(Evidence(128, 1.0, 256, _step2(phi), log_sd=TIGHT, **kw))  # noqa: E731
    assert at(FIXED_SHARE + 1e-6).label == OVERHEAD and at(FIXED_SHARE + 1e-6).fixed == pytest.approx(0.5, abs=1e-5)
    assert at(FIXED_SHARE).label == UNDETERMINED  # on the line: its interval, however narrow, straddles it
    assert at(FIXED_SHARE - 1e-6).label == UNDETERMINED  # grows with the batch, but no floor says what it is
    assert at(0.9, compute_floor_s=0.2499).label == OVERHEAD
    assert at(0.9, compute_floor_s=0.25).label == MIXED  # the device explains a quarter: not overhead alone
    assert at(0.9, memory_floor_s=0.3).label == MIXED


def test_a_roof_only_near_the_roof_and_then_whatever_the_fixed_share_says() -> None:
    """Compute- or memory-bound at a floor of 40 % of the step or more, the larger floor naming it; below, a step that
    surely grows with the batch is kernel-bound (undetermined without both floors: either may be the one near its
    roof); a floor near its roof decides even with one batch or a fixed share whose interval straddles 50 % (the
    floor bounds the fixed part)."""
    at = lambda c, m: classify(Evidence(128, 1.0, 256, _step2(0.1), log_sd=TIGHT, compute_floor_s=c,  # noqa: E731
                                        memory_floor_s=m))
    assert at(0.4, 0.2).label == COMPUTE and at(0.3999, 0.2).label == KERNEL
    assert at(0.2, 0.4).label == MEMORY and at(0.2, 0.3999).label == KERNEL
    assert at(0.45, 0.5).label == MEMORY and at(0.5, 0.45).label == COMPUTE  # the larger floor is the roof
    assert at(0.4, math.nan).label == COMPUTE and at(math.nan, 0.4).label == MEMORY
    assert at(math.nan, 0.1).label == UNDETERMINED and at(math.nan, 0.1).reason == MISSING_FLOOR
    assert at(0.1, math.nan).label == UNDETERMINED and at(0.1, math.nan).reason == MISSING_FLOOR
    assert at(math.nan, math.nan).reason == NO_FLOORS
    wide = Evidence(128, 1.0, 256, _step2(0.5), compute_floor_s=0.4)  # φ's interval straddles 50 %
    assert classify(wide).label == COMPUTE and classify(Evidence(128, 1.0, memory_floor_s=0.4)).label == MEMORY
    assert classify(Evidence(128, 1.0, compute_floor_s=0.3999, memory_floor_s=0.1)).reason == ONE_BATCH
    assert classify(Evidence(128, 1.0, compute_floor_s=0.3999)).reason == ONE_BATCH  # no floor could make it host


def test_host_side_when_the_device_explains_under_2_percent() -> None:
    """Both floors under 2 % of the step: host-bound with one batch, a straddling fixed share or one surely above
    50 % (host- and overhead-bound share that evidence: one rule between them), never a roof; a step that surely
    grows with the batch stays kernel-bound. With one floor missing (no byte count), nothing is host-bound:
    undetermined, the missing floor named (issue 74: the H200 records), or overhead where the fixed share decides."""
    assert classify(Evidence(128, 1.0, compute_floor_s=0.0199, memory_floor_s=0.01)).label == HOST
    assert classify(Evidence(128, 1.0, compute_floor_s=0.02, memory_floor_s=0.01)).reason == ONE_BATCH
    noisy = lambda c, m=0.01: classify(Evidence(128, 1.0, 256, _step2(0.7), compute_floor_s=c,  # noqa: E731
                                                memory_floor_s=m))
    assert noisy(0.0199).label == HOST and noisy(0.02).reason == STRADDLES
    assert noisy(0.0199, math.nan).reason == MISSING_FLOOR and noisy(0.02, math.nan).reason == STRADDLES
    assert classify(Evidence(128, 1.0, compute_floor_s=0.0199)).reason == MISSING_FLOOR
    sure = lambda phi: classify(Evidence(128, 1.0, 256, _step2(phi), log_sd=TIGHT, compute_floor_s=0.001,  # noqa: E731
                                         memory_floor_s=0.001))
    assert sure(0.1).label == KERNEL and sure(0.9).label == HOST and sure(0.9).fixed == pytest.approx(0.9)
    partial = classify(Evidence(128, 1.0, 256, _step2(0.9), log_sd=TIGHT, compute_floor_s=0.001))
    assert partial.label == OVERHEAD  # the fixed share decides without the floors
    two = classify(Evidence(128, 1.0, 256, _step2(0.9), log_sd=TIGHT, compute_floor_s=0.02, memory_floor_s=0.01))
    assert two.label == OVERHEAD  # floors at 2 % or more: the device is not ruled out, the fixed share speaks


def test_the_same_flat_step_gets_the_same_label_run_after_run() -> None:
    """Issue 74: a 16-8-2 MLP at b8 beside b16, one process a side, read overhead-, host-, overhead-bound in three
    runs. A truly flat step (fixed share 1) with its floors far under 2 % of it, drawn at the documented 16 % spread
    between processes: the fixed share's interval clears 50 % only when the larger batch comes out no slower, about
    half the draws, which made overhead against host a coin toss. Host-bound now, in at least 99.9 % of draws (the
    rest kernel-bound, whose step must come out 2.3x the smaller's)."""
    rng = np.random.default_rng(53)
    sd, n = math.log1p(PROCESS_CV), 20_000
    labels = [classify(Evidence(8, math.exp(e1), 16, math.exp(e2), compute_floor_s=1e-4, memory_floor_s=1e-3)).label
              for e1, e2 in zip(rng.normal(0, sd, n), rng.normal(0, sd, n), strict=True)]
    assert labels.count(HOST) / n >= 0.999 and OVERHEAD not in labels


def test_a_fixed_share_within_the_noise_of_one_process_a_side_is_undetermined() -> None:
    ev = Evidence(128, 1.0, 256, _step2(0.7))  # log spread from PROCESS_CV: φ's interval reaches below 0.5
    limit = classify(ev)
    assert limit.label == UNDETERMINED and limit.fixed_low < FIXED_SHARE < limit.fixed_high
    assert classify(Evidence(128, 1.0, 1024, _step2(0.92, batch2=1024))).label == OVERHEAD  # the H200's 4x: 3.2x


@pytest.mark.parametrize(("true_phi", "claimed", "most"), [(0.5, OVERHEAD, 0.03), (0.49, OVERHEAD, 0.03),
                                                          (0.3, COMPUTE, 0.035), (0.0, OVERHEAD, 0.001)])
def test_noise_between_processes_rarely_makes_a_false_claim(true_phi: float, claimed: str, most: float) -> None:
    """One process a side, step times drawn log-normal with the documented between-process spread (16 %): how often
    a configuration whose true fixed share sits on the line (0.5), just under it, or at 0 is labelled overhead-bound
    (the interval's lower end keeps that near 2.5 %), or one whose compute floor is truly 30 % of its step (the
    ``true_phi`` of the row), three quarters of the 40 % line, is called compute-bound: its measured step must come
    out 25 % short, ln(0.75) / ln(1.16) = -1.94 standard deviations, 2.6 % of draws."""
    rng = np.random.default_rng(51)
    sd = math.log1p(PROCESS_CV)
    n, hits = 20_000, 0
    for e1, e2 in zip(rng.normal(0, sd, n), rng.normal(0, sd, n), strict=True):
        t1, t2 = math.exp(e1), _step2(true_phi) * math.exp(e2)
        if claimed == COMPUTE:
            t2 = _step2(0.1) * math.exp(e2)
        ev = Evidence(128, t1, 256, t2, compute_floor_s=true_phi if claimed == COMPUTE else math.nan)
        hits += classify(ev).label == claimed
    assert hits / n <= most, f"{claimed} claimed in {hits / n:.2%} of {n} draws at a true fixed share {true_phi}"


def test_the_h200_records_are_overhead_host_and_kernel_bound_where_their_numbers_say_so() -> None:
    """The H200 records: fashion_cnn under JAX on the GPU took 1.21 ms a step at batch 32 and 1.71 ms at 128 (spe 1),
    a fixed share of 0.86 [0.62, 1.02] with one process a side, against a compute floor of 0.2 µs (the step's FLOPs
    over the probe's TF32 peak): overhead-bound. At 128 the same line leaves 0.61 fixed, within the noise of one
    process a side, but the device's floor is 0.05 % of the step: host-bound, not undetermined. On the host's 16-core
    CPU the step surely grows with the batch while its FLOPs at the measured peak explain 0.4-1.2 % of it:
    kernel-bound (XLA's CPU convolutions far below the machine's peak). Redone by hand from the summary's rates."""
    from pathlib import Path

    from bench.records import load_records
    from bench.reporting.analysis.limits import limits_frame
    from bench.reporting.render.labels import Names, labelled

    h200 = Path(__file__).parent / "data" / "gpu_h200_2026_11_27"
    summary = summarized(load_records([h200 / r for r in ("r1", "r2", "r3", "b")]).records)
    frame = labelled(limits_frame(summary), Names.of(summary))
    gpu = frame[(frame["workload"] == "fashion_cnn") & (frame["strategy"] == "jax/gpu")
                & (frame["steps_per_execution"] == 1) & frame["batch2"].gt(0)].set_index("global_batch_size")
    rates = summary[(summary["workload"] == "fashion_cnn") & (summary["strategy"] == "jax/gpu")
                    & (summary["steps_per_execution"] == 1) & (summary["dataset"] == gpu.loc[32, "dataset"])
                    ].set_index("global_batch_size")["examples_per_s"]
    t32, t128 = 32 / rates[32], 128 / rates[128]
    assert gpu.loc[32, "step_ms"] == pytest.approx(1e3 * t32) and gpu.loc[32, "batch2"] == 128
    assert gpu.loc[32, "fixed_share"] == pytest.approx(fixed_share(32, t32, 128, t128))
    assert gpu.loc[32, "limit"] == OVERHEAD and gpu.loc[32, "fixed_low"] > FIXED_SHARE
    assert gpu.loc[32, "compute_floor_ms"] < 1e-3 * gpu.loc[32, "step_ms"]
    at128 = gpu.loc[128]
    # its FLOPs explain under 2 % of the step, but these records have no byte count: not host-bound on half the floors
    assert at128["limit"] == UNDETERMINED and at128["reason"] == MISSING_FLOOR
    assert at128["fixed_low"] < FIXED_SHARE < at128["fixed_high"] and math.isnan(at128["memory_floor_ms"])
    assert at128["compute_floor_ms"] < 0.02 * at128["step_ms"]
    cpu = frame[(frame["workload"] == "fashion_cnn") & frame["strategy"].isin(["jax/cpu", "jax/cpu_x2"])]
    # the step grows with the batch, but which roof it is far from needs the bytes too
    assert len(cpu) == 8 and set(cpu["limit"]) == {UNDETERMINED} and (cpu["fixed_high"] < FIXED_SHARE).all()
    assert set(cpu["reason"]) == {MISSING_FLOOR}
    assert (cpu["compute_floor_ms"] < 0.02 * cpu["step_ms"]).all() and cpu["memory_floor_ms"].isna().all()
    one = frame[frame["batch2"] == 0]  # no other batch of the configuration in the records
    fashion, catsdogs = one[one["workload"] == "fashion_cnn"], one[one["workload"] == "catsdogs_cnn"]
    assert len(fashion) == 4 and set(fashion["reason"]) == {MISSING_FLOOR}  # spe 6, torch: FLOPs <= 0.2 %
    assert (fashion["compute_floor_ms"] < 0.0025 * fashion["step_ms"]).all()
    assert set(catsdogs["reason"]) == {ONE_BATCH} and (catsdogs["compute_floor_ms"] >= 0.02 * catsdogs["step_ms"]).all()


def test_the_sentence_gives_the_label_its_numbers_and_the_lever_with_its_command() -> None:
    """The answer's clause (the label, the figure it rests on, the lever and its command) and the evidence the
    findings add after it (the step and its fixed share, each floor, why, how many processes, the lever in full)."""
    import pandas as pd

    from bench.reporting.render.markdown.limits import limit_brief, limit_evidence

    row = {"global_batch_size": 32, "steps_per_execution": 1, "limit": OVERHEAD, "step_ms": 1.206, "batch2": 128,
           "step2_ms": 1.708, "fixed_share": 0.861, "fixed_low": 0.621, "fixed_high": 1.021, "compute_floor_ms": 1.1e-4,
           "memory_floor_ms": math.nan, "input_share": 0.088, "n_processes": 1, "process_labels": ()}
    assert limit_brief(pd.Series(row)) == (
        "**overhead-bound**: 86% of a 1.21 ms step is fixed cost (95% interval 62% to over 100%) (one process a "
        "side); a larger batch or steps_per_execution would help (`batch_sizes=[32,128] steps_per_execution=[1,8]`)")
    assert limit_evidence(pd.Series(row)) == (
        "1.21 ms a step at b32, 86% [62%, over 100%] of it fixed (1.71 ms at b128); its FLOPs at the measured peak "
        "take 0.110 µs (0.00912%); no byte count; read from one process a side: repeats=3 checks it; a faster device "
        "would not")  # the lever's words the brief does not say
    assert limit_brief(pd.Series({**row, "limit": INPUT, "input_share": 0.94})).startswith(
        "**input-bound**: it trains at 94% of its input pipeline's own rate")
    assert limit_evidence(pd.Series({**row, "limit": INPUT, "input_share": 0.94})).startswith(
        "a faster input pipeline (decoded data cached, more parallel reads), not a faster device, would help")
    one = {**row, "limit": UNDETERMINED, "reason": ONE_BATCH, "batch2": 0}
    assert "no other batch of this configuration" in limit_evidence(pd.Series(one))
    assert "`batch_sizes=[32,64]`" in limit_brief(pd.Series(one))
    noisy = {**row, "limit": UNDETERMINED, "reason": STRADDLES, "fixed_share": 0.74, "fixed_low": 0.38}
    assert "its fixed share's interval straddles 50% and no floor decides" in limit_evidence(pd.Series(noisy))
    assert limit_brief(pd.Series(noisy)).endswith("(`repeats=5`)")
    five = limit_evidence(pd.Series({**row, "n_processes": 5, "process_labels": (OVERHEAD,) * 4 + (KERNEL,)}))
    assert "4 of 5 processes alone say the same" in five and "one process a side" not in five


def test_a_fixed_share_past_0_or_100_percent_is_worded_as_what_it_means() -> None:
    """φ is estimated from two step times, so noise or a step that grows faster than its batch puts the estimate or
    its interval past 0-100 %: "129% of the step is fixed" (the H200's fashion_cnn b128, 2026-11-27) means nothing
    to a reader; the words say what it does mean."""
    import pandas as pd

    from bench.reporting.render.markdown.limits import limit_brief, limit_evidence

    row = {"global_batch_size": 32, "limit": MEMORY, "step_ms": 10.4, "batch2": 512, "step2_ms": 332.0,
           "fixed_share": -0.93, "fixed_low": -1.2, "fixed_high": -0.7, "compute_floor_ms": 0.5,
           "memory_floor_ms": 6.0, "input_share": 0.01}
    assert "none of it fixed, below 0% throughout its 95% interval (332 ms at b512)" in limit_evidence(pd.Series(row))
    assert limit_brief(pd.Series({**row, "limit": KERNEL, "memory_floor_ms": 2.0})).startswith(
        "**kernel-bound**: the device's floors explain 19% of a 10.4 ms step, which grows with the batch")
    flat = {**row, "limit": UNDETERMINED, "reason": STRADDLES, "step2_ms": 9.0, "fixed_share": 1.04, "fixed_low": 0.38,
            "fixed_high": 1.29}
    assert limit_brief(pd.Series(flat)).startswith(
        "**undetermined**: all of a 10.4 ms step is fixed cost (95% interval 38% to over 100%; the step took no longer "
        "at the other batch)")
    inside = {**row, "limit": UNDETERMINED, "fixed_share": 0.74, "fixed_low": 0.38, "fixed_high": 0.999}
    assert "74% [38%, 100%] of it fixed" in limit_evidence(pd.Series(inside))


def _point(**kw):
    from bench.job.point import Point

    base = {"workload": "w", "strategy": "cpu", "steps_per_execution": 1, "precision": "float32", "repeat": 0,
            "seed": 0, "epochs": 3, "n_train": 256, "n_val": 64, "data_scale": "reduced", "global_batch_size": 32}
    return Point(**{**base, **kw})


def test_the_extra_stage_runs_only_where_the_sweep_has_one_batch_and_its_batch_fits() -> None:
    from bench.worker.second_batch import has_other_batch, second_batch_size

    p = _point()
    assert not has_other_batch(p, [p, _point(steps_per_execution=8), _point(repeat=1, global_batch_size=64)])
    assert has_other_batch(p, [p, _point(global_batch_size=128)])
    assert second_batch_size(32, 256, 1, 1) == 16  # half the batch: it fits wherever the point fitted
    assert second_batch_size(2, 256, 2, 1) == 4  # half is one example on two replicas: twice
    assert second_batch_size(6, 256, 2, 1) == 12  # half (3) does not split over two replicas: twice
    assert second_batch_size(128, 500, 1, 8) == 0  # half leaves 7 steps, twice 1: neither holds an execution of 8
    assert second_batch_size(1, 256, 1, 1) == 2 and second_batch_size(4, 6, 4, 1) == 0  # neither fits


def test_a_configuration_swept_at_one_batch_reads_its_extra_stage() -> None:
    """One process at b32 (10 ms a step), its extra stage at b64 took 11 ms a step: 90 % fixed, with the stage
    named as the source: host-bound where the floors explain 0.03 % of the step, overhead-bound where they explain
    3.2 %; without the stage, host-bound, or undetermined where the floor explains 32 % (neither 2 % nor 40 %
    decides)."""
    import pandas as pd

    from bench.reporting.analysis.limits import limits_frame
    from bench.reporting.render.markdown.limits import limit_evidence

    row = {"workload": "w", "dataset": "d", "strategy": "cpu", "global_batch_size": 32, "steps_per_execution": 1,
           "precision": "float32", "host": "h", "status": "ok", "examples_per_s": 3200.0, "repeat_rates": (3200.0,),
           "input_examples_per_s": math.nan, "flops_per_example": 1e3, "peak_flops_per_s": 1e11,
           "bytes_per_example": 1e3, "weight_bytes_per_step": 1e3, "peak_bytes_per_s": 1e10,
           "dispatch_s": 1e-4, "second_batch": 64, "second_step_s": 0.011, "second_rates": (64 / 0.011,)}
    row = identified(row)
    frame = limits_frame(pd.DataFrame([row]))
    lim = frame.iloc[0]
    assert lim["batch2"] == 64 and lim["batch2_from"] == "extra_stage" and lim["fixed_share"] == pytest.approx(0.9)
    assert lim["limit"] == HOST and "(11.0 ms at b64, a short extra stage)" in limit_evidence(lim)
    fuller = limits_frame(pd.DataFrame([{**row, "flops_per_example": 1e6}])).iloc[0]
    assert fuller["limit"] == OVERHEAD and "(11.0 ms at b64, a short extra stage)" in limit_evidence(fuller)
    # the stage's ratio carries the spread within one process (5.5 %), not between processes: 90 % [72 %, 105 %]
    assert (lim["fixed_low"], lim["fixed_high"]) == pytest.approx((0.72, 1.05), abs=0.01)
    alone = limits_frame(pd.DataFrame([{**row, "second_batch": 0, "second_step_s": math.nan, "second_rates": ()}]))
    assert alone.iloc[0]["limit"] == HOST and alone.iloc[0]["batch2_from"] == ""  # floors 0.32 and 3.3 µs of 10 ms
    heavy = {**row, "flops_per_example": 1e7, "second_batch": 0, "second_step_s": math.nan, "second_rates": ()}
    assert limits_frame(pd.DataFrame([heavy])).iloc[0]["reason"] == ONE_BATCH  # 3.2 ms of 10 ms: no line decides


def test_noise_within_a_process_rarely_makes_the_extra_stage_claim_overhead_at_the_line() -> None:
    """The extra stage times both batches in one process: the ratio's noise is the within-process spread (5.5 % each
    step time). A true fixed share of 0.5 is called overhead-bound in about 2.5 % of 20,000 simulated stages."""
    from bench.reporting.analysis.limits import IN_PROCESS_CV

    rng = np.random.default_rng(52)
    sd, n = math.log1p(IN_PROCESS_CV), 20_000
    log_sd = math.sqrt(2) * sd
    hits = sum(classify(Evidence(128, math.exp(e1), 256, _step2(0.5) * math.exp(e2), log_sd)).label == OVERHEAD
               for e1, e2 in zip(rng.normal(0, sd, n), rng.normal(0, sd, n), strict=True))
    assert hits / n <= 0.03


def test_levers_are_true_for_the_device_and_name_the_command_that_measures_them() -> None:
    """Mixed precision only where the device multiplies in 16 bits faster (a CPU with avx512_bf16, a GPU with tensor
    cores, a TPU), never on a CPU without the flags; every lever names its command; a kernel-bound configuration
    quotes the other backend the report measured, and does not claim it would help when it ran slower."""
    from bench.reporting.analysis.levers import narrow_math
    from bench.reporting.render.levers import lever_of

    assert narrow_math({"device_kind": "cpu", "cpu_flags": ("avx2", "avx512_bf16")}) == "bf16"
    assert narrow_math({"device_kind": "cpu", "cpu_flags": ("avx2", "avx512f")}) == "none"
    assert narrow_math({"device_kind": "cpu", "cpu_flags": ()}) == "unknown"  # a record from before the flags
    assert narrow_math({"device_kind": "gpu", "accelerator": "Tesla T4"}) == "fp16"  # tensor cores, no bf16
    assert narrow_math({"device_kind": "gpu", "accelerator": "NVIDIA H200"}) == "bf16"
    assert narrow_math({"device_kind": "tpu", "accelerator": "TPU v5 lite"}) == "bf16"
    base = {"global_batch_size": 32, "steps_per_execution": 1, "precision": "float32", "device_kind": "cpu",
            "backend": "tensorflow"}
    bf16 = lever_of({**base, "limit": COMPUTE, "narrow_math": "bf16"})
    assert "mixed precision" in bf16.text and bf16.command == "precisions=[float32,mixed_bfloat16]"
    none = lever_of({**base, "limit": COMPUTE, "narrow_math": "none"})
    assert "mixed precision would not" in none.text and none.codes == ("device",)
    assert lever_of({**base, "limit": COMPUTE, "narrow_math": "fp16", "device_kind": "gpu"}).command == (
        "precisions=[float32,mixed_float16]")
    assert lever_of({**base, "limit": OVERHEAD}).command == "batch_sizes=[32,128] steps_per_execution=[1,8]"
    assert "more cores would not" in lever_of({**base, "limit": OVERHEAD}).text  # on a CPU, not "a faster device"
    faster = lever_of({**base, "limit": KERNEL, "alt_strategy": "jax/cpu", "alt_ratio": 3.6})
    assert "jax/cpu ran it 3.60x faster at the same settings" in faster.text
    assert faster.command == "jit_compile=[false,true] backends=[tensorflow,jax,torch]"
    slower = lever_of({**base, "limit": KERNEL, "alt_strategy": "jax/cpu", "alt_ratio": 0.5})
    assert "no faster (jax/cpu ran it at 0.500x its speed" in slower.text and "would help" not in slower.text
    for label, reason in ((UNDETERMINED, ONE_BATCH), (UNDETERMINED, STRADDLES), (UNDETERMINED, NO_FLOORS),
                          (INPUT, ""), (MEMORY, ""), (HOST, ""), (MIXED, "")):
        assert lever_of({**base, "limit": label, "reason": reason, "narrow_math": "none"}).command, (label, reason)


def test_a_neighbours_load_undetermines_the_labels_read_from_the_floors_only() -> None:
    """others_busy at the 25 % line: compute-, memory-, kernel-bound and mixed become undetermined (neighbour);
    input- and overhead-bound, read from two measurements under the same load, stay; under the line nothing moves."""
    from bench.reporting.analysis.limits import NEIGHBOUR

    grows = {"batch": 128, "step_s": 1.0, "batch2": 256, "step2_s": _step2(0.1), "log_sd": TIGHT}
    flat = {**grows, "step2_s": _step2(0.9)}
    cases = ((Evidence(**grows, compute_floor_s=0.5), COMPUTE), (Evidence(**grows, memory_floor_s=0.5), MEMORY),
             (Evidence(**grows, compute_floor_s=0.1, memory_floor_s=0.05), KERNEL),
             (Evidence(**flat, compute_floor_s=0.3), MIXED))
    for ev, label in cases:
        assert classify(ev).label == label
        assert classify(replace(ev, others_busy=0.2499)).label == label
        loaded = classify(replace(ev, others_busy=0.25))
        assert loaded.label == UNDETERMINED and loaded.reason == NEIGHBOUR
    assert classify(Evidence(**flat, compute_floor_s=0.01, others_busy=0.5)).label == OVERHEAD
    assert classify(Evidence(128, 1.0, input_share=0.9, others_busy=0.5)).label == INPUT


def test_far_from_the_roofs_needs_whole_floors() -> None:
    """With layers the counts do not see into, a floor is a lower bound: a roof it reaches stands (the true floor is
    higher), but kernel- and host-bound, which say the floors explain little, become undetermined (partial count)."""
    from bench.reporting.analysis.limits import PARTIAL_COUNT

    grows = {"batch": 128, "step_s": 1.0, "batch2": 256, "step2_s": _step2(0.1), "log_sd": TIGHT}
    missed = ("MultiHeadAttention (8,352 params)",)
    assert classify(Evidence(**grows, compute_floor_s=0.1, memory_floor_s=0.05)).label == KERNEL
    partial = classify(Evidence(**grows, compute_floor_s=0.1, memory_floor_s=0.05, uncounted=missed))
    assert partial.label == UNDETERMINED and partial.reason == PARTIAL_COUNT
    host = Evidence(128, 1.0, compute_floor_s=0.001, memory_floor_s=0.001, uncounted=missed)
    assert classify(host).reason == PARTIAL_COUNT
    assert classify(Evidence(**grows, compute_floor_s=0.5, uncounted=missed)).label == COMPUTE
