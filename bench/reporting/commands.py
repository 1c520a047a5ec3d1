"""The report side's commands: ``python -m bench report DIR …``, ``python -m bench compare A B`` and ``python -m bench
validate [TABLE.csv …]``.

Both take argparse flags or Hydra-style ``key=value`` tokens; bad input is one line on stderr and exit
status 2. Never imports TensorFlow.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from bench.reporting.analysis.compare import DEFAULT_FAIL_ABOVE, METRICS, compare_sides, records_side, report_side
from bench.reporting.analysis.reference import derive, provenance
from bench.reporting.analysis.validate import accelerator_steps_left_out, measured_error, predictions
from bench.reporting.build import ReportError, build_report
from bench.reporting.frames.epochs import epochs_frame
from bench.reporting.frames.points import points_frame
from bench.reporting.frames.speedups import DEFAULT_BASELINE
from bench.reporting.load import untrusted
from bench.reporting.load.prices import PriceError, load_table, parse_overrides
from bench.reporting.load.throughput import TableError, ThroughputTable, read_table, reference_tables
from bench.reporting.render.console import compare_table as render
from bench.reporting.render.labels import Names, labelled, with_labels
from bench.reporting.render.report_json import ReportData
from bench.reporting.render.validation import reference_text, validation_text
from bench.reporting.stats.paired import PARITY_MARGIN_PP
from bench.reporting.verdicts import analyze_frames


class CliError(Exception):
    """A command-line mistake; reported as one line on stderr with exit code 2."""


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise CliError(message)


def hydra_style_args(argv: Sequence[str], keys: Sequence[str]) -> list[str]:
    """Turn Hydra-style ``key=value`` tokens for the known ``keys`` into ``--key value`` flags.

    ``parity_margin=2`` and ``parity-margin=2`` both become ``--parity-margin 2``; any other
    token (a folder, even one with ``=`` in its name) is passed through unchanged.
    """
    known = {k.replace("-", "_") for k in keys}
    out: list[str] = []
    for tok in argv:
        key, sep, value = tok.partition("=")
        if sep and not tok.startswith("-") and key.replace("-", "_") in known:
            out += [f"--{key.replace('_', '-')}", value]
        else:
            out.append(tok)
    return out


REPORT_KEYS = ["out", "baseline", "parity_margin", "prices"]


def unknown_key(dirs: Sequence[Path], keys: Sequence[str]) -> None:
    """CliError for a ``key=value`` word that names no folder and no key (``parity_tolerance=2`` after the key was
    renamed), with the closest key: otherwise it would read as a missing results folder."""
    import difflib

    for d in dirs:
        key, sep, _ = str(d).partition("=")
        if sep and not d.exists() and "/" not in key:
            close = difflib.get_close_matches(key.replace("-", "_"), keys, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise CliError(f"{key}: unknown key{hint}; allowed: {', '.join(keys)}, price.KEY")


def report_main(argv: list[str]) -> int:
    """``python -m bench report DIR [DIR ...] [--out DIR] [--baseline NAME] [--parity-margin PP]
    [prices=FILE] [price.KEY=USD ...]``.

    Prints the path of report.md and returns 0; on bad input prints one line on stderr and returns 2.
    """
    parser = ArgumentParser(prog="python -m bench report",
                     description="Build a markdown report (tables + PNG figures) from result folders.")
    parser.add_argument("dirs", nargs="*", type=Path,
                        help="result folders (results/<run_id>) or record files")
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default: reports/<name of the first folder>)")
    parser.add_argument("--baseline", default=DEFAULT_BASELINE,
                        help="baseline strategy name (default: cpu)")
    parser.add_argument("--parity-margin", type=float, default=PARITY_MARGIN_PP,
                        help="accuracy parity margin in percentage points: equivalent when the interval of the mean "
                             "difference over seeds lies within it (default: 2.0)")
    parser.add_argument("--prices", type=Path, default=None,
                        help="a YAML price table of your own, merged over suites/prices/cloud.yaml by key; "
                             "price.KEY=USD sets one price (USD per hour per unit)")
    try:
        singles = parse_overrides([t for t in argv if t.startswith("price.")])
        rest = [t for t in argv if not t.startswith("price.")]
        args = parser.parse_intermixed_args(hydra_style_args(rest, REPORT_KEYS))  # a key after --out too
        if not args.dirs:
            raise CliError("no results folder given (usage: python -m bench report DIR [DIR ...])")
        unknown_key(args.dirs, REPORT_KEYS)
        if not (args.parity_margin >= 0 and args.parity_margin != float("inf")):
            raise CliError(f"--parity-margin must be a finite number >= 0, got {args.parity_margin}")
        table = load_table(overrides=singles, extra=args.prices)
        out = args.out or Path("reports") / args.dirs[0].resolve().name
        path = build_report(args.dirs, out, baseline=args.baseline, parity_margin_pp=args.parity_margin,
                            prices=table)
    except (CliError, ReportError, PriceError) as e:
        print(f"bench report: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:  # --help
        return int(e.code or 0)
    print(path)
    return 0


def _report_json(path: Path) -> dict[str, Any] | None:
    """The report.json a compare argument names (the file, or a report folder holding one); None for a results
    folder. CliError when it cannot be read as one."""
    file = path if path.is_file() and path.suffix == ".json" else path / "report.json"
    if not file.is_file():
        return None
    try:
        return ReportData.model_validate(json.loads(file.read_text(encoding="utf-8"))).model_dump(mode="json")
    except (OSError, ValueError) as e:
        raise CliError(f"{file} is not a bench report.json: {str(e).splitlines()[0]}") from None


def compare_main(argv: list[str]) -> int:
    """``python -m bench compare A B [--fail-above 1.10] [--metric epoch_s|train_s]``.

    Returns 1 when a significant B/A time ratio exceeds ``--fail-above``, 0 otherwise, 2 on bad input.
    """
    parser = ArgumentParser(prog="python -m bench compare",
                            description="Compare steady-state times of two result folders or report.json files "
                                        "(B relative to A).")
    parser.add_argument("a", type=Path, nargs="?", help="reference: a result folder or a report.json (A)")
    parser.add_argument("b", type=Path, nargs="?", help="to judge: a result folder or a report.json (B)")
    parser.add_argument("--fail-above", type=float, default=DEFAULT_FAIL_ABOVE,
                        help="exit 1 when a significant B/A time ratio exceeds this (default: 1.10)")
    parser.add_argument("--metric", choices=sorted(METRICS), default="train_s",
                        help="train_s (training only, the report's measure; default) or epoch_s (+ validation)")
    try:
        args = parser.parse_args(hydra_style_args(argv, ["fail_above", "metric"]))
        if args.a is None or args.b is None:
            raise CliError("need two result folders (usage: python -m bench compare A B [--fail-above 1.10])")
        if not (args.fail_above > 0):
            raise CliError(f"--fail-above must be > 0, got {args.fail_above}")
        for side, d in (("A", args.a), ("B", args.b)):
            if not d.exists():
                raise CliError(f"results folder {side} not found: {d}")
        counts: dict[str, str] = {}
        sides: dict[str, pd.DataFrame] = {}
        loaded = {}
        for side, d in (("A", args.a), ("B", args.b)):
            report = _report_json(d)
            if report is not None:
                sides[side], counts[side] = report_side(report, args.metric), f"{len(report['configurations'])} " \
                    "configurations of a report.json"
                continue
            loaded[side] = untrusted.load([d])  # strings made inert and capped
            if not loaded[side].records:
                raise CliError(f"no point records found in {side} ({d}); "
                               f"{len(loaded[side].skipped)} file(s) skipped as unreadable or foreign")
            sides[side] = records_side(with_labels(points_frame(loaded[side].records)), args.metric)
            counts[side] = f"{len(loaded[side].records)} records"
    except CliError as e:
        print(f"bench compare: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:  # --help
        return int(e.code or 0)
    matched, unmatched = compare_sides(sides["A"], sides["B"], fail_above=args.fail_above)
    print(f"A: {args.a} ({counts['A']})   B: {args.b} ({counts['B']})   metric: {args.metric}, median of steady "
          "epochs 2..n per repeat; ratio = B/A (< 1: B faster)")
    print(render(matched, unmatched, args.metric))
    for side in loaded:
        for _path, reason in loaded[side].skipped:
            print(f"skipped in {side}: {untrusted.inert(reason, untrusted.LIMITS['reason'])}")
    if matched.empty:
        # a CI gate pointed at the wrong folders must not pass silently
        print("bench compare: no point was measured (ok) in both folders: nothing to compare", file=sys.stderr)
        return 2
    failing = int(matched["fails"].sum())
    if failing:
        print(f"FAIL: {failing} point(s) take significantly more than {args.fail_above:g}x A's time")
        return 1
    return 0


def validate_main(argv: list[str]) -> int:
    """``python -m bench validate [TABLE.csv ...]``: the prediction's error leave-one-device-out on published
    single-GPU throughput tables (default: the shipped copies of Lambda's, fp32 and fp16); 2 on bad input."""
    parser = ArgumentParser(prog="python -m bench validate",
                            description="How wrong bench's prediction for a GPU it did not run on is: leave-one-"
                                        "device-out on throughput tables of the form of Lambda's deeplearning-"
                                        "benchmark (name_gpu,num_gpu,watt,price,<model>...; batch sizes in the "
                                        "-bs- file beside). Without a table: the shipped fp32 and fp16 ones.")
    parser.add_argument("tables", nargs="*", type=Path, help="throughput tables (CSV)")
    parser.add_argument("--save", type=Path, help="also write the errors a report's predictions read (JSON; the "
                        "shipped one, from the shipped tables: suites/reference/lambda/measured-error.json)")
    parser.add_argument("--records", type=Path, nargs="+", help="instead of tables: bench results folders of a run "
                        "on a GPU, checked as the reference a workload with no GPU record is predicted from")
    parser.add_argument("--save-reference", type=Path, help="with --records: write that reference (JSON; the shipped "
                        "one: suites/reference/accelerator/host-cost.json)")
    try:
        args = parser.parse_args(argv)
        if args.save_reference is not None and not args.records:
            raise CliError("--save-reference needs --records (the results folders it is derived from)")
        if args.records:
            return _reference(args.records, args.save_reference)
        tables: list[ThroughputTable] = [read_table(p) for p in args.tables] or reference_tables()
    except (CliError, TableError) as e:
        print(f"bench validate: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:  # --help
        return int(e.code or 0)
    fp32 = {t.path.name.replace("fp32", "fp16"): t for t in tables if t.precision == "fp32"}
    frames = [predictions(t, fp32.get(t.path.name) or _beside(t)) for t in tables]
    frame = pd.concat(frames) if frames else pd.DataFrame()
    print(validation_text(tables, frame), end="")
    if args.save is not None and not frame.empty:
        args.save.write_text(json.dumps(measured_error(frame), indent=1) + "\n", encoding="utf-8")
    return 0


def _reference(dirs: list[Path], save: Path | None) -> int:
    """``validate --records``: the reference derived from the records, printed and saved; 2 without one."""
    missing = [str(d) for d in dirs if not d.exists()]
    loaded = untrusted.load([d for d in dirs if d.exists()])
    if missing or not loaded.records:
        raise CliError(f"--records: no bench records in {', '.join(missing or map(str, dirs))}")
    points = points_frame(loaded.records)
    summary = analyze_frames(points, epochs_frame(loaded.records)).summary
    try:
        reference = derive(summary, provenance(loaded.records))
    except ValueError as e:
        raise CliError(f"--records: {e}") from e
    print(reference_text(reference, labelled(accelerator_steps_left_out(summary), Names.of(points))), end="")
    if save is not None:
        save.write_text(json.dumps(reference, indent=1) + "\n", encoding="utf-8")
    return 0


def _beside(t: ThroughputTable) -> ThroughputTable | None:
    """The float32 table beside an fp16 one (None for an fp32 table, or when there is none)."""
    other = t.path.with_name(t.path.name.replace("fp16", "fp32"))
    return read_table(other) if t.precision == "fp16" and other != t.path and other.is_file() else None
