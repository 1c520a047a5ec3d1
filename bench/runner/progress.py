"""Live progress on a terminal: points done / total, current point, epoch, elapsed, ETA (on stderr)."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field


@dataclass
class Progress:
    """Live progress on a terminal: points done / total, current point, epoch, elapsed, ETA."""

    total: int
    enabled: bool
    done: int = 0
    current: str = ""
    epoch: str = ""
    started: float = field(default_factory=time.monotonic)
    point_times: list[float] = field(default_factory=list)
    _width: int = 0

    def line(self) -> str:
        """The one status line, e.g. ``[3/10] fashion_cnn-cpu-b32-spe8-fp32-r0 epoch 2/3 | elapsed 0:41 | ETA 1:30``."""
        elapsed = time.monotonic() - self.started
        remaining = self.total - self.done
        if self.point_times:
            eta = f"{_clock(sum(self.point_times) / len(self.point_times) * remaining)}"
        else:
            eta = "?"
        return (f"[{self.done}/{self.total}] {self.current} {self.epoch} | elapsed {_clock(elapsed)} "
                f"| ETA {eta}").rstrip()

    def show(self) -> None:
        """Redraw the line in place (only when enabled)."""
        if not self.enabled:
            return
        text = self.line()
        pad = max(0, self._width - len(text))
        self._width = len(text)
        sys.stderr.write("\r" + text + " " * pad)
        sys.stderr.flush()

    def close(self) -> None:
        """End the line (only when something was drawn)."""
        if self.enabled and self._width:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
