"""The report's tables: results, environment, peaks, input pipelines, break-even, problems and skipped files."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.records import LoadResult, RecordLike, as_records
from bench.reporting.analysis.limits import SAID_LIMITS
from bench.reporting.frames.keys import PIPELINE_KEY
from bench.reporting.frames.runs import run_peaks
from bench.reporting.frames.speedups import ratio_ci
from bench.reporting.frames.summary import INPUT_BOUND_FRACTION
from bench.reporting.load.untrusted import skipped_row
from bench.reporting.render.markdown.accuracy import accuracy_cell
from bench.reporting.render.text import (
    DASH,
    flag,
    markdown_table,
    number,
    ratio_text,
    seconds,
    shorten,
    speedup_cell,
    spread_text,
    two_speeds_text,
    with_backend,
)
from bench.reporting.verdicts import absent_strategies


def _flags(row: pd.Series) -> str:
    """The results table's flags column: status, learning, what limits it (input-bound; overhead-, compute-,
    memory-bound or mixed from analysis.limits: undetermined is no flag), two speeds, parity, MFU above the probe."""
    limit = row.get("limit", "")
    flags = [shorten(f"{row['status']}: {row['error']}") if row["status"] != "ok" else
             f"{row['n_points'] - row['n_ok']} of {row['n_points']} repeats not ok" if row["n_ok"] < row["n_points"]
             else "",
             "not learning" if row["not_learning"] else row.get("accuracy_flag", ""),
             "input-bound" if row["input_bound"] else limit if limit in SAID_LIMITS else "",
             # across processes (bench.reporting.stats.spread): the range is part of the answer
             two_speeds_text(row["two_speeds"]) if row.get("two_speeds") else "",
             "parity" if row.get("parity_flag", False) else "",
             "above the probed peak (MFU not shown)" if row.get("mfu_over_peak", False) else ""]
    return "; ".join(f for f in flags if f)


def gpu_summary(gpu: dict[str, Any] | None) -> str:
    """One line for the report's environment table from a record's ``env.gpu`` (:mod:`bench.measure.gpu_env`):
    ``1 x NVIDIA H200 (SXM, 143,771 MiB, 700 W, SM 1,980 MHz, cc 9.0), driver 580.159.04, CUDA 13.0``; the reason
    where it is absent; "" without a record of it."""
    if not gpu:
        return ""
    if "absent" in gpu:
        return f"not read: {gpu['absent']}"
    first = gpu["gpus"][0]
    parts = [first["form_factor"]]
    shown = (("memory_mib", "{:,.0f} MiB"), ("power_limit_w", "{:,.0f} W"), ("sm_clock_max_mhz", "SM {:,.0f} MHz"))
    for key, fmt in shown:
        if first.get(key) is not None:
            parts.append(fmt.format(first[key]))
    parts.append(f"cc {first['compute_capability']}")
    cuda = f", CUDA {gpu['cuda_driver']}" if gpu.get("cuda_driver") else ""
    return f"{len(gpu['gpus'])} x {first['name']} ({', '.join(parts)}), driver {gpu['driver']}{cuda}"


def environment_table(records: Sequence[RecordLike]) -> str:
    """One row per distinct machine environment, with the runs that used it.

    A skipped point's record knows only the host (its worker never got the device), so it adds no row of
    its own when another record of the same host and run describes the full environment.
    """
    typed = as_records(records)
    full = {(str(r.env.get("hostname")), r.run_id) for r in typed if r.status != "skipped"}
    # a JAX or PyTorch column only where that framework ran
    extra = [(k, c) for k, c in (("jax", "JAX"), ("torch", "PyTorch")) if any(r.env.get(k) for r in typed)]
    envs: dict[tuple[str, ...], set[str]] = {}
    for r in typed:
        e = r.env
        if r.status == "skipped" and (str(e.get("hostname")), r.run_id) in full:
            continue
        commit = str(e.get("git_commit") or DASH) + ("+dirty" if e.get("git_dirty") else "")
        fields = ("hostname", "cpu", "cpu_count", "device_kind", "device_count", "accelerator", "python",
                  "tensorflow", *(k for k, _ in extra), "keras", "bench_version")
        key = (*(str(e.get(f)) if e.get(f) is not None else DASH for f in fields), commit)
        envs.setdefault(key, set()).add(r.run_id)
    cols = ["host", "CPU", "cores", "device kind", "devices", "accelerator", "Python", "TensorFlow",
            *(c for _, c in extra), "Keras", "bench", "git commit", "runs"]
    table = markdown_table([dict(zip(cols, [*k, ", ".join(sorted(v))], strict=True)) for k, v in sorted(envs.items())])
    gpus = {(str(r.env.get("hostname")), gpu_summary(r.env.get("gpu"))) for r in typed if r.env.get("gpu")}
    lines = [f"GPU on {host}: {text}." for host, text in sorted(gpus)]  # once per host (and per GPU set seen)
    unread = sorted({str(r.env.get("hostname")) for r in typed if r.env.get("device_kind") == "gpu"
                     and not r.env.get("gpu")})
    if unread:
        lines.append(f"GPU on {', '.join(unread)}: not recorded (records from before 2026-11-27: no driver, CUDA, "
                     "memory, form factor, clocks or power limit).")
    return table + ("\n\n" + "\n".join(lines) if lines else "")


def peaks_table(points: pd.DataFrame, show_backend: bool = False) -> str:
    """The peak FLOP/s behind every MFU figure: per run, host, device and precision, the highest matmul probe
    of the run's worker processes (:func:`bench.reporting.frames.runs.with_run_peaks`) with the lowest, the median and
    the number of probes, the math mode that ran, and the datasheet peak of that mode."""
    rows = []
    for _, p in run_peaks(points).iterrows():
        peak, n = p["peak"], p["n"]
        spread = (f"{number(p['low'] / 1e9, ',.1f')}-{number(peak / 1e9, ',.1f')} "
                  f"(median {number(p['median'] / 1e9, ',.1f')}, {int(n)} probes)"
                  if math.isfinite(n) and n > 1 else "one probe")
        rows.append({"run": p["run_id"], "host": p["host"], **({"backend": p["backend"]} if show_backend else {}),
                     "device": p["device_kind"], "precision": p["precision"],
                     "math mode": ", ".join(p["math_modes"]) or DASH,
                     "peak GFLOP/s (highest probe)": number(peak / 1e9, ",.1f"), "probes: lowest-highest": spread,
                     "datasheet peak GFLOP/s": number(p["datasheet_peak"] / 1e9, ",.0f")})
    if not rows:
        return "No point recorded a peak (MFU is not shown)."
    return markdown_table(rows)


def results_table(summary: pd.DataFrame, baseline: str, show_backend: bool = False) -> str:
    """Strategy x global batch x spe table of one workload (every status, never dropped; a strategy whose
    every point was skipped is one row). Memory columns (MiB) appear when the records have them."""
    has_flops = summary["gflops_per_s"].notna().any()
    has_rss = "peak_rss_mib" in summary and summary["peak_rss_mib"].notna().any()
    has_device_mem = any(c in summary and summary[c].notna().any() for c in ("device_peak_mib", "step_mib"))
    has_sheet = summary["mfu_datasheet_pct"].notna().any()
    has_target = bool(np.isfinite(summary["target_accuracy"]).any())
    absent = absent_strategies(summary)
    rows = []
    for _, r in summary.iterrows():
        if r["strategy"] in set(absent["strategy"]):
            continue
        ok = r["status"] == "ok"
        known = isinstance(r["device_kind"], str) and pd.notna(r["num_replicas"]) and r["num_replicas"]
        devices = f"{r['device_kind']} x{int(r['num_replicas'])}" if known else DASH
        row = {
            "strategy": r["strategy"], "devices": devices, "global batch": r["global_batch_size"],
            "spe": r["steps_per_execution"], "precision": r["precision"],
            "status": r["status"] if ok else f"**{r['status']}**",
            "repeats": r["n_ok"] if r["n_ok"] == r["n_points"] else f"{r['n_ok']}/{r['n_points']}",
            "examples/s": number(r["examples_per_s"], ",.0f"),
            f"speedup vs {baseline}": speedup_cell(r),
            "train s/epoch median [IQR]":
                f"{seconds(r['train_s_median'])} [{seconds(r['train_s_iqr'])}]" if ok else DASH,
            "warm-up s": seconds(r["warmup_overhead_s"]) + (" †" if flag(r.get("warmup_after_others")) else ""),
            "final val acc [seeds' range]": accuracy_cell(r),
        }
        if has_target:
            targeted = ok and math.isfinite(r["target_accuracy"])
            reached = f" ({r['n_reached']}/{r['n_seeds']} seeds)" if targeted and r["n_reached"] < r["n_seeds"] else ""
            row["target"] = number(r["target_accuracy"], ".2f")
            row["s to target"] = (seconds(r["time_to_target_s"]) + reached) if targeted else DASH
        if has_flops:
            row["GFLOP/s"] = number(r["gflops_per_s"], ".1f")
            row["MFU %"] = number(r["mfu_pct"], ".1f")
        if has_sheet:
            row["MFU % (datasheet)"] = number(r["mfu_datasheet_pct"], ".2f")
        if has_rss:
            row["peak RSS MiB"] = number(r["peak_rss_mib"], ",.0f")
        if has_device_mem:
            row["device MiB"] = device_memory_cell(r)
        row["flags"] = _flags(r)
        rows.append(row)
    for _, a in absent.iterrows():
        rows.append({"strategy": a["strategy"], "devices": DASH, "global batch": "all", "spe": "all",
                     "precision": "all", "status": "**skipped**", "repeats": f"0/{a['n_points']}",
                     "flags": shorten(f"absent: {a['reason']}", 120)})
    table = markdown_table(pd.DataFrame(with_backend(rows, show_backend)).fillna(DASH))
    marks = {m.strip() for r in rows for m in MEM_MARKS if f"{r.get('device MiB')}".endswith(m)}
    marks |= {"†" for r in rows if str(r.get("warm-up s", "")).endswith("†")}
    return table + ("\n\n" + " ".join(TABLE_LEGEND[m] for m in sorted(marks, reverse=True)) if marks else "")


SCOPE_MARKS = {"process": " (process)", "process+probe": " (process, probe)"}  # device MiB not reset for a point
MEM_MARKS = (" (step)", *SCOPE_MARKS.values())
TABLE_LEGEND = {  # and the warm-up mark: one legend line under the results table
    "†": "† warm-up of points that each followed others in their worker process (libraries loaded, kernels "
         "compiled): a fresh process's first epoch is longer.",
    "(step)": "Device MiB (step): what the compiled training step needs on one device, from XLA's memory analysis "
              "(weights, optimizer state, the batch, activations and gradients), the model's own figure where JAX "
              "cannot reset its allocator's peak.",
    "(process)": "Device MiB (process): the worker's allocator peak over its points so far (JAX cannot reset it).",
    "(process, probe)": "Device MiB (process, probe): the worker process's allocator peak, not the model's: it "
                        "includes bench's matmul probe, run in the worker before its first point (until 2026-11-28).",
}


def device_memory_cell(r: pd.Series) -> str:
    """Device MiB: the compiled step's analysis (JAX), else the allocator's peak, marked unless the point's own."""
    step = r.get("step_mib", math.nan)
    if isinstance(step, float) and math.isfinite(step):
        return f"{number(step, ',.0f')} (step)"
    peak = r.get("device_peak_mib", math.nan)
    if not (isinstance(peak, float) and math.isfinite(peak)):
        return DASH
    return number(peak, ",.0f") + SCOPE_MARKS.get(r.get("device_scope"), "")


def pipelines_section(summary: pd.DataFrame, show_backend: bool = False) -> list[str]:
    """Seed 001's lesson as a table: each configuration that ran under several input pipelines, its
    examples/s under each, and each pipeline's throughput relative to ``default`` (decode every epoch) with
    the repeats' interval; [] when no configuration ran under more than one pipeline."""
    ok = summary[summary["status"] == "ok"]
    groups = [g for _, g in ok.groupby(PIPELINE_KEY, sort=True) if g["input_pipeline"].nunique() > 1]
    if not groups:
        return []
    names = sorted({p for g in groups for p in g["input_pipeline"]}, key=lambda p: (p != "default", p))
    rows = []
    for g in groups:
        by = {r["input_pipeline"]: r for _, r in g.iterrows()}
        first = g.iloc[0]
        row: dict[str, Any] = {"workload": first["workload"], "data": first["data"], "strategy": first["strategy"],
                               "global batch": first["global_batch_size"], "spe": first["steps_per_execution"],
                               "precision": first["precision"]}
        for p in names:
            r = by.get(p)
            bound = " (input-bound)" if r is not None and r["input_bound"] else ""
            process_spread = spread_text(r["process_train_s"], r["two_speeds"]) if r is not None else ""
            spread = f" ({process_spread})" if process_spread else ""
            row[f"{p} examples/s"] = DASH if r is None else f"{r['examples_per_s']:,.0f}{bound}{spread}"
        base = by.get("default")
        for p in names[1:] if base is not None else []:
            r = by.get(p)
            ratio = ratio_ci(r, base) if r is not None and base is not None \
                else None
            row[f"{p} vs default"] = DASH if ratio is None else ratio_text(ratio)
        rows.append(row)
    return ["## Input pipelines", "",
            "The same configuration under each input pipeline: `default` is bench's fixed tf.data settings (images "
            "read, decoded and resized every epoch); `cached` decodes once (epoch 1) and caches the decoded images "
            "*before* augmentation, so augmentation still differs every epoch; `slow_decode` is the default without "
            "parallel decoding; `autotune` the seeds' `tf.data.AUTOTUNE` settings with autotune on; `numpy` the "
            "arrays straight into `fit`, which shuffles them itself. In brackets: the steady training seconds per "
            "epoch across its repeats (a process each), lowest to highest, and two speeds where the repeats split "
            "into two (docs/statistics.md). "
            f"A pipeline is input-bound when training reaches {100 * INPUT_BOUND_FRACTION:.0f}% or more of the rate "
            "it delivers alone: the device waits for data, and a faster device would not help (seed 001's lesson "
            "on TPUs). Ratios are examples/s over the default pipeline's, with a 95% interval from 3 or more "
            "repeats a side.", "",
            markdown_table(pd.DataFrame(with_backend(rows, show_backend))), ""]


def break_even_section(be: pd.DataFrame, show_backend: bool = False) -> list[str]:
    if be.empty:
        return []
    rows = [{"strategy": r["strategy"],
             "quickest to start (warm-up s / epoch s)":
                 f"{r['quick']} ({seconds(r['quick_warmup_s'])} / {seconds(r['quick_epoch_s'])})",
             "fastest (warm-up s / epoch s)":
                 f"{r['fast']} ({seconds(r['fast_warmup_s'])} / {seconds(r['fast_epoch_s'])})",
             "break-even epochs": "no trade-off" if r["quick_key"] == r["fast_key"] else
             (str(r["break_even_epochs"]) if math.isfinite(r["break_even_epochs"]) else "never")}
            for _, r in be.iterrows()]
    return ["### Break-even epochs", "",
            "Among the configurations that learn: training n epochs costs warm-up + n x steady epoch time. "
            "Break-even is the smallest n from which a strategy's fastest configuration (examples/s) is no "
            "slower in total than its quickest-to-start one (it has paid back its extra warm-up).", "",
            markdown_table(with_backend(rows, show_backend)), ""]


def problems_section(points: pd.DataFrame) -> list[str]:
    """Every point that is not ok; the points of a strategy that was skipped as a whole are one row."""
    bad = points[points["status"] != "ok"] if not points.empty else points
    lines = ["## Failed, skipped and diverged points", ""]
    if bad.empty:
        return [*lines, "None: every point finished.", ""]
    rows = []
    for (host, run, strategy), g in bad.groupby(["host", "run_id", "strategy"], sort=True):
        every = points[(points["host"] == host) & (points["run_id"] == run) & (points["strategy"] == strategy)]
        if set(every["status"]) == {"skipped"} and len(g) > 1:
            rows.append({"host": host, "run": run, "point": f"all {len(g)} points of {strategy}",
                         "status": "skipped", "reason": shorten(g.iloc[0]["error"] or "(no reason recorded)", 200)})
            continue
        rows += [{"host": r["host"], "run": r["run_id"], "point": r["point_id"], "status": r["status"],
                  "reason": shorten(r["error"] or "(no reason recorded)", 200)} for _, r in g.iterrows()]
    return [*lines, markdown_table(rows), ""]


def skipped_files_section(loaded: LoadResult[Any], dirs: Sequence[Path]) -> list[str]:
    lines = ["## Files skipped by the loader", ""]
    if not loaded.skipped:
        return [*lines, "None.", ""]
    rows = []
    for path, reason in sorted(loaded.skipped):
        p, name = Path(path), Path(path).name
        for d in dirs:
            if p == d or p.is_relative_to(d):
                name = (Path(d.name) / p.relative_to(d)).as_posix() if p != d else d.name
                break
        rows.append(skipped_row(name, reason.removeprefix(f"{path}: ")))
    return [*lines, markdown_table(rows), ""]
