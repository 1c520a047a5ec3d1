"""Point records -> tidy pandas frames -> summaries, speedups and flags. Never imports TensorFlow.

Two frames:

* :func:`points_frame` has one row per record (one point, i.e. one repeat), with its raw steady-state
  samples kept as tuples.
* :func:`summarize` has one row per *configuration* (workload x dataset x strategy x global batch x
  steps_per_execution x precision): the repeats of a configuration are pooled.

Definitions (the report repeats them):

* steady state = epochs 2..n; the warm-up epoch (epoch 1) is never mixed into steady figures.
* ``epoch_s_median`` / ``epoch_s_q1`` / ``epoch_s_q3``: median and type-7 quartiles of ``epoch_s``
  (training + validation, seconds) over the steady epochs of every ok repeat, pooled.
* ``examples_per_s``: median over the same pooled steady epochs of ``examples / train_s`` (the training
  part only, validation excluded; ``epoch_s`` stands in when a record has no ``train_s``).
* ``warmup_overhead_s``: median over repeats of epoch-1 ``epoch_s`` minus the pooled steady median.
* ``speedup``: ``median(baseline epoch_s) / median(epoch_s)`` at equal workload, dataset, global batch,
  steps_per_execution and precision, with a bootstrap interval (:mod:`bench.stats`).
* ``gflops_per_s`` = ``flops_per_example * examples_per_s / 1e9``; ``mfu_pct`` = achieved over the
  measured ``peak_flops_per_s[precision]``; ``mfu_datasheet_pct`` the same over the vendor peak.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bench import stats
from bench.records import steady_epochs

DEFAULT_BASELINE = "cpu"
MIN_LOSS_DROP = 0.05  # training loss must fall by >= 5 % from epoch 1 to the last epoch
CHANCE_MARGIN_PP = 2.0  # final val accuracy within 2 percentage points of chance = not learning
INPUT_BOUND_FRACTION = 0.8  # training reaches >= 80 % of the input pipeline's own rate
PARITY_TOLERANCE_PP = 1.0

# A configuration; repeats of it are pooled. ``strategy`` is the display label (see strategy_labels).
CONFIG_KEY = ["workload", "dataset", "strategy", "global_batch_size", "steps_per_execution", "precision"]
# What must be equal for two strategies to be compared (speedup, accuracy parity).
MATCH_KEY = ["workload", "dataset", "global_batch_size", "steps_per_execution", "precision"]
STATUS_ORDER = ("ok", "diverged", "failed", "skipped")


def _num(x: Any) -> float:
    """A float, or NaN for None/non-numbers (records store NaN as null)."""
    try:
        f = float(x)
    except (TypeError, ValueError):
        return math.nan
    return f


def _last_finite(values: Iterable[Any]) -> float:
    vals = [v for v in (_num(x) for x in values) if math.isfinite(v)]
    return vals[-1] if vals else math.nan


def _peak_for(peak: Any, precision: str) -> float:
    """Look up a peak FLOP/s (dict keyed by dtype, or a plain number) for a Keras precision policy."""
    if isinstance(peak, dict):
        for key in (precision, precision.removeprefix("mixed_")):
            if key in peak:
                return _num(peak[key])
        return math.nan
    return _num(peak)


def error_text(error: Any) -> str:
    """``"Type: message"`` on one line ("" when there is no error)."""
    if not error:
        return ""
    if isinstance(error, dict):
        typ, msg = error.get("type") or "", error.get("message") or ""
        text = f"{typ}: {msg}" if typ and msg else typ or msg
    else:
        text = str(error)
    return " ".join(str(text).split())


def dataset_label(ds: dict[str, Any]) -> str:
    """``"synthetic (reduced, n_train=6000)"``: name plus what makes two datasets of that name differ."""
    name = ds.get("name") or "?"
    extra = [str(ds["scale"])] if ds.get("scale") else []
    if ds.get("n_train") is not None:
        extra.append(f"n_train={ds['n_train']}")
    if ds.get("pipeline") not in (None, "default"):
        extra.append(f"pipeline={ds['pipeline']}")  # a deliberately slow input pipeline is another dataset
    return f"{name} ({', '.join(extra)})" if extra else str(name)


def learning_verdict(record: dict[str, Any], min_loss_drop: float = MIN_LOSS_DROP,
                     chance_margin_pp: float = CHANCE_MARGIN_PP) -> str:
    """Why a record does not learn ("" when it does, or when it cannot be judged).

    Not learning = training loss fell by less than ``min_loss_drop`` (a fraction) from epoch 1 to the
    last epoch, or the final val accuracy is within ``chance_margin_pp`` percentage points of chance
    (``dataset.chance_accuracy``, else ``1 / dataset.classes``).
    """
    epochs = record.get("epochs") or []
    reasons = []
    if len(epochs) >= 2:
        first, last = _num(epochs[0].get("loss")), _num(epochs[-1].get("loss"))
        if math.isfinite(first) and math.isfinite(last) and first > 0:
            drop = (first - last) / first
            if drop < min_loss_drop:
                moved = f"fell only {100 * drop:.1f}%" if drop >= 0 else f"rose {-100 * drop:.1f}%"
                reasons.append(f"training loss {moved} from epoch 1 to {len(epochs)} "
                               f"(needs a {100 * min_loss_drop:.0f}% drop)")
    ds = record.get("dataset") or {}
    chance = _num(ds.get("chance_accuracy"))
    if not math.isfinite(chance) and _num(ds.get("classes")) > 0:
        chance = 1.0 / _num(ds["classes"])
    acc = _last_finite(e.get("val_accuracy") for e in epochs)
    if math.isfinite(chance) and math.isfinite(acc) and acc <= chance + chance_margin_pp / 100:
        reasons.append(f"val accuracy {acc:.3f} within {chance_margin_pp:g} pp of chance {chance:.3f}")
    return "; ".join(reasons)


def strategy_labels(records: list[dict[str, Any]]) -> list[str]:
    """Display label per record: the strategy name as typed, ``"@host"`` added only when needed.

    The label is the resolved name (``auto (cpu)`` when the user typed ``auto``). When one resolved
    name ran on two or more hosts for the same workload and dataset, those labels get ``@hostname``.
    """
    def scope(r: dict[str, Any]) -> tuple[str, str, str]:
        s = r.get("strategy") or {}
        return (str(r.get("workload")), dataset_label(r.get("dataset") or {}),
                str(s.get("name") or s.get("requested")))

    hosts: dict[tuple[str, str, str], set[str]] = {}
    for r in records:
        hosts.setdefault(scope(r), set()).add(_host(r))
    out = []
    for r in records:
        name = scope(r)[2]
        requested = (r.get("strategy") or {}).get("requested") or name
        label = name if requested == name else f"{requested} ({name})"
        out.append(f"{label}@{_host(r)}" if len(hosts[scope(r)]) > 1 else label)
    return out


def _host(record: dict[str, Any]) -> str:
    return str((record.get("env") or {}).get("hostname") or "unknown-host")


def points_frame(records: list[dict[str, Any]], min_loss_drop: float = MIN_LOSS_DROP,
                 chance_margin_pp: float = CHANCE_MARGIN_PP) -> pd.DataFrame:
    """One row per record, raw steady samples as tuples (seconds, examples_per_s), sorted by point."""
    labels = strategy_labels(records)
    rows = []
    for r, label in zip(records, labels, strict=True):
        s, ds, env = r.get("strategy") or {}, r.get("dataset") or {}, r.get("env") or {}
        # A skipped point may not know its global batch (per-replica sizing on absent hardware).
        gb = int(r.get("global_batch_size") or (r.get("point") or {}).get("batch_size") or 0)
        epochs = r.get("epochs") or []
        steady = steady_epochs(r)
        epoch_s = tuple(_num(e.get("epoch_s")) for e in steady)
        rates = []
        for e in steady:
            t = _num(e.get("train_s")) if e.get("train_s") is not None else _num(e.get("epoch_s"))
            n = _num(e.get("examples")) if e.get("examples") is not None else _num(e.get("steps")) * gb
            rates.append(n / t if t > 0 else math.nan)
        first = [e for e in epochs if e.get("epoch") == 1]
        workload = str(r["workload"]) + (f"/{r['workload_variant']}" if r.get("workload_variant") else "")
        precision = str(r["precision"])
        rows.append({
            "run_id": r["run_id"], "point_id": r["point_id"], "suite": r["suite"], "host": _host(r),
            "workload": workload, "dataset": dataset_label(ds), "dataset_name": ds.get("name"),
            "strategy": label, "strategy_requested": s.get("requested"), "strategy_name": s.get("name"),
            "device_kind": s.get("device_kind") if "device_kind" in s else env.get("device_kind"),
            "num_replicas": s.get("num_replicas"), "global_batch_size": gb,
            "per_replica_batch_size": r.get("per_replica_batch_size"),
            "steps_per_execution": int(r["steps_per_execution"]), "precision": precision,
            "repeat": r.get("repeat"), "seed": r.get("seed"), "status": r["status"],
            "error": error_text(r.get("error")), "n_epochs": len(epochs),
            "epoch1_s": _num(first[0].get("epoch_s")) if first else math.nan,
            "steady_epoch_s": epoch_s, "steady_train_s": tuple(_num(e.get("train_s")) for e in steady),
            "steady_examples_per_s": tuple(rates),
            "final_val_accuracy": _last_finite(e.get("val_accuracy") for e in epochs),
            "val_accuracy_curve": tuple((int(e.get("epoch", i + 1)), _num(e.get("val_accuracy")))
                                        for i, e in enumerate(epochs)),
            "chance_accuracy": _num(ds.get("chance_accuracy")) if ds.get("chance_accuracy") is not None
            else (1.0 / ds["classes"] if ds.get("classes") else math.nan),
            "not_learning": learning_verdict(r, min_loss_drop, chance_margin_pp) if r["status"] == "ok"
            else "",
            "input_examples_per_s": _num(r.get("input_examples_per_s")),
            "flops_per_example": _num(r.get("flops_per_example")),
            "peak_flops_per_s": _peak_for(r.get("peak_flops_per_s"), precision),
            "datasheet_peak_flops_per_s": _peak_for(r.get("datasheet_peak_flops_per_s"), precision),
        })
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    return frame.sort_values([*CONFIG_KEY, "repeat", "run_id", "point_id"], kind="mergesort",
                             ignore_index=True)


def _median(values: Iterable[float]) -> float:
    vals = [v for v in values if math.isfinite(v)]
    return float(np.median(vals)) if vals else math.nan


def _summarize_group(g: pd.DataFrame, input_bound_fraction: float) -> dict[str, Any]:
    ok = g[g["status"] == "ok"]
    statuses = set(g["status"])
    status = next(s for s in STATUS_ORDER if s in statuses) if ok.empty else "ok"
    bad = g[g["status"] != "ok"]
    epoch_s = tuple(v for t in ok["steady_epoch_s"] for v in t if math.isfinite(v))
    rates = [v for t in ok["steady_examples_per_s"] for v in t]
    summ = stats.summarize_sample(epoch_s)
    ex_s = _median(rates)
    inp = _median(ok["input_examples_per_s"])
    flops, peak = _median(ok["flops_per_example"]), _median(ok["peak_flops_per_s"])
    sheet = _median(ok["datasheet_peak_flops_per_s"])
    gflops = flops * ex_s / 1e9
    notes = sorted({n for n in ok["not_learning"] if n})
    first = g.iloc[0]
    return {
        "host": ", ".join(sorted(set(g["host"]))), "strategy_name": first["strategy_name"],
        "strategy_requested": first["strategy_requested"],
        "device_kind": first["device_kind"], "num_replicas": first["num_replicas"],
        "per_replica_batch_size": first["per_replica_batch_size"], "status": status,
        "n_points": len(g), "n_ok": len(ok),
        "error": "" if bad.empty else (bad.iloc[0]["error"] or "(no reason recorded)"),
        "epoch_s_samples": epoch_s, "n_steady": summ.n, "epoch_s_median": summ.median,
        "epoch_s_q1": summ.q1, "epoch_s_q3": summ.q3, "epoch_s_iqr": summ.iqr, "epoch_s_cv": summ.cv,
        "examples_per_s": ex_s,
        "warmup_overhead_s": _median(ok["epoch1_s"]) - summ.median,
        "final_val_accuracy": _median(ok["final_val_accuracy"]),
        "chance_accuracy": _median(g["chance_accuracy"]),
        "not_learning": "; ".join(notes), "input_examples_per_s": inp,
        "input_bound": bool(math.isfinite(inp) and ex_s >= input_bound_fraction * inp),
        "flops_per_example": flops, "gflops_per_s": gflops,
        "mfu_pct": 100 * gflops * 1e9 / peak if peak > 0 else math.nan,
        "mfu_datasheet_pct": 100 * gflops * 1e9 / sheet if sheet > 0 else math.nan,
    }


def summarize(records_or_points: list[dict[str, Any]] | pd.DataFrame, baseline: str = DEFAULT_BASELINE,
              input_bound_fraction: float = INPUT_BOUND_FRACTION) -> pd.DataFrame:
    """One row per configuration, repeats pooled, with speedup vs ``baseline`` (see module docstring).

    Accepts records or a :func:`points_frame`. A configuration none of whose repeats is ok keeps its
    row with the worst-first status (diverged > failed > skipped) and the first error; it is never
    dropped. Columns: CONFIG_KEY, host, status, n_points, n_ok, error, epoch_s_* (s), examples_per_s,
    warmup_overhead_s (s), final_val_accuracy, not_learning (reason text, "" = learns), input_bound,
    gflops_per_s, mfu_pct, mfu_datasheet_pct, baseline, speedup, speedup_low/high, speedup_significant.
    """
    points = records_or_points if isinstance(records_or_points, pd.DataFrame) else points_frame(
        records_or_points)
    if points.empty:
        return pd.DataFrame(columns=CONFIG_KEY)
    rows = [{**dict(zip(CONFIG_KEY, key, strict=True)), **_summarize_group(g, input_bound_fraction)}
            for key, g in points.groupby(CONFIG_KEY, sort=True, dropna=False)]
    summary = pd.DataFrame(rows)
    return add_speedups(summary, baseline)


def _baseline_rows(summary: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Rows of the baseline strategy: those requested as typed (``cpu``); only when there are none, those
    that resolved to it (``auto`` -> ``cpu``), so an ``auto`` run never silently replaces ``cpu``."""
    ok = summary[summary["status"] == "ok"]
    exact = ok[(ok["strategy_requested"] == baseline) | (ok["strategy"] == baseline)]
    return exact if not exact.empty else ok[ok["strategy_name"] == baseline]


def pick_baseline(row: pd.Series, candidates: pd.DataFrame) -> pd.Series | None:
    """The baseline configuration for ``row``: same match key; same host preferred, else first by label."""
    if candidates.empty:
        return None
    same = candidates[np.logical_and.reduce([candidates[k] == row[k] for k in MATCH_KEY])]
    if same.empty:
        return None
    local = same[same["host"] == row["host"]]
    return (local if not local.empty else same).sort_values("strategy").iloc[0]


def add_speedups(summary: pd.DataFrame, baseline: str = DEFAULT_BASELINE) -> pd.DataFrame:
    """Add ``baseline`` (label), ``speedup`` and its bootstrap interval to a :func:`summarize` frame."""
    summary = summary.copy()
    cands = _baseline_rows(summary, baseline)
    names = ("baseline", "speedup", "speedup_low", "speedup_high", "speedup_significant")
    cols: dict[str, list[Any]] = {k: [] for k in names}
    for _, row in summary.iterrows():
        base = pick_baseline(row, cands) if row["status"] == "ok" else None
        if base is None:
            ci = stats.RatioCI(math.nan, -math.inf, math.inf, 0, 0)
        elif base["strategy"] == row["strategy"]:
            ci = stats.RatioCI(1.0, 1.0, 1.0, row["n_steady"], row["n_steady"])
        else:
            ci = stats.ratio_of_medians_ci(base["epoch_s_samples"], row["epoch_s_samples"])
        cols["baseline"].append("" if base is None else base["strategy"])
        cols["speedup"].append(ci.ratio)
        cols["speedup_low"].append(ci.low)
        cols["speedup_high"].append(ci.high)
        cols["speedup_significant"].append(ci.significant)
    for k, v in cols.items():
        summary[k] = v
    return summary


def accuracy_parity(points: pd.DataFrame, summary: pd.DataFrame, baseline: str = DEFAULT_BASELINE,
                    tolerance_pp: float = PARITY_TOLERANCE_PP) -> pd.DataFrame:
    """Final val accuracy per strategy at equal workload, dataset, global batch, spe, precision and seed.

    One row per (match key, seed, strategy), ok points only (repeats sharing a seed: median).
    ``diff_pp`` is this strategy minus its baseline (picked as for speedups) in percentage points;
    ``spread_pp`` is max - min over all strategies at that key and seed. ``flag`` = |diff_pp| > tolerance.
    """
    cols = [*MATCH_KEY, "seed", "strategy", "val_accuracy", "baseline", "diff_pp", "spread_pp", "flag"]
    ok = points[points["status"] == "ok"] if not points.empty else points
    if ok.empty:
        return pd.DataFrame(columns=cols)
    acc = (ok.groupby([*MATCH_KEY, "seed", "strategy"], sort=True, dropna=False)["final_val_accuracy"]
           .median().reset_index(name="val_accuracy"))
    acc = acc[np.isfinite(acc["val_accuracy"])]
    hosts = summary.set_index(CONFIG_KEY)["host"]
    rows = []
    for key, g in acc.groupby([*MATCH_KEY, "seed"], sort=True, dropna=False):
        spread = 100 * (g["val_accuracy"].max() - g["val_accuracy"].min())
        for _, r in g.iterrows():
            host = hosts.get(tuple(r[k] for k in CONFIG_KEY), "")
            cands = summary[(summary["strategy"].isin(g["strategy"])) & (summary["status"] == "ok")]
            base = pick_baseline(pd.Series({**r.to_dict(), "host": host}), _baseline_rows(cands, baseline))
            diff = math.nan
            if base is not None:
                bacc = g.loc[g["strategy"] == base["strategy"], "val_accuracy"]
                diff = 100 * (r["val_accuracy"] - float(bacc.iloc[0]))
            rows.append({**dict(zip([*MATCH_KEY, "seed"], key, strict=True)), "strategy": r["strategy"],
                         "val_accuracy": r["val_accuracy"],
                         "baseline": "" if base is None else base["strategy"],
                         "diff_pp": diff, "spread_pp": spread,
                         "flag": bool(math.isfinite(diff) and abs(diff) > tolerance_pp)})
    return pd.DataFrame(rows, columns=cols)


def _ok(summary: pd.DataFrame) -> pd.DataFrame:
    return summary[(summary["status"] == "ok") & np.isfinite(summary["examples_per_s"])]


def best_configurations(summary: pd.DataFrame) -> pd.DataFrame:
    """Per (workload, dataset, strategy), the ok configuration with the highest ``examples_per_s``."""
    ok = _ok(summary)
    if ok.empty:
        return ok
    ranked = ok.sort_values(["workload", "dataset", "strategy", "examples_per_s", "epoch_s_median"],
                            ascending=[True, True, True, False, True], kind="mergesort")
    return ranked.groupby(["workload", "dataset", "strategy"], sort=True).head(1).reset_index(drop=True)


def winners(summary: pd.DataFrame) -> pd.DataFrame:
    """Per (workload, dataset), the configuration with the highest ``examples_per_s`` among those that
    learn (a configuration flagged not_learning only wins when nothing else ran)."""
    # Rank every ok configuration, learning ones first: a strategy whose fastest configuration does not
    # learn may still win with another of its configurations.
    ok = _ok(summary)
    if ok.empty:
        return ok
    best = ok.assign(_learns=ok["not_learning"] == "")
    ranked = best.sort_values(["workload", "dataset", "_learns", "examples_per_s", "strategy"],
                              ascending=[True, True, False, False, True], kind="mergesort")
    return ranked.groupby(["workload", "dataset"], sort=True).head(1).drop(columns="_learns").reset_index(
        drop=True)


def break_even(summary: pd.DataFrame) -> pd.DataFrame:
    """Epochs after which a strategy's steady-fastest configuration pays back its extra warm-up.

    Per (workload, dataset, strategy) with two or more ok configurations: ``quick`` is the configuration
    with the lowest warm-up overhead w, ``fast`` the one with the lowest steady epoch time t. Training n
    epochs costs ``w + n * t`` seconds (epoch 1 = t + w, then t per epoch), so ``fast`` is no slower in
    total from ``n* = (w_fast - w_quick) / (t_quick - t_fast)`` epochs on; ``break_even_epochs`` is the
    smallest whole n >= 1 with that property. When one configuration is both (``quick`` is ``fast``)
    there is no trade-off and ``break_even_epochs`` is 1.
    """
    cols = ["workload", "dataset", "strategy", "quick", "quick_warmup_s", "quick_epoch_s", "fast",
            "fast_warmup_s", "fast_epoch_s", "break_even_epochs_exact", "break_even_epochs"]
    ok = _ok(summary)
    ok = ok[np.isfinite(ok["warmup_overhead_s"]) & np.isfinite(ok["epoch_s_median"])]
    rows = []
    for key, g in ok.groupby(["workload", "dataset", "strategy"], sort=True):
        if len(g) < 2:
            continue
        quick = g.sort_values(["warmup_overhead_s", "epoch_s_median"], kind="mergesort").iloc[0]
        fast = g.sort_values(["epoch_s_median", "warmup_overhead_s"], kind="mergesort").iloc[0]
        dw = fast["warmup_overhead_s"] - quick["warmup_overhead_s"]
        dt = quick["epoch_s_median"] - fast["epoch_s_median"]
        exact = 0.0 if dw <= 0 else (dw / dt if dt > 0 else math.inf)
        whole = max(1, math.ceil(round(exact, 9))) if math.isfinite(exact) else math.inf
        rows.append({**dict(zip(["workload", "dataset", "strategy"], key, strict=True)),
                     "quick": config_name(quick), "quick_warmup_s": quick["warmup_overhead_s"],
                     "quick_epoch_s": quick["epoch_s_median"], "fast": config_name(fast),
                     "fast_warmup_s": fast["warmup_overhead_s"], "fast_epoch_s": fast["epoch_s_median"],
                     "break_even_epochs_exact": exact, "break_even_epochs": whole})
    return pd.DataFrame(rows, columns=cols)


def config_name(row: pd.Series) -> str:
    """``"b256 spe8 float32"``: the parts of a configuration that vary within one strategy."""
    return f"b{row['global_batch_size']} spe{row['steps_per_execution']} {row['precision']}"


@dataclass
class Analysis:
    """Everything a report or a console table needs, derived from records only."""

    points: pd.DataFrame
    summary: pd.DataFrame
    parity: pd.DataFrame
    best: pd.DataFrame
    winners: pd.DataFrame
    break_even: pd.DataFrame
    baseline: str
    parity_tolerance_pp: float


def analyze(records: list[dict[str, Any]], baseline: str = DEFAULT_BASELINE,
            parity_tolerance_pp: float = PARITY_TOLERANCE_PP) -> Analysis:
    """Run every analysis step on ``records`` (any statuses, any hosts) and add the parity flag column."""
    points = points_frame(records)
    summary = summarize(points, baseline)
    parity = accuracy_parity(points, summary, baseline, parity_tolerance_pp) if not points.empty else \
        pd.DataFrame()
    if not summary.empty:
        flagged = set()
        if not parity.empty:
            flagged = {tuple(r[k] for k in CONFIG_KEY) for _, r in parity[parity["flag"]].iterrows()}
        summary["parity_flag"] = [tuple(r[k] for k in CONFIG_KEY) in flagged for _, r in summary.iterrows()]
    return Analysis(points, summary, parity, best_configurations(summary) if not summary.empty else summary,
                    winners(summary) if not summary.empty else summary,
                    break_even(summary) if not summary.empty else pd.DataFrame(), baseline,
                    parity_tolerance_pp)
