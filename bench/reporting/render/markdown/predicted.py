"""The "Predicted where it did not run" section: per device of bench's table, the measured epoch where the records
ran, else the predicted one with its interval and what bounds it there, or why nothing validates a prediction.
Numbers from :mod:`bench.reporting.analysis.predict`; method and its error: docs/predict.md.
"""

from __future__ import annotations

import math

import pandas as pd

from bench.reporting.analysis.predict import MEASURED, PREDICTED, DevicePrediction
from bench.reporting.render.text import DASH, markdown_table, rate, seconds, sig, usd
from bench.reporting.render.words import PREDICTED_REASONS, predicted_reason


def _span(p: DevicePrediction) -> str:
    high = seconds(p.high_s) if math.isfinite(p.high_s) else "∞"
    return f"{seconds(p.train_s)} [{seconds(p.low_s)}, {high}]"


def predicted_section(rows: list[DevicePrediction], measured: pd.Series | None) -> list[str]:
    """A workload's section from its devices ``rows``; ``measured``: the summary row of the configuration the
    predictions scale from (the measured device's row shows it)."""
    if not rows:
        return []
    predicted = [p for p in rows if p.basis == PREDICTED]
    head = ["### Predicted where it did not run", ""]
    if not predicted:
        reasons = sorted({PREDICTED_REASONS.get(p.basis, p.basis) for p in rows if p.basis != MEASURED})
        return [*head, f"No device is predicted: {'; '.join(reasons)} (method: docs/predict.md).", ""]
    src = predicted[0].source
    table = []
    for p in rows:
        if p.basis == MEASURED and measured is not None:
            table.append({"device": p.device, "s an epoch [90% interval]": f"{seconds(measured['train_s_median'])}",
                          "examples/s": rate(measured["examples_per_s"]), "bound by": DASH, "USD an epoch": DASH,
                          "USD to the target": DASH, "basis": "measured (its cost: *Cost*)"})
        elif p.basis == PREDICTED:
            table.append({"device": p.device, "s an epoch [90% interval]": _span(p),
                          "examples/s": sig(p.examples_per_s), "bound by": f"{p.limit} ({100 * p.fixed_share:.0f}% "
                          "fixed)", "USD an epoch": usd(p.usd_per_epoch), "USD to the target": usd(p.usd_to_target),
                          "basis": f"predicted (error {100 * p.error:.0f}% at p90)"})
        else:
            table.append({"device": p.device, "s an epoch [90% interval]": DASH, "examples/s": DASH,
                          "bound by": DASH, "USD an epoch": DASH, "USD to the target": DASH,
                          "basis": predicted_reason(p.basis)})
    said = (f"From {src['backend']} on {src['accelerator']} at batch {src['global_batch_size']}, "
            f"{src['steps_per_execution']} step(s) a call, {src['precision']}: each step's fixed part (its intercept "
            f"against batch size, fitted on {src['configurations']} configurations of that GPU) carried over, the "
            "rest scaled by the datasheets in proportion to the workload's FLOP and byte counts; the interval is the "
            "larger of that fit's leave-one-out error and the scaling's, measured on GPUs it did not see (90th "
            "percentiles; docs/predict.md). Training seconds of one steady epoch; USD at the shipped on-demand price "
            "of one GPU (*Prices used*).")
    return [*head, said, "", markdown_table(table), ""]
