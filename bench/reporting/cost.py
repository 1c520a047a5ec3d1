"""What a configuration costs (DAWNBench style): per steady epoch, per million training examples, and to the
workload's target accuracy, from the measured times and the device's hourly price (:mod:`bench.reporting.prices`).
Never imports TensorFlow.

Cost = seconds x USD per hour / 3600. The seconds are the report's own: the median steady epoch (training and
validation, what an epoch keeps the machine busy), training examples/s for the cost per million examples, and
time to target (training seconds, warm-up included, until the first epoch at or above the target). Each
configuration is priced by the device that ran it; where there is no price the cost is a dash, never a guess.
The Pareto front holds the configurations no other one beats on both time and cost.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from bench.reporting.format import DASH, config_label, markdown_table, seconds, usd
from bench.reporting.prices import Price, match_price, platform_of


def _or_nan(v: float | None) -> float:
    return math.nan if v is None else v


def priced_summary(summary: pd.DataFrame, table: Mapping[str, Price]) -> pd.DataFrame:
    """``summary`` (one row per configuration) with its price and costs: ``priced_as``, ``price_key``,
    ``usd_per_hour`` (all the configuration's units), ``usd_per_epoch``, ``usd_per_million_examples``,
    ``usd_to_target`` (USD; NaN without a price, a measurement or a reached target)."""
    out = summary.copy()
    priced = [match_price(table, r["device_kind"], r.get("accelerator"), r["num_replicas"], r.get("cpu_count"),
                          platform_of(r.get("env_var_names") or (), table))
              for _, r in summary.iterrows()]
    out["priced_as"] = [p.label for p in priced]
    out["price_key"] = [p.key for p in priced]
    out["usd_per_hour"] = [p.usd_per_hour for p in priced]
    per_s = out["usd_per_hour"] / 3600.0
    ok = out["status"] == "ok"
    out["usd_per_epoch"] = (out["epoch_s_median"] * per_s).where(ok, math.nan)
    out["usd_per_million_examples"] = (per_s / out["examples_per_s"] * 1e6).where(ok, math.nan)
    # to target only where the configuration reaches it (at least half its seeds): the median over the seeds that
    # did would otherwise price a configuration that usually misses as if it arrived
    reached = out["reached_target"].astype(bool) if "reached_target" in out else ok
    out["usd_to_target"] = (out["time_to_target_s"] * per_s).where(ok & reached, math.nan)
    return out


def pareto_front(time_s: list[float], cost: list[float]) -> list[bool]:
    """Which (time, cost) pairs no other pair beats on both (<= on both, < on one); NaNs are never on it."""
    pts = list(zip(time_s, cost, strict=True))
    out = []
    for t, c in pts:
        if not (math.isfinite(t) and math.isfinite(c)):
            out.append(False)
            continue
        out.append(not any(math.isfinite(t2) and math.isfinite(c2) and t2 <= t and c2 <= c and (t2 < t or c2 < c)
                           for t2, c2 in pts))
    return out


def frontier(g: pd.DataFrame) -> tuple[pd.DataFrame, str, str]:
    """The configurations to plot and which axes: time and cost to target when any configuration reached it
    with a price, else steady s/epoch and USD/epoch. Adds ``on_front``."""
    to_target = g[g["usd_to_target"].map(math.isfinite) & g["time_to_target_s"].map(math.isfinite)]
    if not to_target.empty:
        t, c = "time_to_target_s", "usd_to_target"
        pts = to_target
    else:
        t, c = "epoch_s_median", "usd_per_epoch"
        pts = g[g["usd_per_epoch"].map(math.isfinite) & g["epoch_s_median"].map(math.isfinite)]
    pts = pts.copy()
    pts["on_front"] = pareto_front(list(pts[t]), list(pts[c]))
    return pts, t, c


def single_price(g: pd.DataFrame) -> float | None:
    """The one hourly price (USD/h) all of ``g``'s priced ok configurations ran at, None when there are several (or
    none): with one price, cost is time rescaled and a cost figure would repeat the time figure."""
    ok = g[(g["status"] == "ok") & g["usd_per_hour"].map(math.isfinite)] if len(g) else g
    prices = set(ok["usd_per_hour"]) if len(ok) else set()
    return float(next(iter(prices))) if len(prices) == 1 else None


def cost_section(g: pd.DataFrame, figure: Path | None = None) -> list[str]:
    """A workload's Cost section from its :func:`priced_summary` rows."""
    if g.empty:
        return []
    idle = int((g["status"] != "ok").sum())
    g = g[g["status"] == "ok"]  # what did not run has no time to price (listed under the failed points)
    pts, t, _ = frontier(g)
    front = set(pts.index[pts["on_front"]])
    rows = []
    for i, r in g.sort_values(["strategy", "global_batch_size", "steps_per_execution", "precision"]).iterrows():
        rows.append({"configuration": config_label(r) + (" ◆" if i in front else ""), "host": r["host"],
                     "priced as": r["priced_as"],
                     "USD/h": usd(r["usd_per_hour"]), "steady s/epoch": seconds(r["epoch_s_median"]),
                     "USD/epoch": usd(r["usd_per_epoch"]),
                     "USD per 1M examples": usd(r["usd_per_million_examples"]),
                     "s to target": seconds(r["time_to_target_s"]), "USD to target": usd(r["usd_to_target"])})
    basis = "time and cost to target" if t == "time_to_target_s" else "time and cost per steady epoch"
    one = single_price(g)
    same = (f" Every configuration ran at one price, {usd(one)}/h: cost is time x that price, so it ranks them as "
            "time does and no cost figure is drawn." if one is not None else "")
    lines = ["### Cost", "",
             f"Measured seconds x the device's hourly price (*Prices used*); ◆ = Pareto front on {basis}."
             + (f" {idle} configuration(s) that did not run are not priced." if idle else "") + same, "",
             markdown_table(rows), ""]
    if figure is not None:
        lines += [f"![cost]({figure.name})", ""]
    return lines


def prices_used_section(priced: pd.DataFrame, table: Mapping[str, Price], extra: tuple[str, ...] = ()) -> list[str]:
    """Every price the report used (its records' and the ``extra`` keys the lower bounds priced), with its basis,
    source and the date it was read."""
    keys = sorted({k for k in priced["price_key"] if isinstance(k, str)} | {k for k in extra if k in table})
    if not keys:
        return []
    rows = [{"price": k, "USD/h per unit": usd(_or_nan(table[k].usd_per_hour)), "unit": table[k].unit,
             "basis": table[k].basis or table[k].quota or table[k].note,
             "source": table[k].source, "read": table[k].read or DASH} for k in keys]
    return ["## Prices used", "",
            "The Cost sections: USD = seconds measured here x the hourly price of the device that ran them, per "
            "steady epoch (training + validation), per million training examples (training throughput) and to "
            "the target (training seconds until the first epoch at or above it, warm-up included). A configuration "
            "is priced as the machine it ran on, never as an accelerator it did not run on (that is the lower "
            "bound's job); a device without a price shows a dash, not a guess. The Pareto front (◆) holds the "
            "configurations no other one beats on both time and cost. On-demand prices (USD per hour per unit) "
            "from `suites/prices/cloud.yaml` unless overridden (`prices=FILE`, `price.KEY=USD`); prices change: "
            "check the date before you budget.", "",
            markdown_table(rows), ""]
