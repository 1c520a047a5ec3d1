"""One place for how figures are written: numbers, seconds, speedups, dashes, configuration names and
markdown cells. Used by the markdown report, the console table and ``compare``. Never imports TensorFlow.

Ratios with their intervals are written by :meth:`bench.reporting.stats.RatioCI.format` (``1.11x [1.02,
1.23]``, ``~`` when not significant, ``1.11x (n=1)`` without a claim); everything else is here.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from bench.reporting.speedups import speedup_ci

DASH = "—"  # an absent figure (a failed point has no throughput)


def cell(text: Any) -> str:
    """One markdown table cell: single line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def markdown_table(rows: list[dict[str, Any]] | pd.DataFrame) -> str:
    """A markdown (pipe) table of ``rows``, every cell through :func:`cell`, numbers left as written."""
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
    frame = frame.map(cell)
    return str(frame.to_markdown(index=False, disable_numparse=True))


def shorten(text: str, limit: int = 90) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis (long error messages in table cells)."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def counted(n: float, noun: str) -> str:
    """``1 epoch``, ``5 epochs``: a count with its noun in the right number."""
    return f"{n:g} {noun}{'' if n == 1 else 's'}"


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


def number(v: float | None, fmt: str, dash: str = DASH) -> str:
    """``v`` in the format ``fmt`` (e.g. ``",.0f"``), or ``dash`` when it is not a finite number (the
    console table passes ``"-"``)."""
    return format(v, fmt) if isinstance(v, int | float) and math.isfinite(v) else dash


def speedup_cell(row: pd.Series) -> str:
    """``1.85x [1.70, 2.01]``, ``~`` when not significant, ``baseline`` for the baseline itself."""
    if row["status"] != "ok":
        return DASH
    if not row["baseline"]:
        return "n/a (no baseline)"
    if row["baseline"] == row["strategy"]:
        return "baseline"
    return speedup_ci(row).format()


def config_label(row: pd.Series) -> str:
    """``"cpu_x2 at b256 spe8 float32"``: a configuration with its strategy."""
    return f"{row['strategy']} at {config_name(row)}"


def config_name(row: pd.Series) -> str:
    """``"b256 spe8 float32"``: the parts of a configuration that vary within one strategy."""
    return f"b{row['global_batch_size']} spe{row['steps_per_execution']} {row['precision']}"
