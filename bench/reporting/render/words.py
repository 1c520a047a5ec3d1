"""The one wording table of a workload's claims (:mod:`bench.reporting.claims`): what the answer and the findings
both say, in the same words. Never imports TensorFlow."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from bench.records.backends import SPECS
from bench.reporting.analysis.accuracy import BELOW_REFERENCE, TARGET_MISSED
from bench.reporting.analysis.floors import OWN_DEVICE, RAN_HERE
from bench.reporting.analysis.predict import NO_ACCELERATOR, NO_COUNT, NO_DATASHEET, TOO_FEW, TPU
from bench.reporting.analysis.race import (
    BASELINE_OF_RUNNING,
    BUDGET,
    LEADER,
    MAX,
    MISSES_TARGET,
    MORE_ACCURATE,
    NO_OK,
    NOISE,
    NOT_LEARNING,
    OUT,
    SEPARATED,
)
from bench.reporting.analysis.race_replay import LOST, UNFINISHED
from bench.reporting.analysis.seeds import NO_CLAIM
from bench.reporting.claims import (
    EARLIER_DEFINITION,
    INPUT_BOUND,
    NONE_FINISHED,
    ONE_STEP,
    TOO_SHORT,
    TRENDING,
    Claims,
    Pair,
)
from bench.reporting.frames.learning import (
    AT_CHANCE,
    BELOW_CHANCE,
    LOSS_FELL_LITTLE,
    LOSS_ROSE,
    ONE_CLASS,
    SATURATED,
    NotLearning,
    Reason,
)
from bench.reporting.frames.summary import SHORT_EPOCH_S
from bench.reporting.load.prices import FREE_TIER, NO_ENTRY, NO_PRICE, NO_UNITS, PLATFORM
from bench.reporting.render.text import config_label, seconds, sig
from bench.reporting.stats.ratio import RatioCI
from bench.reporting.verdicts import Analysis

BACKEND_NAMES = {name: b.display for name, b in SPECS.items()}  # each engine's declaration (records.backends)

# a configuration with a process that bench ran again with one training step in flight (records' steps_in_flight)
ONE_STEP_WORDS = "run again with one step in flight after XLA's CPU all-reduce deadlocked (slower steps)"

FLAG_WORDS = {
    TOO_SHORT: f"epoch too short to time (< {SHORT_EPOCH_S:g} s)",
    TRENDING: "steady epochs still drift",
    INPUT_BOUND: "input-bound (its input pipeline, not the device, sets the pace)",
    EARLIER_DEFINITION: "records of an earlier definition of this workload (*Not today's workload*)",
    ONE_STEP: ONE_STEP_WORDS,
}


def none_learns(c: Claims) -> str:
    """The line of a workload none of whose configurations learns (or finished)."""
    if c.outcome == NONE_FINISHED:
        return "- **No configuration finished.**"
    return (f"- **No configuration learns** ({c.n_finished} finished): its speeds say nothing about training; why and "
            f"what to try: its section, *Does not learn*.{earlier_note(c)}")


def earlier_note(c: Claims) -> str:
    """`` Records of an earlier definition of this workload (...).``: a sentence that qualifies a headline whose
    records include an earlier definition ('' otherwise)."""
    said = FLAG_WORDS[EARLIER_DEFINITION]
    return f" {said[0].upper()}{said[1:]}." if c.earlier_definition else ""


def backend_name(row: pd.Series) -> str:
    """``JAX``, ``PyTorch (torch.compile)``, ``TensorFlow``: the backend a configuration ran under, and compiler."""
    name = BACKEND_NAMES.get(str(row["backend"]), str(row["backend"]))
    mark = str(row.get("compiler_mark") or "").strip()
    return f"{name} {mark}" if mark else name


def device_words(row: pd.Series, whole: bool = False) -> str:
    """``1 NVIDIA H200``, ``8 TPU v5 lite``, ``the 16-core CPU as 2 devices``: what a configuration trained on
    (``whole``: a CPU without its split into logical devices)."""
    kind, n = str(row.get("device_kind") or ""), int(row.get("num_replicas") or 1)
    accelerator = str(row.get("accelerator") or "").strip()
    if kind == "cpu" or not kind:
        cores = row.get("cpu_count")
        core = f"{int(cores)}-core " if isinstance(cores, int | float) and math.isfinite(cores) and cores else ""
        split = f" as {n} devices" if n > 1 and not whole else ""
        return f"the {core}CPU{split}"
    return f"{n} {accelerator or kind.upper()}" + ("" if accelerator or n == 1 else "s")


def plain_config(row: pd.Series, with_device: bool = True) -> str:
    """``JAX on 1 NVIDIA H200, batch 128, 8 steps a call, float32 (tf32)``: a configuration in words."""
    spe = int(row["steps_per_execution"])
    maths = str(row.get("arithmetic") or "")
    maths = "" if maths == "fp32" and row["precision"] == "float32" else maths  # said only where it is not plain
    where = f"{backend_name(row)} on {device_words(row)}, " if with_device else ""
    return (f"{where}batch {int(row['global_batch_size'])}, {spe} step{'s' if spe != 1 else ''} a call, "
            f"{row['precision']}{f' ({maths})' if maths else ''}")


def sureness(ci: RatioCI) -> str:
    """How sure a throughput ratio is, in words: its 95% interval over processes, or why it has none."""
    if not math.isfinite(ci.ratio):
        return ""
    if not ci.has_interval:
        n = f"{ci.n_num} process{'es' if ci.n_num != 1 else ''}"
        sides = f"{n} each" if ci.n_num == ci.n_den else f"{ci.n_num} vs {ci.n_den} processes"
        return f"{sides}: no interval"
    said = "" if ci.significant else ", not told apart from 1x"
    return f"95% interval {sig(ci.low)}-{sig(ci.high)}x over {ci.n_num} vs {ci.n_den} processes{said}"


def runs(n: int, m: int | None = None) -> str:
    """``1 training run each``, ``3 vs 2 training runs``, ``3 training runs``."""
    if m is None:
        return f"{n} training run{'s' if n != 1 else ''}"
    return f"{runs(n)} each" if n == m else f"{n} vs {m} training runs"


def target_claim(p: Pair, other: str) -> tuple[str, str]:
    """The time-to-target half of pair ``p`` (its first side against ``other``, the second): the claim beside the
    throughput (``2.51x sooner to the target 0.85``) and its figures; ("", the figures) where no ratio is told."""
    target = p.a.get("target_accuracy", math.nan)
    if not math.isfinite(target):
        return "", "no target accuracy is set to time (`Workload(..., target_accuracy=...)`)"
    if not p.a_reached:
        return "", f"it did not reach the target {target:.2f} ({int(p.a['n_reached'])} of {int(p.a['n_seeds'])} runs)"
    mine = f"{seconds(p.a_target_s)} s"
    if not p.b_reached:
        return "", f"it reached the target {target:.2f} after {mine} of training; {other} never did"
    said = f"{sig(p.sooner)}x sooner" if p.sooner >= 1 else f"{sig(1 / p.sooner)}x later"
    return (f"{said} to the target {target:.2f}",
            f"{mine} vs {seconds(p.b_target_s)} s of training, {runs(p.a_reached, p.b_reached)}")


def caveats(a: Analysis, c: Claims) -> str:
    """What qualifies the headline: the flags on its row, the accuracy it gives up, records of an earlier
    definition of the workload, in one clause ('' when nothing does)."""
    said = [FLAG_WORDS[f] + (f" ({c.drift_pct:+.0f}%)" if f == TRENDING else "")
            for f in c.flags if f != EARLIER_DEFINITION]
    if c.given_up is not None:
        g = c.given_up
        said.append(f"it ends {g.diff_pp:.1f} pp below the {g.row['final_val_accuracy']:.3f} of {plain_config(g.row)} "
                    f"(±{a.parity_margin_pp:g} pp count as equal)")
    if c.earlier_definition:
        said.append(FLAG_WORDS[EARLIER_DEFINITION])
    return "; ".join(said)


def reason_text(r: Reason) -> str:
    """One reason in words, with the record's own numbers (bench.reporting.frames.learning)."""
    v = r.values
    if r.code in (LOSS_FELL_LITTLE, LOSS_ROSE):
        moved = "fell only" if r.code == LOSS_FELL_LITTLE else "rose"
        return f"training loss {moved} {v[0]:.1f}% from epoch 1 to {v[1]:g} (needs a {v[2]:.0f}% drop)"
    if r.code == BELOW_CHANCE:
        return f"val accuracy {v[0]:.3f} is {v[1]:.1f} pp below chance {v[2]:.3f}"
    if r.code == AT_CHANCE:
        return f"val accuracy {v[0]:.3f} within {v[1]:g} pp of chance {v[2]:.3f}"
    if r.code == ONE_CLASS:
        return f"one class ({v[0]:g}) predicted for all {v[1]:g} validation examples"
    if r.code == SATURATED:
        return (f"saturated start: epoch 1's loss {v[0]:.2f} is {sig(v[1], trim=True)}x an untrained model's "
                f"ln({v[2]:g}) = {sig(v[3])}")
    return r.code


def codes_of(value: Any) -> tuple[str, ...]:
    """The reason codes of a frame's ``not_learning`` cell (a NotLearning or a point's reasons)."""
    if isinstance(value, NotLearning):
        return value.codes
    return tuple(r.code for r in value) if isinstance(value, tuple) else ()


def not_learning_text(value: Any) -> str:
    """A frame's ``not_learning`` cell in words ('' when it learns): a configuration's (``in 2/3 training runs; seed
    0: ...`` with more than one run) or a point's reasons; a text as it is (frames built by hand)."""
    if isinstance(value, str):
        return value
    if isinstance(value, NotLearning):
        said = "; ".join(reason_text(r) for r in value.reasons)
        return said if value.seeds <= 1 or not said else f"in {value.flagged}/{value.seeds} training runs; seed " \
            f"{value.first_seed}: {said}"
    return "; ".join(reason_text(r) for r in value) if isinstance(value, tuple) else ""


def earlier_text(earlier: tuple[str, ...]) -> str:
    """Why a built-in's records are not today's workload of that name (``frames.identity.earlier_of``): the output and
    loss its revision trained, and what replaced them."""
    workload, output, literal, change = (*earlier, "", "", "", "")[:4]
    since = f"; every change since: {'; '.join(earlier[4:])} (docs/workloads.md)" if len(earlier) > 4 else ""
    if change:  # not the output: the changes since say it all (the change alone where a record predates the list)
        return f"these records trained `{workload}` as an older bench defined it" + (since or f": {change}")
    today = f"; the old form trains today as `{literal}`" if literal else ""
    return (f"these records trained `{workload}` as an older bench defined it: a {output} read as probabilities by its "
            "cross-entropy, which JAX and PyTorch compute from clipped probabilities (a saturated start can stop "
            f"learning there){today}{since}")


def accuracy_ref_text(r: Mapping[str, Any] | pd.Series) -> str:
    """The configuration a row's accuracy was compared with: its strategy label, with its settings where they are not
    the row's own (``cpu at b64 spe1 float32``)."""
    settings = r.get("accuracy_ref_settings") or {}
    return config_label({"strategy": r["accuracy_ref"], **settings}) if settings else str(r["accuracy_ref"])


def accuracy_flag_text(r: Mapping[str, Any] | pd.Series) -> str:
    """A summary row's ``accuracy_flag`` in words, with its numbers ('' when it has none)."""
    code = r.get("accuracy_flag") or ""
    if code == TARGET_MISSED:
        return f"target {r['target_accuracy']:.2f} not reached in {r['n_reached']}/{r['n_seeds']} training runs"
    if code == BELOW_REFERENCE:
        return (f"below {accuracy_ref_text(r)} ({r['accuracy_diff_pp']:+.1f} pp [{r['accuracy_low_pp']:+.1f}, "
                f"{r['accuracy_high_pp']:+.1f}] over {runs(int(r['accuracy_seeds']))})")
    return str(code)


def race_reason_text(why: Any) -> str:
    """Why a ``repeats=auto`` configuration stands where it does (:class:`~bench.reporting.analysis.race.Standing`'s
    code and numbers), in words; a text as it is."""
    if not isinstance(why, tuple) or not why:
        return str(why)
    code, *v = why
    fixed = {LEADER: "leader", NOISE: "within the noise of the leader",
             MORE_ACCURATE: "slower but more accurate than the leader", LOST: "no record after its last repeat",
             UNFINISHED: "the run ended before its next repeat (resume continues the race)"}
    if code in fixed:
        return fixed[code]
    if code in (OUT, SEPARATED, NOT_LEARNING):
        return {OUT: f"out after {v[0]}: interval below the leader's", SEPARATED: f"separated after {v[0]}",
                NOT_LEARNING: f"not learning after {v[0]}"}[code]
    if code == NO_OK:
        return f"no ok repeat after {v[0]} ({v[1]})"
    if code == MISSES_TARGET:
        return f"misses the target in {v[0]}/{v[1]} training runs"
    if code == BASELINE_OF_RUNNING:
        return f"baseline of a running configuration ({race_reason_text(v[0])})"
    if code == MAX:
        return f"max_repeats={v[0]} reached"
    return f"budget_s={v[0]:g} spent ({v[1]:.0f} s)" if code == BUDGET else str(code)


PREDICTED_REASONS = {
    NO_ACCELERATOR: "nothing of this workload learned on a GPU, whose per-step cost a prediction carries over",
    TOO_FEW: "fewer than 4 configurations (batch x steps_per_execution) on the GPU that ran: the step's fixed part "
             "cannot be fitted and checked",
    TPU: "a prediction for a TPU is not validated (no set of TPU measurements to check one on)",
    NO_DATASHEET: "bench's datasheet table lacks a peak or a bandwidth",
    NO_COUNT: "the records carry no FLOP or byte count, or one that misses layers (an older bench, or a layer of "
              "your own that the count does not see into)",
}


PREDICTED_SHORT = {NO_ACCELERATOR: "nothing learned on a GPU", TOO_FEW: "under 4 GPU configurations",
                   TPU: "no TPU record to validate one", NO_DATASHEET: "no datasheet figures",
                   NO_COUNT: "no whole FLOP and byte count"}


def predicted_reason(code: str, short: bool = False) -> str:
    """Why a device has no predicted figure, in words (bench.reporting.analysis.predict's codes); ``short``: a
    table cell's."""
    return "not predicted: " + (PREDICTED_SHORT if short else PREDICTED_REASONS).get(code, code)


def priced_as(row: Mapping[str, Any] | pd.Series) -> str:
    """How a priced summary row's price was found (``price_basis``, :mod:`bench.reporting.analysis.cost`), in words:
    ``TPU v5e x 8 chips``, ``2 vCPU (cpu-vcpu)``, ``kaggle free tier``, ``no price (NVIDIA H100 ...)``."""
    basis, key, what = row.get("price_basis"), row.get("price_key"), row.get("price_what") or "device unknown"
    if basis == FREE_TIER:
        return f"{key} free tier"
    if basis == PLATFORM:
        return str(key)
    if basis == NO_ENTRY:
        return f"no price ({what})"
    if basis == NO_UNITS:
        return f"no price ({what}: unknown count)"
    if basis == NO_PRICE:
        return f"no price ({key})"
    n, unit = float(row.get("price_units", math.nan)), str(row.get("price_unit") or "")
    count = f"{n:g} {unit}" + ("s" if n != 1 and unit in ("chip", "GPU") else "")
    return f"{key} x {count}" if row.get("device_kind") != "cpu" else f"{count} ({key})"


def device_name(name: str, role: str = "", kind: str = "") -> str:
    """A device of the floors and predictions tables: a TPU chip of the table as ``TPU v5e chip``, a GPU by its model
    (``H100``), and by its role (:data:`~bench.reporting.analysis.floors.OWN_DEVICE`: the record's own name,
    ``NVIDIA H200, measured``; :data:`~bench.reporting.analysis.floors.RAN_HERE`: ``TPU v3 chip, ran here``)."""
    if role == OWN_DEVICE:
        return f"{name}, measured"
    chip = f"TPU {name} chip" if kind == "tpu" else name
    return f"{chip}, ran here" if role == RAN_HERE else chip


def arithmetic_words(row: Mapping[str, Any] | pd.Series) -> str:
    """A configuration's arithmetic as tables print it: ``matmul fp32, conv tf32 (matmul inferred from its probe)``
    where the matmul's is inferred (:func:`bench.reporting.frames.points.arithmetic_of`)."""
    inferred = row.get("arithmetic_inferred")
    return str(row.get("arithmetic") or "") + (" (matmul inferred from its probe)" if inferred is True else "")


def verdict_words(code: str) -> str:
    """A paired-by-seed verdict (:mod:`bench.reporting.analysis.seeds`: ``differs``, ``equivalent``,
    ``inconclusive``, ``no_claim``) in words."""
    return {NO_CLAIM: "no claim"}.get(code, code)
