"""The Python API for notebooks: ``bench.run``, ``bench.epochs``, ``bench.report``, ``bench.doctor``, ``verdicts``.
``bench.run`` runs exactly what ``python -m bench`` runs (the same typed config and checks, workers and records) and
returns the tidy frame; a factory defined in the notebook is pickled by value (:mod:`bench.workloads.pickled`).
Usage: docs/your-model-and-data.md, *From a notebook*.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

import pandas as pd

from bench.config import AXIS_KEYS, ConfigError, SuiteConfig, key_help, list_keys, user_keys, validate
from bench.workloads import Workload, run_name

RUN_DIRS = "bench_run_dirs"  # the frame's attrs key: the results folders its records came from


def workload_name(workload: str | Callable[[], Workload] | Workload) -> str:
    """The config's name for a workload given as a name, an import path, a factory or a Workload."""
    if isinstance(workload, str):
        return workload
    given = None
    if isinstance(workload, Workload):
        instance, given = workload, workload.name
        workload = lambda: instance  # noqa: E731 (a factory of the given object, pickled below)
    if not callable(workload):
        raise ConfigError(f"workloads: {workload!r} is not a workload; allowed: a name, an import path "
                          "module:factory, or a factory function returning a bench.Workload")
    module, qualname = getattr(workload, "__module__", None), getattr(workload, "__qualname__", "")
    if module and module != "__main__" and "<" not in qualname and _importable_elsewhere(module):
        return f"{module}:{qualname}"  # the workers import it as they would any user workload
    from bench.workloads import pickled

    return pickled.store(workload, given)  # named by the function (or the Workload) in every message


def _importable_elsewhere(module: str) -> bool:
    """A fresh process (a worker: the current folder plus the environment on its path) imports ``module``
    the same way: its file lies under the current folder, the environment's library folders or
    ``PYTHONPATH``. A module found through a ``sys.path`` entry the notebook added is not."""
    import os
    import sysconfig

    mod = sys.modules.get(module)
    file = getattr(mod, "__file__", None)
    if not file:
        return False
    roots = [os.getcwd(), *sysconfig.get_paths().values(), *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    here = Path(file).resolve()
    return any(r and here.is_relative_to(Path(r).resolve()) for r in roots)


def config(workloads: Sequence[Any], suite: str | None = None, batches_fit_data: bool = True,
           **keys: Any) -> SuiteConfig:
    """The validated config of a run: the suite's YAML (``suite``; else the keys' defaults, named by the
    workloads as on the command line, :func:`bench.workloads.run_name`) with ``keys`` on top; ConfigError
    naming a bad key or value (``batches_fit_data=False``: the doctor's, a batch larger than the data is none)."""
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    from bench.cli import available_suites, suites_dir
    from bench.data import sources

    sources.clear_caches()  # a notebook process lives long: files may have changed since the last run
    unknown = sorted(set(keys) - set(user_keys()))
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], user_keys(), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ConfigError(f"{unknown[0]}: unknown key{hint}; allowed keys: {', '.join(user_keys())}")
    if isinstance(workloads, str | Workload) or callable(workloads):  # one workload, as one would type it
        workloads = [workloads]
    keys = {k: [v] if k in list_keys() and isinstance(v, str | int | float) else v for k, v in keys.items()}
    node = OmegaConf.structured(SuiteConfig)
    if suite is not None:
        if suite not in available_suites():
            raise ConfigError(f"suite={suite!r} is not a suite; allowed: {', '.join(available_suites())}")
        node = OmegaConf.merge(node, OmegaConf.load(suites_dir() / f"{suite}.yaml"))
    try:
        names = [workload_name(w) for w in workloads]
        given: dict[str, Any] = {"name": suite or run_name(names), "defaults": [], "workloads": names, **keys}
        node = OmegaConf.merge(node, given)
        cfg = cast(SuiteConfig, OmegaConf.to_object(node))  # a structured config: its dataclass
    except OmegaConfBaseException as e:
        key = getattr(e, "full_key", None) or "config"
        allowed = key_help(key.split("[")[0].split(".")[0])
        raise ConfigError(f"{key}: {str(e).splitlines()[0]}" + (f"; allowed: {allowed}" if allowed else "")) from None
    for axis in AXIS_KEYS:  # as on the command line: an axis given here applies to every workload
        if axis in keys and "workload_axes" not in keys:
            for axes in cfg.workload_axes.values():
                axes.pop(axis, None)
    from bench.runner.inputs import check_inputs

    return check_inputs(validate(cfg), batches_fit_data)  # keys first, then what the data allows (as the CLI)


def run(workloads: Sequence[Any], suite: str | None = None, **keys: Any) -> pd.DataFrame:
    """Run a sweep as ``python -m bench`` does and return the tidy frame of its records.

    ``keys`` are the config keys (``strategies=["cpu", "tpu"]``, ``batch_sizes=[128]``,
    ``steps_per_execution=[1, 32]``, ``backends=["jax"]``, ``data="keras:mnist"``, ``epochs=3``, …; see
    ``python -m bench --help``). The frame has one row per point (``examples_per_s`` figures in
    ``repeat_examples_per_s``, accuracy in ``final_val_accuracy``, ``status`` and ``error`` for failures);
    ``frame.attrs["bench_run_dirs"]`` names the results folder, for :func:`report`. Raises ConfigError
    before anything runs on bad input, RuntimeError when the run was interrupted.
    """
    from bench.records import load_records
    from bench.reporting.frames.points import points_table
    from bench.reporting.render.labels import with_labels
    from bench.reporting.render.words import not_learning_text
    from bench.runner.preflight import check_models
    from bench.runner.session import execute

    keys.setdefault("report", False)  # bench.report renders it, inline
    cfg = config(workloads, suite, **keys)
    check_models(cfg)
    status, run_dir = execute(cfg)
    if run_dir is None:
        raise ConfigError(f"resume={cfg.resume!r}: no run to resume (see the message above)")
    frame = points_table(load_records([run_dir], warn=False).records, with_labels, not_learning_text)  # in words
    frame.attrs[RUN_DIRS] = [str(run_dir)]
    # status 1: no point succeeded; the frame's status and error columns say why, as the console table did
    if status > 128:
        raise RuntimeError(f"run interrupted (status {status}); its records are in {run_dir}; resume with "
                           f"bench.run(..., resume={run_dir.name!r})")
    return frame


def doctor(workloads: Sequence[Any], suite: str | None = None, **keys: Any) -> pd.DataFrame:
    """``python -m bench doctor`` from Python: what would fail or crawl on a TPU, checked here on the CPU.

    Takes the keys :func:`run` takes (``backends``, ``batch_sizes``, ``input_pipelines``, ``precisions``, …).
    Returns one row per check: ``workload``, ``backend``, ``check``, ``status`` (ok / warn / fail),
    ``evidence``, ``fix``; ``frame.attrs["exit_status"]`` is the command's (0, or 1 when a check failed).
    """
    from bench.readiness.command import findings_for, named
    from bench.readiness.findings import exit_status

    cfg = config(workloads, suite, batches_fit_data=False, **keys)
    found = named(findings_for(cfg), cfg)
    frame = pd.DataFrame([f.as_dict() for f in found],
                         columns=["workload", "backend", "check", "status", "evidence", "fix"])
    frame.attrs["exit_status"] = exit_status(found)
    return frame


def _dirs(frame_or_dirs: pd.DataFrame | str | Path | Sequence[str | Path]) -> list[Path]:
    """The results folders of a frame from :func:`run` (its ``attrs``), or the folders given."""
    if isinstance(frame_or_dirs, pd.DataFrame):
        dirs = [Path(d) for d in frame_or_dirs.attrs.get(RUN_DIRS, [])]
        if not dirs:
            raise ValueError("this frame does not say where its records are (frame.attrs['bench_run_dirs']); "
                             "pass the results folders instead")
        return dirs
    if isinstance(frame_or_dirs, str | Path):
        return [Path(frame_or_dirs)]
    return [Path(d) for d in frame_or_dirs]


def epochs(frame_or_dirs: pd.DataFrame | str | Path | Sequence[str | Path]) -> pd.DataFrame:
    """One row per point and epoch (seconds, examples/s, losses, accuracies; ``steady`` marks the epochs the
    report's figures use) of a frame from :func:`run` or of results folders: the long frame for seaborn,
    e.g. ``sns.lineplot(data=bench.epochs(frame), x="epoch", y="val_accuracy", hue="strategy")``. Columns:
    :data:`bench.reporting.frames.epochs.EPOCH_COLUMNS` (docs/reports.md)."""
    from bench.records import load_records
    from bench.reporting.frames.epochs import epochs_table
    from bench.reporting.render.labels import with_labels

    dirs = _dirs(frame_or_dirs)
    frame = epochs_table(load_records(dirs, warn=False).records, with_labels)
    frame.attrs[RUN_DIRS] = [str(d) for d in dirs]
    return frame


def report(frame_or_dirs: pd.DataFrame | str | Path | Sequence[str | Path], out: str | Path | None = None,
           baseline: str = "cpu", show: bool | None = None, prices: str | Path | None = None,
           price: dict[str, float] | None = None) -> Path:
    """Write the markdown report and figures for a frame from :func:`run` (its results folders) or for
    results folders, under ``out`` (default ``reports/<first run>``); in Jupyter (``show`` None) or with
    ``show=True``, display them inline. ``prices`` (a YAML file of your own prices) and ``price`` ({key: USD
    per hour}) override the shipped price table of the Cost sections. Returns the path of ``report.md``."""
    from bench.reporting.build import build_report
    from bench.reporting.load.prices import load_table

    dirs = _dirs(frame_or_dirs)
    table = load_table(overrides=price, extra=Path(prices) if prices else None)
    path = build_report(dirs, Path(out) if out else Path("reports") / dirs[0].name, baseline=baseline,
                        prices=table)
    if show or (show is None and _in_jupyter()):
        _display(path)
        return ShownPath(path)  # the cell shows the report, not a PosixPath('…') after it
    return path


def verdicts(frame_or_dirs: pd.DataFrame | str | Path | Sequence[str | Path], baseline: str = "cpu",
             parity_margin_pp: float | None = None) -> dict[str, Any]:
    """The report's verdicts as data, what ``report.json`` holds (:mod:`bench.reporting.render.report_json`, schema in
    docs/report.schema.json), for a frame from :func:`run` or results folders: per configuration its settings,
    throughput over repeats, accuracy over seeds, target, parity and speedup; per workload the answer."""
    from bench.records import as_records
    from bench.reporting.load import untrusted
    from bench.reporting.render.labels import labelled_analysis
    from bench.reporting.render.report_json import report_data
    from bench.reporting.stats.paired import PARITY_MARGIN_PP
    from bench.reporting.verdicts import analyze

    records = as_records(untrusted.load(_dirs(frame_or_dirs)).records)
    margin = PARITY_MARGIN_PP if parity_margin_pp is None else parity_margin_pp
    a = labelled_analysis(analyze(records, baseline=baseline, parity_margin_pp=margin))
    return report_data(a).model_dump(mode="json")


class ShownPath(type(Path())):  # type: ignore[misc]  # PosixPath or WindowsPath, as Path() is here
    """The path of a report already displayed inline: a plain path, which Jupyter does not echo again."""

    def _ipython_display_(self) -> None:
        return None


def _in_jupyter() -> bool:
    shell = sys.modules.get("IPython")
    try:
        return shell is not None and type(shell.get_ipython()).__name__ == "ZMQInteractiveShell"
    except Exception:
        return False


def _display(path: Path) -> None:
    """The report's text as Markdown, each figure as an image where the report links it."""
    from IPython.display import Image, Markdown, display

    chunk: list[str] = []

    def text() -> None:  # the lines since the last figure, unless blank (no empty outputs between figures)
        if any(line.strip() for line in chunk):
            display(Markdown("\n".join(chunk)))
        chunk.clear()

    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("![") and line.endswith(".png)"):
            text()
            display(Image(filename=str(path.parent / line[line.index("(") + 1:-1])))
        else:
            chunk.append(line)
    text()
