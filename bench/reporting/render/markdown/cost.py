"""The Cost, Prices used and Lower bound sections (the numbers are :mod:`bench.reporting.analysis.cost`'s).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from bench.measure.datasheets import best_peak
from bench.reporting.analysis.cost import BOUND_DEVICES, epoch_flops, frontier, lower_bound_s, single_price
from bench.reporting.frames.labels import config_label
from bench.reporting.load.prices import Price
from bench.reporting.render.text import DASH, markdown_table, seconds, usd


def _or_nan(v: float | None) -> float:
    return math.nan if v is None else v


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


def bound_cell(s: float) -> str:
    """``≥ 2.1 µs`` / ``≥ 0.21 ms`` / ``≥ 1.52 s``: a bound in the unit that keeps its digits (a dash without one)."""
    if not math.isfinite(s):
        return DASH
    if s >= 1:
        return f"≥ {seconds(s)} s"
    return f"≥ {s * 1e3:.2g} ms" if s >= 1e-4 else f"≥ {s * 1e6:.2g} µs"


def bounds_section(g: pd.DataFrame, prices: Mapping[str, Price] | None = None) -> list[str]:
    """A workload's section: its fastest configuration measured here, and the shortest its training epoch could
    take on each accelerator of :data:`BOUND_DEVICES`, at 100 % of the chip's best dense datasheet peak; with
    ``prices``, a second row: what that shortest epoch would cost at the chip's hourly price (USD)."""
    ok = g[(g["status"] == "ok") & g["flops_per_example"].map(lambda v: math.isfinite(v) and v > 0)]
    ok = ok[ok["train_s_median"].map(math.isfinite)]
    if ok.empty:
        return []
    fastest = ok.sort_values("train_s_median", kind="stable").iloc[0]
    flops = epoch_flops(fastest)
    row = {"fastest measured": config_label(fastest), "train s/epoch": seconds(fastest["train_s_median"]),
           "GFLOP/epoch": f"{flops / 1e9:,.1f}"}
    cost = {"fastest measured": "USD per 1M training examples at that bound", "train s/epoch": "",
            "GFLOP/epoch": ""}
    per_million = 1e6 / (fastest["steps_per_epoch"] * fastest["global_batch_size"])  # epochs per 1M examples
    for name, kind, model, key in BOUND_DEVICES:
        bound = lower_bound_s(flops, best_peak(kind, model))
        row[name] = bound_cell(bound)
        price = prices[key].usd_per_hour if prices is not None and key in prices else None
        cost[name] = (f"≥ {usd(bound * per_million * price / 3600)}" if price is not None and math.isfinite(bound)
                      else DASH)
    return ["### Lower bound on other accelerators", "",
            "The shortest this training epoch could possibly take on one chip of each accelerator: its FLOPs "
            "over the chip's best dense datasheet peak, at 100 % of it. A bound, not a prediction: real epochs "
            "are longer (input pipeline, host calls, memory traffic, and no device runs at its peak). n chips "
            "divide it by n at best."
            + (" The second row prices it (*Prices used*): the least a million training examples could cost "
               "there." if prices is not None else ""), "",
            markdown_table([row, cost] if prices is not None else [row]), ""]
