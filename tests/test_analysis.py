"""bench.analysis on the committed fixture records and on small hand-made frames."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench import analysis as an
from bench.records import load_records

RECORDS = Path(__file__).parent / "data" / "records"
CNN = "synthetic (reduced, n_train=12288)"


@pytest.fixture(scope="module")
def loaded():
    return load_records([RECORDS], warn=False)


@pytest.fixture(scope="module")
def result(loaded):
    return an.analyze(loaded.records)


def row(summary: pd.DataFrame, strategy: str, gb: int, spe: int, precision: str = "float32",
        workload: str = "fashion_cnn") -> pd.Series:
    sel = summary[(summary["workload"] == workload) & (summary["strategy"] == strategy)
                  & (summary["global_batch_size"] == gb) & (summary["steps_per_execution"] == spe)
                  & (summary["precision"] == precision)]
    assert len(sel) == 1, sel
    return sel.iloc[0]


def test_loader_skips_corrupt_and_newer_schema(loaded):
    assert len(loaded.records) == 35
    reasons = sorted(r for _, r in loaded.skipped)
    assert "unreadable (JSONDecodeError" in reasons[0]
    assert "schema_version 2 is newer" in reasons[1]


def test_points_frame_one_row_per_record(result):
    p = result.points
    assert len(p) == 35
    assert p["status"].value_counts().to_dict() == {"ok": 31, "skipped": 2, "diverged": 1, "failed": 1}


def test_host_added_to_label_only_when_needed(result):
    fashion = set(result.summary.loc[result.summary["workload"] == "fashion_cnn", "strategy"])
    assert fashion == {"cpu@hostA", "cpu@hostB", "cpu_x2", "gpu", "tpu"}
    imdb = set(result.summary.loc[result.summary["workload"] == "imdb_lstm", "strategy"])
    assert imdb == {"cpu"}


def test_auto_strategy_label_shows_resolution(loaded):
    rec = copy.deepcopy(loaded.records[0])
    rec["strategy"]["requested"] = "auto"
    assert an.strategy_labels([rec]) == [f"auto ({rec['strategy']['name']})"]


def test_steady_figures_pool_repeats(loaded, result):
    recs = [r for r in loaded.records if r["workload"] == "fashion_cnn" and r["strategy"]["name"] == "cpu_x2"
            and r["global_batch_size"] == 256 and r["steps_per_execution"] == 8]
    assert len(recs) == 2
    steady = [e for r in recs for e in r["epochs"] if e["epoch"] >= 2]
    r = row(result.summary, "cpu_x2", 256, 8)
    assert r["n_steady"] == len(steady) == 8
    assert r["epoch_s_median"] == pytest.approx(np.median([e["epoch_s"] for e in steady]))
    assert r["examples_per_s"] == pytest.approx(np.median([e["examples"] / e["train_s"] for e in steady]))
    q1, q3 = np.percentile([e["epoch_s"] for e in steady], [25, 75])
    assert r["epoch_s_iqr"] == pytest.approx(q3 - q1)
    epoch1 = np.median([r_["epochs"][0]["epoch_s"] for r_ in recs])
    assert r["warmup_overhead_s"] == pytest.approx(epoch1 - r["epoch_s_median"])


def test_speedup_uses_same_host_baseline(result):
    s = result.summary
    tpu = row(s, "tpu", 256, 32)
    base = row(s, "cpu@hostB", 256, 32)
    assert tpu["baseline"] == "cpu@hostB"
    assert tpu["speedup"] == pytest.approx(base["epoch_s_median"] / tpu["epoch_s_median"])
    assert tpu["speedup_low"] < tpu["speedup"] < tpu["speedup_high"]
    assert tpu["speedup_significant"]
    assert row(s, "cpu_x2", 64, 1)["baseline"] == "cpu@hostA"
    assert row(s, "cpu_x2", 64, 1)["speedup"] < 1  # 2 replicas on 2 cores: slower at small batch
    assert not row(s, "cpu_x2", 256, 1)["speedup_significant"]  # ~ in the report
    # No float32-free baseline for mixed_bfloat16: no speedup rather than a wrong one.
    bf16 = row(s, "tpu", 1024, 32, "mixed_bfloat16")
    assert bf16["baseline"] == "" and math.isnan(bf16["speedup"])


def test_baseline_is_configurable(loaded):
    s = an.summarize(loaded.records, baseline="cpu_x2")
    r = row(s, "cpu@hostA", 64, 1)
    assert r["baseline"] == "cpu_x2"
    assert r["speedup"] > 1


def test_non_ok_configurations_are_kept(result):
    s = result.summary
    assert row(s, "gpu", 64, 8)["status"] == "skipped"
    assert "StrategyUnavailable" in row(s, "gpu", 64, 8)["error"]
    assert row(s, "tpu", 4096, 32)["status"] == "failed"
    assert row(s, "tpu", 4096, 32)["error"].startswith("ResourceExhaustedError: Attempting to reserve")
    assert row(s, "tpu", 2048, 32, "mixed_bfloat16")["status"] == "diverged"


def test_flags(result):
    s = result.summary
    imdb = s[s["workload"] == "imdb_lstm"]
    assert (imdb["not_learning"] != "").all()
    assert (s.loc[s["workload"] == "fashion_cnn", "not_learning"] == "").all()
    bound = s[s["input_bound"]]
    assert sorted(zip(bound["global_batch_size"], bound["steps_per_execution"], bound["precision"],
                      strict=True)) == [(256, 32, "float32"), (1024, 32, "float32"),
                                        (1024, 32, "mixed_bfloat16")]
    flagged = s[s["parity_flag"]]
    assert list(zip(flagged["strategy"], flagged["global_batch_size"], flagged["steps_per_execution"],
                    strict=True)) == [("cpu_x2", 256, 8)]


def test_parity_table(result):
    p = result.parity
    r = p[(p["strategy"] == "cpu_x2") & (p["global_batch_size"] == 256) & (p["steps_per_execution"] == 8)]
    assert r["baseline"].item() == "cpu@hostA"
    assert r["diff_pp"].item() == pytest.approx(-2.365, abs=0.01)
    assert r["flag"].item()


def test_parity_tolerance_is_configurable(loaded):
    assert not an.analyze(loaded.records, parity_tolerance_pp=3.0).summary["parity_flag"].any()


def test_flops_and_mfu(result):
    r = row(result.summary, "cpu@hostA", 256, 8)
    assert r["gflops_per_s"] == pytest.approx(15_780_000 * r["examples_per_s"] / 1e9)
    assert r["mfu_pct"] == pytest.approx(100 * r["gflops_per_s"] * 1e9 / 2.3e11)
    assert math.isnan(r["mfu_datasheet_pct"])
    bf16 = row(result.summary, "tpu", 1024, 32, "mixed_bfloat16")  # looked up as "bfloat16"
    assert bf16["mfu_pct"] == pytest.approx(100 * bf16["gflops_per_s"] * 1e9 / 1.0e14)
    assert bf16["mfu_datasheet_pct"] == pytest.approx(100 * bf16["gflops_per_s"] * 1e9 / 4.2e14)
    assert math.isnan(row(result.summary, "cpu", 64, 1, workload="imdb_lstm")["gflops_per_s"])  # no flops


def test_best_and_winner(result):
    best = result.best[result.best["workload"] == "fashion_cnn"].set_index("strategy")
    assert an.config_name(best.loc["tpu"]) == "b1024 spe32 float32"
    assert an.config_name(best.loc["cpu@hostA"]) == "b256 spe8 float32"
    win = result.winners.set_index("workload")
    assert win.loc["fashion_cnn", "strategy"] == "tpu"
    assert win.loc["imdb_lstm", "strategy"] == "cpu"  # nothing learns there: still named


def test_winner_prefers_learning_configuration():
    s = pd.DataFrame([
        {"workload": "w", "dataset": "d", "strategy": "fast", "status": "ok", "examples_per_s": 100.0,
         "epoch_s_median": 1.0, "not_learning": "val accuracy at chance"},
        {"workload": "w", "dataset": "d", "strategy": "slow", "status": "ok", "examples_per_s": 50.0,
         "epoch_s_median": 2.0, "not_learning": ""},
    ])
    assert an.winners(s)["strategy"].tolist() == ["slow"]


def _configs(*rows: tuple[int, float, float]) -> pd.DataFrame:
    return pd.DataFrame([{"workload": "w", "dataset": "d", "strategy": "tpu", "global_batch_size": gb,
                          "steps_per_execution": 1, "precision": "float32", "status": "ok",
                          "examples_per_s": 1.0 / t, "warmup_overhead_s": w, "epoch_s_median": t}
                         for gb, w, t in rows])


def test_break_even_definition():
    # quick: w=2 s, t=10 s; fast: w=32 s, t=4 s. Totals w + n t are equal at n = 30 / 6 = 5 (52 s each).
    be = an.break_even(_configs((64, 2.0, 10.0), (128, 32.0, 4.0)))
    r = be.iloc[0]
    assert (r["quick"], r["fast"]) == ("b64 spe1 float32", "b128 spe1 float32")
    assert r["break_even_epochs_exact"] == pytest.approx(5.0)
    assert r["break_even_epochs"] == 5
    assert 2.0 + 5 * 10.0 == 32.0 + 5 * 4.0


def test_break_even_rounds_up_and_handles_no_trade_off():
    assert an.break_even(_configs((64, 2.0, 10.0), (128, 35.0, 4.0))).iloc[0]["break_even_epochs"] == 6
    dominated = an.break_even(_configs((64, 2.0, 4.0), (128, 5.0, 10.0))).iloc[0]
    assert dominated["quick"] == dominated["fast"] and dominated["break_even_epochs"] == 1
    assert an.break_even(_configs((64, 2.0, 4.0))).empty  # one configuration: nothing to compare


def test_break_even_on_fixtures(result):
    tpu = result.break_even.set_index(["workload", "strategy"]).loc[("fashion_cnn", "tpu")]
    assert tpu["quick"] == "b1024 spe1 float32" and tpu["fast"] == "b1024 spe32 float32"
    expected = (tpu["fast_warmup_s"] - tpu["quick_warmup_s"]) / (tpu["quick_epoch_s"] - tpu["fast_epoch_s"])
    assert tpu["break_even_epochs"] == math.ceil(expected) > 50


def _rec(losses, accs, classes=10, chance=None):
    ds = {"name": "x", "classes": classes}
    if chance is not None:
        ds["chance_accuracy"] = chance
    return {"dataset": ds, "epochs": [{"epoch": i + 1, "loss": lo, "val_accuracy": a}
                                      for i, (lo, a) in enumerate(zip(losses, accs, strict=True))]}


def test_learning_verdict():
    assert an.learning_verdict(_rec([1.0, 0.9], [0.5, 0.6])) == ""  # 10 % drop, far above chance
    assert "fell only 3.0%" in an.learning_verdict(_rec([1.0, 0.97], [0.5, 0.6]))
    assert "rose" in an.learning_verdict(_rec([1.0, 1.2], [0.5, 0.6]))
    assert "chance 0.100" in an.learning_verdict(_rec([1.0, 0.5], [0.1, 0.115]))  # fallback 1/classes
    assert an.learning_verdict(_rec([1.0, 0.5], [0.1, 0.125])) == ""  # 2.5 pp above chance
    assert "chance 0.500" in an.learning_verdict(_rec([1.0, 0.5], [0.5, 0.51], chance=0.5))
    assert an.learning_verdict(_rec([None, None], [None, None])) == ""  # nothing to judge


def test_minimal_record_without_optional_fields(loaded):
    rec = copy.deepcopy(next(r for r in loaded.records if r["status"] == "ok"))
    for k in ("flops_per_example", "peak_flops_per_s", "datasheet_peak_flops_per_s", "input_examples_per_s"):
        rec.pop(k, None)
    for e in rec["epochs"]:
        e.pop("train_s")
        e.pop("examples")
    s = an.summarize([rec])
    r = s.iloc[0]
    steady = [e for e in rec["epochs"] if e["epoch"] >= 2]
    assert r["examples_per_s"] == pytest.approx(
        np.median([e["steps"] * rec["global_batch_size"] / e["epoch_s"] for e in steady]))
    assert math.isnan(r["gflops_per_s"]) and not r["input_bound"]


def test_empty_input():
    a = an.analyze([])
    assert a.summary.empty and a.points.empty


def test_winner_considers_every_configuration_of_a_strategy():
    # cpu_x2's fastest configuration does not learn, but another of its configurations beats cpu
    s = pd.DataFrame([
        {"workload": "w", "dataset": "d", "strategy": "cpu", "status": "ok", "examples_per_s": 100.0,
         "epoch_s_median": 1.0, "not_learning": ""},
        {"workload": "w", "dataset": "d", "strategy": "cpu_x2", "status": "ok", "examples_per_s": 150.0,
         "epoch_s_median": 0.7, "not_learning": ""},
        {"workload": "w", "dataset": "d", "strategy": "cpu_x2", "status": "ok", "examples_per_s": 200.0,
         "epoch_s_median": 0.5, "not_learning": "val accuracy at chance"},
    ])
    win = an.winners(s)
    assert win["strategy"].tolist() == ["cpu_x2"] and win["examples_per_s"].tolist() == [150.0]


def test_auto_resolving_to_the_baseline_never_replaces_the_baseline(loaded):
    recs = [r for r in loaded.records if r["status"] == "ok" and r["strategy"]["name"] == "cpu"
            and r["env"]["hostname"] == "hostA"]
    auto = copy.deepcopy(recs)
    for r in auto:
        r["strategy"]["requested"] = "auto"
        r["point_id"] += "-auto"
        for e in r["epochs"]:
            e["epoch_s"] *= 2  # clearly slower than cpu
    s = an.summarize(recs + auto)
    auto_rows = s[s["strategy"].str.startswith("auto")]
    assert not auto_rows.empty
    assert set(s["baseline"]) == {"cpu"}
    assert (auto_rows["speedup"] < 0.75).all()  # compared with cpu, not with itself
