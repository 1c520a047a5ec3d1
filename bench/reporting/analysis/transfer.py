"""How a training step's time transfers from a GPU it was measured on to one it was not: seconds per example =
a / peak + b / bandwidth + c / batch (compute, memory traffic, and a per-step cost spread over the batch), the
coefficients fitted on devices other than the one predicted, the prediction anchored at the measured device
(measured x modelled target / modelled source). Method and its measured error: docs/predict.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls

from bench.measure.datasheets import BANDWIDTH, Chip


@dataclass(frozen=True)
class Device:
    """A GPU as the time model sees it: its datasheet peak in the arithmetic a run uses (FLOP/s), its memory
    bandwidth (bytes/s) and its architecture generation."""

    model: str
    peak: float
    bandwidth: float
    generation: str


def device(chip: Chip, precision: str) -> Device | None:
    """``chip`` for a run of ``precision`` (``fp32``: TF32 where the chip has it, the arithmetic frameworks use for
    float32 convolutions and matmuls on such GPUs; ``fp16``: the tensor rate with float32 accumulation); None without
    a peak or a bandwidth in bench's datasheet table."""
    tags = ("tf32", "fp32") if precision == "fp32" else ("fp16",)
    peak = next((chip.peaks[t] for t in tags if t in chip.peaks), None)
    bandwidth = BANDWIDTH.get((chip.kind, chip.model))
    if peak is None or bandwidth is None:
        return None
    return Device(chip.model, peak, bandwidth, chip.generation)


@dataclass(frozen=True)
class TimeModel:
    """Seconds per example = ``a`` / peak + ``b`` / bandwidth + ``c`` / batch: ``a`` in FLOPs per example at the
    datasheet peak, ``b`` in bytes per example at the datasheet bandwidth, ``c`` in seconds a step (all >= 0)."""

    a: float
    b: float
    c: float

    def seconds(self, d: Device, batch: float) -> float:
        """Modelled seconds per example on ``d`` at ``batch`` examples a step."""
        return self.a / d.peak + self.b / d.bandwidth + (self.c / batch if batch > 0 else 0.0)


def fit(points: Sequence[tuple[Device, float, float]]) -> TimeModel | None:
    """The time model closest to ``points`` ((device, batch, measured seconds per example)) in relative error,
    coefficients non-negative (non-negative least squares); None with fewer than three points."""
    if len(points) < 3:
        return None
    a, b, c = _relative_nnls([[1 / d.peak, 1 / d.bandwidth, 1 / b] for d, b, _ in points], [s for _, _, s in points])
    return TimeModel(a, b, c) if a + b + c > 0 else None


def _relative_nnls(terms: Sequence[Sequence[float]], measured: Sequence[float]) -> list[float]:
    """Non-negative coefficients x minimising the relative error of terms . x against ``measured`` (each point
    weighs the same however long it is; columns scaled to one norm first, so peaks of 1e14 and batches of 1e2 are
    fitted alike)."""
    rows = np.array(terms, dtype=float) / np.array(measured, dtype=float)[:, None]
    scale = np.linalg.norm(rows, axis=0)
    scale[scale == 0] = 1.0
    coef, _ = nnls(rows / scale, np.ones(len(rows)))
    return [float(v) for v in coef / scale]


def transfer(measured_per_s: float, model: TimeModel, source: Device, source_batch: float, target: Device,
             target_batch: float) -> float:
    """Examples/s on ``target`` predicted from ``measured_per_s`` on ``source``: the measurement times the modelled
    ratio of the two devices' seconds per example."""
    there = model.seconds(target, target_batch)
    here = model.seconds(source, source_batch)
    return measured_per_s * here / there if there > 0 and here > 0 else math.nan


def roofline_ratio(w: float, source: Device, target: Device) -> float:
    """Target over source seconds per example when a share ``w`` of the source's time scales with the peak and the
    rest with the bandwidth (one mix for every model: what a datasheet reader without the model's counts has)."""
    return w * source.peak / target.peak + (1 - w) * source.bandwidth / target.bandwidth


@dataclass(frozen=True)
class StepModel:
    """Seconds a training step on one device, backend, precision and compiler = ``call_s`` / steps_per_execution
    (the cost of one compiled call: dispatch, the host's loop) + ``step_s`` (a step's fixed cost on host and device)
    + ``example_s`` x batch (the part that grows with the batch: the device's arithmetic and memory traffic). The
    intercept of step time against batch size is ``call_s / spe + step_s``: what a faster device does not shorten."""

    call_s: float
    step_s: float
    example_s: float

    def seconds(self, batch: float, spe: float) -> float:
        """Modelled seconds a step at ``batch`` examples and ``spe`` steps a call."""
        return self.call_s / spe + self.step_s + self.example_s * batch

    def host_s(self, spe: float) -> float:
        """The step's fixed part at ``spe`` (seconds): the intercept against batch size."""
        return self.call_s / spe + self.step_s


def fit_steps(points: Sequence[tuple[float, float, float]]) -> StepModel | None:
    """The step model closest to ``points`` ((batch, steps_per_execution, measured seconds a step)) in relative
    error, coefficients non-negative; None with fewer than three points or fewer than two batch sizes (no intercept
    to read)."""
    if len(points) < 3 or len({b for b, _, _ in points}) < 2:
        return None
    call_s, step_s, example_s = _relative_nnls([[1 / spe, 1.0, b] for b, spe, _ in points], [s for _, _, s in points])
    return StepModel(call_s, step_s, example_s)


def steps_left_out(points: Sequence[tuple[float, float, float]]) -> list[tuple[float, float, float, float]]:
    """Each point predicted by the step model fitted on the others: (batch, spe, measured s, predicted s); NaN
    where the others cannot be fitted."""
    out = []
    for i, (b, spe, s) in enumerate(points):
        model = fit_steps([p for j, p in enumerate(points) if j != i])
        out.append((b, spe, s, model.seconds(b, spe) if model is not None else math.nan))
    return out
