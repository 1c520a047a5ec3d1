"""The report's tables: results, environment, peaks, input pipelines, break-even, problems and skipped files."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from bench.records import LoadResult, RecordLike, as_records
from bench.records.backends import SPECS
from bench.reporting.claims import pipeline_pairs
from bench.reporting.frames.keys import plain_rows
from bench.reporting.frames.runs import run_peaks
from bench.reporting.frames.summary import INPUT_BOUND_FRACTION
from bench.reporting.load.untrusted import skipped_row
from bench.reporting.render.text import (
    DASH,
    config_name,
    markdown_table,
    names_of,
    number,
    rate,
    ratio_text,
    reason_text,
    seconds,
    shorten,
    sig,
    spread_text,
    with_backend,
)
from bench.reporting.render.words import arithmetic_words


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

    A skipped point's record knows only the host (its worker never got the device), and a point whose worker died
    before it reported may know no more: neither adds a row of dashes; a line counts those no other record of their
    host and run describes.
    """
    typed = as_records(records)
    full = {(str(r.env.get("hostname")), r.run_id) for r in typed if r.status != "skipped" and r.env.get("python")}
    blind = [r for r in typed if not r.env.get("python") and (str(r.env.get("hostname")), r.run_id) not in full]
    unseen = {id(r) for r in blind}
    # the first backend's column always, another's only where that framework ran (records name their versions by it)
    first, *others = SPECS.values()
    extra = [(b.name, b.display) for b in others if any(r.env.get(b.name) for r in typed)]
    envs: dict[tuple[str, ...], set[str]] = {}
    for r in typed:
        e = r.env
        described = (str(e.get("hostname")), r.run_id) in full
        if id(r) in unseen or (described and (r.status == "skipped" or not e.get("python"))):
            continue
        commit = str(e.get("git_commit") or DASH) + ("+dirty" if e.get("git_dirty") else "")
        devices = f"{e.get('device_count', DASH)} x {e.get('accelerator') or e.get('device_kind') or DASH}"
        fields = ("hostname", "cpu", "cpu_count", "python", first.name, *(k for k, _ in extra), "keras")
        shown = [str(e.get(f)) if e.get(f) is not None else DASH for f in fields]
        key = (*shown[:3], devices, *shown[3:], f"{e.get('bench_version') or DASH} ({commit})")
        envs.setdefault(key, set()).add(r.run_id)
    cols = ["host", "CPU", "cores", "devices", "Python", first.display, *(c for _, c in extra), "Keras",
            "bench (commit)", "runs"]
    table = markdown_table([dict(zip(cols, [*k, ", ".join(sorted(v))], strict=True)) for k, v in sorted(envs.items())])
    gpus = {(str(r.env.get("hostname")), gpu_summary(r.env.get("gpu"))) for r in typed if r.env.get("gpu")}
    lines = [f"GPU on {host}: {text}." for host, text in sorted(gpus)]  # once per host (and per GPU set seen)
    unread = sorted({str(r.env.get("hostname")) for r in typed if r.env.get("device_kind") == "gpu"
                     and not r.env.get("gpu")})
    if unread:
        lines.append(f"GPU on {', '.join(unread)}: not recorded (records from an older bench: no driver, CUDA, "
                     "memory, form factor, clocks or power limit).")
    if blind:
        lines.append(f"{len(blind)} point(s) carry no environment (skipped before a worker started, or their worker "
                     "ended before it reported): "
                     f"{', '.join(sorted({r.point_id for r in blind}))}.")
    if not envs:
        return "\n".join(lines)
    return table + ("\n\n" + "\n".join(lines) if lines else "")


def peaks_table(points: pd.DataFrame, show_backend: bool = False) -> str:
    """The peak FLOP/s behind every MFU figure: per run, host, device and precision, the highest matmul probe
    of the run's worker processes (:func:`bench.reporting.frames.runs.with_run_peaks`) with the lowest, the median and
    the number of probes, the math mode that ran, and the datasheet peak of that mode."""
    rows = []
    for _, p in run_peaks(points).iterrows():
        peak, n = p["peak"], p["n"]
        spread = (f"{sig(p['low'] / 1e9)}-{sig(peak / 1e9)} (median {sig(p['median'] / 1e9)}, {int(n)} probes)"
                  if math.isfinite(n) and n > 1 else "one probe")
        rows.append({"run": p["run_id"], "host": p["host"], **({"backend": p["backend"]} if show_backend else {}),
                     "device": p["device_kind"], "precision": p["precision"],
                     "math mode": ", ".join(arithmetic_words({"arithmetic": m, "arithmetic_inferred": i})
                                            for m, i in p["math_modes"]) or DASH,
                     "peak GFLOP/s (highest probe)": sig(peak / 1e9), "probes: lowest-highest": spread,
                     "datasheet peak GFLOP/s": number(p["datasheet_peak"] / 1e9, ",.0f")})
    if not rows:
        return "No point recorded a peak (MFU is not shown)."
    return markdown_table(rows)


def pipelines_section(summary: pd.DataFrame, show_backend: bool = False) -> list[str]:
    """Tutorial 001's lesson as a table: each configuration that ran under several input pipelines, its
    examples/s under each, and each pipeline's throughput relative to ``default`` (decode every epoch) with
    the repeats' interval; [] when no configuration ran under more than one pipeline."""
    found = pipeline_pairs(summary)
    if not found:
        return []
    groups = [g for g, _ in found]
    names = sorted({p for g in groups for p in g["input_pipeline"]}, key=lambda p: (p != "default", p))
    rows = []
    for g, vs_default in found:
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
            row[f"{p} examples/s"] = DASH if r is None else f"{rate(r['examples_per_s'])}{bound}{spread}"
        for p in names[1:] if "default" in by else []:
            row[f"{p} vs default"] = ratio_text(vs_default[p].ratio) if p in vs_default else DASH
        rows.append(row)
    names = [(g.iloc[0]["backend"], g.iloc[0]["strategy_label"]) for g in groups]
    return ["## Input pipelines", "", markdown_table(pd.DataFrame(with_backend(rows, show_backend, names))), "",
            f"Examples/s under each input pipeline (in brackets: steady training s/epoch over its processes); "
            f"input-bound: training reaches {100 * INPUT_BOUND_FRACTION:.0f}% or more of the rate the pipeline "
            "delivers alone; ratios over `default` with a 95% interval from 3 processes a side (what each pipeline "
            "does: docs/reports.md, *Input pipelines*).", ""]


def break_even_section(be: pd.DataFrame, show_backend: bool = False) -> list[str]:
    if be.empty:
        return []
    rows = [{"strategy": r["strategy"],
             "quickest to start (warm-up s / epoch s)":
                 f"{config_name(r['quick'])} ({seconds(r['quick_warmup_s'])} / {seconds(r['quick_epoch_s'])})",
             "fastest (warm-up s / epoch s)":
                 f"{config_name(r['fast'])} ({seconds(r['fast_warmup_s'])} / {seconds(r['fast_epoch_s'])})",
             "break-even epochs": "no trade-off" if r["quick_key"] == r["fast_key"] else
             (str(r["break_even_epochs"]) if math.isfinite(r["break_even_epochs"]) else "never")}
            for _, r in be.iterrows()]
    return ["### Break-even epochs", "", markdown_table(with_backend(rows, show_backend, names_of(be))), "",
            "Break-even: the fewest epochs (n) after which a strategy's fastest configuration that learns is no slower "
            "in total (warm-up + n x steady epoch, training seconds) than its quickest to start.", ""]


def problems_section(points: pd.DataFrame) -> list[str]:
    """Every point that is not ok; the points of a strategy that was skipped as a whole are one row."""
    lines = ["## Failed, skipped and diverged points", ""]
    rows = _problem_rows(points, ["host", "run_id", "strategy"])
    if not rows:
        return [*lines, "None: every point finished.", ""]
    return [*lines, markdown_table(rows), ""]


def _problem_rows(points: pd.DataFrame, by: list[str]) -> list[dict[str, Any]]:
    """A row per point that is not ok (host, run, point, status, reason); the points of one ``by`` group (a
    strategy's run) skipped as a whole are one row."""
    bad = points.loc[points["status"] != "ok", [*by, "point_id", "status", "error"]] if not points.empty else points
    if bad.empty:
        return []
    statuses = {k: set(g) for k, g in points.groupby(by, sort=False)["status"]}  # every point of the strategy's run
    rows = []
    for key, g in bad.groupby(by, sort=True):
        if statuses[key] == {"skipped"} and len(g) > 1:
            rows.append({"host": g.iloc[0]["host"], "run": g.iloc[0]["run_id"],
                         "point": f"all {len(g)} points of {g.iloc[0]['strategy']}",
                         "status": "skipped", "reason": shorten(reason_text(g.iloc[0]["error"]), 200)})
            continue
        rows += [{"host": r["host"], "run": r["run_id"], "point": r["point_id"], "status": r["status"],
                  "reason": shorten(reason_text(r["error"]), 200)} for r in plain_rows(g)]
    return rows


def _numbers_first(v: Any) -> tuple[int, float, str]:
    """A sort key: numbers in numeric order, then text."""
    return (0, float(v), "") if isinstance(v, (int, float)) else (1, 0.0, str(v))


def nothing_finished_section(points: pd.DataFrame) -> list[str]:
    """The section of a workload none of whose points finished: what was asked (the points' settings, counted) and
    each point's reason; no speed, cost, limit or prediction, for there is nothing measured to give one."""
    counts = points["status"].value_counts()
    said = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    asked = "; ".join(f"{what} {', '.join(str(v) for v in sorted(set(points[col]), key=_numbers_first))}"
                      for what, col in (("backends", "backend"), ("strategies", "strategy"),
                                        ("global batches", "global_batch_size"),
                                        ("steps_per_execution", "steps_per_execution"), ("precisions", "precision"))
                      if col in points)
    rows = _problem_rows(points, ["host", "run_id", "workload", "strategy"])
    return ["### Nothing finished", "",
            f"{len(points)} point(s) asked ({asked}); none finished: {said}. With nothing measured there is no speed, "
            "cost, limit or prediction for this workload; each point's reason:", "", markdown_table(rows), ""]


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
