"""The report.md document: every section, in order, rendered from one Analysis (tables, sentences, links to the PNG
figures); deterministic, so the same records give a byte-identical report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from bench.records import LoadResult, Record
from bench.reporting.analysis.cost import BOUND_DEVICES
from bench.reporting.analysis.predict import DevicePrediction
from bench.reporting.claims import Claims, all_claims
from bench.reporting.frames.keys import rows_of, sections
from bench.reporting.frames.summary import INPUT_BOUND_FRACTION
from bench.reporting.load.prices import Price
from bench.reporting.render.markdown.accuracy import parity_section
from bench.reporting.render.markdown.answer import answer_section, ran_on
from bench.reporting.render.markdown.cost import cost_section, prices_used_section
from bench.reporting.render.markdown.findings import best_section, findings_section
from bench.reporting.render.markdown.learning import learns_nowhere, not_learning_section
from bench.reporting.render.markdown.reach import reach_section
from bench.reporting.render.markdown.results import results_table
from bench.reporting.render.markdown.runs import jax_spe_note, race_section, spe_notes, time_section
from bench.reporting.render.markdown.tables import (
    break_even_section,
    environment_table,
    nothing_finished_section,
    peaks_table,
    pipelines_section,
    problems_section,
    skipped_files_section,
)
from bench.reporting.render.text import config_label, section_key, section_title, sig
from bench.reporting.render.words import accuracy_flag_text, earlier_text, not_learning_text, runs
from bench.reporting.verdicts import Analysis

HOW_TO_READ = ("How to read it: every figure comes from the point records alone; what warm-up, steady state, "
               "examples/s, repeats, intervals, *learns*, the target, GFLOP/s and MFU mean, and how each is measured, "
               "is bench's docs/reports.md, *How to read a report*.")


def once(lines: list[str], seen: dict[str, str], where: str) -> list[str]:
    """Each note or legend (a paragraph of 100 characters or more, not a table, heading, list item or figure) in full
    the first time the report writes it; later, its head (bold, else up to its first colon or semicolon) and where it
    stands in full."""
    out = []
    for line in lines:
        if len(line) < 100 or line.startswith(("|", "#", "-", "!", " ")):
            out.append(line)
        elif line not in seen:
            seen[line] = where
            out.append(line)
        else:
            bold = line.startswith("**") and "**" in line[2:]
            cut = min((i for i in (line.find(":"), line.find(";")) if i > 0), default=40)
            head = line[: line.index("**", 2) + 2] if bold else line[:cut]
            out.append(f"{head}: as under *{seen[line]}*.")
    return out


def _sentences(summary: pd.DataFrame, parity: pd.DataFrame) -> list[str]:
    out = [f"**Not today's workload**: {earlier_text(e)}." for e in sorted(set(summary.get("earlier_definition", ())))
           if e]
    bound = summary[summary["input_bound"]]
    if not bound.empty:
        items = [f"{config_label(r)} ({sig(r['examples_per_s'])} of {sig(r['input_examples_per_s'])} examples/s "
                 f"the input pipeline delivers alone, "
                 f"{100 * r['input_share']:.0f}%)"
                 for _, r in bound.iterrows()]
        out.append(f"**Input-bound** (training reaches ≥ {100 * INPUT_BOUND_FRACTION:.0f}% of the input "
                   "pipeline's own rate; fast accelerators starve on slow pipelines, so a faster pipeline, "
                   f"not a faster device, would help): {'; '.join(items)}.")
    learn = summary[summary["not_learning"].map(bool)]
    if not learn.empty and not learns_nowhere(summary):  # else its own section says it, with what to try
        items = [f"{config_label(r)} ({not_learning_text(r['not_learning'])})" for _, r in learn.iterrows()]
        out.append(f"**Not learning** (its speed says nothing about training): {'; '.join(items)}.")
    held = summary[(summary["accuracy_flag"] != "") & ~summary["not_learning"].map(bool)]
    if not held.empty:
        items = [f"{config_label(r)} ({accuracy_flag_text(r)})" for _, r in held.iterrows()]
        out.append(f"**Accuracy not held** (not ranked): {'; '.join(items)}.")
    ran = spe_notes(summary)
    if ran:
        out.append(f"**steps_per_execution that ran** differs from the request: {'; '.join(ran)}.")
    jax_loop = jax_spe_note(summary)
    if jax_loop:
        out.append(jax_loop)
    if not parity.empty and parity["flag"].any():
        items = [f"{r['strategy']} at b{r['global_batch_size']} spe{r['steps_per_execution']} {r['precision']} "
                 f"({r['diff_pp']:+.1f} pp [{r['low_pp']:+.1f}, {r['high_pp']:+.1f}] vs {r['baseline']} over "
                 f"{runs(int(r['seeds']))})" for _, r in parity[parity["flag"]].iterrows()]
        out.append(f"**Accuracy differs** across training runs (paired by seed, the interval of the mean difference "
                   f"excludes 0): {'; '.join(items)}.")
    return out


def _workload_part(a: Analysis, g: pd.DataFrame, section: int, found_here: Claims | None,
                   figs: dict[str, Path], priced: pd.DataFrame | None, table: Mapping[str, Price] | None,
                   devices: list[DevicePrediction]) -> tuple[list[str], bool]:
    """A workload's section (some of its configurations finished), and whether its bounds priced an accelerator."""
    par, be = rows_of(a.parity, section), rows_of(a.break_even, section)
    part = [f"## {section_title(g)}", "", *findings_section(a, section, found_here),
            "### Results", "", *results_table(g, a.baseline, a.show_backend).split("\n"), ""]
    for sentence in _sentences(g, par):
        part += [sentence, ""]
    part += ["### Best configuration per strategy", "", *best_section(a, section)]
    part += break_even_section(be, a.show_backend)
    bound: list[str] = []
    if learns_nowhere(g):  # why and what to try, in place of speedups, a cost front and bounds
        part += not_learning_section(g)
        figs = {k: v for k, v in figs.items() if k not in ("cost", "speedup")}
    else:
        bound = reach_section(g, devices, table, a.limits)
        part += bound
        if priced is not None:
            part += cost_section(rows_of(priced, section), figs.pop("cost", None))
    if figs:
        part += ["### Figures", ""]
        part += [f"![{name.replace('_', ' ')}]({path.name})" for name, path in figs.items()]
        part.append("")
    return part, bool(bound)


def _opening(a: Analysis, loaded: LoadResult[Record], found: Mapping[int, Claims],
             priced: pd.DataFrame | None, devices: Mapping[int, list[DevicePrediction]]) -> list[str]:
    """The report's title, what it read, how to read it and the answer, a few lines per workload."""
    hosts = sorted(set(a.points["host"]))
    lines = ["# bench report", "",
             f"{len(a.points)} point records from {a.points['run_id'].nunique()} run(s) on {len(hosts)} "
             f"host(s) ({', '.join(hosts)}): {ran_on(a.summary)}. Speedups are against the best configuration of the "
             f"`{a.baseline}` strategy that learns; accuracies within ±{a.parity_margin_pp:g} pp count as equal; "
             f"{len(loaded.skipped)} file(s) skipped by the loader.", "", HOW_TO_READ, "",
             "## The answer", ""]
    for s in sections(a.summary):
        lines += answer_section(a, s, priced, found.get(s), list(devices.get(s, [])))
    return lines


def render_markdown(a: Analysis, loaded: LoadResult[Record], dirs: Sequence[Path],
                    figures: dict[tuple[str, str], dict[str, Path]], priced: pd.DataFrame | None = None,
                    table: Mapping[str, Price] | None = None,
                    claims: Mapping[int, Claims] | None = None,
                    parents: Mapping[str, Mapping[str, float]] | None = None,
                    predicted: Mapping[int, list[DevicePrediction]] | None = None) -> str:
    """The whole report as markdown text (deterministic for equal inputs); ``priced`` (the summary with its
    costs, :func:`bench.reporting.analysis.cost.priced_summary`) and its price ``table`` give the Cost sections;
    ``claims`` are each workload's conclusions (:func:`bench.reporting.claims.all_claims`, built here without);
    ``parents`` the runs' own processes' seconds (:func:`bench.reporting.load.parents.parent_times`); ``predicted``
    each section's devices (:func:`bench.reporting.analysis.predict.predictions_by_workload`, their sources named:
    :func:`bench.reporting.render.labels.labelled_predictions`; none without). ``a`` is labelled
    (:func:`bench.reporting.render.labels.labelled_analysis`)."""
    found = claims if claims is not None else all_claims(a)
    devices = predicted or {}
    lines = [*_opening(a, loaded, found, priced, devices), *race_section(a.race),  # repeats=auto: its repeats
             *pipelines_section(a.summary, a.show_backend),
             "## Environment", "", environment_table(loaded.records), "",
             "### Peaks used for MFU", "", peaks_table(a.points, a.show_backend), "", *time_section(a.points, parents)]
    seen: dict[str, str] = {}
    bounded = False  # a lower bound priced an accelerator: its price goes into Prices used
    for s in sections(a.summary):
        g = rows_of(a.summary, s)
        title = section_title(g)
        if not (g["status"] == "ok").any():  # what was asked and why nothing finished, with nothing measured on it
            lines += [f"## {title}", "", *nothing_finished_section(rows_of(a.points, s))]
            continue
        part, bound = _workload_part(a, g, s, found.get(s), dict(figures.get(section_key(g), {})), priced, table,
                                     list(devices.get(s, [])))
        bounded = bounded or bound
        lines += once(part, seen, title)  # each note and legend in full once
    if priced is not None and table is not None:
        lines += prices_used_section(priced, table, tuple(d[3] for d in BOUND_DEVICES) if bounded else ())
    lines += parity_section(a.parity, a.parity_margin_pp, a.show_backend)
    lines += problems_section(a.points)
    lines += skipped_files_section(loaded, dirs)
    return "\n".join(lines).rstrip("\n") + "\n"
