"""The Cost and Prices used sections, and the cells of the "What this model could reach" one (the numbers are
:mod:`bench.reporting.analysis.cost`'s).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from bench.reporting.analysis.cost import (
    break_even_usd_per_hour,
    frontier,
    single_price,
)
from bench.reporting.load.prices import Price
from bench.reporting.render.text import DASH, config_label, markdown_table, seconds, sig, usd
from bench.reporting.render.words import priced_as


def _or_nan(v: float | None) -> float:
    return math.nan if v is None else v


def _device_time(v: float, unit: str) -> str:
    """``1,234 GPU-s``: seconds of a priced unit (GPU, chip, vCPU), what a price would multiply."""
    return f"{seconds(v) if v < 100 else f'{v:,.0f}'} {unit}-s" if math.isfinite(v) and unit else DASH


def cost_section(g: pd.DataFrame, figure: Path | None = None) -> list[str]:
    """A workload's Cost section from its :func:`priced_summary` rows. A configuration without a price shows its
    device time (unit-seconds) instead of USD, and the hourly price per unit at which it would cost what the cheapest
    priced configuration costs per million examples."""
    if g.empty:
        return []
    idle = int((g["status"] != "ok").sum())
    g = g[g["status"] == "ok"]  # what did not run has no time to price (listed under the failed points)
    pts, t, _ = frontier(g)
    front = set(pts.index[pts["on_front"]])
    even = break_even_usd_per_hour(g).to_dict()  # by row label: an iterrows label reads as Hashable
    rows = []
    for i, r in g.sort_values(["strategy", "global_batch_size", "steps_per_execution", "precision"]).iterrows():
        priced = math.isfinite(r["usd_per_hour"])
        unit = r.get("price_unit") or ""
        hourly = usd(r["usd_per_hour"]) if priced else (
            f"{DASH}; even at {usd(even[i])}/{unit}" if math.isfinite(even[i]) else DASH)
        rows.append({"configuration": config_label(r) + (" ◆" if i in front else ""), "host": r["host"],
                     "priced as": priced_as(r), "USD/h": hourly, "steady s/epoch": seconds(r["epoch_s_median"]),
                     "USD/epoch": usd(r["usd_per_epoch"]),
                     "USD per 1M examples": usd(r["usd_per_million_examples"]) if priced else _device_time(
                         r.get("unit_s_per_million_examples", math.nan), unit),
                     "s to target": seconds(r["time_to_target_s"]),
                     "USD to target": usd(r["usd_to_target"]) if priced else _device_time(
                         r.get("unit_s_to_target", math.nan), unit)})
    basis = "time and cost to target" if t == "time_to_target_s" else "time and cost per steady epoch"
    one = single_price(g)
    same = (f" Every configuration ran at one price, {usd(one)}/h: cost is time x that price, so it ranks them as "
            "time does and no cost figure is drawn." if one is not None else "")
    n_unpriced = int((~g["usd_per_hour"].map(math.isfinite)).sum())
    head = (f"USD = measured seconds x the device's hourly price (*Prices used*); an epoch is its training and "
            f"validation, as steady s/epoch, so USD/epoch x epochs per 1M training examples = USD per 1M examples; ◆ = "
            f"Pareto front on {basis}.")
    if n_unpriced == len(g):
        head = ("No configuration here ran on a device with a price (*Prices used* says why; set one with "
                "`price.KEY=USD`): each shows its device time instead (unit-seconds, what a price multiplies).")
    elif n_unpriced:
        head += (f" {n_unpriced} of {len(g)} configurations ran on a device without a price: they show device time "
                 "(unit-seconds, what a price multiplies) and the hourly price per unit at which each would cost "
                 "what the cheapest priced one costs per million examples (\"even at\"); the front holds the "
                 "priced ones only.")
    lines = ["### Cost", "", markdown_table(rows), "",
             head + (f" {idle} configuration(s) that did not run are not priced." if idle else "") + same, ""]
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
    return ["## Prices used", "", markdown_table(rows), "",
            "On-demand USD per hour per unit, from `suites/prices/cloud.yaml` unless overridden (`prices=FILE`, "
            "`price.KEY=USD`); prices change: check the date before you budget (how the Cost sections use them: "
            "docs/reports.md, *Cost and prices*).", ""]


def bound_cell(s: float) -> str:
    """``≥ 2.10 µs`` / ``≥ 0.210 ms`` / ``≥ 123 ms`` / ``≥ 1.52 s``: a bound in the unit that keeps its digits, about
    three significant, never in exponent notation (a dash without one)."""
    if not math.isfinite(s):
        return DASH
    if s >= 1:
        return f"≥ {seconds(s)} s"
    return f"≥ {seconds(s * 1e3)} ms" if s >= 1e-4 else f"≥ {seconds(s * 1e6)} µs"


def times_cell(ratio: float) -> str:
    """``583x`` / ``1,620x`` / ``2.4x``: how many times the bound a measurement took, in 3 significant figures (the
    report's one rule), trailing zeros dropped."""
    return DASH if not math.isfinite(ratio) else f"{sig(ratio, trim=True)}x"
