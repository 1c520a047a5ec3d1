"""Hourly prices of the devices records ran on, for the report's Cost section: ``suites/prices/cloud.yaml``, replaced
or extended by ``prices=FILE`` or ``price.KEY=USD``. No match is "no price": bench never guesses.
Method: docs/cost.md, *Which price a record gets*.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

KINDS = ("tpu", "gpu", "cpu")


class PriceError(ValueError):
    """A price table or override that cannot be used (names the key and what is allowed)."""


@dataclass(frozen=True)
class Price:
    """One entry of the table: what it prices and where the figure comes from."""

    key: str
    kind: str  # tpu | gpu | cpu, or "free" for a free tier
    unit: str  # chip | GPU | vCPU | runtime
    usd_per_hour: float | None  # per unit; None: no price shipped (see note)
    match: tuple[str, ...] = ()
    basis: str = ""
    host: str = ""  # included | not included ('' unknown: an override): whether the price pays for the machine too
    source: str = ""
    read: str = ""
    note: str = ""
    env_var: str = ""  # free tiers: the notebook's environment variable that identifies it
    quota: str = ""


@dataclass(frozen=True)
class Priced:
    """A configuration's device matched to a price: ``usd_per_hour`` for all its units (NaN: no price), ``basis``
    how (a code: :data:`PRICED`, :data:`FREE_TIER`, :data:`PLATFORM`, :data:`NO_ENTRY`, :data:`NO_UNITS`,
    :data:`NO_PRICE`; render words it), ``what`` the device as the record names it (its accelerator, else its kind)."""

    basis: str
    usd_per_hour: float
    key: str | None
    units: float = math.nan  # how many of the entry's units the configuration holds (NaN: no entry or no count)
    unit: str = ""  # the entry's unit: chip, GPU, vCPU
    what: str = ""


# how a configuration's price was found (Priced.basis)
PRICED, FREE_TIER, PLATFORM = "priced", "free_tier", "platform"  # an entry x units; a free tier; a paid platform
NO_ENTRY, NO_UNITS, NO_PRICE = "no_entry", "no_units", "no_price"  # no entry names it; no unit count; entry is null


def default_table_path() -> Path:
    """The shipped table: the installed copy (bench/suites/prices) or the checkout's suites/prices."""
    here = Path(__file__).resolve().parents[2]  # bench/ (this module is bench/reporting/load/prices.py)
    packaged = here / "suites" / "prices" / "cloud.yaml"
    return packaged if packaged.is_file() else here.parent / "suites" / "prices" / "cloud.yaml"


FIELDS = ("kind", "match", "unit", "usd_per_hour", "basis", "host", "region", "source", "read", "note")
HOSTS = ("included", "not included")
FREE_FIELDS = ("env_var", "usd_per_hour", "quota", "source", "read", "note")


def _entry(key: str, raw: Any, free: bool, where: str) -> Price:
    if not isinstance(raw, Mapping):
        raise PriceError(f"{where}: {key}: expected a mapping with usd_per_hour, source and read")
    allowed = FREE_FIELDS if free else FIELDS
    unknown = sorted(set(map(str, raw)) - set(allowed))
    if unknown:  # a typo (usd_per_hr) would otherwise read as "no price"
        raise PriceError(f"{where}: {key}: unknown field(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}")
    usd = raw.get("usd_per_hour")
    if usd is not None and (not isinstance(usd, (int, float)) or isinstance(usd, bool) or usd < 0):
        raise PriceError(f"{where}: {key}.usd_per_hour: a number >= 0 or null, got {usd!r}")
    host = str(raw.get("host", ""))
    if host and host not in HOSTS:
        raise PriceError(f"{where}: {key}.host: {host!r}; allowed: {', '.join(HOSTS)}")
    kind = "free" if free else str(raw.get("kind", ""))
    if not free and kind not in KINDS:
        raise PriceError(f"{where}: {key}.kind: {kind!r}; allowed: {', '.join(KINDS)}")
    return Price(key=key, kind=kind, unit=str(raw.get("unit", "runtime" if free else "")),
                 usd_per_hour=None if usd is None else float(usd),
                 match=tuple(str(m) for m in raw.get("match") or ()), basis=str(raw.get("basis", "")), host=host,
                 source=str(raw.get("source", "")), read=str(raw.get("read", "")), note=str(raw.get("note", "")),
                 env_var=str(raw.get("env_var", "")), quota=str(raw.get("quota", "")))


def parse_table(data: Any, where: str) -> dict[str, Price]:
    """Entries of a table document (``prices:`` and ``free_tiers:`` mappings), by key, in file order."""
    if not isinstance(data, Mapping):
        raise PriceError(f"{where}: expected a mapping with 'prices' and/or 'free_tiers'")
    unknown = sorted(set(data) - {"currency", "prices", "free_tiers"})
    if unknown:
        raise PriceError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: currency, prices, free_tiers")
    if data.get("currency", "USD") != "USD":
        raise PriceError(f"{where}: currency: {data['currency']!r}; allowed: USD")
    out: dict[str, Price] = {}
    for section, free in (("prices", False), ("free_tiers", True)):
        for key, raw in (data.get(section) or {}).items():
            out[str(key)] = _entry(str(key), raw, free, where)
    return out


def load_table(path: Path | None = None, overrides: Mapping[str, float] | None = None,
               extra: Path | None = None) -> dict[str, Price]:
    """The shipped table (or ``path``), then a user's file ``extra`` (entries replace or add by key), then single
    ``overrides`` (key -> USD per hour; the key must exist). Raises :class:`PriceError` naming the key."""
    path = path or default_table_path()
    table = parse_table(yaml.safe_load(path.read_text(encoding="utf-8")), path.name)
    if extra is not None:
        if not Path(extra).is_file():
            raise PriceError(f"prices={extra}: no such file")
        try:
            doc = yaml.safe_load(Path(extra).read_text(encoding="utf-8"))
        except yaml.YAMLError as e:
            raise PriceError(f"prices={extra}: not YAML ({e})") from None
        table.update(parse_table(doc, f"prices={extra}"))
    for key, usd in (overrides or {}).items():
        if key not in table:
            near = difflib.get_close_matches(key, list(table), n=3, cutoff=0.85)  # tpu-v5 -> v5p, v5e; not v9 -> v4
            said = " or ".join(f"price.{n}" for n in near)
            raise PriceError(f"price.{key}: no such price{f' (did you mean {said}?)' if near else ''}; "
                             f"allowed: {', '.join(table)}")
        if not (isinstance(usd, (int, float)) and math.isfinite(usd) and usd >= 0):
            raise PriceError(f"price.{key}: a number of USD per hour >= 0, got {usd!r}")
        table[key] = replace(table[key], usd_per_hour=float(usd), source="your override", read="", note="", host="",
                             basis="your override (host included or not: not said)")
    return table


def parse_overrides(tokens: list[str]) -> dict[str, float]:
    """``price.KEY=USD`` tokens -> {KEY: USD}; a value that is no number is a :class:`PriceError`."""
    out: dict[str, float] = {}
    for tok in tokens:
        key, _, value = tok.partition("=")
        name = key.removeprefix("price.")
        try:
            out[name] = float(value)
        except ValueError:
            raise PriceError(f"{key}: a number of USD per hour, got {value!r}") from None
    return out
