"""The report's pipeline (:func:`build_report`): records -> frames -> the figure pool -> analysis -> prices ->
report.json and report.md, deterministic. The notebook, the session and ``python -m bench report`` call it.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from bench.reporting.analysis.cost import priced_summary
from bench.reporting.analysis.predict import predictions_by_workload
from bench.reporting.claims import all_claims
from bench.reporting.frames.epochs import epochs_frame
from bench.reporting.frames.keys import rows_of, sections
from bench.reporting.frames.points import points_frame
from bench.reporting.frames.speedups import DEFAULT_BASELINE
from bench.reporting.load import untrusted
from bench.reporting.load.parents import parent_times
from bench.reporting.load.prices import Price, load_table
from bench.reporting.load.throughput import measured_error
from bench.reporting.render.figures.drawer import Drawer, accuracy_tasks, cost_tasks, epoch_tasks, summary_tasks
from bench.reporting.render.labels import Names, labelled, labelled_analysis, labelled_predictions
from bench.reporting.render.markdown.document import render_markdown
from bench.reporting.render.markdown.reach import PREDICTIONS_CSV, predictions_csv
from bench.reporting.render.markdown.results import CSV_NAME, results_csv
from bench.reporting.render.report_json import report_data, to_json
from bench.reporting.render.text import section_key
from bench.reporting.stats.paired import PARITY_MARGIN_PP
from bench.reporting.verdicts import analyze_frames


class ReportError(ValueError):
    """Bad input for a report (no folder, a missing folder, no records at all)."""


def build_report(record_dirs: list[Path], out_dir: Path, baseline: str = DEFAULT_BASELINE,
                 parity_margin_pp: float = PARITY_MARGIN_PP, prices: Mapping[str, Price] | None = None,
                 before_text: Callable[[], None] | None = None) -> Path:
    """Write ``out_dir/report.md`` and its PNG figures from the records under ``record_dirs``; ``prices`` is the
    price table of the Cost sections (default: the shipped one, :func:`bench.reporting.load.prices.load_table`);
    ``before_text`` is called once the figures are drawn, before the markdown is rendered (the run's own process
    records its time in ``run.json`` there, which the markdown reads).

    Raises ReportError (and writes nothing) when no folder is given, a folder is missing, or no record
    loads. Returns the path of report.md.
    """
    with gc_paused():
        return _build_report(record_dirs, out_dir, baseline, parity_margin_pp, prices, before_text)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused, then restored as it was: a report builds ~200,000 objects that
    live until it is written (records, frames), and each full collection walked them all (1,000 records: three
    collections, 0.35 s of 4 s in one process). What the report drops is collected after it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _build_report(record_dirs: list[Path], out_dir: Path, baseline: str, parity_margin_pp: float,
                  prices: Mapping[str, Price] | None, before_text: Callable[[], None] | None) -> Path:
    dirs = [Path(d) for d in record_dirs]
    if not dirs:
        raise ReportError("no results folder given")
    missing = [str(d) for d in dirs if not d.exists()]
    if missing:
        raise ReportError(f"results folder not found: {', '.join(missing)}")
    drawer = Drawer()  # figures are drawn in other processes while this one analyses and writes
    try:
        loaded = untrusted.load(dirs)  # every string of every record made inert and capped
        if not loaded.records:
            raise ReportError(f"no point records found under {', '.join(map(str, dirs))}"
                              f" ({len(loaded.skipped)} file(s) skipped as unreadable or foreign)")
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        epochs = epochs_frame(loaded.records)  # the per-epoch figures need only the frames: they start at once
        shown = labelled(epochs, Names.of(epochs))  # the points' codes are the same: named alike
        for s in sections(epochs):
            rows = rows_of(shown, s)
            drawer.submit(*epoch_tasks(section_key(rows), rows, out_dir))
        points = points_frame(loaded.records)
        names = Names.of(points)
        for s in sections(points):
            drawer.submit(*accuracy_tasks(names.key(s), labelled(rows_of(points, s), names), rows_of(shown, s),
                                          out_dir))

        def summarized(summary: pd.DataFrame) -> None:  # the speedup and backends figures need the summary alone
            for s in sections(points):
                drawer.submit(*summary_tasks(names.key(s), labelled(rows_of(summary, s), names), baseline, out_dir))

        a = labelled_analysis(analyze_frames(points, epochs, baseline=baseline, parity_margin_pp=parity_margin_pp,
                                             summarized=summarized))
        table = prices if prices is not None else load_table()
        priced = priced_summary(a.summary, table)
        for s in sections(points):
            drawer.submit(*cost_tasks(names.key(s), rows_of(priced, s), out_dir))
        claims = all_claims(a)  # each workload's conclusions, once: report.json and report.md word the same ones
        predicted = labelled_predictions(predictions_by_workload(a.summary, measured_error(), table), names)
        (out_dir / "report.json").write_text(to_json(report_data(a, claims, predicted, table)), encoding="utf-8")
        (out_dir / CSV_NAME).write_text(results_csv(priced), encoding="utf-8")  # every column of every table row
        # every device's row
        (out_dir / PREDICTIONS_CSV).write_text(predictions_csv(predicted, names), encoding="utf-8")
        drawn = drawer.collect()
        if before_text is not None:
            before_text()
        text = render_markdown(a, loaded, dirs, drawn, priced, table, claims, parent_times(dirs), predicted)
    finally:
        drawer.close()
    path = out_dir / "report.md"
    path.write_text(text, encoding="utf-8")
    return path
