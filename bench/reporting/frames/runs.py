"""What a run's machines and processes did outside the measured epochs: the peak used for MFU (the highest matmul
probe of a run's processes on that machine, device kind, precision, device count, backend and math mode, shown with
their spread) and where the wall time went. Method: docs/statistics.md; docs/reports.md, *Where the time went*.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from bench.reporting.stats.sample import finite_median

PEAK_KEY = ["run_id", "host", "backend", "device_kind", "precision", "math_mode", "peak_devices"]


def with_run_peaks(points: pd.DataFrame) -> pd.DataFrame:
    """``points`` with ``run_peak_flops_per_s`` (the highest probe of the run's processes on that machine, backend,
    device kind, precision, math mode and device count), ``run_peak_low``/``run_peak_median`` and ``run_peak_n``
    (distinct probes)."""
    points = points.copy()
    for col in ("run_peak_flops_per_s", "run_peak_low", "run_peak_median", "run_peak_n"):
        points[col] = math.nan
    for _, g in points.groupby(PEAK_KEY, sort=False, dropna=False):
        per_process = g.groupby("process")["peak_flops_per_s"].first()
        probes = [v for v in per_process if math.isfinite(v)]
        if probes:
            points.loc[g.index, "run_peak_flops_per_s"] = max(probes)
            points.loc[g.index, "run_peak_low"] = min(probes)
            points.loc[g.index, "run_peak_median"] = float(np.median(probes))
            points.loc[g.index, "run_peak_n"] = len(probes)
    return points


def run_peaks(points: pd.DataFrame) -> pd.DataFrame:
    """The peak FLOP/s behind every MFU figure, one row per run, host, backend, device kind and precision of the ok
    points that recorded a probe or a datasheet peak: ``peak`` (the run's highest probe, :func:`with_run_peaks`),
    ``low``, ``median`` and ``n`` (its probes), ``datasheet_peak`` (FLOP/s of the math mode that ran) and
    ``math_modes`` ((arithmetic, inferred) pairs: the arithmetic that ran, per op class where they differ, and whether
    its matmul's is inferred: frames.points.arithmetic_of)."""
    cols = ["run_id", "host", "backend", "device_kind", "precision", "peak", "low", "median", "n", "datasheet_peak",
            "math_modes"]
    ok = points[points["status"] == "ok"] if not points.empty else points
    rows = []
    by = ["run_id", "host", "backend", "device_kind", "precision"]
    for (run, host, backend, kind, precision), g in ok.groupby(by, sort=True):
        peak, sheet = finite_median(g["run_peak_flops_per_s"]), finite_median(g["datasheet_peak_flops_per_s"])
        if not (math.isfinite(peak) or math.isfinite(sheet)):
            continue
        rows.append({"run_id": run, "host": host, "backend": backend, "device_kind": kind, "precision": precision,
                     "peak": peak,
                     "low": finite_median(g["run_peak_low"]), "median": finite_median(g["run_peak_median"]),
                     "n": finite_median(g["run_peak_n"]), "datasheet_peak": sheet,
                     "math_modes": tuple(sorted({(str(m), i is True) for m, i in zip(g["arithmetic"],
                                                                                   g["arithmetic_inferred"],
                                                                                   strict=True) if m}))})
    return pd.DataFrame(rows, columns=cols)


def time_budget(points: pd.DataFrame, parents: Mapping[str, Mapping[str, float]] | None = None) -> pd.DataFrame:
    """Per run and host: worker processes, and seconds spent in process start-up (interpreter, imports, strategy,
    peak probe; ``probe_s`` the probes alone), inside ``fit`` (the epochs; ``train_s`` their training seconds,
    validation excluded), in ``fit``'s teardown (after its last epoch, inside ``fit_wall_s``), and in each point's
    own work outside ``fit`` (data, model build, compile, predictions, input probe); ``workers_s`` is their sum, the
    workers' wall time. From ``parents`` (:func:`bench.reporting.load.parents.parent_times`), for a run on one host:
    the run's own process before its first worker (``before_s``), between and around its workers (``between_s``:
    its time running workers less theirs; NaN when they overlapped), building the report (``report_s``) and its
    whole wall time (``wall_s``). NaN where records or runs predate the fields."""
    cols = ["run_id", "host", "processes", "startup_s", "probe_s", "fit_s", "train_s", "teardown_s", "outside_fit_s",
            "workers_s", "before_s", "between_s", "report_s", "wall_s"]
    rows = []
    hosts = points.groupby("run_id")["host"].nunique().to_dict()  # by run: a group key reads as Hashable
    for (run, host), g in points.groupby(["run_id", "host"], sort=True):
        if not np.isfinite(g["point_wall_s"]).any():
            continue
        ran = g[np.isfinite(g["point_wall_s"])]  # a point recorded skipped before any worker ran nothing
        startup = ran.groupby("process")["startup_s"].first()
        fit = float(np.nansum(ran["fit_wall_s"]))
        point_wall = float(np.nansum(ran["point_wall_s"]))
        start = float(np.nansum(startup)) if np.isfinite(startup).any() else math.nan
        probes = ran.groupby("process")["peak_measure_s"].first()  # once per worker, in its start-up
        workers = point_wall + (start if math.isfinite(start) else 0)
        parent = (parents or {}).get(str(run), {}) if hosts[run] == 1 else {}
        between = parent.get("workers_s", math.nan) - workers
        rows.append({"run_id": run, "host": host, "processes": int(ran["process"].nunique()), "startup_s": start,
                     "probe_s": float(np.nansum(probes)) if np.isfinite(probes).any() else math.nan,
                     "fit_s": fit, "train_s": float(np.nansum(ran["train_s_total"])),
                     "teardown_s": float(np.nansum(ran["teardown_s"])), "outside_fit_s": point_wall - fit,
                     "workers_s": workers, "before_s": parent.get("before_workers_s", math.nan),
                     "between_s": between if between >= 0 else math.nan, "report_s": parent.get("report_s", math.nan),
                     "wall_s": parent.get("wall_s", math.nan)})
    return pd.DataFrame(rows, columns=cols)
