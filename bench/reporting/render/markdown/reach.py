"""The "What this model could reach" section: one table, a row per device of bench's table: measured where the
records ran, else predicted with its interval, what would limit it there and its cost, or why nothing validates a
prediction (then its floor alone); below it, the floors themselves. Numbers from
:mod:`bench.reporting.analysis.predict` and :mod:`bench.reporting.analysis.floors`; method: docs/predict.md and
docs/reports.md, *What this model could reach*.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from bench.measure.datasheets import chip_of
from bench.reporting.analysis.floors import (
    HOST_ONE_CALL,
    HOST_TWO_BATCHES,
    OWN_DEVICE,
    Floors,
    fastest_counted,
    measured_name,
    workload_floors,
)
from bench.reporting.analysis.limits import INPUT, SAID_LIMITS
from bench.reporting.analysis.predict import MEASURED, PREDICTED, REFERENCED, DevicePrediction
from bench.reporting.frames.keys import row_of
from bench.reporting.load.prices import Price
from bench.reporting.render.labels import Names
from bench.reporting.render.markdown.cost import bound_cell, times_cell
from bench.reporting.render.text import DASH, config_label, markdown_table, rate, seconds, sig, usd
from bench.reporting.render.words import PREDICTED_REASONS, PREDICTED_SHORT, device_name, predicted_reason

SPAN = "s an epoch [90% interval]"
HOST_HOW = {HOST_TWO_BATCHES: "fixed share of the step, two batches", HOST_ONE_CALL: "one compiled call's fixed cost"}


def _span(p: DevicePrediction) -> str:
    high = seconds(p.high_s) if math.isfinite(p.high_s) else "∞"
    return f"{seconds(p.train_s)} [{seconds(p.low_s)}, {high}]"


def _limit(p: DevicePrediction) -> str:
    share = f"{100 * p.fixed_share:.0f}%"
    return f"host ({share} of the step)" if p.limit == "host" else f"{p.limit} (host part {share})"


def _row(p: DevicePrediction, floors: Floors | None) -> dict[str, str]:
    """A device's row: predicted, or why not with its largest floor."""
    if p.basis in (PREDICTED, REFERENCED):
        return {"device": device_name(p.device, kind=p.kind), SPAN: _span(p), "examples/s": sig(p.examples_per_s),
                "limited there by": _limit(p),
                "USD an epoch": usd(p.usd_per_epoch), "USD to the target": usd(p.usd_to_target),
                "basis": "predicted from reference records (no GPU run)" if p.basis == REFERENCED
                else f"predicted (error {100 * p.error:.0f}% at p90)"}
    floor = next((f for f in (floors.devices[1:] if floors is not None else [])
                  if (f.kind, f.model) == (p.kind, p.model)), None)
    shown = bound_cell(floor.largest_s) if floor is not None else DASH
    return {"device": device_name(p.device, kind=p.kind), SPAN: f"{shown} (floor)" if shown != DASH else DASH,
            "examples/s": DASH,
            "limited there by": DASH, "USD an epoch": DASH, "USD to the target": DASH,
            "basis": "measured: not the fastest configuration (*Results*)" if p.basis == MEASURED
            else predicted_reason(p.basis, short=True)}


def _measured_row(row: pd.Series, limits: pd.DataFrame | None, name: str) -> dict[str, str]:
    lim = row_of(limits, row) if limits is not None else None
    said = str(lim["limit"]) if lim is not None and lim["limit"] in (INPUT, *SAID_LIMITS) else DASH  # determined
    return {"device": name, SPAN: seconds(row["train_s_median"]), "examples/s": rate(row["examples_per_s"]),
            "limited there by": said, "USD an epoch": DASH, "USD to the target": DASH,
            "basis": f"measured: {config_label(row)} (cost: *Cost*)"}


def _basis(devices: Sequence[DevicePrediction]) -> str:
    """How the predicted rows were made, in one paragraph ("" where none is)."""
    p = next((d for d in devices if d.basis in (PREDICTED, REFERENCED)), None)
    if p is None:
        return ""
    src = p.source
    if p.basis == PREDICTED:
        return (f"Predicted from {src['backend']} on {src['accelerator']} at batch {src['global_batch_size']}, "
                f"{src['steps_per_execution']} step(s) a call, {src['precision']}: a step's fixed part (its "
                f"intercept against batch size, fitted on {src['configurations']} configurations) carried over, the "
                "rest scaled by the datasheets in proportion to the workload's FLOP and byte counts; the interval is "
                "the larger of that fit's leave-one-out error and the scaling's on GPUs it did not see (90th "
                "percentiles). Steady training seconds an epoch; USD at the shipped price of one GPU. Method: "
                "docs/predict.md.")
    host = ("this backend's" if src["host_part"] == "measured" else
            f"{src['backend']} has none there: every measured backend's, {src['reference_backend']}'s included")
    return (f"Predicted from the {src['backend']} run at batch {src['global_batch_size']}, "
            f"{src['steps_per_execution']} step(s) a call, {src['precision']}, which ran on no GPU: a step's fixed "
            f"and per-example parts from bench's reference records ({src['reference_backend']} on "
            f"{', '.join(src['reference_accelerators'])}, {', '.join(src['reference_dates'])}; {host}), plus its "
            "own FLOPs and bytes at each GPU's datasheet rates and the reference's efficiency. The interval spans "
            "the fixed part's range and the device part from its floor up; no run of this backend on a GPU checks "
            "it. USD at the shipped price of one GPU. Method: docs/predict.md, *A workload with no GPU record*.")


def _why_not(devices: Sequence[DevicePrediction], floors: bool = True) -> str:
    """The reasons of the rows not predicted, in full, once each ("" where every row is predicted or measured)."""
    codes = [c for c in sorted({p.basis for p in devices}) if c in PREDICTED_REASONS]
    if not codes:
        return ""
    said = "; ".join(f"{PREDICTED_SHORT[c]}: {PREDICTED_REASONS[c]}" for c in codes)
    return f"**Not predicted**: {said}" + ("; each row shows its floor alone." if floors else ".")


def reach_section(g: pd.DataFrame, devices: Sequence[DevicePrediction] = (),
                  prices: Mapping[str, Price] | None = None, limits: pd.DataFrame | None = None) -> list[str]:
    """A workload's section from its summary rows ``g`` and its devices (:func:`bench.reporting.analysis.predict.
    predict_workload`); [] when it has neither a counted configuration nor a device."""
    floors = workload_floors(g, prices, limits)
    fastest = floors.row if floors is not None else fastest_counted(g, counted=False)
    if fastest is None or (floors is None and not devices):
        return []
    ran = chip_of(str(fastest.get("device_kind")), str(fastest.get("accelerator") or ""))
    here = (ran.kind, ran.model) if ran is not None else None
    if floors is None and not any(p.basis in (PREDICTED, REFERENCED) for p in devices):
        nothing = f"No device is predicted and no floor is known. {_why_not(devices, floors=False)}"
        return ["### What this model could reach", "", nothing.rstrip(), ""]
    rows = [_measured_row(fastest, limits, device_name(measured_name(fastest), OWN_DEVICE))]
    rows += [_row(p, floors) for p in devices if not (p.basis == MEASURED and (p.kind, p.model) == here)]
    notes = [line for s in (_basis(devices), _why_not(devices)) if s for line in (s, "")]
    return ["### What this model could reach", "", markdown_table(rows), "", *notes,
            *floors_section(floors, prices is not None)]


def floors_section(floors: Floors | None, priced: bool = False) -> list[str]:
    """The floors, under their own heading: what the epoch does, then a row per device: its floors, the measured
    epoch over the largest floor where it ran, and the priced floor ([] without floors)."""
    if floors is None:
        return []
    fastest, gb = floors.row, floors.bytes / 1e9
    said = (f"{config_label(fastest)}: {seconds(fastest['train_s_median'])} s of training an epoch, "
            f"{sig(floors.flops / 1e9)} GFLOP" + (f" and {sig(gb)} GB moved" if math.isfinite(gb) else "")
            + " an epoch" + (f", counted without {', '.join(missed)}: the floors below are lower still than the "
                             "model's." if (missed := tuple(fastest.get("flops_uncounted") or ())) else "."))
    rows = []
    for f in floors.devices:
        name = device_name(f.device, f.role, f.kind) + (f" ({f.arithmetic.upper()})" if f.arithmetic else "")
        row = {"device": name, "compute floor (FLOPs ÷ peak)": bound_cell(f.compute_s),
               "memory floor (bytes ÷ bandwidth)": bound_cell(f.memory_s),
               f"host floor (steps × a step's fixed cost: {HOST_HOW.get(floors.host_how, 'not measured')})":
                   bound_cell(f.host_s) if math.isfinite(f.host_s) else DASH,
               "measured ÷ largest floor": times_cell(f.measured_ratio) if f.ran else ""}
        if priced:
            row["USD per 1M examples at the largest floor"] = (f"≥ {usd(f.usd_per_million)}"
                                                               if math.isfinite(f.usd_per_million) else DASH)
        rows.append(row)
    return ["#### Floors, not predictions", "", said, "", markdown_table(rows), "", REACH_LEGEND, ""]


REACH_LEGEND = ("Floors, not predictions: an epoch takes at least the largest (FLOPs ÷ peak, bytes ÷ bandwidth, "
                "steps × a step's fixed cost); elsewhere one chip at its datasheet peak and bandwidth in the "
                "arithmetic it would use (—: no count in the records, no measured host cost, or no datasheet "
                "figure). A price is shown only where both floors are known and it pays for the machine too (*Prices "
                "used*: host), so that no device ranks on a missing figure; method: docs/reports.md, *What this "
                "model could reach*.")


PREDICTIONS_CSV = "predictions.csv"
_CSV_FIGURES = ("train_s", "low_s", "high_s", "examples_per_s", "limit", "fixed_share", "error", "usd_per_epoch",
                "usd_to_target")


def predictions_csv(predicted: Mapping[int, Sequence[DevicePrediction]], names: Names) -> str:
    """Every section's devices as CSV (one row each; seconds, examples/s, fractions, USD; the measured
    configuration a prediction scales from as ``source_*``): the file ``predictions.csv`` beside report.md, the
    same figures as report.json's ``workloads[].predictions`` and the section's table. Their sources are named
    (:func:`bench.reporting.render.labels.labelled_predictions`)."""
    rows = [{"workload": names.workload(s), "dataset": names.dataset(s),
             "device": device_name(p.device, kind=p.kind), "kind": p.kind, "model": p.model, "basis": p.basis,
             **{k: getattr(p, k) for k in _CSV_FIGURES},
             **{f"source_{k}": p.source.get(k) for k in ("backend", "strategy", "global_batch_size",
                                                         "steps_per_execution", "precision", "host_part")}}
            for s, devices in sorted(predicted.items()) for p in devices]
    return str(pd.DataFrame(rows).to_csv(index=False, lineterminator="\n", float_format="%.6g")) if rows else ""
