"""What a configuration costs: per steady epoch, per million training examples and to the target, at the hourly price
of the device that ran it (:func:`match_price`; the table is :mod:`bench.reporting.load.prices`), never a guess;
the Pareto front; and the lower bounds on other accelerators (:func:`lower_bound_s`). Method: docs/cost.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from bench.measure.datasheets import DATASHEET_PEAK_FLOPS, chip_of
from bench.reporting.load.prices import (
    FREE_TIER,
    NO_ENTRY,
    NO_PRICE,
    NO_UNITS,
    PLATFORM,
    PRICED,
    Price,
    Priced,
)
from bench.reporting.stats.sample import as_float


def priced_summary(summary: pd.DataFrame, table: Mapping[str, Price]) -> pd.DataFrame:
    """``summary`` (one row per configuration) with its price and costs: ``price_basis`` (a code,
    :class:`~bench.reporting.load.prices.Priced`), ``price_what``, ``price_key``,
    ``usd_per_hour`` (all the configuration's units), ``usd_per_epoch``, ``usd_per_million_examples``,
    ``usd_to_target`` (USD; NaN without a price, a measurement or a reached target)."""
    out = summary.copy()
    priced = [match_price(table, r["device_kind"], r.get("accelerator"), r["num_replicas"], r.get("cpu_count"),
                          platform_of(r.get("env_var_names") or (), table))
              for _, r in summary.iterrows()]
    out["price_basis"] = [p.basis for p in priced]
    out["price_what"] = [p.what for p in priced]
    out["price_key"] = [p.key for p in priced]
    out["usd_per_hour"] = [p.usd_per_hour for p in priced]
    out["price_units"] = [p.units for p in priced]
    out["price_unit"] = [p.unit for p in priced]
    per_s = out["usd_per_hour"] / 3600.0
    ok = out["status"] == "ok"
    out["usd_per_epoch"] = (out["epoch_s_median"] * per_s).where(ok, math.nan)
    # per million training examples at the cost of the epoch that trains them (training and validation, as
    # usd_per_epoch): USD/epoch x epochs per 1M examples is this figure; the training rate where the epoch's size
    # is not recorded
    per_epoch = (out["steps_per_epoch"] * out["global_batch_size"] if "steps_per_epoch" in out
                 else pd.Series(math.nan, index=out.index))
    epoch_s_per_example = (out["epoch_s_median"] / per_epoch).where(per_epoch > 0, 1 / out["examples_per_s"])
    out["usd_per_million_examples"] = (per_s * epoch_s_per_example * 1e6).where(ok, math.nan)
    # to target only where the configuration reaches it (at least half its seeds): the median over the seeds that
    # did would otherwise price a configuration that usually misses as if it arrived
    reached = out["reached_target"].astype(bool) if "reached_target" in out else ok
    out["usd_to_target"] = (out["time_to_target_s"] * per_s).where(ok & reached, math.nan)
    # device time, the figure a price multiplies: what an unpriced row shows instead of USD
    out["unit_s_per_million_examples"] = (out["price_units"] * epoch_s_per_example * 1e6).where(ok, math.nan)
    out["unit_s_to_target"] = (out["price_units"] * out["time_to_target_s"]).where(ok & reached, math.nan)
    return out


def break_even_usd_per_hour(g: pd.DataFrame) -> pd.Series:
    """Per configuration of one workload's priced rows (:func:`priced_summary`): for an ok one without a price,
    the hourly price per unit (USD per GPU, chip or vCPU hour) at which its cost per million training examples
    equals the cheapest priced configuration's; NaN for priced rows, or when none is priced."""
    ok = g["status"] == "ok"
    cheapest = g.loc[ok, "usd_per_million_examples"].min() if ok.any() else math.nan
    unpriced = ok & g["usd_per_hour"].map(lambda v: not math.isfinite(v))
    if not math.isfinite(cheapest):
        return pd.Series(math.nan, index=g.index)
    return (cheapest * 3600.0 / g["unit_s_per_million_examples"]).where(unpriced, math.nan)


def pareto_front(time_s: list[float], cost: list[float]) -> list[bool]:
    """Which (time, cost) pairs no other pair beats on both (<= on both, < on one); NaNs are never on it."""
    pts = list(zip(time_s, cost, strict=True))
    out = []
    for t, c in pts:
        if not (math.isfinite(t) and math.isfinite(c)):
            out.append(False)
            continue
        out.append(not any(math.isfinite(t2) and math.isfinite(c2) and t2 <= t and c2 <= c and (t2 < t or c2 < c)
                           for t2, c2 in pts))
    return out


def finite(s: pd.Series) -> pd.Series:
    """Which of ``s``'s values are finite numbers, as a boolean mask (also for an empty ``s``, whose mapped values
    would be floats and index columns instead of rows)."""
    return s.map(lambda v: isinstance(v, (int, float)) and math.isfinite(v)).astype(bool)


def frontier(g: pd.DataFrame) -> tuple[pd.DataFrame, str, str]:
    """The configurations to plot and which axes: time and cost to target when any configuration reached it
    with a price, else steady s/epoch and USD/epoch. Adds ``on_front``. Only configurations that learn: a cost of
    training that learns nothing is on no front."""
    if "not_learning" in g:
        g = g[~g["not_learning"].map(bool).astype(bool)]
    to_target = g[finite(g["usd_to_target"]) & finite(g["time_to_target_s"])]
    if not to_target.empty:
        t, c = "time_to_target_s", "usd_to_target"
        pts = to_target
    else:
        t, c = "epoch_s_median", "usd_per_epoch"
        pts = g[finite(g["usd_per_epoch"]) & finite(g["epoch_s_median"])]
    pts = pts.copy()
    pts["on_front"] = pareto_front(list(pts[t]), list(pts[c]))
    return pts, t, c


def single_price(g: pd.DataFrame) -> float | None:
    """The one hourly price (USD/h) all of ``g``'s ok configurations ran at, None when there are several, none, or
    some ran without a price: with one price for all, cost is time rescaled and a cost figure would repeat the time
    figure."""
    ok = g[g["status"] == "ok"] if len(g) else g
    prices = set(ok["usd_per_hour"]) if len(ok) else set()
    if any(not math.isfinite(p) for p in prices):
        return None
    return float(next(iter(prices))) if len(prices) == 1 else None


def _has_token(word: str, text: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(word.lower())}(?![a-z0-9])", text.lower()) is not None


def units(kind: str, accelerator: str, num_replicas: float, cpu_count: float) -> float:
    """How many of an entry's units a configuration pays for: TPU chips (replicas are cores: two per chip on
    v2/v3), GPUs (one per replica), or the machine's vCPUs for a CPU point (the whole machine is rented)."""
    if kind == "cpu":
        return cpu_count
    if kind == "tpu":
        chip = chip_of("tpu", accelerator)
        return num_replicas / (chip.devices_per_chip if chip is not None else 1)
    return num_replicas


def match_price(table: Mapping[str, Price], device_kind: str | None, accelerator: str | None,
                num_replicas: Any, cpu_count: Any, platform: str = "") -> Priced:
    """The price of one configuration's device (see the module docstring)."""
    kind = device_kind if isinstance(device_kind, str) else ""  # NaN: a skipped point never saw its device
    acc = accelerator if isinstance(accelerator, str) else ""
    n_rep = as_float(num_replicas)
    n_rep = n_rep if math.isfinite(n_rep) else 1.0  # a record without it ran one replica
    vcpus = as_float(cpu_count)
    if platform:
        tier = table.get(platform)
        if tier is not None and tier.usd_per_hour is not None:
            return Priced(FREE_TIER if tier.usd_per_hour == 0 else PLATFORM, tier.usd_per_hour, tier.key)
    entry = next((p for p in table.values() if p.kind == kind and (kind == "cpu" or any(
        _has_token(m, acc) for m in p.match))), None)
    what = acc or kind  # "": a skipped point never saw its device (render words it)
    if entry is None:
        return Priced(NO_ENTRY, math.nan, None, what=what)
    n = units(kind, acc, n_rep, vcpus)
    if not (n > 0):
        return Priced(NO_UNITS, math.nan, entry.key, what=what)
    if entry.usd_per_hour is None:  # why: the Prices used table
        return Priced(NO_PRICE, math.nan, entry.key, n, entry.unit, what)
    return Priced(PRICED, entry.usd_per_hour * n, entry.key, n, entry.unit, what)


def platform_of(env_var_names: Iterable[str], table: Mapping[str, Price]) -> str:
    """The free tier a record was made on (its environment has the tier's variable), "" for none."""
    names = set(env_var_names)
    return next((p.key for p in table.values() if p.kind == "free" and p.env_var and p.env_var in names), "")


def price_key(kind: str, model: str) -> str:
    """The key of a chip's entry in suites/prices/cloud.yaml: ``kind-model``, lower case, spaces as dashes
    (``tpu-v5e``, ``gpu-h100-pcie``); every chip of :data:`bench.measure.datasheets.CHIPS` has one, priced or null
    with the reason, so ``price.KEY=USD`` works for each."""
    return f"{kind}-{model.lower().replace(' ', '-')}"


# (name: the model, which render words as the device, device kind, model in the datasheet table, price key in
# suites/prices/cloud.yaml): one chip or GPU each
BOUND_DEVICES = tuple((model, kind, model, price_key(kind, model)) for kind, model in (
    ("tpu", "v4"), ("tpu", "v5e"), ("tpu", "v6e"), ("gpu", "T4"), ("gpu", "L4"), ("gpu", "A100"), ("gpu", "H100"),
    ("gpu", "H200"), ("gpu", "B200")))


def bound_arithmetic(kind: str, model: str, precision: str) -> str | None:
    """The arithmetic whose dense datasheet peak bounds a training run of ``precision`` on one ``model`` chip (None
    when the table has no peak for it): a mixed policy's fp16/bf16; on a TPU bf16 (its matrix units multiply
    float32 in bfloat16 passes); on a GPU, float32 as TensorFloat-32 where the chip has it (TensorFlow's and XLA's
    default for float32 on such GPUs, and PyTorch's for cuDNN convolutions: the fastest float32 arithmetic a run
    could use, so the bound stays a bound), else fp32."""
    tags = ({"mixed_float16": ("fp16",), "mixed_bfloat16": ("bf16",)}.get(precision)
            or (("bf16",) if kind == "tpu" else ("tf32", "fp32")))
    return next((t for t in tags if (kind, model, t) in DATASHEET_PEAK_FLOPS), None)


def bound_devices(ran: Iterable[tuple[str, str]] = ()) -> list[tuple[str, str, str, str, bool]]:
    """:data:`BOUND_DEVICES` (each with False), after any chip in ``ran`` ((device kind, accelerator name) pairs of
    the configurations measured) that it lacks, with True (added because it ran): the device that ran is always in
    its own bound table."""
    out = [(*d, False) for d in BOUND_DEVICES]
    known = {(kind, model) for _, kind, model, _ in BOUND_DEVICES}
    for kind, accelerator in ran:
        chip = chip_of(kind, accelerator) if kind in ("tpu", "gpu") else None
        if chip is not None and (chip.kind, chip.model) not in known:
            known.add((chip.kind, chip.model))
            out.insert(0, (chip.model, chip.kind, chip.model, price_key(chip.kind, chip.model), True))
    return out


def epoch_flops(row: pd.Series) -> float:
    """Training FLOPs of one epoch of a configuration: FLOPs per example x examples trained per epoch."""
    examples = row["steps_per_epoch"] * row["global_batch_size"]
    return float(row["flops_per_example"] * examples)


def lower_bound_s(flops: float, peak: float | None) -> float:
    """Seconds ``flops`` take at ``peak`` FLOP/s (NaN without a peak or a count)."""
    return flops / peak if peak and math.isfinite(flops) and flops > 0 else math.nan
