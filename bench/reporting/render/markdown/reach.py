"""The "What this model could reach" section: a workload's fastest configuration that learns, its measured training
epoch against its compute, memory and host floors where it ran and on one chip of each of
:data:`~bench.reporting.analysis.cost.BOUND_DEVICES`. Numbers from :mod:`bench.reporting.analysis.cost`.
Method: docs/reports.md, *What this model could reach*.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from bench.measure.datasheets import BANDWIDTH, DATASHEET_PEAK_FLOPS, chip_of
from bench.reporting.analysis.cost import bound_arithmetic, bound_devices, epoch_flops, lower_bound_s, units
from bench.reporting.analysis.limits import step_bytes
from bench.reporting.frames.keys import row_of
from bench.reporting.frames.labels import config_label
from bench.reporting.load.prices import Price
from bench.reporting.render.markdown.cost import bound_cell, times_cell
from bench.reporting.render.text import DASH, markdown_table, seconds, usd
from bench.reporting.stats.sample import as_float


def _fastest(g: pd.DataFrame) -> pd.Series | None:
    """The fastest finished configuration that learns and has a FLOP count (None: none)."""
    ok = g[(g["status"] == "ok") & g["flops_per_example"].map(lambda v: math.isfinite(v) and v > 0)]
    ok = ok[ok["train_s_median"].map(math.isfinite)]
    if "not_learning" in ok:
        ok = ok[~ok["not_learning"].map(bool)]
    return None if ok.empty else ok.sort_values("train_s_median", kind="stable").iloc[0]


def epoch_bytes(row: pd.Series, replicas: float = 1.0) -> float:
    """Bytes one training epoch moves: per step, the batch's activation bytes plus each replica's weight bytes."""
    return float(row["steps_per_epoch"]) * step_bytes(row, float(row["global_batch_size"]), replicas)


def host_floor_s(row: pd.Series, limits: pd.DataFrame | None) -> tuple[float, str]:
    """(seconds, how): the epoch's steps times the measured fixed cost of a step: the fixed share of the step from
    the configuration's two batches where the label had them, else one compiled call's fixed cost per step."""
    lim = row_of(limits, row) if limits is not None else None
    steps = float(row["steps_per_epoch"])
    if lim is not None and math.isfinite(lim["fixed_share"]) and lim["fixed_share"] > 0:
        return steps * min(1.0, lim["fixed_share"]) * lim["step_ms"] / 1e3, "fixed share of the step, two batches"
    call = as_float(row.get("dispatch_s")) / max(1, int(row["steps_per_execution"]))
    return (steps * call, "one compiled call's fixed cost") if math.isfinite(call) else (math.nan, "")


def reach_section(g: pd.DataFrame, prices: Mapping[str, Price] | None = None,
                  limits: pd.DataFrame | None = None) -> list[str]:
    """A workload's section (module docstring); [] when no configuration that learns has a FLOP count."""
    fastest = _fastest(g)
    if fastest is None:
        return []
    flops, measured = epoch_flops(fastest), float(fastest["train_s_median"])
    ran = chip_of(str(fastest.get("device_kind")), str(fastest.get("accelerator") or ""))
    replicas = as_float(fastest.get("num_replicas", 1))
    replicas = replicas if math.isfinite(replicas) and replicas > 0 else 1.0
    host, how = host_floor_s(fastest, limits)
    here_name = f"{fastest.get('accelerator') or str(fastest.get('device_kind') or 'device').upper()}, measured"
    here = (lower_bound_s(flops, as_float(fastest.get("peak_flops_per_s"))),
            _over(epoch_bytes(fastest, replicas), as_float(fastest.get("peak_bytes_per_s"))), host)
    columns = {here_name: (*here, times_cell(measured / max((f for f in here if math.isfinite(f)), default=math.nan)),
                           math.nan)}
    per_million = 1e6 / (fastest["steps_per_epoch"] * fastest["global_batch_size"])  # epochs per 1M examples
    chips = units(ran.kind, str(fastest.get("accelerator")), replicas, math.nan) if ran is not None else 1.0
    for name, kind, model, key in bound_devices([(ran.kind, ran.model)] if ran is not None else []):
        recorded = str(fastest.get("math_mode") or "")
        same = ran is not None and (ran.kind, ran.model) == (kind, model)
        tag = recorded if same and (kind, model, recorded) in DATASHEET_PEAK_FLOPS else bound_arithmetic(
            kind, model, str(fastest["precision"]))
        floors = (lower_bound_s(flops, DATASHEET_PEAK_FLOPS.get((kind, model, tag or ""))),
                  _over(epoch_bytes(fastest), BANDWIDTH.get((kind, model), math.nan)))
        largest = max((f for f in floors if math.isfinite(f)), default=math.nan)
        entry = prices.get(key) if prices is not None else None
        # a USD figure ranks devices: only on both floors and a price that pays for the machine too
        complete = all(math.isfinite(f) for f in floors) and entry is not None and entry.host == "included"
        price = entry.usd_per_hour if complete and entry is not None else None
        columns[f"{name} ({tag.upper()})" if tag else name] = (
            *floors, math.nan, times_cell(measured * chips / largest) if same else "",
            largest * per_million * price / 3600 if price is not None else math.nan)
    return _table(fastest, flops, columns, how, prices is not None)


def _over(numerator: float, rate: float) -> float:
    return numerator / rate if rate > 0 and math.isfinite(numerator) and numerator > 0 else math.nan


def _table(fastest: pd.Series, flops: float, columns: dict[str, tuple[Any, ...]], how: str,
           priced: bool) -> list[str]:
    """The section's lines: what the epoch does, then a row per device: its floors, the measured epoch over the
    largest floor where it ran, and the priced floor."""
    gb = epoch_bytes(fastest) / 1e9
    said = (f"{config_label(fastest)}: {seconds(fastest['train_s_median'])} s of training an epoch, "
            f"{flops / 1e9:,.1f} GFLOP" + (f" and {gb:,.2f} GB moved" if math.isfinite(gb) else "") + " an epoch"
            + (f", counted without {', '.join(missed)}: the floors below are lower still than the model's."
               if (missed := tuple(fastest.get("flops_uncounted") or ())) else "."))
    rows = []
    for name, (compute, memory, host, ratio, cost) in columns.items():
        row = {"device": name, "compute floor (FLOPs ÷ peak)": bound_cell(compute),
               "memory floor (bytes ÷ bandwidth)": bound_cell(memory),
               f"host floor (steps × a step's fixed cost: {how or 'not measured'})":
                   bound_cell(host) if math.isfinite(host) else DASH,
               "measured ÷ largest floor": ratio}
        if priced:
            row["USD per 1M examples at the largest floor"] = f"≥ {usd(cost)}" if math.isfinite(cost) else DASH
        rows.append(row)
    return ["### What this model could reach", "", said, "", markdown_table(rows), "", REACH_LEGEND, ""]


REACH_LEGEND = ("Floors, not predictions: an epoch takes at least the largest (FLOPs ÷ peak, bytes ÷ bandwidth, "
                "steps × a step's fixed cost); elsewhere one chip at its datasheet peak and bandwidth in the "
                "arithmetic it would use (— without a source). A price is shown only where both floors are known "
                "and it pays for the machine too (*Prices used*: host), so that no device ranks on a missing figure; "
                "method: docs/reports.md, *What this model could reach*.")
