"""The report over the first real GPU records: one NVIDIA H200 under JAX and PyTorch, 2026-11-27 (bench at
079c469; tests/data/gpu_h200_2026_11_27 holds that run's records and run.json without its worker logs, the run
described in docs/findings.md). What those records got wrong must stay fixed for records written before the fix:
the device that ran is priced and in its own lower-bound table at the arithmetic that ran (issue 50)."""

from __future__ import annotations

import itertools
import json
import math
import re
import statistics
from pathlib import Path

import pytest

from bench.reporting.commands import report_main
from bench.reporting.render.markdown.cost import bound_cell
from bench.reporting.render.text import sig
from tests.rows import labelled_points, summarized

H200 = Path(__file__).parent / "data" / "gpu_h200_2026_11_27"
RUNS = ("r1", "r2", "r3", "b", "a/1", "a/2", "a/3", "a/4")
H200_TF32 = 495e12  # NVIDIA's dense TF32 peak of an H200 SXM (FLOP/s), bench.measure.datasheets


def _report(out: Path, *extra: str) -> str:
    assert report_main([*(str(H200 / r) for r in RUNS), f"out={out}", *extra]) == 0
    return (out / "report.md").read_text()


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> str:
    return _report(tmp_path_factory.mktemp("h200"))


def _section(text: str, title: str, heading: str) -> str:
    """The ``heading`` subsection of the workload section whose title starts with ``title``."""
    start = text.index(f"\n## {title}")
    part = text[text.index(f"### {heading}", start):]
    return part[:part.index("\n### ", 4)]


def _table(part: str) -> list[dict[str, str]]:
    """The first markdown table in ``part``, as one dict per row."""
    start = part.index("\n| ")
    lines = [ln for ln in itertools.takewhile(lambda ln: ln.startswith("|"), part[start + 1:].splitlines())
             if ln.startswith("| ")]
    head = [c.strip() for c in lines[0].split("|")[1:-1]]
    return [dict(zip(head, [c.strip() for c in ln.split("|")[1:-1]], strict=True)) for ln in lines[1:]]


def _number(cell: str) -> float:
    return float(re.sub(r"[^0-9.]", "", cell.split()[0] if cell[0].isdigit() else cell))


def test_the_h200_that_ran_is_priced(report) -> None:
    cost = _table(_section(report, "fashion_cnn", "Cost"))
    gpu = [r for r in cost if r["configuration"].startswith("jax/gpu")]
    assert gpu and {r["priced as"] for r in gpu} == {"gpu-h200 x 1 GPU"} and {r["USD/h"] for r in gpu} == {"$10.85"}
    assert "| gpu-h200 | $10.85 " in report  # Prices used: with its basis, source and date


def test_the_device_that_ran_is_in_its_own_lower_bound_at_the_arithmetic_that_ran(report) -> None:
    """fashion_cnn on the full 60,000 images: 2,293,012 training FLOPs an example (the records' count), 468 steps of
    128 an epoch: 137.4 GFLOP, >= 0.278 ms on an H200 at its TF32 peak (the float32 run's arithmetic), not its bf16
    peak; the measured epoch is that bound times the ratio printed beside it."""
    rec = json.loads(next((H200 / "r2").rglob("fashion_cnn-jax-gpu-b128-spe6-fp32-r0.json")).read_text())
    assert rec["math_mode"] == "tf32" and rec["precision"] == "float32"
    flops = rec["flops_per_example"] * rec["steps_per_epoch"] * rec["global_batch_size"]
    bound = flops / H200_TF32
    part = _section(report, "fashion_cnn on synthetic (full", "What this model could reach")
    part = part[part.index("#### Floors, not predictions"):]  # the floors, under the devices' table
    rows = {r["device"]: r for r in _table(part)}
    compute = next(c for c in rows["H200 (TF32)"] if c.startswith("compute floor"))
    assert f"{sig(flops / 1e9)} GFLOP" in part and rows["H200 (TF32)"][compute] == bound_cell(bound)
    assert {"B200 (TF32)", "TPU v6e chip (BF16)", "T4 (FP32)"} <= set(rows)  # T4 has no TF32
    measured = float(re.search(r": ([\d.]+) s of training an epoch", part).group(1))
    assert _number(rows["H200 (TF32)"]["measured ÷ largest floor"]) == pytest.approx(measured / bound, rel=0.01)
    # the H200 that ran, at its measured peak: these records predate the byte count (no memory floor)
    here = rows["NVIDIA H200, measured"][compute]  # at the run's highest probe (this record's within a few %)
    assert here.startswith("≥ ") and 1e-3 * _number(here[2:]) == pytest.approx(
        flops / rec["peak_flops_per_s"]["float32"], rel=0.05)
    assert {r["measured ÷ largest floor"] for k, r in rows.items()
            if k not in ("H200 (TF32)", "NVIDIA H200, measured")} == {""}


def test_no_figure_is_printed_in_exponent_notation(report) -> None:
    number = r"(?<![A-Za-z0-9.])\d+(?:\.\d+)?[eE][+-]\d"  # 1.2e+02, not a name like v6e-1
    assert not re.search(number, report), re.findall(r".{40}" + number + ".{20}", report)


def test_an_unpriced_device_shows_device_time_and_the_price_that_would_break_even(tmp_path) -> None:
    """With the H200's price taken away (a user's file), its rows show GPU-seconds per million examples and the
    hourly price at which each would cost what the cheapest priced row (a CPU one here) costs; no sentence says
    every configuration ran at one price, and a workload where nothing is priced says so."""
    f = tmp_path / "mine.yaml"
    f.write_text("prices:\n  gpu-h200:\n    kind: gpu\n    match: [H200]\n    unit: GPU\n    usd_per_hour: null\n"
                 "    note: not ours to say\n    source: a test\n    read: 2026-11-27\n")
    text = _report(tmp_path / "out", f"prices={f}")
    part = _section(text, "fashion_cnn on synthetic (reduced", "Cost")
    rows = _table(part)
    priced = [_number(r["USD per 1M examples"]) for r in rows if r["USD/h"].startswith("$")]
    gpu = [r for r in rows if r["priced as"] == "no price (gpu-h200)"]
    assert priced and gpu and f"{len(gpu)} of {len(rows)} configurations ran on a device without a price" in part
    for r in gpu:
        unit_s = _number(r["USD per 1M examples"].removesuffix(" GPU-s"))
        even = _number(r["USD/h"].split("even at ")[1].removesuffix("/GPU"))
        assert r["USD per 1M examples"].endswith(" GPU-s") and r["USD/epoch"] == "—"
        assert even == pytest.approx(min(priced) * 3600 / unit_s, rel=0.02)  # printed to 3 digits each
        assert "◆" not in r["configuration"]
    catsdogs_full = _section(text, "catsdogs_cnn on synthetic (full", "Cost")
    assert "No configuration here ran on a device with a price" in catsdogs_full
    assert "Every configuration ran at one price" not in catsdogs_full and "GPU-s" in catsdogs_full
    assert math.isfinite(min(priced))


def test_a_points_mfu_is_held_against_its_own_backends_probe() -> None:
    """catsdogs_cnn on the H200 under JAX and PyTorch in one run: torch's probe read 51 TFLOP/s (float32 matmuls in
    full FP32, its default), JAX's 380 (TF32). Each backend's MFU divides by its own probe: torch's is not divided by
    JAX's peak (0.6 % shown before, about 4 % against its own)."""
    from bench.records import load_records

    records = load_records([H200 / "b"], warn=False).records
    probes = {r["backend"]: r["peak_flops_per_s"]["float32"] for r in records}
    assert probes["torch"] < probes["jax"] / 5  # two arithmetics, one GPU
    summary = summarized(labelled_points(records)).set_index("backend")
    for backend in ("jax", "torch"):
        row = summary.loc[backend]
        by_hand = 100 * row["flops_per_example"] * row["examples_per_s"] / probes[backend]
        assert row["mfu_pct"] == pytest.approx(by_hand, rel=1e-9), backend
    assert 3 < summary.loc["torch", "mfu_pct"] < 6


def test_jax_allocator_peaks_from_before_the_step_analysis_are_said_to_be_the_process_s(report) -> None:
    """Every JAX GPU record of that run reads the same 1,480,590,592-byte peak (1,412 MiB: bench's probe, run
    before the first point); torch resets its peak per point (catsdogs_cnn full: 548 MiB). The results table marks
    the JAX figure as the process's, with the legend, and never shows it as the model's."""
    rows = _table(_section(report, "catsdogs_cnn on synthetic (full", "Results"))
    memory = {r["backend"]: r["device MiB"] for r in rows}
    assert memory["jax"] == "1,412 (process, probe)" and memory["torch"].isdigit()
    assert "Device MiB (process, probe): the worker's allocator peak, bench's matmul probe included" in report


def test_the_report_says_these_gpu_records_carry_no_gpu_environment(report) -> None:
    assert "GPU on vm: not recorded (records from an older bench: no driver, CUDA, memory" in report


def test_the_answer_weighs_torch_compile_against_eager_in_epochs(report) -> None:
    """fashion_cnn full under PyTorch, b128 spe1: torch.compile's first epoch compiles (22 s); its steady epochs
    are shorter than eager's. Redone from the two records: n* = (extra warm-up) / (epoch time saved), whole epochs."""
    def epochs(name: str) -> list[float]:
        rec = json.loads(next((H200 / "r3").rglob(name)).read_text())
        return [e["train_s"] for e in rec["epochs"]]  # training seconds, as the warm-up and examples/s

    def warmup_and_steady(times: list[float]) -> tuple[float, float]:
        steady = statistics.median(times[1:])
        return times[0] - steady, steady

    (w_e, t_e), (w_c, t_c) = (warmup_and_steady(epochs(f"fashion_cnn-torch-gpu{c}-b128-spe1-fp32-r0.json"))
                              for c in ("", "-compile"))
    n = math.ceil((w_c - w_e) / (t_e - t_c))
    line = next(ln for ln in report.splitlines() if ln.startswith("- **Compiler:**"))
    assert line.startswith("- **Compiler:** torch/gpu (torch.compile) at b128 spe1 float32 runs ")
    assert f"after {w_c - w_e:.1f} s more warm-up: ahead in total after {n} epochs" in line and n == 13


def test_a_warm_up_measured_after_other_points_of_its_process_is_marked(report) -> None:
    """The quickstart's JAX gpu worker ran four fashion_cnn points one after another (warm-ups 2.32, 1.12, 2.18,
    1.25 s): only the first found a fresh process; the other three are marked, in the table and in the answer."""
    recs = [json.loads(f.read_text()) for f in (H200 / "r1").rglob("fashion_cnn-jax-gpu-*.json")]
    first = min(recs, key=lambda r: r["started_at"])
    label = f"b{first['global_batch_size']} spe{first['steps_per_execution']}"
    results = _section(report, "fashion_cnn on synthetic (reduced", "Results")
    assert "Every row: backend jax," in results  # one backend: said once under the table, not a column
    rows = [r for r in _table(results) if r["strategy"] == "gpu"]
    assert len(rows) == 4
    marked = {f"b{r['global batch']} spe{r['spe']}": r["warm-up s"].endswith(" †") for r in rows}
    assert marked == {k: k != label for k in marked}, (label, marked)
    assert "(measured in a worker process that had run other points first" in report


def test_backends_at_different_arithmetic_are_said_to_be_so(report) -> None:
    """JAX ran the H200's float32 matmuls and convolutions in TF32; PyTorch its matmuls in FP32 (its default: its
    probe read 51 TFLOP/s, under the H200's 67 FP32 peak) and its cuDNN convolutions in TF32. These records
    predate ``arithmetic`` and say ``tf32`` for both: the report infers torch's matmuls from its probe, says so,
    and the backend comparison says the two ran different arithmetic."""
    line = next(ln for ln in report.splitlines() if ln.startswith("- **Fastest backend per strategy:**"))
    assert "at different arithmetic (jax tf32; torch matmul fp32, conv tf32 (matmul inferred from its probe))" in line
    peaks = _table(report[report.index("### Peaks used for MFU"):report.index("\n## ", report.index("### Peaks"))])
    assert {p["math mode"] for p in peaks if p["backend"] == "torch"} == {
        "matmul fp32, conv tf32 (matmul inferred from its probe)"}


def test_the_arithmetic_a_new_record_names_is_shown_per_op_class() -> None:
    from bench.records import as_records
    from bench.reporting.frames.points import arithmetic_of
    from tests.conftest import make_record

    def text(**kw) -> str:
        ops, inferred = arithmetic_of(as_records([make_record(**kw)])[0])
        assert inferred is False  # a record that names its arithmetic, or a math_mode that needs no inference
        return ops

    assert text(arithmetic={"matmul": "tf32", "conv": "tf32"}, math_mode="tf32") == "tf32"
    assert text(arithmetic={"conv": "tf32", "matmul": "fp32"}, math_mode="tf32") == "matmul fp32, conv tf32"
    assert text(math_mode="fp32") == "fp32" and text() == ""


def test_torch_on_the_cpu_names_fp32_for_both_op_classes() -> None:
    pytest.importorskip("torch")
    from bench.engines import StrategyInfo
    from bench.engines.torch.device import arithmetic

    info = StrategyInfo("cpu", "cpu", "none", 1, ["cpu:0"], "cpu")
    assert arithmetic(info, "float32") == {"matmul": "fp32", "conv": "fp32"}
    assert arithmetic(info, "mixed_bfloat16") == {"matmul": "bf16", "conv": "bf16"}


def test_where_the_time_went_says_how_much_of_the_gpu_run_trained(report) -> None:
    """r2: three JAX workers on the H200, one point each. Redone from the records: of the workers' wall time (their
    start-ups + their points' wall times), the matmul probe took 36 % and training (every epoch's training seconds)
    19 %: on a rented GPU bench's own probe cost more than the training it measured."""
    recs = [json.loads(f.read_text()) for f in (H200 / "r2").rglob("*-r?.json")]
    assert len(recs) == 3 and len({r["process"]["pid"] for r in recs}) == 3
    total = sum(r["point_wall_s"] + r["process"]["startup_s"] for r in recs)
    probe = sum(r["peak_measure_s"] for r in recs)
    training = sum(e["train_s"] for r in recs for e in r["epochs"])
    rows = {r["where"]: r[recs[0]["run_id"]] for r in _table(report[report.index("### Where the time went"):])}
    assert rows["- of which the peak probe"] == f"{probe:.1f} ({100 * probe / total:.0f}%)" == "21.8 (36%)"
    assert rows["- of which training epochs"] == f"{training:.1f} ({100 * training / total:.0f}%)" == "11.6 (19%)"
    assert rows["workers' time (their start-ups and points)"] == f"{total:.1f}"


def test_the_not_learning_reasons_are_true_of_the_records_that_made_a_false_one() -> None:
    """The JAX catsdogs_cnn records of the H200's quickstart said "val accuracy 0.453 within 2 pp of chance 0.547":
    0.453 is 9.4 pp below chance, every image predicted as one class after a saturated start (issue 51). Now each
    reason is checked against the record's own numbers, over every record of the fixtures."""
    from bench.predictions import decode
    from bench.records import load_records, upgrade
    from bench.reporting.frames.learning import CHANCE_MARGIN_PP, learning_reasons
    from bench.reporting.render.words import not_learning_text

    records = [upgrade(r) for r in load_records([H200 / r for r in RUNS]).records if r["status"] == "ok"]
    said = {}
    for r in records:
        verdict = not_learning_text(learning_reasons(r))
        acc, chance = r.epochs[-1].val_accuracy, r.dataset.chance_accuracy
        if "within" in verdict:
            assert abs(acc - chance) <= CHANCE_MARGIN_PP / 100, verdict
        if "below chance" in verdict:
            assert acc < chance - CHANCE_MARGIN_PP / 100, verdict
        if "predicted for all" in verdict:
            assert len(set(decode(r.val_predictions).predicted.tolist())) == 1, verdict
        said[(r.workload, r.strategy.name, r.dataset.scale, r.repeat)] = verdict
    flagged = {k: v for k, v in said.items() if v}
    assert {k[:2] for k in flagged} == {("catsdogs_cnn", s) for s in ("cpu", "cpu_x2", "gpu")}, flagged
    for verdict in flagged.values():
        assert "val accuracy 0.453 is 9.4 pp below chance 0.547" in verdict and "within" not in verdict
        assert "one class (0) predicted for all 256 validation examples" in verdict
        assert re.search(r"saturated start: epoch 1's loss 6\.16 is 8\.8[89]x", verdict)  # 6.16 / 0.693


def test_the_quickstart_that_learned_nothing_gets_no_speed_headline_and_says_what_to_try(report) -> None:
    """The H200 quickstart's catsdogs_cnn under JAX learned nowhere, and its section printed a 61x speedup, a
    lower bound, a cost table with a Pareto mark and a speedup heatmap (issue 51). Now it says why, for each
    configuration, and what to try, and presents none of those as an answer."""
    start = report.index("\n## catsdogs_cnn on synthetic (reduced, n_train=256)")
    part = report[start:report.index("\n## ", start + 5)]
    assert "### Does not learn" in part and part.count("9.4 pp below chance 0.547") == 3
    assert "What to try: a saturated start and one class predicted are what a loss read from probabilities" in part
    assert "from_logits=True trains alike on every backend" in part
    assert not any(h in part for h in ("### Cost", "### What this model", "-speedup.png", "-cost.png", "61.23x", "◆"))
    assert "speedup vs cpu — (not learning)" in part  # every row's: said once under the table
    answer = report[report.index("## The answer"):report.index("## Environment")]
    assert "**No configuration learns** (3 finished)" in answer and "*Does not learn*" in answer


def test_backends_are_compared_with_each_other_without_tensorflow_and_their_agreement_said_in_words(report) -> None:
    """No TensorFlow on the H200 box: JAX and PyTorch were compared with nothing ("No finished points to compare"),
    though from the same seed and initial weights they agreed on 9,998 of 10,000 fashion images (issue 51). Counted
    by hand from the stored predictions too."""
    from bench.predictions import decode
    from bench.records import load_records

    findings = _section(report, "fashion_cnn on synthetic (full", "Findings")
    assert ("JAX and PyTorch gave the same prediction on 9,998 of 10,000 validation examples from the same seed "
            "(gpu at b128 spe1 float32)") in findings
    findings = _section(report, "catsdogs_cnn on synthetic (full", "Findings")
    assert "JAX and PyTorch gave the same prediction on 1,964 of 2,000 validation examples" in findings
    recs = {r["backend"]: decode(r["val_predictions"]) for r in load_records([H200 / "b"]).records}
    assert int((recs["jax"].predicted == recs["torch"].predicted).sum()) == 1964
    parity = report[report.index("## Accuracy parity"):]
    assert "| torch     | gpu        | jax/gpu (other backend) |" in parity


def test_a_model_that_learns_on_one_backend_and_not_another_is_said_first() -> None:
    import pandas as pd

    from bench.reporting.frames.learning import BELOW_CHANCE, LOSS_FELL_LITTLE, SATURATED, NotLearning, Reason
    from bench.reporting.render.markdown.findings import backend_contrast

    def flagged(*reasons: Reason) -> NotLearning:
        return NotLearning(reasons, 1, 1, 0)

    base = {"status": "ok", "global_batch_size": 32, "steps_per_execution": 1, "precision": "float32"}
    summary = pd.DataFrame([
        {**base, "strategy": "cpu", "not_learning": NotLearning()},
        {**base, "strategy": "jax/cpu", "not_learning": flagged(Reason(BELOW_CHANCE, (0.453, 9.4, 0.547)),
                                                                 Reason(SATURATED, (6.16, 8.9, 2, 0.69)))},
        {**base, "strategy": "torch/cpu", "not_learning": flagged(Reason(LOSS_FELL_LITTLE, (1.0, 3, 5)))},
        {**base, "strategy": "jax/cpu_x2", "not_learning": "x"},  # no other backend ran cpu_x2: no contrast
    ])
    split = summary["strategy"].str.partition("/")  # the columns a record's label is made from
    summary = summary.assign(backend=[b if s else "tensorflow" for b, s in zip(split[0], split[1], strict=True)],
                             strategy_label=[r or b for b, r in zip(split[0], split[2], strict=True)])
    lines = backend_contrast(summary)
    assert len(lines) == 2 and lines[0].startswith(
        "- **Learns under TensorFlow, not under JAX**, from the same seed and batches: jax/cpu at b32 spe1 float32")
    assert "Likely cause: a saturated start and one class predicted are what a loss read from probabilities" in lines[0]
    assert lines[1].startswith("- **Learns under TensorFlow, not under PyTorch**") and "Likely cause" not in lines[1]
    assert "(val accuracy 0.453 is 9.4 pp below chance 0.547; saturated start: epoch 1's loss 6.16" in lines[0]
    assert backend_contrast(summary.assign(not_learning=[NotLearning()] * len(summary))) == []


def test_records_of_an_earlier_builtin_definition_are_said_to_be_so_and_never_pooled_with_todays(report) -> None:
    """The H200 records trained catsdogs_cnn with the tutorial's sigmoid output (revision 1, before 2026-11-28,
    issue 51); today's reads logits. The report says so in the workload's section; merged with records of today's
    definition, the earlier ones get their own label (never one configuration); a user's workload of the same name is
    its own."""
    from bench.records import as_records, load_records
    from bench.records.revisions import CURRENT, earlier_definition
    from bench.reporting.frames.identity import workload_labels

    part = report[report.index("\n## catsdogs_cnn on synthetic (full, n_train=8000)"):]
    said = ("**Not today's workload**: these records trained `catsdogs_cnn` as an older bench defined it: a "
            "sigmoid output read as probabilities")
    assert said in part[:part.index("### Best configuration")] and report.count(said) == 1  # written once
    reduced = report[report.index("\n## catsdogs_cnn on synthetic (reduced, n_train=256)"):]
    assert ("**Not today's workload**: as under *catsdogs_cnn on synthetic (full, n_train=8000)*"
            in reduced[:reduced.index("### Does not learn")])
    assert "the old form trains today as `catsdogs_cnn_sigmoid`" in part
    # issue 74 item 5: every change between revision 1 and today's, the target's included (they ran against 0.70)
    note = part[part.index("**Not today's workload**"):].split("\n", 1)[0]
    for change in ("logits out, read with from_logits=True", "64 x 64 inputs", "512 training images",
                   "target 0.85 at the reduced scale (0.70 before)"):
        assert change in note, change
    from bench.reporting.render.words import earlier_text
    rev2 = earlier_definition("catsdogs_cnn", 2)
    said2 = earlier_text(("catsdogs_cnn", rev2.output, rev2.literal, rev2.change, *rev2.changes))
    assert "target 0.85" in said2 and "64 x 64 inputs" in said2 and "logits" not in said2
    old = [r for r in as_records(load_records([H200 / "r1"]).records) if r.workload == "catsdogs_cnn"]
    assert old and all(r.workload_revision is None for r in old)
    today = [r.model_copy(update={"workload_revision": CURRENT["catsdogs_cnn"]}) for r in old]
    assert set(workload_labels(old)) == {"catsdogs_cnn"} == set(workload_labels(today))
    assert workload_labels([old[0], today[0]]) == ["catsdogs_cnn/sigmoid output, earlier definition", "catsdogs_cnn"]
    logits_128 = old[0].model_copy(update={"workload_revision": 2})  # logits, 128 x 128 inputs (before 64 x 64)
    assert workload_labels([logits_128, today[0]]) == ["catsdogs_cnn/128 x 128 inputs, earlier definition",
                                                       "catsdogs_cnn"]
    assert earlier_definition("catsdogs_cnn", None, source="my_pkg.models:catsdogs_cnn") is None
    assert earlier_definition("catsdogs_cnn_sigmoid", None) is None  # the literal variant: its only definition


def test_the_results_table_flags_what_limits_a_configuration(report) -> None:
    """Issue 52: fashion_cnn's JAX/GPU rows at batch 32 (its other batch in the records: 128) are flagged
    overhead-bound in the results table; rows without a second batch or within the noise carry no limit flag."""
    rows = [r for r in _table(_section(report, "fashion_cnn on synthetic (reduced", "Results"))
            if "overhead-bound" in r["flags"]]
    assert len(rows) == 2 and all(r["strategy"] == "gpu" and r["global batch"] == "32" for r in rows)
    assert sum("overhead-bound" in line for line in report.splitlines() if line.startswith("|")) == 2
    assert "| undetermined" not in report


def test_a_backends_ratio_is_named_with_its_compiler(report) -> None:
    """Issue 74: on the full data set PyTorch's best on the GPU is torch.compile's (45,190 examples/s over JAX's
    134,335: 0.336x); the line named it plain 'torch', whose eager run the line before gives as 0.156x."""
    lines = [ln for ln in report.splitlines() if ln.startswith("- **Fastest backend per strategy:**")]
    assert any("then torch (torch.compile) at b128 spe1 float32 0.336x" in ln for ln in lines), lines
    assert not any("then torch at b128 spe1 float32 0.336x" in ln for ln in lines)


def test_report_json_withholds_the_speedup_report_md_withholds_and_gives_flags_as_codes(tmp_path) -> None:
    """Issue 74 item 3: catsdogs_cnn under JAX on the H200 does not learn; report.md prints "— (not learning)" where
    report.json gave 60.77. Now report.json has no ratio for it, says why as a code, and every configuration's flags
    come as codes beside their words, one code per flag."""
    _report(tmp_path)
    data = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    stuck = [c for c in data["configurations"] if c["workload"] == "catsdogs_cnn" and "reduced" in c["dataset"]
             and c["strategy"] == "jax/gpu"]
    assert stuck and all(c["speedup"] is None and c["speedup_withheld"] == "not_learning" for c in stuck)
    assert all("not_learning" in c["flag_codes"] for c in stuck)
    worded = {"not_learning", "target_missed", "below_reference", "two_speeds", "parity"}  # the rest: other fields
    for c in data["configurations"]:
        assert len(set(c["flag_codes"]) & worded) == len(c["flags"]), (c["flags"], c["flag_codes"])
        assert ("trending" in c["flag_codes"]) == c["trending"]
        assert ("epoch_too_short" in c["flag_codes"]) == c["epoch_too_short"]
        assert (c["speedup_withheld"] is None) or c["speedup"] is None
        if c["status"] == "ok" and not c["learns"]:
            assert c["speedup"] is None
