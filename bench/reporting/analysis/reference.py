"""What a GPU prediction rests on where a workload ran on no GPU: bench's own records on a GPU, shipped as a
reference (``suites/reference/accelerator/host-cost.json``, derived by :func:`derive` from the records it names).
They give three measured things: one backend's step model (the per-step host cost a faster GPU does not shorten,
and a per-example cost), how much slower a step of each other backend was on the same configurations, and the
fraction of the datasheet floor the device part reached on a model with a device part to see. Method and what
none of this validates: docs/predict.md, *A workload with no GPU record*.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.measure.datasheets import chip_of
from bench.records import Record
from bench.records.backends import BACKENDS
from bench.reporting.analysis.transfer import StepModel, device, fit_steps, steps_left_out
from bench.reporting.frames.keys import plain_rows
from bench.reporting.load.throughput import host_reference_path, read_host_reference
from bench.reporting.stats.sample import as_float

REFERENCE_PATH = host_reference_path()
MIN_CONFIGURATIONS = 4  # a step model's three coefficients, and one left out to measure its error
MIN_DEVICE_SHARE = 0.25  # a configuration shows its device part where it is at least this share of the step
SAME = ("section", "accelerator", "precision", "global_batch_size", "steps_per_execution")


def backend_key(row: Mapping[str, Any]) -> str:
    """A backend as the reference keys it: the backend, and its compiler where one is marked."""
    mark = str(row.get("compiler_mark") or "")
    return f"{row.get('backend')}+{mark}" if mark else str(row.get("backend"))


@dataclass(frozen=True)
class Reference:
    """The shipped reference (:func:`derive`): ``step`` fitted on ``configurations`` configurations of ``backend``
    (``host_error``: the 90th percentile of their leave-one-out error, a fraction); ``ratios``: per other backend,
    the smallest and largest ratio of its step to ``backend``'s on the same configurations; ``efficiency``: the
    compute floor's share of the device part (FLOPs at the datasheet peak over the device part's seconds), with
    ``efficiency_error`` (the largest leave-one-out error of a device part predicted from the other
    configurations' efficiency, a fraction); ``source``: provenance."""

    backend: str
    step: StepModel
    configurations: int
    host_error: float
    efficiency: float
    efficiency_error: float
    efficiency_configurations: int
    ratios: dict[str, tuple[float, float]] = field(default_factory=dict)
    source: dict[str, Any] = field(default_factory=dict)

    def host_range(self, backend: str, spe: float) -> tuple[float, float, float, str]:
        """A step's fixed part for ``backend`` at ``spe`` (seconds): (low, central, high, how); a backend with no
        record on a GPU spans every measured backend's ratio (central: their geometric middle)."""
        base = self.step.host_s(spe)
        if backend == self.backend:
            return base * (1 - self.host_error), base, base / (1 - self.host_error), "measured"
        low, high = self.ratios.get(backend) or (min([1.0, *(lo for lo, _ in self.ratios.values())]),
                                                 max([1.0, *(hi for _, hi in self.ratios.values())]))
        how = "measured" if backend in self.ratios else "other_backends"
        return (base * low * (1 - self.host_error), base * math.sqrt(low * high),
                base * high / (1 - self.host_error), how)


def _floor_per_example(r: Mapping[str, Any]) -> float:
    """Seconds an example's FLOPs take at the datasheet peak of the record's GPU in its arithmetic; NaN without a
    chip, a peak or a whole count. (Bytes are left out: the first reference records predate byte counts, and an
    efficiency is applied to what it was measured on.)"""
    chip = chip_of("gpu", str(r.get("accelerator") or ""))
    d = device(chip, "fp32" if str(r.get("precision")) == "float32" else "fp16") if chip is not None else None
    flops = as_float(r.get("flops_per_example"))
    return flops / d.peak if d is not None and flops > 0 and not r.get("flops_uncounted") else math.nan


def step_s(r: Mapping[str, Any]) -> float:
    """A summary row's seconds a training step: steady training seconds an epoch over its steps."""
    return float(r["train_s_median"]) / float(r["steps_per_epoch"])


def _fitted(ok: pd.DataFrame) -> tuple[str, pd.DataFrame, StepModel, float] | None:
    """The (backend, workload) group on one GPU with the most configurations (at least
    :data:`MIN_CONFIGURATIONS`), its rows, step model and leave-one-out 90th percentile."""
    key, g = max(ok.groupby(["backend_key", "workload", "accelerator", "precision"]),
                 key=lambda kg: (len(kg[1]), kg[0]), default=((), ok.iloc[:0]))
    if len(g) < MIN_CONFIGURATIONS:
        return None
    points = [(float(r["global_batch_size"]), float(r["steps_per_execution"]), step_s(r)) for r in plain_rows(g)]
    model = fit_steps(points)
    left = [abs(p / m - 1) for _, _, m, p in steps_left_out(points) if math.isfinite(p)]
    if model is None or len(left) < MIN_CONFIGURATIONS:
        return None
    return str(key[0]), g, model, float(np.quantile(left, 0.9))


def _ratios(ok: pd.DataFrame, backend: str) -> dict[str, tuple[float, float]]:
    """Per other backend: the smallest and largest ratio of its step to ``backend``'s on the same configuration."""
    seen: dict[str, list[float]] = {}
    for _, g in ok.groupby(list(SAME)):
        base = [step_s(b) for b in plain_rows(g[g["backend_key"] == backend])]
        for r in plain_rows(g[g["backend_key"] != backend]) if base else []:
            seen.setdefault(str(r["backend_key"]), []).append(step_s(r) / float(np.median(base)))
    return {k: (round(min(v), 4), round(max(v), 4)) for k, v in sorted(seen.items())}


def _efficiencies(ok: pd.DataFrame, backend: str, model: StepModel) -> list[float]:
    """The fitted backend's configurations whose device part (the step less the model's fixed and per-example
    parts) is at least :data:`MIN_DEVICE_SHARE` of it: each one's datasheet floor over its device part."""
    out = []
    for r in plain_rows(ok[ok["backend_key"] == backend]):
        batch, step = float(r["global_batch_size"]), step_s(r)
        part = step - model.seconds(batch, float(r["steps_per_execution"]))
        floor = batch * _floor_per_example(r)
        if part >= MIN_DEVICE_SHARE * step and floor > 0:
            out.append(floor / part)
    return out


def derive(summary: pd.DataFrame, source: Mapping[str, Any]) -> dict[str, Any]:
    """The reference (:class:`Reference`, as JSON) from the summary rows of bench records on a GPU (whether a
    configuration learned does not change its step's seconds); ``source``: their provenance. Raises ValueError
    where no backend has :data:`MIN_CONFIGURATIONS` configurations of one workload on a GPU."""
    ok = summary[(summary["status"] == "ok") & (summary["device_kind"] == "gpu")]
    ok = ok[ok["train_s_median"].map(lambda v: math.isfinite(as_float(v))).astype(bool)]
    ok = ok.assign(backend_key=[backend_key(r) for r in plain_rows(ok)])
    fitted = _fitted(ok)
    if fitted is None:
        raise ValueError(f"no backend has {MIN_CONFIGURATIONS} finished configurations of one workload on a GPU")
    backend, rows, model, host_error = fitted
    e = _efficiencies(ok, backend, model)
    left = [max(a / b, b / a) - 1 for i, a in enumerate(e) for j, b in enumerate(e) if i != j]
    return {"source": dict(source), "backend": backend, "workload": str(rows["workload"].iloc[0]),
            "accelerator": str(rows["accelerator"].iloc[0]), "configurations": len(rows),
            "call_s": model.call_s, "step_s": model.step_s, "example_s": model.example_s,
            "host_error": round(host_error, 4), "ratios": _ratios(ok, backend),
            "efficiency": float(np.exp(np.mean(np.log(e)))) if e else math.nan,
            "efficiency_error": round(max(left), 4) if left else math.nan, "efficiency_configurations": len(e)}


def provenance(records: Sequence[Record]) -> dict[str, Any]:
    """What a reference rests on, from its records (each with ``env``, ``started_at`` and ``accelerator`` fields):
    the GPUs, the days they ran, bench's commits and the framework versions; no host names, no paths."""
    envs = [r.env if isinstance(r.env, Mapping) else {} for r in records]
    gpus = sorted({str(e.get("accelerator")) for e in envs if e.get("device_kind") == "gpu" and e.get("accelerator")})

    def seen(key: str) -> list[str]:
        return sorted({str(e[key]) for e in envs if e.get(key)})

    return {"accelerators": gpus, "dates": sorted({str(r.started_at)[:10] for r in records if r.started_at}),
            "bench_commits": seen("git_commit"), "cpus": seen("cpu"),
            "versions": {k: seen(k) for k in ("keras", *sorted(BACKENDS)) if seen(k)}}


def load_reference(path: Path = REFERENCE_PATH) -> Reference | None:
    """The shipped reference; None where the file is missing."""
    d = read_host_reference(path)
    if d is None:
        return None
    return Reference(
        backend=d["backend"], step=StepModel(d["call_s"], d["step_s"], d["example_s"]),
        configurations=int(d["configurations"]), host_error=float(d["host_error"]),
        efficiency=float(d["efficiency"]), efficiency_error=float(d["efficiency_error"]),
        efficiency_configurations=int(d["efficiency_configurations"]),
        ratios={k: (float(v[0]), float(v[1])) for k, v in d["ratios"].items()},
        source={**d["source"], "workload": d["workload"], "accelerator": d["accelerator"]})
