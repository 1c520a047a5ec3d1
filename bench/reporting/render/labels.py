"""How the report names a data set and a strategy, made here from the identity columns alone
(:mod:`bench.reporting.frames.keys`), and joined onto every table the analysis gives by its codes (``section``,
``strategy_id`` and the codes of the configurations a row refers to): nothing below render reads a label.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from bench.records.backends import BACKENDS
from bench.reporting.analysis.predict import DevicePrediction
from bench.reporting.frames.keys import DATASET_KEY, STRATEGY_CODE, plain_rows
from bench.reporting.verdicts import Analysis, absent_strategies

# A column holding another configuration's strategy_id (-1: none) -> the columns of its labels
REFERENCES = {"baseline_id": ("baseline", "baseline_label"), "alt_strategy_id": ("alt_strategy", ""),
              "accuracy_ref_id": ("accuracy_ref", "")}


def dataset_label(name: str, scale: str, n_train: int, whole: int, pipeline: str = "default") -> str:
    """``"synthetic (reduced, n_train=6000)"``: name plus what makes two datasets of that name differ (the columns of
    :data:`~bench.reporting.frames.keys.DATASET_KEY`: -1 for a count not known). Real data (a data source, a user's
    arrays) says how much of it was used: ``"keras:mnist (n_train=4096 of 60000)"``; a pipeline other than the
    default is named."""
    extra = [str(scale)] if scale and whole < 0 else []
    if n_train >= 0:
        extra.append(f"n_train={n_train}" + (f" of {whole}" if whole >= 0 else ""))
    if pipeline != "default":
        extra.append(f"pipeline={pipeline}")  # a deliberately slow input pipeline is another dataset
    return f"{name} ({', '.join(extra)})" if extra else str(name)


def strategy_label(r: Mapping[str, Any]) -> str:
    """A strategy's label without its backend (:data:`~bench.reporting.frames.keys.STRATEGY_CODE`'s columns): the
    resolved name (``auto (cpu)`` when the user typed ``auto``), the compiler where it is not the backend's default
    (``cpu (XLA)``, ``cpu (torch.compile)``, ``gpu (jit auto: XLA)``), the process count of a multi-process point
    (``cpu_x2 (2 processes)``) and ``@host`` where one strategy of a section ran on two or more hosts."""
    name, requested = r["strategy_name"], r["strategy_requested"] or r["strategy_name"]
    label = name if requested == name else f"{requested} ({name})"
    label = f"{label} ({r['compiler_mark']})" if r["compiler_mark"] else label
    label = label if r["process_count"] == 1 else f"{label} ({r['process_count']} processes)"
    return f"{label}@{r['host_key']}" if r["host_key"] else label


def _prefixed(backend: str | None) -> bool:
    """Whether a backend's strategy labels carry its name (``jax/cpu_x2``): all but the first declared."""
    return str(backend or BACKENDS[0]) != BACKENDS[0]


@dataclass(frozen=True)
class Names:
    """The labels of a record set's sections and strategies, by code (:meth:`of` a frame of identity columns)."""

    sections: dict[int, tuple[str, str, str]]  # section -> (workload, dataset label, the same without a pipeline)
    strategies: dict[int, tuple[str, str, bool]]  # strategy_id -> (label with backend prefix, without, host named)

    @classmethod
    def of(cls, frame: pd.DataFrame) -> Names:
        """The names of ``frame``'s codes (a points or epochs frame: identity columns and codes)."""
        if frame.empty:
            return cls({}, {})
        sections, strategies = {}, {}
        for r in plain_rows(frame[["workload", "section", "strategy_id", *DATASET_KEY, *STRATEGY_CODE]]
                            .drop_duplicates(["section", "strategy_id"])):
            ds = [r[k] for k in DATASET_KEY]
            sections[int(r["section"])] = (str(r["workload"]), dataset_label(*ds), dataset_label(*ds[:-1]))
            plain = strategy_label(r)
            strategies[int(r["strategy_id"])] = (f"{r['backend']}/{plain}" if _prefixed(r["backend"]) else plain,
                                                 plain, bool(r["host_key"]))
        return cls(sections, strategies)

    def workload(self, section: int) -> str:
        """A section's workload (its name as tables show it)."""
        return self.sections[int(section)][0]

    def dataset(self, section: int) -> str:
        """A section's data set label."""
        return self.sections[int(section)][1]

    def key(self, section: int) -> tuple[str, str]:
        """A section as (workload, data set label): its figures' key and file names."""
        return self.workload(section), self.dataset(section)

    def strategy(self, code: int) -> str:
        """A strategy's label ('' for -1: none)."""
        return self.strategies[int(code)][0] if int(code) >= 0 else ""

    def named(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        """A configuration the analysis refers to by its code and settings, with its strategy's label instead."""
        return {("strategy" if k == "strategy_id" else k): (self.strategy(v) if k == "strategy_id" else v)
                for k, v in settings.items()}


def labelled(frame: pd.DataFrame, names: Names) -> pd.DataFrame:
    """``frame`` with the labels of its codes: ``dataset`` and ``data`` (its section's), ``strategy``,
    ``strategy_label`` (without the backend's prefix) and ``host_shown`` (its strategy's), each referred-to
    configuration's (:data:`REFERENCES`), and the ``quick``/``fast`` configurations' strategies named."""
    if frame.empty or not ({"section", "strategy_id", *REFERENCES} & set(frame.columns)):
        return frame
    frame = frame.copy()
    if "section" in frame:
        frame["dataset"] = [names.sections[int(s)][1] for s in frame["section"]]
        frame["data"] = [names.sections[int(s)][2] for s in frame["section"]]
    if "strategy_id" in frame:
        frame["strategy"] = [names.strategies[int(s)][0] for s in frame["strategy_id"]]
        frame["strategy_label"] = [names.strategies[int(s)][1] for s in frame["strategy_id"]]
        frame["host_shown"] = [names.strategies[int(s)][2] for s in frame["strategy_id"]]
    for code, (label, plain) in REFERENCES.items():
        if code in frame:
            frame[label] = [names.strategy(c) for c in frame[code]]
            if plain:
                frame[plain] = [names.strategies[int(c)][1] if int(c) >= 0 else "" for c in frame[code]]
    for column in ("quick", "fast"):
        if column in frame:
            frame[column] = pd.Series([names.named(v) if isinstance(v, Mapping) else v for v in frame[column]],
                                      index=frame.index, dtype=object)
    return frame


def with_labels(frame: pd.DataFrame) -> pd.DataFrame:
    """A points or epochs frame :func:`labelled` by its own names (``bench.run``'s and ``bench.epochs``' frames)."""
    return labelled(frame, Names.of(frame))


def labelled_analysis(a: Analysis) -> Analysis:
    """``a`` with every table :func:`labelled`, its trade-off fronts and race table too (what render reads)."""
    names = Names.of(a.points)
    fronts = {s: dataclasses.replace(t, front=labelled(t.front, names)) for s, t in a.tradeoffs.items()}
    race = None if a.race is None else dataclasses.replace(a.race, table=labelled(a.race.table, names))
    out = dataclasses.replace(a, tradeoffs=fronts, race=race)
    for f in dataclasses.fields(a):
        if isinstance(getattr(a, f.name), pd.DataFrame):
            setattr(out, f.name, labelled(getattr(a, f.name), names))
    return out


def labelled_predictions(predicted: Mapping[int, list[DevicePrediction]],
                         names: Names) -> dict[int, list[DevicePrediction]]:
    """Each prediction with its source configuration's strategy named (its ``strategy_id`` replaced)."""
    return {s: [dataclasses.replace(p, source=names.named(p.source)) for p in devices]
            for s, devices in predicted.items()}


def absent(summary: pd.DataFrame) -> pd.DataFrame:
    """:func:`bench.reporting.verdicts.absent_strategies` of a labelled summary, each strategy named (``strategy``)."""
    found = absent_strategies(summary)
    named = dict(zip(summary["strategy_id"], summary["strategy"], strict=True)) if len(summary) else {}
    return found.assign(strategy=[named[s] for s in found["strategy_id"]])
