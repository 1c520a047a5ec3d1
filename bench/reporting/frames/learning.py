"""Is a point learning? The rules the report judges training by. Never imports TensorFlow.

* **Not learning** (:func:`learning_verdict`, per record): the training loss fell by less than
  :data:`MIN_LOSS_DROP` from epoch 1 to the last epoch, or the final val accuracy is within
  :data:`CHANCE_MARGIN_PP` percentage points of chance. A wrong loss (seed 004's softmax with
  ``from_logits=True``) never learns, whatever its speed. A configuration does not learn when more than half of
  its seeds (training runs) do not (:func:`configuration_not_learning`): the target's rule turned around.
"""

from __future__ import annotations

import math

from bench.records import Record
from bench.reporting.stats.sample import as_float, last_finite

MIN_LOSS_DROP = 0.05  # training loss must fall by >= 5 % from epoch 1 to the last epoch
CHANCE_MARGIN_PP = 2.0  # final val accuracy within 2 percentage points of chance = not learning


def learning_verdict(record: Record, min_loss_drop: float = MIN_LOSS_DROP,
                     chance_margin_pp: float = CHANCE_MARGIN_PP) -> str:
    """Why a record does not learn ("" when it does, or when it cannot be judged).

    Not learning = training loss fell by less than ``min_loss_drop`` (a fraction) from epoch 1 to the
    last epoch, or the final val accuracy is within ``chance_margin_pp`` percentage points of chance
    (``dataset.chance_accuracy``, else ``1 / dataset.classes``).
    """
    epochs = record.epochs
    reasons = []
    if len(epochs) >= 2:
        first, last = as_float(epochs[0].loss), as_float(epochs[-1].loss)
        if math.isfinite(first) and math.isfinite(last) and first > 0:
            drop = (first - last) / first
            if drop < min_loss_drop:
                moved = f"fell only {100 * drop:.1f}%" if drop >= 0 else f"rose {-100 * drop:.1f}%"
                reasons.append(f"training loss {moved} from epoch 1 to {len(epochs)} "
                               f"(needs a {100 * min_loss_drop:.0f}% drop)")
    chance = as_float(record.dataset.chance_accuracy)  # 1 / classes for records without it (bench.records.upgrade)
    acc = last_finite(e.val_accuracy for e in epochs)
    if math.isfinite(chance) and math.isfinite(acc) and acc <= chance + chance_margin_pp / 100:
        reasons.append(f"val accuracy {acc:.3f} within {chance_margin_pp:g} pp of chance {chance:.3f}")
    return "; ".join(reasons)


def configuration_not_learning(seeds: list[int], verdicts: list[str]) -> str:
    r"""A configuration's not-learning text from its ok points' seeds and :func:`learning_verdict`\ s: "" when at
    least half of its seeds learn (a seed's repeats count once: any of them flagged flags the seed), else the
    reasons, with ``k/n seeds`` when there was more than one seed."""
    flagged = {s for s, v in zip(seeds, verdicts, strict=True) if v}
    n = len(set(seeds))
    if not flagged or 2 * len(flagged) <= n:
        return ""
    reasons = "; ".join(sorted({v for v in verdicts if v}))
    return reasons if n == 1 else f"{reasons} (in {len(flagged)}/{n} seeds)"
