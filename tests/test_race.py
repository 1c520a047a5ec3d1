"""Adaptive repeats (issue 36, bench.reporting.analysis.race): the A/A rate of a false claim, agreement with full
sweeps of known truth, and a replay of a real ``repeats=5`` sweep of the cnn suite (tests/data/race_cnn_r5.json.gz); the
figures are in docs/statistics.md. Simulated configurations are the race's input, a summary row each; repeats are
drawn as log-normal throughputs with the process-to-process spread measured here (16 %)."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench.reporting.analysis.race import (
    MISSES_TARGET,
    RUNNING,
    SEPARATED,
    SIGMA_PRIOR,
    Race,
    Standing,
    pooled_sigma,
    t_critical,
)
from bench.reporting.frames.keys import CONFIG_KEY, config_key
from bench.reporting.render.words import race_reason_text
from tests.rows import identified, labelled_points

FIXTURE = Path(__file__).parent / "data" / "race_cnn_r5.json.gz"
TRIALS = 400
REPLAYS = 200


def said(standing: Standing) -> str:
    """Why a configuration stands where it does, in the report's words."""
    return race_reason_text(standing.reason)


def row(c: tuple[str, str, int, int], rates: list[float], **kw) -> dict:
    """One summary row as :func:`bench.reporting.frames.summary.summarize` gives it, with only what the race reads, for
    configuration ``c`` = (workload, strategy, global batch, spe)."""
    return identified({"workload": c[0], "dataset": "d", "strategy": c[1], "global_batch_size": c[2],
            "steps_per_execution": c[3], "precision": "float32", "host": "h", "backend": "tensorflow",
            "strategy_requested": c[1], "strategy_name": c[1], "status": "ok", "n_points": len(rates),
            "repeat_rates": tuple(rates), "not_learning": "", "n_seeds": len(rates), "target_accuracy": 0.8,
            "n_reached": len(rates), "final_val_accuracy": 0.9, **kw})


def key(c: tuple[str, str, int, int]) -> tuple:
    return config_key(row(c, []))


def run_race(full: dict[tuple, list[float]], most: int = 5) -> tuple[dict, dict[tuple, list[float]]]:
    """A race over repeats drawn in order from a full sweep (``full``: configuration -> its throughput per repeat,
    examples/s): every configuration gets one, then each round one more for those still running; returns (the
    final standings by config key, the repeats each configuration got)."""
    n = dict.fromkeys(full, 1)
    stopped: dict = {}
    while True:
        got = {c: full[c][:n[c]] for c in full}
        standings = Race(pd.DataFrame([row(c, got[c]) for c in full]), most).standings(stopped=stopped)
        stopped.update({k: st for k, st in standings.items() if not st.running and k not in stopped})
        running = [c for c in full if standings[key(c)].running]
        if not running:
            return standings, got
        for c in running:
            n[c] += 1


def draw(truth: dict[tuple, float], sigma: float, rng: np.random.Generator, n: int = 5) -> dict[tuple, list[float]]:
    """A full sweep of ``n`` repeats of configurations of true throughput ``truth``, log-SD ``sigma`` per repeat."""
    return {c: [t * math.exp(rng.normal(0, sigma)) for _ in range(n)] for c, t in truth.items()}


def winners(got: dict[tuple, list[float]]) -> dict[str, tuple]:
    """Per workload, the configuration of highest geometric-mean throughput among those given."""
    best: dict[str, tuple] = {}
    for c, r in got.items():
        if c[0] not in best or np.mean(np.log(r)) > np.mean(np.log(got[best[c[0]]])):
            best[c[0]] = c
    return best


def speedup_claims(got: dict[tuple, list[float]], looks: int) -> set[tuple]:
    """The configurations whose speedup over their baseline (cpu at the same workload, batch and spe) a report
    claims: the interval at 1 - 0.05/looks (bench.reporting.frames.speedups for a raced run) excludes 1."""
    from bench.reporting.stats.ratio import CONFIDENCE, repeat_ratio_ci

    found = set()
    for c, r in got.items():
        base = (c[0], "cpu", c[2], c[3])
        if c[1] != "cpu" and base in got and repeat_ratio_ci(r, got[base], 1 - (1 - CONFIDENCE) / looks).significant:
            found.add(c)
    return found


# The cnn suite's fashion_cnn configurations on this box: the means of the recorded repeats=5 sweep (examples/s)
CNN = {("fashion_cnn", "cpu", 32, 1): 7260, ("fashion_cnn", "cpu", 32, 8): 8540, ("fashion_cnn", "cpu", 128, 1): 8450,
       ("fashion_cnn", "cpu", 128, 8): 9810, ("fashion_cnn", "cpu_x2", 32, 1): 4980,
       ("fashion_cnn", "cpu_x2", 32, 8): 6240, ("fashion_cnn", "cpu_x2", 128, 1): 8420,
       ("fashion_cnn", "cpu_x2", 128, 8): 10840, ("catsdogs_cnn", "cpu", 32, 8): 164,
       ("catsdogs_cnn", "cpu_x2", 32, 8): 142}


@pytest.mark.parametrize(("n_configs", "sigma"), [(2, SIGMA_PRIOR), (4, SIGMA_PRIOR), (2, 0.25)])
def test_equal_configurations_are_told_apart_at_most_5_percent_of_the_time(n_configs, sigma) -> None:
    """A/A: every configuration of a workload at the same true throughput, a 16 % process-to-process spread (and a
    25 % one, above the race's prior). A false claim: a configuration called out or separated, or a speedup interval
    excluding 1 at the end. Measured (seed 0, TRIALS races of max_repeats=5): docs/statistics.md; asserted: 5 % plus
    two standard errors."""
    rng = np.random.default_rng(0)
    truth = dict.fromkeys([("w", "cpu", 32, 1), ("w", "cpu_x2", 32, 1), ("w", "cpu", 32, 8),
                           ("w", "cpu_x2", 32, 8)][:n_configs], 100.0)
    false = 0
    for _ in range(TRIALS):
        standings, got = run_race(draw(truth, sigma, rng))
        false += bool(speedup_claims(got, 5)) or any(st.state in ("out", "separated") for st in standings.values())
    assert false / TRIALS <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / TRIALS), false / TRIALS


@pytest.mark.parametrize(("sigma", "most_time"), [(0.045, 0.55), (SIGMA_PRIOR, 0.85)])
def test_a_race_gives_the_full_sweeps_answer_for_a_fraction_of_its_time(sigma, most_time) -> None:
    """Known truth: the cnn suite's configurations at their measured means, repeats drawn with the spread measured in
    that sweep (4.5 %) and with the 16 % of a noisy day; the race runs over the full repeats=5 sweep's first draws.
    Same winner per workload in >= 95 % of sweeps, and a speedup claimed only where the full sweep claims it."""
    rng = np.random.default_rng(0)
    same = extra = used = 0
    for _ in range(TRIALS):
        full = draw(CNN, sigma, rng)
        _, got = run_race(full)
        same += winners(got) == winners(full)
        extra += bool(speedup_claims(got, 5) - speedup_claims(full, 1))
        used += sum(len(v) for v in got.values())
    share = used / (TRIALS * 5 * len(CNN))
    assert same / TRIALS >= 0.95 and extra / TRIALS <= 0.05 and share <= most_time, (same, extra, share)


def test_the_rules_one_by_one() -> None:
    cpu, x2 = ("w", "cpu", 32, 1), ("w", "cpu_x2", 32, 1)
    fast, slow = [300.0, 310.0, 290.0], [100.0, 104.0, 96.0]  # a measured spread of about 3 %

    def standing(*rows: dict, **kw) -> dict:
        found = Race(pd.DataFrame(rows), 5).standings(**kw)
        at = [CONFIG_KEY.index(c) for c in ("strategy_name", "global_batch_size", "steps_per_execution")]
        named = {tuple(k[i] for i in at): st for k, st in found.items()}
        return {k[0] if k[1:] == (32, 1) else k: st for k, st in named.items()}  # b32 spe1 by strategy

    s = standing(row(cpu, [300.0]), row(x2, [100.0]))  # 3x apart, but one repeat each: no spread measured yet
    assert {st.state for st in s.values()} == {RUNNING}
    s = standing(row(cpu, fast), row(x2, slow))
    assert (s["cpu_x2"].state, s["cpu"].state) == ("out", "separated")  # cpu is its own baseline: settled
    s = standing(row(cpu, [1000.0, 1030.0], n_reached=0), row(x2, slow[:2]))  # 10x apart; the leader missed its
    assert (s["cpu_x2"].state, s["cpu"].state, said(s["cpu"])) == ("out", RUNNING, "leader")  # target: 3 seeds
    s = standing(row(cpu, [1000.0, 1030.0]), row(x2, slow[:2]))  # ... reached it in both: ranked as it stands
    assert (s["cpu_x2"].state, s["cpu"].state) == ("out", "separated")
    s = standing(row(cpu, [100.0, 101.0]), row(x2, [104.0, 103.0]))  # within the noise: both run on
    assert (said(s["cpu_x2"]), s["cpu"].state) == ("leader", RUNNING)
    s = standing(row(cpu, [100.0] * 5), row(x2, [104.0, 99, 101, 103, 100]))
    assert {st.state for st in s.values()} == {"max"}
    s = standing(row(cpu, [100.0, 102, 98]), row(x2, fast, n_reached=1))  # the target in 1 of 3 seeds
    assert s["cpu_x2"].state == MISSES_TARGET and s["cpu"].state == SEPARATED
    s = standing(row(cpu, [100.0, 102]), row(x2, fast[:2], n_reached=0))  # 2 seeds: not judged yet
    assert s["cpu_x2"].state != MISSES_TARGET
    s = standing(row(cpu, [100.0]), row(x2, [104.0]), spent_s=60, budget_s=50)
    assert {st.state for st in s.values()} == {"budget"}
    # a stop is final: an earlier look's "out" stays, whatever this look's data say
    out = Race(pd.DataFrame([row(cpu, [1000.0, 1030.0]), row(x2, slow[:2])]), 5).standings()[key(x2)]
    assert out.state == "out"
    s = standing(row(cpu, [1000.0, 1030.0, 120.0]), row(x2, slow[:2]), stopped={key(x2): out})
    assert s["cpu_x2"] == out and s["cpu"].state == "separated"  # fresh, x2 would be within the noise now
    # no target: a slower configuration more accurate than the leader is the trade-off, and the leader runs on
    s = standing(row(cpu, fast, target_accuracy=math.nan, final_val_accuracy=0.6),
                 row(x2, slow, target_accuracy=math.nan, final_val_accuracy=0.85))
    assert (said(s["cpu_x2"]), said(s["cpu"])) == ("slower but more accurate than the leader", "leader")
    s = standing(row(cpu, fast, target_accuracy=math.nan), row(x2, slow, target_accuracy=math.nan))
    assert (s["cpu_x2"].state, s["cpu"].state) == ("out", "separated")
    # every running configuration keeps its baseline running (seeds stay paired), even one that is out itself
    s = standing(row(cpu, [100.0, 102.0]), row(x2, [400.0, 404.0]), row(("w", "cpu_x2", 128, 8), [410.0, 405.0]),
                 row(("w", "cpu", 128, 8), [390.0, 395.0]))
    assert s["cpu"].running and said(s["cpu"]).startswith("baseline of a running configuration (out after 2")


def test_pooled_spread_and_critical_values() -> None:
    assert pooled_sigma([(100.0,), (50.0,)]) == (SIGMA_PRIOR, 0)  # nothing to pool: the prior
    rates = [tuple(100 * math.exp(x) for x in (-0.01, 0.01)), tuple(50 * math.exp(x) for x in (-0.01, 0.01))] * 3
    sigma, df = pooled_sigma(rates)
    assert df == 6 and sigma == pytest.approx(math.sqrt(2 * 0.01 ** 2), rel=1e-6)  # measured, below the prior
    from scipy import stats

    assert t_critical(0.01, 6) == pytest.approx(stats.t.ppf(0.99, 6))
    assert t_critical(0.01, 2) == pytest.approx(stats.t.ppf(0.99, 2))
    assert t_critical(0.01, 0) == math.inf  # no spread measured: nothing is told apart


def recorded() -> tuple[dict[tuple, list[float]], dict[tuple, list[float]]]:
    """The recorded repeats=5 sweep of the cnn suite (2026-11-25, the 2-core box; its ok configurations, val
    predictions left out): throughput per repeat (examples/s) and point seconds per repeat, by configuration."""
    from bench.records import as_records

    pts = labelled_points(as_records(json.loads(gzip.decompress(FIXTURE.read_bytes()))))
    pts = pts[pts["status"] == "ok"].sort_values("repeat")
    rates, wall = {}, {}
    for k, g in pts.groupby(["workload", "strategy", "global_batch_size", "steps_per_execution"], sort=True):
        rates[k], wall[k] = list(g["repeat_examples_per_s"]), list(g["point_wall_s"])
    return rates, wall


def test_replaying_the_recorded_cnn_sweep() -> None:
    """Each replay shuffles the order of every configuration's five recorded repeats and races over them; the
    answer (winner per workload, speedup claims) is compared with the full sweep's, and the point seconds of the
    repeats the race used with the sweep's. Figures: docs/statistics.md."""
    rates, wall = recorded()
    assert len(rates) == 10 and {len(v) for v in rates.values()} == {5}
    full_claims = speedup_claims(rates, 1)
    rng = np.random.default_rng(0)
    same = extra = 0
    used = []
    for _ in range(REPLAYS):
        order = {c: rng.permutation(5) for c in rates}
        _, got = run_race({c: [rates[c][i] for i in order[c]] for c in rates})
        same += winners(got) == winners(rates)
        extra += bool(speedup_claims(got, 5) - full_claims)
        used.append(sum(wall[c][i] for c in got for i in order[c][:len(got[c])]) / sum(map(sum, wall.values())))
    assert same / REPLAYS >= 0.95 and extra / REPLAYS <= 0.05 and np.mean(used) <= 0.5, (same, extra, np.mean(used))


def test_a_raced_runs_speedup_intervals_are_drawn_at_the_adjusted_level() -> None:
    """Every ratio the report shows (the results table, the answer, report.json) goes through ratio_ci: at 95 % for a
    fixed number of repeats, at 1 - 0.05/looks for records of a repeats=auto run."""
    from bench.reporting.frames.speedups import ratio_ci
    from bench.reporting.stats.ratio import repeat_ratio_ci

    a, b = (100.0, 104.0, 98.0, 101.0), (90.0, 93.0, 91.0, 95.0)
    plain = ratio_ci(pd.Series({"repeat_rates": a}), pd.Series({"repeat_rates": b}))
    raced = ratio_ci(pd.Series({"repeat_rates": a, "race_looks": 5}), pd.Series({"repeat_rates": b, "race_looks": 1}))
    assert (plain.low, plain.high) == (repeat_ratio_ci(a, b).low, repeat_ratio_ci(a, b).high)
    assert (raced.low, raced.high) == pytest.approx((repeat_ratio_ci(a, b, 0.99).low, repeat_ratio_ci(a, b, 0.99).high))
    assert raced.low < plain.low and raced.high > plain.high


def test_a_look_sees_only_the_repeats_before_it_so_a_resumed_race_decides_as_the_run_did() -> None:
    """standings_of decides look by look from the records (bench.runner.racing asks it between rounds, a resumed
    run and the report ask it again): later rounds' records left in the folder change no earlier decision."""
    from bench.records import as_records
    from bench.reporting.analysis.race import standings_of
    from bench.reporting.analysis.race_replay import replay

    pts = labelled_points(as_records(json.loads(gzip.decompress(FIXTURE.read_bytes()))))
    for look in (2, 3):
        assert standings_of(pts, 5, looks=look) == standings_of(pts[pts["repeat"] < look], 5, looks=look)
    final = standings_of(pts, 5)
    stopped_at_2 = {k: st for k, st in standings_of(pts, 5, looks=2).items() if not st.running}
    assert all(final[k] == st for k, st in stopped_at_2.items())  # a stop is final
    assert replay(pts) is None  # these records are of a fixed repeats=5 run: no race to report
