"""Is a point learning? The rules the report judges training by: **not learning** (:func:`learning_verdict`: the loss
fell too little, or accuracy near or below chance; a configuration, when over half its seeds are), and **what
happened**, said with the record's own numbers only where true of it (one class predicted, a saturated start).
Method: docs/reports.md, *What counts as learning*.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from bench.predictions import decode
from bench.records import Record
from bench.reporting.stats.sample import as_float, last_finite

MIN_LOSS_DROP = 0.05  # training loss must fall by >= 5 % from epoch 1 to the last epoch
CHANCE_MARGIN_PP = 2.0  # final val accuracy within 2 percentage points of chance = not learning
SATURATED_FACTOR = 3.0  # epoch 1's mean loss >= 3 x ln(classes): a saturated start (said beside another reason)

# reason codes, each with its numbers (Reason.values)
LOSS_FELL_LITTLE = "loss_fell_little"  # (drop %, epochs, the drop needed %)
LOSS_ROSE = "loss_rose"  # (rise %, epochs, the drop needed %)
BELOW_CHANCE = "below_chance"  # (final val accuracy, pp below chance, chance)
AT_CHANCE = "at_chance"  # (final val accuracy, the margin in pp, chance)
ONE_CLASS = "one_class"  # (the class, validation examples)
SATURATED = "saturated_start"  # (epoch 1's loss, its multiple of ln(classes), classes, ln(classes))
PROBABILITY_CODES = (SATURATED, ONE_CLASS)  # what a loss read from clipped probabilities does


@dataclass(frozen=True)
class Reason:
    """Why a record looks like it does not learn, or what else its numbers show: a code and its numbers."""

    code: str
    values: tuple[float, ...]


@dataclass(frozen=True)
class NotLearning:
    """A configuration's verdict: the reasons of the first of its seeds that does not learn (empty: it learns),
    ``flagged`` of its ``seeds`` seeds flagged. False when it learns."""

    reasons: tuple[Reason, ...] = ()
    flagged: int = 0
    seeds: int = 0
    first_seed: int | None = None

    def __bool__(self) -> bool:
        return bool(self.reasons)

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(r.code for r in self.reasons)


def _loss_reasons(record: Record, min_loss_drop: float) -> list[Reason]:
    epochs = record.epochs
    losses = [as_float(e.loss) for e in epochs]  # finite or absent (a NaN loss makes the record diverged)
    if len(epochs) < 2 or not all(math.isfinite(v) for v in losses) or losses[0] <= 0:
        return []
    drop = (losses[0] - losses[-1]) / losses[0]
    if drop >= min_loss_drop:
        return []
    code = LOSS_FELL_LITTLE if drop >= 0 else LOSS_ROSE
    return [Reason(code, (100 * abs(drop), len(epochs), 100 * min_loss_drop))]


def _accuracy_reasons(record: Record, chance_margin_pp: float) -> list[Reason]:
    chance = as_float(record.dataset.chance_accuracy)  # 1 / classes for records without it (bench.records.upgrade)
    acc = last_finite(e.val_accuracy for e in record.epochs)
    if not (math.isfinite(chance) and math.isfinite(acc)) or acc > chance + chance_margin_pp / 100:
        return []
    if acc < chance - chance_margin_pp / 100:
        return [Reason(BELOW_CHANCE, (acc, 100 * (chance - acc), chance))]
    return [Reason(AT_CHANCE, (acc, chance_margin_pp, chance))]


def _described(record: Record) -> list[Reason]:
    """What the stored predictions and epoch 1's loss show (said only beside a reason that flags the record)."""
    said = []
    predictions = decode(record.val_predictions) if record.val_predictions else None
    if predictions is not None and predictions.n and len(set(predictions.predicted.tolist())) == 1:
        said.append(Reason(ONE_CLASS, (int(predictions.predicted[0]), predictions.n)))
    classes = int(record.dataset.classes or 0)
    first = as_float(record.epochs[0].loss) if record.epochs else math.nan
    if classes >= 2 and math.isfinite(first) and first >= SATURATED_FACTOR * math.log(classes):
        ln = math.log(classes)
        said.append(Reason(SATURATED, (first, first / ln, classes, ln)))
    return said


def learning_reasons(record: Record, min_loss_drop: float = MIN_LOSS_DROP,
                     chance_margin_pp: float = CHANCE_MARGIN_PP) -> tuple[Reason, ...]:
    """Why a record does not learn (empty when it does, or when it cannot be judged): the loss and accuracy reasons
    that flag it (module docstring), then what else its numbers show (one class predicted, a saturated start)."""
    reasons = _loss_reasons(record, min_loss_drop) + _accuracy_reasons(record, chance_margin_pp)
    return tuple(reasons + _described(record)) if reasons else ()


def configuration_not_learning(seeds: Sequence[int], verdicts: Sequence[tuple[Reason, ...]]) -> NotLearning:
    r"""A configuration's verdict from its ok points' seeds and :func:`learning_reasons`: it learns (false) when at
    least half of its seeds learn (a seed's repeats count once: any of them flagged flags the seed); else the reasons
    of the first flagged seed (of every repeat of it, each once), each true of its record (the other seeds' numbers
    differ: every seed's reasons are in the per-point frame)."""
    flagged = {s for s, v in zip(seeds, verdicts, strict=True) if v}
    n = len(set(seeds))
    if not flagged or 2 * len(flagged) <= n:
        return NotLearning(seeds=n)
    first = min(flagged)
    reasons = dict.fromkeys(r for s, v in zip(seeds, verdicts, strict=True) if s == first for r in v)
    return NotLearning(tuple(reasons), len(flagged), n, first)
