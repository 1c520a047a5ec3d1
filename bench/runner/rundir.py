"""A run's folder: its id, its manifest (``run.json``), what resume may skip, and the clean-up of writes a kill cut
short. No framework. The folder's layout: docs/records.md.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.config import SuiteConfig
from bench.job.point import Point
from bench.measure.env import git_info, host_env
from bench.records import RUN_MANIFEST, SCHEMA_VERSION, RecordError, atomic_write_json, load_records, read_record

RESUMABLE = ("ok", "skipped", "diverged")  # failed points are retried on resume


def new_run_id(suite: str, results_dir: Path) -> tuple[str, Path]:
    """Create a fresh run folder ``<UTC time>-<suite>-<commit>`` atomically (``-2``, ``-3`` … on clashes).

    ``mkdir`` is atomic, so two runs started in the same second never share a folder.
    """
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    base = f"{stamp}-{suite}-{git_info()[0] or 'nogit'}"
    results_dir.mkdir(parents=True, exist_ok=True)
    for i in range(1, 1000):
        run_id = base if i == 1 else f"{base}-{i}"
        try:
            (results_dir / run_id).mkdir()
            return run_id, results_dir / run_id
        except FileExistsError:
            continue
    raise RuntimeError(f"could not create a run folder under {results_dir}")


def find_run(results_dir: Path, resume: str, suite: str) -> Path:
    """The run folder to resume: ``latest`` (the newest folder whose run.json is a run of ``suite``: a run of
    another suite since then does not hide it) or a run_id."""
    if resume == "latest":
        runs = sorted((p for p in results_dir.glob("*/") if suite_of(p) == suite),
                      key=lambda p: (p / RUN_MANIFEST).stat().st_mtime)
        if not runs:
            others = sorted({str(s) for p in results_dir.glob("*/") if (s := suite_of(p))})
            seen = (f" (runs there: {', '.join(others[:5])}{', …' if len(others) > 5 else ''}; a run without a suite "
                    "is named by its workloads, so resume it with the same workloads, or resume=<run_id>)"
                    if others else "")
            raise FileNotFoundError(f"resume=latest: no run of suite {suite!r} under {results_dir} to resume{seen}")
        return runs[-1]
    path = results_dir / resume
    if not (path / RUN_MANIFEST).exists():
        raise FileNotFoundError(f"resume={resume}: no run folder {path} with a {RUN_MANIFEST}")
    return path


def suite_of(run_dir: Path) -> str | None:
    """The suite a run folder's manifest names (None: no manifest, or not one bench wrote)."""
    try:
        return json.loads((run_dir / RUN_MANIFEST).read_text()).get("suite")
    except (OSError, ValueError, AttributeError):
        return None


def finished_points(run_dir: Path) -> dict[str, str]:
    """point_id -> config_hash of the points that need no re-run (ok, skipped or diverged)."""
    loaded = load_records([run_dir], warn=False)
    return {r["point_id"]: r.get("config_hash", "") for r in loaded.records if r["status"] in RESUMABLE}


def points_to_run(points: list[Point], run_dir: Path) -> list[Point]:
    """Points without an ok/skipped/diverged record of the identical resolved configuration."""
    done = finished_points(run_dir)
    return [p for p in points if done.get(p.point_id) != p.config_hash]


def is_recorded(run_dir: Path, point: Point) -> bool:
    """True when ``point`` already has an ok/skipped/diverged record of its exact configuration."""
    try:
        rec = read_record(Path(run_dir) / f"{point.point_id}.json")
    except RecordError:
        return False
    return rec["status"] in RESUMABLE and rec.get("config_hash") == point.config_hash


def sweep_tmp(run_dir: Path) -> list[Path]:
    """Remove the temporary files of atomic writes cut short (``.<name>.json.<random>.tmp``)."""
    removed = []
    for f in Path(run_dir).glob(".*.tmp"):
        with contextlib.suppress(OSError):
            f.unlink()
            removed.append(f)
    return removed


def shareable(value: Any) -> Any:
    """``value`` with every absolute path in it cut to ``…/<its last part>`` (run.json is shared with the records:
    no machine's folders in it); other values as they are."""
    if isinstance(value, str) and Path(value).is_absolute():
        return f"…/{Path(value).name}"
    if isinstance(value, list):
        return [shareable(v) for v in value]
    if isinstance(value, dict):
        return {k: shareable(v) for k, v in value.items()}
    return value


def write_manifest(run_dir: Path, run_id: str, cfg: SuiteConfig, points: list[Point]) -> None:
    """``run.json``: the resolved configuration (absolute paths cut: :func:`shareable`) and the planned points
    (resume and reports read it)."""
    atomic_write_json(run_dir / RUN_MANIFEST, {
        "schema_version": SCHEMA_VERSION, "run_id": run_id, "suite": cfg.name,
        "config": shareable({k: v for k, v in asdict(cfg).items() if k != "defaults"}),
        "points": [p.point_id for p in points], "host": host_env(),
        "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")})


def record_parent(run_dir: Path, times: dict[str, float]) -> None:
    """Add the run's own process's seconds to ``run.json`` as ``parent`` (before its first worker, running workers,
    the report, its wall time: :data:`bench.reporting.load.parents.FIELDS`); a manifest that cannot be read is left
    as it is."""
    path = run_dir / RUN_MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    manifest["parent"] = {k: round(v, 3) for k, v in times.items()}
    atomic_write_json(path, manifest)
