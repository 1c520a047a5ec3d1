"""Floors, not predictions: what one epoch of a workload's fastest configuration that learns cannot go under, where
it ran (at its measured peak and bandwidth, and the steps times a step's measured fixed cost) and on one chip of each
of :data:`~bench.reporting.analysis.cost.BOUND_DEVICES` (datasheet peak and bandwidth in the arithmetic it would
use). Method: docs/reports.md, *What this model could reach*.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from bench.measure.datasheets import BANDWIDTH, DATASHEET_PEAK_FLOPS, chip_of
from bench.reporting.analysis.cost import bound_arithmetic, bound_devices, epoch_flops, lower_bound_s, units
from bench.reporting.analysis.limits import step_bytes
from bench.reporting.frames.keys import row_of
from bench.reporting.load.prices import Price
from bench.reporting.stats.sample import as_float

HOST_TWO_BATCHES, HOST_ONE_CALL = "two_batches", "one_call"  # how a host floor was measured


OWN_DEVICE, RAN_HERE = "own_device", "ran_here"  # Floor.role (render words the device's name with it)


@dataclass(frozen=True)
class Floor:
    """One device's floors for an epoch (seconds; NaN without a peak, a bandwidth or a count): ``arithmetic`` the
    peak's (``tf32``, ``fp32``, ...; "" where the device ran at its measured peak), ``measured_ratio`` the measured
    epoch over the largest floor on the device that ran (NaN elsewhere), ``usd_per_million`` USD per million
    examples at the largest floor (NaN unless both floors are known and the price pays for the machine too)."""

    device: str
    kind: str
    model: str
    arithmetic: str
    compute_s: float
    memory_s: float
    host_s: float = math.nan
    measured_ratio: float = math.nan
    usd_per_million: float = math.nan
    ran: bool = False
    role: str = ""  # OWN_DEVICE: the configuration's own device; RAN_HERE: a chip added to the table because it ran

    @property
    def largest_s(self) -> float:
        """The largest known floor (seconds; NaN without one)."""
        return max((f for f in (self.compute_s, self.memory_s, self.host_s) if math.isfinite(f)), default=math.nan)


@dataclass(frozen=True)
class Floors:
    """A workload's floors: the configuration they are of (its summary row), its epoch's FLOPs and bytes, how its
    host floor was measured (:data:`HOST_TWO_BATCHES`, :data:`HOST_ONE_CALL` or ""), and a :class:`Floor` per
    device, the one that ran first."""

    row: pd.Series
    flops: float
    bytes: float
    host_how: str
    devices: list[Floor]


def fastest_counted(g: pd.DataFrame, counted: bool = True) -> pd.Series | None:
    """The fastest finished configuration that learns and (``counted``) has a FLOP count (None: none)."""
    ok = g[(g["status"] == "ok") & g["train_s_median"].map(math.isfinite)]
    if counted:
        ok = ok[ok["flops_per_example"].map(lambda v: math.isfinite(v) and v > 0)]
    if "not_learning" in ok:
        ok = ok[~ok["not_learning"].map(bool)]
    return None if ok.empty else ok.sort_values("train_s_median", kind="stable").iloc[0]


def measured_name(row: pd.Series) -> str:
    """``NVIDIA H200`` / ``CPU``: the device a configuration ran on, as its records name it."""
    return row.get("accelerator") or str(row.get("device_kind") or "device").upper()


def epoch_bytes(row: pd.Series, replicas: float = 1.0) -> float:
    """Bytes one training epoch moves: per step, the batch's activation bytes plus each replica's weight bytes."""
    return float(row["steps_per_epoch"]) * step_bytes(row, float(row["global_batch_size"]), replicas)


def host_floor_s(row: pd.Series, limits: pd.DataFrame | None) -> tuple[float, str]:
    """(seconds, how): the epoch's steps times the measured fixed cost of a step: the fixed share of the step from
    the configuration's two batches where the label had them, else one compiled call's fixed cost per step."""
    lim = row_of(limits, row) if limits is not None else None
    steps = float(row["steps_per_epoch"])
    if lim is not None and math.isfinite(lim["fixed_share"]) and lim["fixed_share"] > 0:
        return steps * min(1.0, lim["fixed_share"]) * lim["step_ms"] / 1e3, HOST_TWO_BATCHES
    call = as_float(row.get("dispatch_s")) / max(1, int(row["steps_per_execution"]))
    return (steps * call, HOST_ONE_CALL) if math.isfinite(call) else (math.nan, "")


def _over(numerator: float, rate: float) -> float:
    return numerator / rate if rate > 0 and math.isfinite(numerator) and numerator > 0 else math.nan


def workload_floors(g: pd.DataFrame, prices: Mapping[str, Price] | None = None,
                    limits: pd.DataFrame | None = None) -> Floors | None:
    """A workload's :class:`Floors` from its summary rows ``g`` (None when no configuration that learns has a FLOP
    count); ``limits`` gives the host floor, ``prices`` the USD figures."""
    fastest = fastest_counted(g)
    if fastest is None:
        return None
    flops, measured = epoch_flops(fastest), float(fastest["train_s_median"])
    ran = chip_of(str(fastest.get("device_kind")), str(fastest.get("accelerator") or ""))
    replicas = as_float(fastest.get("num_replicas", 1))
    replicas = replicas if math.isfinite(replicas) and replicas > 0 else 1.0
    host, how = host_floor_s(fastest, limits)
    here_name = measured_name(fastest)
    here = (lower_bound_s(flops, as_float(fastest.get("peak_flops_per_s"))),
            _over(epoch_bytes(fastest, replicas), as_float(fastest.get("peak_bytes_per_s"))), host)
    largest = max((f for f in here if math.isfinite(f)), default=math.nan)
    devices = [Floor(here_name, str(fastest.get("device_kind")), ran.model if ran is not None else "", "", *here,
                     measured_ratio=measured / largest, ran=True, role=OWN_DEVICE)]
    per_million = 1e6 / (fastest["steps_per_epoch"] * fastest["global_batch_size"])  # epochs per 1M examples
    chips = units(ran.kind, str(fastest.get("accelerator")), replicas, math.nan) if ran is not None else 1.0
    for name, kind, model, key, added in bound_devices([(ran.kind, ran.model)] if ran is not None else []):
        recorded = str(fastest.get("math_mode") or "")
        same = ran is not None and (ran.kind, ran.model) == (kind, model)
        tag = recorded if same and (kind, model, recorded) in DATASHEET_PEAK_FLOPS else bound_arithmetic(
            kind, model, str(fastest["precision"]))
        compute = lower_bound_s(flops, DATASHEET_PEAK_FLOPS.get((kind, model, tag or "")))
        memory = _over(epoch_bytes(fastest), BANDWIDTH.get((kind, model), math.nan))
        top = max((f for f in (compute, memory) if math.isfinite(f)), default=math.nan)
        entry = prices.get(key) if prices is not None else None
        # a USD figure ranks devices: only on both floors and a price that pays for the machine too
        complete = math.isfinite(compute) and math.isfinite(memory) and entry is not None and entry.host == "included"
        price = entry.usd_per_hour if complete and entry is not None else None
        devices.append(Floor(name, kind, model, tag or "", compute, memory,
                             measured_ratio=measured * chips / top if same else math.nan,
                             usd_per_million=top * per_million * price / 3600 if price is not None else math.nan,
                             ran=same, role=RAN_HERE if added else ""))
    return Floors(fastest, flops, epoch_bytes(fastest), how, devices)
