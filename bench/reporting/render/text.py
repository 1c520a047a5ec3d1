"""How every number and cell is written (seconds, dollars, ratios with intervals, speedups, dashes, markdown cells,
the backend column), for the markdown report, the console table and ``compare``. Names come from
:mod:`bench.reporting.frames.identity`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bench.reporting.frames.speedups import speedup_ci
from bench.reporting.stats.ratio import RatioCI
from bench.reporting.stats.spread import TwoSpeeds

DASH = "—"  # an absent figure (a failed point has no throughput)


def config_label(row: Mapping[str, Any] | pd.Series) -> str:
    """``"cpu_x2 at b256 spe8 float32"``: a configuration with its strategy."""
    return f"{row['strategy']} at {config_name(row)}"


def config_name(row: Mapping[str, Any] | pd.Series) -> str:
    """``"b256 spe8 float32"``: the parts of a configuration that vary within one strategy."""
    return f"b{row['global_batch_size']} spe{row['steps_per_execution']} {row['precision']}"


def workload_title(workload: str, dataset: str) -> str:
    """``fashion_cnn on synthetic (reduced, n_train=4096)``: a workload and its data set, as every section, figure
    and report.json names them."""
    return f"{workload} on {dataset}"


def section_key(rows: pd.DataFrame) -> tuple[str, str]:
    """A section's (workload, data set label), from its labelled rows (:mod:`bench.reporting.render.labels`): the key
    its figures are drawn under."""
    return str(rows["workload"].iloc[0]), str(rows["dataset"].iloc[0])


def section_title(rows: pd.DataFrame) -> str:
    """A section's :func:`workload_title`, from its labelled rows."""
    return workload_title(*section_key(rows))


def anchor(heading: str) -> str:
    """The link target GitHub (and most markdown viewers) give a heading: lower case, punctuation dropped but ``-``
    and ``_``, spaces as ``-`` (``fashion_cnn on synthetic (reduced, n_train=4096)`` ->
    ``fashion_cnn-on-synthetic-reduced-n_train4096``)."""
    kept = "".join(c for c in heading.strip().lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def cell(text: Any) -> str:
    """One markdown table cell: single line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def markdown_table(rows: list[dict[str, Any]] | pd.DataFrame) -> str:
    """A markdown (pipe) table of ``rows``, every cell through :func:`cell`, numbers left as written."""
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
    frame = frame.map(cell)
    return str(frame.to_markdown(index=False, disable_numparse=True))


NO_REASON = "(no reason recorded)"


def reason_text(error: object) -> str:
    """Why a point did not finish, as its record says it ('' in a record: :data:`NO_REASON`)."""
    return str(error or "") or NO_REASON


def shorten(text: str, limit: int = 90) -> str:
    """``text`` cut to at most ``limit`` characters with an ellipsis (long error messages in table cells), at the
    last word boundary when one lies in the second half of the cut (a word is never cut in two: "(tpu: INT…" read
    as a word of its own); mid-word only for a text without spaces there."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space >= limit // 2 else cut).rstrip(" ,;:(") + "…"


def counted(n: float, noun: str) -> str:
    """``1 epoch``, ``5 epochs``: a count with its noun in the right number."""
    return f"{n:g} {noun}{'' if n == 1 else 's'}"


def flag(v: object) -> bool:
    """A frame's boolean cell as a bool: True only for a real true value (NaN, None and "" are not)."""
    return isinstance(v, (bool, np.bool_)) and bool(v)


def seconds(v: float) -> str:
    """Seconds with about three significant digits (``0.123``, ``2.46``, ``32.3``, ``130``)."""
    if not math.isfinite(v):
        return DASH
    for limit, digits in ((100, 0), (10, 1), (1, 2)):
        if abs(v) >= limit:
            return f"{v:.{digits}f}"
    return f"{v:.3f}"


def usd(v: float) -> str:
    """``$0.000103`` / ``$0.0845`` / ``$4.06`` / ``$123``: US dollars to three significant digits, never in
    exponent notation (a dash without a figure)."""
    if not math.isfinite(v):
        return DASH
    if v == 0:
        return "$0"
    if v >= 100:
        return f"${v:,.0f}"
    return f"${v:.{max(2, 2 - math.floor(math.log10(v)))}f}"


def sig(v: float | None, digits: int = 3, dash: str = DASH, trim: bool = False) -> str:
    """``v`` to ``digits`` significant figures with thousands separators, never in exponent notation: ``13,700``
    (13677.9), ``0.0512``, ``3.60`` (``3.6`` with ``trim``: trailing zeros dropped, as ``.3g`` does); a dash when it
    is not a finite number."""
    if not isinstance(v, int | float) or not math.isfinite(v):
        return dash
    if v == 0:
        return "0"
    places = digits - 1 - math.floor(math.log10(abs(v)))
    if places <= 0:
        return f"{round(v, places):,.0f}"
    text = f"{v:,.{places}f}"
    return text.rstrip("0").rstrip(".") if trim else text


def rate(v: float | None, dash: str = DASH) -> str:
    """``5,698`` / ``86.2`` / ``0.512``: a rate (examples/s) in whole units from 100 up, else in 3 significant figures,
    so that a ratio of two printed rates is the printed ratio to its 3 figures."""
    if not isinstance(v, int | float) or not math.isfinite(v):
        return dash
    return f"{v:,.0f}" if abs(v) >= 100 else sig(v)


def number(v: float | None, fmt: str, dash: str = DASH) -> str:
    """``v`` in the format ``fmt`` (e.g. ``",.0f"``), or ``dash`` when it is not a finite number (the
    console table passes ``"-"``)."""
    return format(v, fmt) if isinstance(v, int | float) and math.isfinite(v) else dash


def speedup_cell(row: pd.Series) -> str:
    """``1.85x [1.70, 2.01]``, ``~`` when not significant, ``baseline`` for the baseline itself; none for a
    configuration that does not learn (its speed says nothing about training)."""
    if row["status"] != "ok":
        return DASH
    if row.get("not_learning"):
        return f"{DASH} (not learning)"
    if not row["baseline"]:
        return "n/a (no baseline)"
    if row["is_baseline"]:
        return "baseline"
    return ratio_text(speedup_ci(row))


def names_of(frame: pd.DataFrame) -> list[tuple[str, str]]:
    """Each row's (backend, strategy label without it): the columns :func:`with_backend` shows."""
    return list(zip(frame["backend"], frame["strategy_label"], strict=True)) if len(frame) else []


def with_backend(rows: list[dict[str, Any]], show: bool,
                 names: Sequence[tuple[str, str]] = ()) -> list[dict[str, Any]]:
    """Table rows with a ``backend`` column before ``strategy`` when ``show``, the strategy then its label without
    the backend (``names``: each row's pair, from its frame's columns, :func:`names_of`); unchanged otherwise."""
    if not show:
        return rows
    out = []
    for row, (backend, label) in zip(rows, names, strict=True):
        new: dict[str, Any] = {}
        for k, v in row.items():
            if k == "strategy":
                new["backend"] = backend
                v = label
            new[k] = v
        out.append(new)
    return out


def ratio_text(ci: RatioCI, digits: int = 3) -> str:
    """``"1.11x [1.02, 1.23]"`` (``digits`` significant figures); ``"~1.03x [0.951, 1.12]"`` when the interval
    contains 1; ``"1.11x (n=1)"`` (no interval, no claim) with fewer than MIN_REPEATS repeats on a side; ``"n/a"``
    without a ratio."""
    if not math.isfinite(ci.ratio):
        return "n/a"
    core = f"{sig(ci.ratio, digits)}x"
    if not ci.has_interval:
        n = f"{ci.n_num}" if ci.n_num == ci.n_den else f"{ci.n_num} vs {ci.n_den}"
        return f"{core} (n={n})"
    core += f" [{sig(ci.low, digits)}, {sig(ci.high, digits)}]"
    return core if ci.significant else f"~{core}"


def two_speeds_text(found: TwoSpeeds | None) -> str:
    """``two speeds: 6 repeats at 0.35 s, 5 at 0.61 s`` ('' when none was found)."""
    if found is None:
        return ""
    fast, slow = sig(found.fast_s, trim=True), sig(found.slow_s, trim=True)
    return f"two speeds: {found.fast_n} repeats at {fast} s, {found.slow_n} at {slow} s"


def spread_text(seconds: Sequence[float | None], found: TwoSpeeds | None = None) -> str:
    """``0.33-0.63 s over 6 repeats`` (the range of the per-repeat figures: a process, or one set of cooperating
    processes, each), with the two speeds ``found`` in them (:func:`bench.reporting.stats.spread.two_speeds`);
    '' with fewer than two repeats."""
    xs = sorted(s for s in seconds if s is not None and math.isfinite(s) and s > 0)
    if len(xs) < 2:
        return ""
    text = f"{sig(xs[0], trim=True)}–{sig(xs[-1], trim=True)} s over {len(xs)} repeats"
    return f"{text}; {two_speeds_text(found)}" if found else text
