"""The per-configuration frame (:func:`summarize`): one row per workload x dataset x strategy x global batch x
steps_per_execution x precision, the repeats of a configuration pooled, with its speedup
(:mod:`bench.reporting.frames.speedups`). Definitions: :mod:`bench.reporting.frames.points`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from bench.records import RecordLike
from bench.reporting.frames.keys import CONFIG_KEY, ORDER
from bench.reporting.frames.learning import configuration_not_learning
from bench.reporting.frames.points import COMPILED, points_frame
from bench.reporting.frames.speedups import DEFAULT_BASELINE, add_speedups
from bench.reporting.frames.targets import target_columns
from bench.reporting.stats.sample import as_float, finite_median, geometric_mean, summarize_sample
from bench.reporting.stats.spread import two_speeds
from bench.reporting.stats.trend import drift, trending

INPUT_BOUND_FRACTION = 0.8  # training reaches >= 80 % of the input pipeline's own rate
# A steady epoch's training under 0.1 s is too short to time: what each epoch pays once (callbacks, the iterator's
# restart, the host's scheduling; milliseconds) is then a visible share of it, and a speedup from it says more about
# those than about training (the H200 run's 28 ms epochs gave "61.23x"): a larger n_train times it.
SHORT_EPOCH_S = 0.1
STATUS_ORDER = ("ok", "diverged", "failed", "skipped")
# Summary columns taken from a configuration's first point (equal across its points, or the first one's).
FIRST_OF_GROUP = ("section", "strategy_id", "host_key", "dataset_sha256", "keras", "strategy_class", "device_kind",
                  "num_replicas", "accelerator", "cpu_count", "cpu_flags", "flops_uncounted", "flop_count",
                  "env_var_names", "per_replica_batch_size", "math_mode", "arithmetic", "arithmetic_inferred",
                  "earlier_definition")  # besides its key's columns (CONFIG_KEY)


def _per_repeat(name: str, values: Sequence[float]) -> dict[str, Any]:
    """Column ``name``: one finite value per ok repeat (a process), in the points' order; with ``name_median``,
    ``name_low`` and ``name_high`` (NaN without any): the spreads report.json gives."""
    kept = tuple(v for v in values if math.isfinite(v))
    return {name: kept, f"{name}_median": finite_median(kept), f"{name}_low": min(kept) if kept else math.nan,
            f"{name}_high": max(kept) if kept else math.nan}


def _reason(g: dict[str, list[Any]], bad: list[int]) -> dict[str, Any]:
    """Why a configuration's points did not all finish: the first such point's reason and its kind, and how many."""
    return {"error": "" if not bad else str(g["error"][bad[0]] or ""),
            "error_type": "" if not bad else str(g["error_type"][bad[0]] or ""), "n_not_ok": len(bad)}


def _summarize_group(g: dict[str, list[Any]], input_bound_fraction: float) -> dict[str, Any]:
    """One configuration's summary row from its points (column -> values, one per point): what it is, how its points
    ended, then its timing, learning, compute and memory columns."""
    ok_at = [i for i, s in enumerate(g["status"]) if s == "ok"]
    ok = {c: [v[i] for i in ok_at] for c, v in g.items()}
    statuses = set(g["status"])
    status = next(s for s in STATUS_ORDER if s in statuses) if not ok_at else "ok"
    bad = [i for i, s in enumerate(g["status"]) if s != "ok"]
    first = {c: v[0] for c, v in g.items()}
    timing = _timing(g, ok, bool(ok_at))
    return {"host": ", ".join(sorted(set(g["host"]))), **{c: first[c] for c in FIRST_OF_GROUP},
            "status": status, "n_points": len(g["status"]), "n_ok": len(ok_at), **_reason(g, bad), **timing,
            "final_val_accuracy": finite_median(ok["final_val_accuracy"]), **target_columns(ok),
            "chance_accuracy": finite_median(g["chance_accuracy"]),
            "not_learning": configuration_not_learning(list(ok["seed"]), list(ok["not_learning"])),
            **_compute(ok, first, timing["examples_per_s"], input_bound_fraction), **_memory(g, first),
            "race_looks": int(max(g["race_looks"]))}


def _timing(g: dict[str, list[Any]], ok: dict[str, list[Any]], any_ok: bool) -> dict[str, Any]:
    """Steady epochs and training time (seconds), throughput per process and pooled (examples/s), warm-up, and the
    steps that ran."""
    epoch_s = tuple(v for t in ok["steady_epoch_s"] for v in t if math.isfinite(v))
    repeat_rates = tuple(v for v in ok["repeat_examples_per_s"] if math.isfinite(v))
    summ = summarize_sample(epoch_s)
    train = summarize_sample([v for t in ok["steady_train_s"] for v in t])
    found = two_speeds(per_process := tuple(finite_median(t) for t in ok["steady_train_s"] if len(t)))  # per process
    fresh = [e for e, first in zip(ok["epoch1_train_s"], ok["first_in_process"], strict=True) if first]
    return {
        "epoch_s_samples": epoch_s, "n_steady": summ.n, "epoch_s_median": summ.median,
        "epoch_s_q1": summ.q1, "epoch_s_q3": summ.q3, "epoch_s_iqr": summ.iqr, "epoch_s_cv": summ.cv,
        "train_s_median": train.median, "train_s_iqr": train.iqr,
        "process_train_s": per_process, **_steady_state(ok, train.median),
        "two_speeds": found,  # a TwoSpeeds, or None (bench.reporting.stats.spread; its text: render.text)
        **_per_repeat("repeat_rates", repeat_rates), "n_repeats": len(repeat_rates),
        "examples_per_s": geometric_mean(repeat_rates),
        **_per_repeat("repeat_train_s", [finite_median(t) for t in ok["steady_train_s"]]),
        **_per_repeat("repeat_epoch_s", [finite_median(t) for t in ok["steady_epoch_s"]]),
        **_per_repeat("others_busy", ok["others_busy"]),  # a neighbour's share of the CPUs per process
        "one_step": sum(bool(v) for v in ok.get("one_step", ())), "n_val_eval": finite_median(ok["n_val_eval"]),
        # warm-up from the points that were first in a fresh process where there are any (a later point's is
        # shorter: libraries loaded, kernels compiled); warmup_after_others marks a figure from later points only
        "warmup_overhead_s": finite_median(fresh or ok["epoch1_train_s"]) - train.median
        + finite_median(ok["stage_warmup_s"]),
        "warmup_after_others": any_ok and not any(ok["first_in_process"]),
        "spe_requested": tuple(sorted({int(v) for v in g["spe_requested"]})),  # the requests behind what ran
        "steps_per_epoch": finite_median(as_float(v) for v in g["steps_per_epoch"])}


def _compute(ok: dict[str, list[Any]], first: dict[str, Any], ex_s: float, input_bound_fraction: float
             ) -> dict[str, Any]:
    """The input pipeline's own rate against training, FLOPs, peaks, bytes and the extra stage, GFLOP/s and MFU (none
    from a count that misses layers, unless XLA counted the whole step)."""
    inp = finite_median(ok["input_examples_per_s"])
    flops, peak = finite_median(ok["flops_per_example"]), finite_median(ok["run_peak_flops_per_s"])
    sheet, gflops = finite_median(ok["datasheet_peak_flops_per_s"]), flops * ex_s / 1e9
    partial = bool(first["flops_uncounted"]) and first["flop_count"] != COMPILED  # no GFLOP/s, MFU: XLA's count only
    return {
        "input_examples_per_s": inp,
        "input_bound": bool(math.isfinite(inp) and ex_s >= input_bound_fraction * inp),
        "input_share": ex_s / inp if inp > 0 else math.nan,  # of the rate its input pipeline delivers alone
        "flops_per_example": flops, "gflops_per_s": gflops if not partial else math.nan, "peak_flops_per_s": peak,
        "dispatch_s": finite_median(ok["dispatch_s"]),  # one compiled call's fixed cost (the matmul probe's)
        **{c: finite_median(ok[c]) for c in ("peak_bytes_per_s", "bytes_per_example", "weight_bytes_per_step")},
        **_second_batch(ok),
        # above 100 %: the probe measured less than the model reached; shown as no figure, never as > 100 %
        "mfu_pct": 100 * gflops * 1e9 / peak if peak > 0 and gflops * 1e9 <= peak and not partial else math.nan,
        "mfu_over_peak": bool(peak > 0 and gflops * 1e9 > peak and not partial),
        "mfu_datasheet_pct": 100 * gflops * 1e9 / sheet if sheet > 0 and not partial else math.nan}


def _memory(g: dict[str, list[Any]], first: dict[str, Any]) -> dict[str, Any]:
    """Peak memory (MiB): the process's, the device's (with its scope) and the compiled step's."""
    return {"peak_rss_mib": _max(g["peak_rss_mib"]), "device_peak_mib": _max(g["device_peak_mib"]),
            "device_scope": next((s for s in ("process+probe", "process") if s in set(g["device_scope"])),
                                 first["device_scope"]),
            "step_mib": _max(g["step_mib"])}


def _steady_state(ok: dict[str, list[Any]], train_s: float) -> dict[str, Any]:
    """Whether the steady state can be read as one: the epochs trained (each distinct count once: merged runs may
    differ), each process's drift over its steady epochs and whether any still trends
    (:mod:`bench.reporting.stats.trend`), and whether the median training epoch ``train_s`` (s) is too short to time."""
    return {"epochs": tuple(sorted({int(n) for n in ok["n_epochs"]})),
            "steady_drift": tuple(drift(t) for t in ok["steady_train_s"]),
            "trending": any(trending(t) for t in ok["steady_train_s"]),
            "too_short": bool(math.isfinite(train_s) and train_s < SHORT_EPOCH_S)}


def _second_batch(ok: dict[str, list[Any]]) -> dict[str, Any]:
    """The extra stage's batch (0: none), median seconds per step and examples/s per process, over the ok points
    that ran it at the commonest such batch."""
    sizes = [int(b) for b in ok["second_batch"] if b]
    if not sizes:
        return {"second_batch": 0, "second_step_s": math.nan, "second_rates": ()}
    size = max(set(sizes), key=sizes.count)
    steps = [s for b, s in zip(ok["second_batch"], ok["second_step_s"], strict=True) if b == size and s > 0]
    return {"second_batch": size, "second_step_s": finite_median(steps), "second_rates": tuple(size / s for s in steps)}


def _max(values: Any) -> float:
    """Largest finite value (a repeat's peak memory is a peak too), NaN when there is none."""
    finite = [v for v in values if math.isfinite(v)]
    return max(finite) if finite else math.nan


def summarize(records_or_points: Sequence[RecordLike] | pd.DataFrame, baseline: str = DEFAULT_BASELINE,
              input_bound_fraction: float = INPUT_BOUND_FRACTION) -> pd.DataFrame:
    """One row per configuration, repeats pooled, with speedup vs ``baseline`` (:mod:`bench.reporting.frames.speedups`).

    Accepts records or a :func:`points_frame`. A configuration none of whose repeats is ok keeps its
    row with the worst-first status (diverged > failed > skipped) and the first error; it is never
    dropped. Columns: CONFIG_KEY, host, status, n_points, n_ok, error, error_type, n_not_ok, epoch_s_* (s),
    examples_per_s, warmup_overhead_s (s), final_val_accuracy, not_learning (a NotLearning: false when it learns),
    input_bound, gflops_per_s, mfu_pct, mfu_datasheet_pct, baseline, speedup, speedup_low/high, speedup_significant.
    """
    points = records_or_points if isinstance(records_or_points, pd.DataFrame) else points_frame(
        records_or_points)
    if points.empty:
        return pd.DataFrame(columns=CONFIG_KEY)
    rows = [{**dict(zip(CONFIG_KEY, key, strict=True)), **_summarize_group(g, input_bound_fraction)}
            for key, g in _configurations(points)]
    return add_speedups(pd.DataFrame(rows), baseline)


def _configurations(points: pd.DataFrame) -> list[tuple[tuple[Any, ...], dict[str, list[Any]]]]:
    """The configurations of a points frame in its order (:data:`ORDER`): (key, its points as
    column -> list of values). Plain lists, because a configuration has a handful of points and pandas' indexing
    of one group cost more than its statistics (1,000 records: 0.36 s -> 0.1 s)."""
    points = points.sort_values(ORDER, kind="mergesort")
    grouped = points.groupby(CONFIG_KEY, sort=False, dropna=False)
    at: list[list[int]] = [[] for _ in range(grouped.ngroups)]
    for i, k in enumerate(grouped.ngroup().tolist()):
        at[k].append(i)
    columns = {c: points[c].tolist() for c in points.columns}
    groups = [{c: [v[i] for i in rows] for c, v in columns.items()} for rows in at]
    return [(tuple(g[c][0] for c in CONFIG_KEY), g) for g in groups]
