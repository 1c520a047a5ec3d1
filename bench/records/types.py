"""Numbers a record must hold to mean anything, as pydantic types: a record that breaks them is refused (the loader
skips it, naming the field), so a report never renders a NaN, an infinity or a negative time. The bounds:
docs/records.md, *Records bench did not write*."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

BIG = 1e30  # a loss or a difference of either sign
MAX_SECONDS = 1e9
MAX_RATE = 1e24
MAX_COUNT = 2 ** 53  # exact as a float

Finite = Annotated[float, Field(ge=-BIG, le=BIG, allow_inf_nan=False)]  # any sign (a loss, a warm-up difference)
Seconds = Annotated[float, Field(ge=0, le=MAX_SECONDS, allow_inf_nan=False)]  # a duration (s)
Rate = Annotated[float, Field(ge=0, le=MAX_RATE, allow_inf_nan=False)]  # per second, FLOPs and the like
Fraction = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]  # an accuracy
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]  # steps, examples, bytes, a repeat's index
Positive = Annotated[int, Field(ge=1, le=MAX_COUNT)]  # a batch size, steps_per_execution, an epoch's number
