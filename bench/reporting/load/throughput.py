"""Published single-GPU training throughput tables of the form of Lambda's ``lambdal/deeplearning-benchmark``
(``name_gpu,num_gpu,watt,price,<model>,...``; examples/s per model; batch sizes in the ``-bs-`` file beside), read
for the prediction's validation (``python -m bench validate``). The shipped copies: ``suites/reference/lambda``
(source, date and licence in its README).
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.measure.datasheets import Chip, chip_of

META = ("name_gpu", "num_gpu", "watt", "price")
# why a row is not used: several GPUs; a second row of a chip already read (another host of the same SKU); a GPU
# bench's datasheet table lacks
SEVERAL_GPUS, SECOND_ROW, NO_DATASHEET = "several_gpus", "second_row", "no_datasheet"


@dataclass(frozen=True)
class ThroughputTable:
    """One precision's table: ``rates[(gpu, model)]`` examples/s and ``batches[(gpu, model)]`` examples a step (NaN
    without a batch file), one row per chip (the first of its rows: later ones, other hosts of the same SKU, are
    in ``skipped`` as (name, :data:`SECOND_ROW`, the row used), as are rows of several GPUs and GPUs bench's datasheet
    table lacks)."""

    path: Path
    precision: str  # fp32 | fp16
    models: tuple[str, ...]
    chips: dict[str, Chip]  # the table's GPU name -> its datasheet entry
    rates: dict[tuple[str, str], float]
    batches: dict[tuple[str, str], float]
    skipped: list[tuple[str, str, str]] = field(default_factory=list)


class TableError(ValueError):
    """A file that is not a throughput table of that form (what is wrong, with the path)."""


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _number(text: str | None) -> float:
    try:
        v = float(text or "nan")
    except ValueError:
        return math.nan
    return v if math.isfinite(v) and v > 0 else math.nan


def reference_dir() -> Path:
    """The shipped tables: the installed copy (bench/suites/reference/lambda) or the checkout's."""
    here = Path(__file__).resolve().parents[2]  # bench/ (this module is bench/reporting/load/throughput.py)
    packaged = here / "suites" / "reference" / "lambda"
    return packaged if packaged.is_dir() else here.parent / "suites" / "reference" / "lambda"


def reference_tables() -> list[ThroughputTable]:
    """Lambda's single-GPU PyTorch training tables shipped with bench, float32 then mixed precision."""
    return [read_table(reference_dir() / f"pytorch-train-throughput-{p}.csv") for p in ("fp32", "fp16")]


ERROR_FILE = "measured-error.json"
HOST_COST = ("accelerator", "host-cost.json")  # under suites/reference: what a run on no GPU is predicted from


def host_reference_path() -> Path:
    """The shipped reference records' summary (``python -m bench validate --records ... --save-reference``)."""
    return reference_dir().parent.joinpath(*HOST_COST)


def read_host_reference(path: Path | None = None) -> dict[str, Any] | None:
    """That summary as stored (None where the file is missing)."""
    path = path if path is not None else host_reference_path()
    return dict(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else None


def measured_error() -> dict[str, Any]:
    """The prediction's measured error on the shipped tables, as ``python -m bench validate --save`` wrote it
    (:func:`bench.reporting.analysis.validate.measured_error`)."""
    return dict(json.loads((reference_dir() / ERROR_FILE).read_text(encoding="utf-8")))


def batch_file(path: Path) -> Path:
    """The batch-size table beside a throughput table (``...-throughput-fp32.csv`` -> ``...-bs-fp32.csv``)."""
    return path.with_name(path.name.replace("-throughput-", "-bs-"))


def read_table(path: Path) -> ThroughputTable:
    """The table at ``path`` (precision ``fp16`` when its name says so, else ``fp32``) and its batch sizes."""
    path = Path(path)
    if not path.is_file():
        raise TableError(f"{path}: no such file")
    rows = _rows(path)
    if not rows or any(k not in rows[0] for k in ("name_gpu", "num_gpu")):
        raise TableError(f"{path}: not a throughput table (needs the columns name_gpu, num_gpu and one per model)")
    models = tuple(k for k in rows[0] if k not in META)
    bs_path = batch_file(path)
    bs = {r["name_gpu"]: r for r in _rows(bs_path)} if bs_path.is_file() and bs_path != path else {}
    chips: dict[str, Chip] = {}
    rates: dict[tuple[str, str], float] = {}
    batches: dict[tuple[str, str], float] = {}
    skipped: list[tuple[str, str, str]] = []
    seen: dict[str, str] = {}
    for r in rows:
        name = r["name_gpu"]
        if _number(r.get("num_gpu")) != 1:
            skipped.append((name, SEVERAL_GPUS, str(r.get("num_gpu"))))
            continue
        chip = chip_of("gpu", name)
        if chip is None:
            skipped.append((name, NO_DATASHEET, ""))
            continue
        if chip.model in seen:
            skipped.append((name, SECOND_ROW, seen[chip.model]))
            continue
        seen[chip.model] = name
        chips[name] = chip
        for m in models:
            rates[(name, m)] = _number(r.get(m))
            batches[(name, m)] = _number((bs.get(name) or {}).get(m))
    return ThroughputTable(path, "fp16" if "fp16" in path.name else "fp32", models, chips, rates, batches, skipped)
