"""``repeats=auto`` on the run side: round ``k`` runs repeat ``k`` of every configuration still running, planned from
the race's standings (:mod:`bench.reporting.analysis.race`, decided from the run folder's records alone, so a resumed
run decides the same). Imports no framework. Docs: docs/running.md; docs/statistics.md.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from bench.config import SuiteConfig
from bench.job.point import Point
from bench.records import load_records
from bench.runner.plan import configuration_id, plan
from bench.runner.rundir import points_to_run, write_manifest


def still_running(cfg: SuiteConfig, run_dir: Path, look: int) -> tuple[set[str], int, int]:
    """The configuration ids (:func:`bench.runner.plan.configuration_id`) the race gives repeat ``look`` after the
    records of repeats 0 .. look - 1 in ``run_dir`` (decided look by look: a resumed race decides as the run did,
    whatever later rounds left there), how many configurations that is, and how many have an ok repeat."""
    from bench.records import as_records
    from bench.reporting.analysis.race import NO_OK, standings_of
    from bench.reporting.frames.keys import CONFIG_KEY
    from bench.reporting.frames.points import points_frame

    points = points_frame(as_records(load_records([run_dir], warn=False).records))
    if points.empty:
        return set(), 0, 0
    found = standings_of(points, int(cfg.max_repeats), cfg.baseline, float(cfg.budget_s), cfg.parity_margin_pp,
                         looks=look)
    ids: dict[tuple, set[str]] = {}
    for key, point_id in zip(points[CONFIG_KEY].itertuples(index=False, name=None), points["point_id"], strict=True):
        ids.setdefault(tuple(key), set()).add(configuration_id(str(point_id)))
    ran = sum(st.state != NO_OK for st in found.values())  # skipped (absent hardware) and failed ones out
    running = [key for key, st in found.items() if st.running]
    return {c for key in running for c in ids.get(key, set())}, len(running), ran


def run_race(cfg: SuiteConfig, run_id: str, run_dir: Path, first: list[Point], todo: list[Point],
             launch: Callable[[list[Point]], None]) -> None:
    """Run round 0 (``first``: repeat 0 of every configuration; ``todo``: those not yet recorded), then round
    after round the next repeat of the configurations still running, until none is or ``max_repeats`` rounds ran.
    ``launch`` runs a list of points (and raises Interrupted on Ctrl-C, which ends the race: resume continues it)."""
    planned = list(first)
    launch(todo)
    for k in range(1, int(cfg.max_repeats)):
        running, n_running, total = still_running(cfg, run_dir, k)
        if not running:
            break
        points = [p for p in plan(cfg, repeats=[k]) if configuration_id(p) in running]
        planned += points
        write_manifest(run_dir, run_id, cfg, planned)
        rest = f"; {total - n_running} stopped (the report says why)" if total > n_running else ""
        print(f"repeats=auto: {n_running} of {total} configuration(s) get repeat {k + 1}{rest}", file=sys.stderr)
        launch(points_to_run(points, run_dir))
