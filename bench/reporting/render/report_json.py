"""The report's verdicts as data: ``report.json`` beside ``report.md``, one object per configuration and per workload,
typed with pydantic. Its schema is ``docs/report.schema.json``
(``python -m bench.reporting.render.report_json > docs/report.schema.json``; a test fails when it differs).
Fields: docs/reports.md, *The verdicts as data: report.json*.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from bench.reporting.analysis.floors import workload_floors
from bench.reporting.analysis.predict import DevicePrediction, predictions_by_workload
from bench.reporting.analysis.seeds import NO_CLAIM, SeedIndex
from bench.reporting.claims import Claims, all_claims
from bench.reporting.frames.keys import CONFIG_KEY, plain_rows, rows_of, sections
from bench.reporting.load.prices import Price, load_table
from bench.reporting.load.throughput import measured_error
from bench.reporting.render.claims_json import Claimed, Ratio, claims_data, ratio_data
from bench.reporting.render.labels import Names, labelled_predictions
from bench.reporting.render.limits_json import Limit, limits_by_config
from bench.reporting.render.race_json import RaceSpent, race_data
from bench.reporting.render.text import config_label, flag, reason_text, section_key, two_speeds_text
from bench.reporting.render.words import accuracy_flag_text, device_name, not_learning_text
from bench.reporting.stats.ratio import RatioCI
from bench.reporting.stats.sample import as_float
from bench.reporting.verdicts import Analysis

REPORT_SCHEMA_VERSION = 1


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Spread(_Part):
    """A quantity over repeats (throughput) or seeds: the figure reports rank by (``value``), its median, range and
    count, and the samples themselves."""

    value: float | None = None
    median: float | None = None
    low: float | None = None
    high: float | None = None
    n: int = 0
    samples: list[float] = Field(default_factory=list)


class Accuracy(_Part):
    """Final validation accuracy (fraction) over seeds: median, range, and the number of seeds (training runs)."""

    median: float | None = None
    min: float | None = None
    max: float | None = None
    seeds: int = 0


class Reason(_Part):
    """Why a configuration's points did not all finish: the first such point's reason, its kind as a code (the
    exception type: ``StrategyUnavailable``, ``WorkerCrashed``, ``OutOfMemory``, ...; empty when the record names
    none) and text, and how many of its points did not finish."""

    code: str
    text: str
    points: int


class Target(_Part):
    """The workload's target validation accuracy, how many seeds reached it, and the training seconds to it (median
    and range over those seeds; warm-up epoch included)."""

    value: float
    reached: bool
    reached_seeds: int
    seeds: int
    seconds_median: float | None = None
    seconds_min: float | None = None
    seconds_max: float | None = None


class Interval(_Part):
    """A mean with its interval (percentage points or a ratio)."""

    mean: float | None = None
    low: float | None = None
    high: float | None = None


class Parity(_Part):
    """This configuration's accuracy against ``vs`` (the baseline strategy, or TensorFlow's of the same name:
    ``kind`` backend), paired by seed: the verdict, the mean per-seed difference in pp with its interval
    (Bonferroni over the workload's comparisons), seeds paired, the adjusted p and the same-seed agreement."""

    vs: str
    kind: str
    verdict: str  # differs | equivalent | inconclusive | no_claim
    diff_pp: Interval
    seeds: int
    test: str = "paired t across seeds, Bonferroni over the workload's comparisons"
    p: float | None = None
    same_seed_agreement: float | None = None


class Identity(_Part):
    """What a configuration is, as columns (bench.reporting.frames.keys.CONFIG_KEY; its labels are made from them):
    the data set's name, scale ('' none), examples used and the whole set's (-1: not known), input pipeline; the
    backend, the strategy as requested and as resolved, the compiler mark ('' the backend's default), the cooperating
    processes, the host, and ``host_key``: the host where the label names it (one strategy on several hosts), else
    ''. ``bench compare`` joins two reports on these."""

    dataset_name: str
    dataset_scale: str
    dataset_n_train: int
    dataset_whole: int
    input_pipeline: str
    strategy_requested: str
    strategy_name: str
    compiler_mark: str
    process_count: int
    host: str
    host_key: str


class Configuration(_Part):
    """One configuration of the report."""

    workload: str
    dataset: str
    backend: str
    strategy: str
    global_batch_size: int
    steps_per_execution: int  # what ran
    precision: str
    status: str
    learns: bool
    flags: list[str] = Field(default_factory=list)  # in words, as report.md's results table
    # the same as codes (not_learning, target_missed, below_reference, two_speeds, parity, mfu_over_peak,
    # flops_uncounted, trending, epoch_too_short, one_step); their numbers are this object's other fields
    flag_codes: list[str] = Field(default_factory=list)
    examples_per_s: Spread
    # steady training seconds per epoch: value = the median over all steady epochs (report.md's figure); samples one
    # per ok repeat (its median), what compare reads
    train_s: Spread
    epoch_s: Spread  # the same with validation
    val_accuracy: Accuracy
    target: Target | None = None
    parity: list[Parity] = Field(default_factory=list)
    speedup: Ratio | None = None
    speedup_withheld: str | None = None  # why no speedup is given where one could be: "not_learning"
    limit: Limit | None = None  # what limits it, its evidence and lever (bench.reporting.analysis.limits)
    epochs: list[int] = Field(default_factory=list)  # epochs trained, each distinct count once (merged runs may differ)
    trending: bool = False  # a process's steady epochs still trend (bench.reporting.stats.trend): not a steady state
    epoch_too_short: bool = False  # median training epoch under 0.1 s: too short to time (frames.summary)
    # ok processes that trained with one step in flight (run again after XLA's CPU all-reduce deadlocked): slower
    one_step_processes: int = 0
    reason: Reason | None = None  # why some or all of its points did not finish (null when every one did)
    identity: Identity | None = None  # what it is, as columns (null: a report.json written before it carried one)


class Predicted(_Part):
    """One device for one workload (docs/predict.md): ``basis`` is ``measured``, ``predicted`` (from the
    workload's GPU configurations), ``predicted_from_reference`` (it ran on no GPU: from bench's reference records)
    or why not (``no_accelerator_record``, ``too_few_configurations``, ``tpu_not_validated``, ``no_datasheet``,
    ``no_count``).
    Predicted: steady training seconds an epoch with its interval, examples/s, the step's fixed part's share, what
    would bound it (``host``, ``compute``, ``memory``), the interval's error (a fraction), USD an epoch and to the
    target at the shipped price (null without one), and the measured configuration it scales from."""

    device: str
    kind: str
    model: str
    basis: str
    train_s: float | None = None
    low_s: float | None = None
    high_s: float | None = None
    examples_per_s: float | None = None
    fixed_share: float | None = None
    limit: str = ""
    error: float | None = None
    usd_per_epoch: float | None = None
    usd_to_target: float | None = None
    source: dict[str, Any] = Field(default_factory=dict)


class DeviceFloor(_Part):
    """One device's floors for an epoch of the workload's fastest configuration that learns (seconds; null without a
    peak, a bandwidth or a count): floors, not predictions (bench.reporting.analysis.floors). ``arithmetic``: the
    datasheet peak's ("" where the device ran, at its measured peak); ``measured_ratio``: the measured epoch over the
    largest floor, on the device that ran; ``usd_per_million``: USD per million examples at the largest floor."""

    device: str
    kind: str
    model: str
    arithmetic: str
    compute_s: float | None = None
    memory_s: float | None = None
    host_s: float | None = None
    measured_ratio: float | None = None
    usd_per_million: float | None = None


class Answer(_Part):
    """One workload's answer: the fastest configuration that learns (null: none learns) and its throughput over the
    baseline's fastest configuration that learns. Without a target, ``single_answer`` is false when that
    configuration is not the most accurate (``tradeoff``: the configurations each slower and more accurate than the
    one before by more than the margin, fastest first; see bench.reporting.analysis.tradeoff)."""

    workload: str
    dataset: str
    fastest_that_learns: str | None = None  # e.g. "cpu_x2 at b128 spe8 float32"
    fastest: dict[str, Any] | None = None  # its settings: strategy, backend, global_batch_size, ...
    examples_per_s: float | None = None
    vs_baseline: Ratio | None = None  # best against best: the winner over the baseline's best that learns
    single_answer: bool = True
    tradeoff: list[str] = Field(default_factory=list)
    claims: Claimed | None = None  # the conclusions the answer and the findings word (bench.reporting.claims)
    # per device of bench's table: measured, predicted with its interval, or why not (bench.reporting.analysis.predict)
    predictions: list[Predicted] = Field(default_factory=list)
    floors: list[DeviceFloor] = Field(default_factory=list)  # what an epoch cannot go under, per device




class ReportData(_Part):
    """``report.json``."""

    report_schema_version: int = REPORT_SCHEMA_VERSION
    baseline: str
    parity_margin_pp: float
    configurations: list[Configuration]
    workloads: list[Answer]
    race: RaceSpent | None = None  # a repeats=auto run


def _num(x: Any) -> float | None:
    v = as_float(x)
    return v if math.isfinite(v) else None


def _claimed(row: Mapping[str, Any], key: str) -> float | None:
    """An interval bound or p of a parity row, null when the verdict makes no claim (fewer than 3 seeds)."""
    return None if row["verdict"] == NO_CLAIM else _num(row[key])


def _per_repeat(r: Mapping[str, Any] | pd.Series, column: str, value_column: str | None = None) -> Spread:
    """A summary row's per-repeat ``column`` (one figure per ok repeat, from
    :func:`~bench.reporting.frames.summary.summarize`) as a Spread; its value is the row's ``value_column``, else the
    median of the repeats."""
    samples = [float(v) for v in r[column]]
    median = _num(r[f"{column}_median"])
    return Spread(value=_num(r[value_column]) if value_column else median, median=median,
                  low=_num(r[f"{column}_low"]), high=_num(r[f"{column}_high"]), n=len(samples), samples=samples)


def _flag_codes(r: Mapping[str, Any]) -> list[str]:
    """A summary row's flags as codes, in the results table's order."""
    on = [("not_learning", bool(r.get("not_learning"))),
          (str(r.get("accuracy_flag") or ""), bool(r.get("accuracy_flag"))),
          ("two_speeds", bool(r.get("two_speeds"))), ("parity", flag(r.get("parity_flag"))),
          ("mfu_over_peak", flag(r.get("mfu_over_peak"))), ("flops_uncounted", bool(r.get("flops_uncounted"))),
          ("trending", flag(r.get("trending"))), ("epoch_too_short", flag(r.get("too_short"))),
          ("one_step", as_float(r.get("one_step")) > 0)]
    return [code for code, is_on in on if is_on]


def _configuration(r: Mapping[str, Any], mine: pd.DataFrame, limit: Limit | None = None) -> Configuration:
    """One configuration's object from its summary row ``r`` and its parity rows ``mine``."""
    target = None
    if r["status"] == "ok" and math.isfinite(as_float(r["target_accuracy"])):
        target = Target(value=float(r["target_accuracy"]), reached=bool(r["reached_target"]),
                        reached_seeds=int(r["n_reached"]), seeds=int(r["n_seeds"]),
                        seconds_median=_num(r["time_to_target_s"]), seconds_min=_num(r["time_to_target_min_s"]),
                        seconds_max=_num(r["time_to_target_max_s"]))
    speedup, withheld = None, None
    if r["status"] == "ok" and r.get("not_learning"):
        withheld = "not_learning"  # its speed says nothing about training: report.md prints "— (not learning)"
    elif r["status"] == "ok" and r.get("baseline") and not r["is_baseline"] and _num(r["speedup"]):
        speedup = ratio_data(str(r["baseline"]), RatioCI(r["speedup"], r["speedup_low"], r["speedup_high"],
                                                             int(r["n_repeats"]), int(r["speedup_n_base"])))
    said = (not_learning_text(r["not_learning"]), accuracy_flag_text(r), two_speeds_text(r.get("two_speeds")))
    flags = [f for f in said if f] + (["parity"] if r["parity_flag"] else [])
    ints = ("dataset_n_train", "dataset_whole", "process_count")
    ident = Identity.model_validate({k: int(r[k]) if k in ints else str(r[k] or "") for k in Identity.model_fields})
    return Configuration(
        identity=ident,
        workload=r["workload"], dataset=r["dataset"], backend=str(r["backend"]), strategy=r["strategy"],
        global_batch_size=int(r["global_batch_size"]), steps_per_execution=int(r["steps_per_execution"]),
        precision=r["precision"], status=r["status"], learns=bool(r["learns"]), flags=flags,
        flag_codes=_flag_codes(r), speedup_withheld=withheld,
        examples_per_s=_per_repeat(r, "repeat_rates", "examples_per_s"),
        train_s=_per_repeat(r, "repeat_train_s", "train_s_median"),
        epoch_s=_per_repeat(r, "repeat_epoch_s", "epoch_s_median"),
        val_accuracy=Accuracy(median=_num(r["final_val_accuracy"]), min=_num(r.get("val_acc_min")),
                              max=_num(r.get("val_acc_max")), seeds=int(r.get("n_seeds") or 0)),
        target=target, speedup=speedup, limit=limit, epochs=[int(n) for n in r.get("epochs") or ()],
        trending=bool(r.get("trending", False)), epoch_too_short=bool(r.get("too_short", False)),
        one_step_processes=int(r.get("one_step") or 0),
        reason=(Reason(code=str(r.get("error_type") or ""), text=reason_text(r["error"]),
                       points=int(r.get("n_not_ok") or 0)) if r.get("n_not_ok") else None),
        parity=[Parity(vs=p["baseline"], kind=p["kind"], verdict=p["verdict"], seeds=int(p["seeds"]),
                       diff_pp=Interval(mean=_num(p["diff_pp"]), low=_claimed(p, "low_pp"),
                                        high=_claimed(p, "high_pp")),
                       p=_claimed(p, "p"), same_seed_agreement=_num(p["agreement"])) for p in plain_rows(mine)])


def _answer(a: Analysis, section: int, c: Claims) -> Answer:
    workload, dataset = section_key(rows_of(a.summary, section))
    win = c.winner
    if win is None:
        return Answer(workload=workload, dataset=dataset, claims=claims_data(c))
    vs = None if c.vs_baseline is None or c.is_baseline else ratio_data(config_label(c.vs_baseline.b),
                                                                          c.vs_baseline.ratio)
    backend = str(win["backend"])
    t = a.tradeoffs.get(section)
    front = [] if t is None or t.settled else [config_label(r) for _, r in t.front.iterrows()]
    return Answer(single_answer=not front, tradeoff=front,
                  workload=workload, dataset=dataset, fastest_that_learns=config_label(win),
                  fastest={"strategy": win["strategy"], "backend": backend,
                           "global_batch_size": int(win["global_batch_size"]),
                           "steps_per_execution": int(win["steps_per_execution"]), "precision": win["precision"]},
                  examples_per_s=_num(win["examples_per_s"]), vs_baseline=vs, claims=claims_data(c))


def report_data(a: Analysis, claims: Mapping[int, Claims] | None = None,
                predicted: Mapping[int, list[DevicePrediction]] | None = None,
                prices: Mapping[str, Price] | None = None) -> ReportData:
    """The verdicts of an analysis as data (module docstring); ``claims``: each section's (:func:`all_claims`);
    ``predicted``: each section's devices (:func:`predictions_by_workload`, named by
    :func:`bench.reporting.render.labels.labelled_predictions`); ``prices``: the price table (the shipped one
    without). ``a`` is labelled (:func:`bench.reporting.render.labels.labelled_analysis`)."""
    found = claims if claims is not None else all_claims(a)
    table = prices if prices is not None else load_table()
    devices = predicted if predicted is not None else labelled_predictions(
        predictions_by_workload(a.summary, measured_error(), table), Names.of(a.points))
    parity = SeedIndex(a.parity, CONFIG_KEY, only_ok=False)
    limits = limits_by_config(a.limits)
    configs = [_configuration(r, parity.rows(r), limits.get(tuple(r.get(k) for k in CONFIG_KEY)))
               for r in plain_rows(a.summary)]
    return ReportData(baseline=a.baseline, parity_margin_pp=a.parity_margin_pp, configurations=configs,
                      workloads=[_answer(a, s, found[s]).model_copy(update={
                          "predictions": [_predicted(p) for p in devices.get(s, [])],
                          "floors": _floors(rows_of(a.summary, s), table, a.limits)}) for s in sections(a.summary)],
                      race=race_data(a.race))


def _predicted(p: DevicePrediction) -> Predicted:
    return Predicted(device=device_name(p.device, kind=p.kind), kind=p.kind, model=p.model, basis=p.basis,
                     train_s=_num(p.train_s),
                     low_s=_num(p.low_s), high_s=_num(p.high_s), examples_per_s=_num(p.examples_per_s),
                     fixed_share=_num(p.fixed_share), limit=p.limit, error=_num(p.error),
                     usd_per_epoch=_num(p.usd_per_epoch), usd_to_target=_num(p.usd_to_target),
                     source={k: (v if not isinstance(v, float) or math.isfinite(v) else None)
                             for k, v in p.source.items()})


def _floors(g: pd.DataFrame, prices: Mapping[str, Price], limits: pd.DataFrame) -> list[DeviceFloor]:
    floors = workload_floors(g, prices, limits)
    return [] if floors is None else [
        DeviceFloor(device=device_name(f.device, f.role, f.kind), kind=f.kind, model=f.model, arithmetic=f.arithmetic,
                    compute_s=_num(f.compute_s), memory_s=_num(f.memory_s), host_s=_num(f.host_s),
                    measured_ratio=_num(f.measured_ratio), usd_per_million=_num(f.usd_per_million))
        for f in floors.devices]


def to_json(data: ReportData) -> str:
    """``report.json``'s text."""
    return json.dumps(data.model_dump(mode="json"), indent=1, allow_nan=False) + "\n"


def json_schema() -> dict[str, Any]:
    """The JSON Schema of ``report.json`` (published as ``docs/report.schema.json``)."""
    return ReportData.model_json_schema()


if __name__ == "__main__":
    sys.stdout.write(json.dumps(json_schema(), indent=1) + "\n")
