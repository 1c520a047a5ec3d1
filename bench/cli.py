"""Command line: ``python -m bench suite=NAME key=value …``, ``… report DIR …``, ``… compare A B``, ``… doctor``,
``… export-tfrecord``. Hydra's compose API (not ``@hydra.main``) turns the suite YAML and the overrides into a typed
config; bad input exits 2. Imports no framework. Why compose: DESIGN.md, *Decisions that bind*.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from dataclasses import fields
from pathlib import Path
from typing import cast

from omegaconf import DictConfig, OmegaConf

from bench.config import (
    AXIS_KEYS,
    STRATEGY_HELP,
    ConfigError,
    SuiteConfig,
    as_list_override,
    key_help,
    user_keys,
    validate,
)
from bench.workloads import WORKLOADS

EXIT_BAD_INPUT = 2


NO_SUITE = "_workloads"  # the empty suite of a run given by its workloads alone (not a YAML file)


def suites_dir() -> Path:
    """Suite YAML folder: $BENCH_SUITES_DIR, the installed copy (bench/suites) or the checkout's suites/."""
    env = os.environ.get("BENCH_SUITES_DIR")
    if env:
        return Path(env)
    packaged = Path(__file__).resolve().parent / "suites"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parent.parent / "suites"


def available_suites() -> dict[str, str]:
    """Suite name -> description, from the YAML files."""
    out = {}
    for f in sorted(suites_dir().glob("*.yaml")):
        out[f.stem] = str(cast(DictConfig, OmegaConf.load(f)).get("description", ""))  # a suite is a mapping
    return out


def usage() -> str:
    """The ``--help`` text: commands, suites, keys and examples."""
    suites = available_suites()
    width = max(map(len, suites), default=4)
    lines = [
        "usage: python -m bench suite=NAME [key=value ...]     run a suite, write records and a report",
        "       python -m bench workloads=[NAME,...] [key=value ...]   run workloads with the keys' defaults below",
        "       python -m bench report DIR [DIR ...] [out=PATH] [baseline=cpu]   report from result folders",
        "       python -m bench compare A B [fail_above=1.10]   compare two result folders (exit 1 if slower)",
        "       python -m bench validate [TABLE.csv ...]   the GPU prediction's error, leave-one-device-out",
        "       python -m bench doctor workloads=[NAME,...] [key=value ...]   what would fail on a TPU, checked here",
        "       python -m bench export-tfrecord data=SOURCE out=DIR [shard_mb=64]   a data source as TFRecord shards",
        "",
        f"suites (suite=NAME; YAML files in {suites_dir()}):",
        *(f"  {n:<{width}}  {d}" for n, d in suites.items()),
        "",
        "keys (Hydra-style overrides, e.g. batch_sizes=[32,256] strategies=[cpu,cpu_x2] epochs=3):",
    ]
    for f in fields(SuiteConfig):
        if f.name not in user_keys() or f.name == "description":
            continue
        default = f.default_factory() if callable(f.default_factory) else f.default
        lines.append(f"  {f.name:<22} {key_help(f.name)} (default {default!r})")
    lines += ["", f"workloads: {', '.join(WORKLOADS)}", f"strategies: {STRATEGY_HELP}", "",
              "examples:", "  python -m bench suite=cnn",
              "  python -m bench suite=cnn strategies=[cpu,cpu_x2] batch_sizes=[32,256] "
              "steps_per_execution=[1,16] epochs=3 repeats=2 results_dir=/tmp/r",
              "  python -m bench suite=cnn resume=latest",
              "  python -m bench workloads=[fashion_cnn,examples.digits:make] strategies=[cpu,cpu_x2] epochs=2"]
    return "\n".join(lines)


COMMANDS = ("report", "compare", "validate", "doctor", "export-tfrecord")


def _unknown_key(key: str) -> str:
    """The message for a key bench does not have, with the closest one it does."""
    keys = user_keys()
    close = difflib.get_close_matches(key, [*keys, "suite"], n=1)  # suite=NAME is a key too (Hydra's config group)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"{key}: unknown key{hint}; allowed keys: {', '.join(keys)}, suite"


def _check_words(argv: list[str]) -> None:
    """Every argument is ``key=value`` (or Hydra's ``~key``) with a key bench has: named before Hydra, which
    would otherwise report a typo'd key as a missing suite (``workload=[…]`` without ``suite=``) or a word as
    an unparsable override."""
    for a in argv:
        if "=" not in a and not a.startswith("~"):  # ~key (Hydra's deletion) takes no value
            close = difflib.get_close_matches(a, COMMANDS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise ConfigError(f"{a!r}: not key=value, and not a command{hint}; commands: {', '.join(COMMANDS)}; "
                              "a run takes suite=NAME or workloads=[...] and keys")
        key = re.split(r"[.=\[]", a.lstrip("+~"), maxsplit=1)[0]
        if key != "suite" and key not in user_keys():
            raise ConfigError(_unknown_key(key))


def _format_hydra_error(e: Exception, suites: list[str], argv: list[str]) -> str:
    msg = str(e)
    m = re.search(r"Could not find 'suite/([^']*)'", msg)
    if m:
        return f"suite={m.group(1)!r} is not a suite; allowed: {', '.join(suites)}"
    if "You must specify 'suite'" in msg:
        return (f"suite: missing; allowed: {', '.join(suites)} (e.g. suite=cnn), or name the workloads without a "
                "suite (e.g. workloads=[fashion_cnn])")  # no command here: the run's and the doctor's error both
    m = re.search(r"Could not override '([^']*)'", msg)
    if m and m.group(1).startswith("workload_axes."):
        return (f"{m.group(1)}: not in this suite's workload_axes; add it with Hydra's +: "
                f"+{m.group(1)}=[...] (allowed keys per workload: batch_sizes, steps_per_execution)")
    if m:
        return _unknown_key(m.group(1))
    bad = re.search(r"(no viable alternative|mismatched input|extraneous input|token recognition error)", msg)
    if bad:
        found = re.search(r"input '([^']*)'", msg)
        text = found.group(1) if found else ""
        arg = next((a for a in argv if text and text in a), text or "an override")
        return (f"{arg}: not a value bench can read ({bad.group(1)}); write "
                "key=value, a list as key=[a,b], and quote a value with spaces or brackets in it")
    cause = e.__cause__
    if cause is not None:
        text = str(cause)
        first = text.splitlines()[0].strip()
        key = re.search(r"full_key:\s*(\S+)", text)
        override = re.search(r"override (\S+)", msg)
        where = key.group(1) if key else override.group(1) if override else "override"
        base = re.sub(r"[\[=].*", "", where)
        allowed = f"; allowed: {key_help(base)}" if key_help(base) else ""
        return f"{where}: {first}{allowed}"
    return msg.splitlines()[0]


def parse_config(argv: list[str], batches_fit_data: bool = True) -> SuiteConfig:
    """Compose suite YAML + overrides into a validated SuiteConfig; ConfigError on any bad input (the doctor
    passes ``batches_fit_data=False``: it trains nothing, so a batch larger than the local data is no error)."""
    from hydra import compose, initialize
    from hydra.core.config_store import ConfigStore
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    _check_words(argv)
    argv = [as_list_override(a) for a in argv]
    suites = available_suites()
    cs = ConfigStore.instance()
    cs.store(name="bench", node=SuiteConfig)
    for name in suites:
        node = OmegaConf.load(suites_dir() / f"{name}.yaml")
        node.name = name
        cs.store(group="suite", name=name, node=node, package="_global_")
    # workloads=[…] without suite=: the keys' defaults (SuiteConfig) under an empty suite, named by the workloads
    by_workloads = (not any(a.lstrip("+").startswith("suite=") for a in argv)
                    and any(a.startswith("workloads=") for a in argv))
    if by_workloads:
        cs.store(group="suite", name=NO_SUITE, node={"name": NO_SUITE}, package="_global_")
    GlobalHydra.instance().clear()
    try:
        with initialize(version_base="1.3", config_path=None):
            composed = compose("bench", overrides=[f"suite={NO_SUITE}", *argv] if by_workloads else argv)
        cfg = cast(SuiteConfig, OmegaConf.to_object(composed))  # a structured config: its dataclass
    except (HydraException, OmegaConfBaseException, ValueError) as e:
        raise ConfigError(_format_hydra_error(e, list(suites), argv)) from e
    if by_workloads:
        from bench.workloads import run_name

        cfg.name = run_name(cfg.workloads)  # the run id and the records' suite name what ran
    from bench.runner.inputs import check_inputs

    return check_inputs(validate(_command_line_axes_win(cfg, argv)), batches_fit_data)  # keys, then the data


def _command_line_axes_win(cfg: SuiteConfig, argv: list[str]) -> SuiteConfig:
    """``batch_sizes=[…]``/``steps_per_execution=[…]`` typed on the command line apply to every workload: the
    suite's per-workload entries for that axis are dropped (unless the command line sets them too)."""
    for key in AXIS_KEYS:
        if not any(a.startswith(f"{key}=") for a in argv):
            continue
        for w, axes in cfg.workload_axes.items():
            if not any(a.lstrip("+~").startswith(f"workload_axes.{w}.{key}") for a in argv):
                axes.pop(key, None)
    return cfg


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit status (2 = bad input, 130 = interrupted)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "export-tfrecord":
        from bench.data.export import main as export_main

        return export_main(argv[1:])
    if argv and argv[0] in ("report", "compare", "validate"):
        from bench.reporting.commands import compare_main, report_main, validate_main

        return {"report": report_main, "compare": compare_main, "validate": validate_main}[argv[0]](argv[1:])
    if argv and argv[0] == "doctor":
        try:
            cfg = parse_config(argv[1:], batches_fit_data=False)
        except ConfigError as e:
            print(f"bench doctor: error: {e}", file=sys.stderr)
            return EXIT_BAD_INPUT
        from bench.readiness.command import run_doctor

        return run_doctor(cfg)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if argv else EXIT_BAD_INPUT
    try:
        cfg = parse_config(argv)
        from bench.runner.preflight import check_models

        check_models(cfg)  # user workloads' models against their data, in a short child process
    except ConfigError as e:
        print(f"bench: error: {e}", file=sys.stderr)
        print("(python -m bench --help lists suites, keys and allowed values)", file=sys.stderr)
        return EXIT_BAD_INPUT
    from bench.runner.session import run_suite

    return run_suite(cfg)
