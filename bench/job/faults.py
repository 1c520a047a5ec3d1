"""Test-only fault injection for workers (``BENCH_FAULT``); never active in normal runs.
``BENCH_FAULT=<kind>:<point_id substring>[,<kind>:<substring> ...]``: the worker misbehaves at a matching point (the
first matching rule wins); ``<kind>@I`` (``kill@1:-p2-``) acts only in process I of a multi-process point. Kinds:
- ``oom``: raise the engine's out-of-memory error;
- ``nan``: multiply the loss by NaN (the point must end ``diverged``);
- ``raise``: raise ``RuntimeError``;
- ``hang``: sleep forever (the launcher's time limit must stop it);
- ``exit``: ``os._exit(3)``;
- ``kill``: SIGKILL its own process;
- ``segv``: SIGSEGV its own process;
- ``stall``: XLA's CPU all-reduce timeout line to the log, then SIGABRT (not in the one-step-in-flight rerun);
- ``unplaced``: leave the distribution out before the point (a JAX multi-device point must fail its placement).
The worker parses the rules once (:meth:`Faults.parse`) and calls three hooks per point: :meth:`Faults.placed`,
:meth:`Faults.before_fit`, :meth:`Faults.loss`. Nothing is patched.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

KINDS = ("oom", "nan", "raise", "hang", "exit", "kill", "segv", "stall", "unplaced")
# what XLA:CPU writes before it aborts on a collective that timed out (the fatal line of a real worker log, 2 devices)
STALL_LINE = ("F0000 00:00:00.000000 1 rendezvous.cc:127] Termination timeout for `all reduce` of 40 seconds exceeded. "
              "Exiting to ensure a consistent program state. Expected 2 threads to join the rendezvous, but only 1 of "
              "them arrived on time.")


@dataclass(frozen=True)
class Faults:
    """Parsed ``BENCH_FAULT`` rules: (kind, point_id substring) pairs, first match wins. Empty: no faults."""

    rules: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str, process_id: int = 0) -> Faults:
        """Rules from the value of ``BENCH_FAULT``: ``"oom:spe1,nan:b64"`` -> ``(("oom", "spe1"), ("nan",
        "b64"))``, keeping only the rules for ``process_id`` (``kill@1:…``: process 1 alone); ValueError on an
        unknown kind or process."""
        rules = []
        for part in filter(None, (p.strip() for p in text.split(","))):
            kind, _, match = part.partition(":")
            kind, at, proc = kind.partition("@")
            if kind not in KINDS:
                raise ValueError(f"BENCH_FAULT kind {kind!r}; allowed: {', '.join(KINDS)}")
            if at and not proc.isdigit():
                raise ValueError(f"BENCH_FAULT process {proc!r} in {part!r}; allowed: a process index, e.g. kill@1:p2")
            if not at or int(proc) == process_id:
                rules.append((kind, match))
        return cls(tuple(rules))

    def kind_for(self, point_id: str) -> str | None:
        """The fault of the first rule whose substring is in ``point_id``, or None."""
        return next((kind for kind, match in self.rules if match in point_id), None)

    def placed(self, point_id: str) -> bool:
        """Hook before a point: False under an ``unplaced`` rule (the worker then leaves the distribution as the
        previous point left it)."""
        return self.kind_for(point_id) != "unplaced"

    def before_fit(self, point_id: str, out_of_memory: Callable[[str], BaseException], in_step: bool = False) -> None:
        """Hook before a point's model is built: raise, hang or crash when a rule says so.

        ``out_of_memory`` makes the engine's own out-of-memory error, so an ``oom`` fault takes the path a
        real one takes; ``in_step``: the point trains with one step in flight (a ``stall`` rule lets it run).
        """
        kind = self.kind_for(point_id)
        if kind == "oom":
            raise out_of_memory("OOM when allocating tensor (injected)")
        if kind == "raise":
            raise RuntimeError("injected failure")
        if kind == "hang":
            while True:
                time.sleep(60)
        if kind == "exit":
            os._exit(3)
        if kind == "stall" and not in_step:
            print(STALL_LINE, file=sys.stderr, flush=True)
            os.abort()
        if kind in ("kill", "segv"):
            os.kill(os.getpid(), signal.SIGKILL if kind == "kill" else signal.SIGSEGV)
            time.sleep(60)  # the signal is delivered asynchronously: never go on with the point

    def loss(self, point_id: str, loss: Callable[..., Any]) -> Callable[..., Any]:
        """Hook around a point's loss: under a ``nan`` rule, the loss times NaN (the first epoch's loss is
        NaN, always); otherwise ``loss`` itself."""
        if self.kind_for(point_id) != "nan":
            return loss

        def nan_loss(y_true: Any, y_pred: Any) -> Any:
            return loss(y_true, y_pred) * float("nan")

        return nan_loss
