"""Is a point learning? The rules the report judges training by. Never imports TensorFlow.

* **Not learning** (:func:`learning_verdict`, per record): the training loss fell by less than
  :data:`MIN_LOSS_DROP` from epoch 1 to the last epoch (or rose; a NaN loss is a *diverged* record), or the final
  val accuracy is within :data:`CHANCE_MARGIN_PP` percentage points of chance or below it. A wrong loss (seed
  004's softmax with ``from_logits=True``) never learns, whatever its speed. A configuration does not learn when
  more than half of its seeds (training runs) do not (:func:`configuration_not_learning`): the target's rule
  turned around.
* **What happened**, said with the record's own numbers and only when true of it: the loss rose or fell too
  little; accuracy within the margin of chance, or below it; one class predicted for every validation
  example (the stored predictions); a **saturated start** (epoch 1's mean loss at least :data:`SATURATED_FACTOR`
  times an untrained model's ln(classes): probabilities pushed to 0 or 1 from the first steps, where a loss read
  from probabilities has no gradient left under JAX and PyTorch). The last is said only beside a reason that flags
  the record: TensorFlow's seed 000 starts at 4.6 times ln 2 and learns.
"""

from __future__ import annotations

import math

from bench.predictions import decode
from bench.records import Record
from bench.reporting.stats.sample import as_float, last_finite

MIN_LOSS_DROP = 0.05  # training loss must fall by >= 5 % from epoch 1 to the last epoch
CHANCE_MARGIN_PP = 2.0  # final val accuracy within 2 percentage points of chance = not learning
SATURATED_FACTOR = 3.0  # epoch 1's mean loss >= 3 x ln(classes): a saturated start (said beside another reason)


def _loss_reasons(record: Record, min_loss_drop: float) -> list[str]:
    epochs = record.epochs
    losses = [as_float(e.loss) for e in epochs]  # finite or absent (a NaN loss makes the record diverged)
    if len(epochs) < 2 or not all(math.isfinite(v) for v in losses) or losses[0] <= 0:
        return []
    drop = (losses[0] - losses[-1]) / losses[0]
    if drop >= min_loss_drop:
        return []
    moved = f"fell only {100 * drop:.1f}%" if drop >= 0 else f"rose {-100 * drop:.1f}%"
    return [f"training loss {moved} from epoch 1 to {len(epochs)} (needs a {100 * min_loss_drop:.0f}% drop)"]


def _accuracy_reasons(record: Record, chance_margin_pp: float) -> list[str]:
    chance = as_float(record.dataset.chance_accuracy)  # 1 / classes for records without it (bench.records.upgrade)
    acc = last_finite(e.val_accuracy for e in record.epochs)
    if not (math.isfinite(chance) and math.isfinite(acc)) or acc > chance + chance_margin_pp / 100:
        return []
    if acc < chance - chance_margin_pp / 100:
        return [f"val accuracy {acc:.3f} is {100 * (chance - acc):.1f} pp below chance {chance:.3f}"]
    return [f"val accuracy {acc:.3f} within {chance_margin_pp:g} pp of chance {chance:.3f}"]


def _described(record: Record) -> list[str]:
    """What the stored predictions and epoch 1's loss show (said only beside a reason that flags the record)."""
    said = []
    predictions = decode(record.val_predictions) if record.val_predictions else None
    if predictions is not None and predictions.n and len(set(predictions.predicted.tolist())) == 1:
        said.append(f"one class ({int(predictions.predicted[0])}) predicted for all {predictions.n} validation "
                    "examples")
    classes = int(record.dataset.classes or 0)
    first = as_float(record.epochs[0].loss) if record.epochs else math.nan
    if classes >= 2 and math.isfinite(first) and first >= SATURATED_FACTOR * math.log(classes):
        said.append(f"saturated start: epoch 1's loss {first:.2f} is {first / math.log(classes):.1f}x an untrained "
                    f"model's ln({classes}) = {math.log(classes):.2f}")
    return said


def learning_verdict(record: Record, min_loss_drop: float = MIN_LOSS_DROP,
                     chance_margin_pp: float = CHANCE_MARGIN_PP) -> str:
    """Why a record does not learn ("" when it does, or when it cannot be judged): the loss and accuracy reasons
    that flag it (module docstring), then what else its numbers show (one class predicted, a saturated start)."""
    reasons = _loss_reasons(record, min_loss_drop) + _accuracy_reasons(record, chance_margin_pp)
    return "; ".join(reasons + _described(record)) if reasons else ""


def configuration_not_learning(seeds: list[int], verdicts: list[str]) -> str:
    r"""A configuration's not-learning text from its ok points' seeds and :func:`learning_verdict`\ s: "" when at
    least half of its seeds learn (a seed's repeats count once: any of them flagged flags the seed), else the
    reasons; with more than one seed, ``in k/n seeds`` and the reasons of the first of them, each true of its record
    (the other seeds' numbers differ: every seed's reasons are in the per-point frame)."""
    flagged = {s for s, v in zip(seeds, verdicts, strict=True) if v}
    n = len(set(seeds))
    if not flagged or 2 * len(flagged) <= n:
        return ""
    if n == 1:
        return "; ".join(sorted({v for v in verdicts if v}))
    first = min(flagged)
    said = next(v for s, v in zip(seeds, verdicts, strict=True) if s == first and v)
    return f"in {len(flagged)}/{n} seeds; seed {first}: {said}"
