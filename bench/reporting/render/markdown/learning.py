"""A workload none of whose configurations learns: why, and what to try, in place of its speed, cost and bounds
(a speedup, cost front or lower bound of training that learns nothing would read as an answer). Never imports
TensorFlow."""

from __future__ import annotations

import pandas as pd

from bench.reporting.frames.learning import AT_CHANCE, BELOW_CHANCE, LOSS_FELL_LITTLE, LOSS_ROSE, PROBABILITY_CODES
from bench.reporting.render.text import config_label
from bench.reporting.render.words import codes_of, not_learning_text

PROBABILITY_LOSS = ("a saturated start and one class predicted are what a loss read from probabilities does under "
                    "Keras' JAX and PyTorch backends, which clip them (TensorFlow computes the same loss from the "
                    "logits behind the output): if the output is a sigmoid or softmax into a cross-entropy, a linear "
                    "output with from_logits=True trains alike on every backend")
ADVICE = (  # (the reason codes, what to try), in this order
    (PROBABILITY_CODES, PROBABILITY_LOSS),
    ((LOSS_ROSE,), "a lower learning rate"),
    ((LOSS_FELL_LITTLE,), "more epochs or examples (epochs, n_train, data_scale=full)"),
    ((AT_CHANCE, BELOW_CHANCE), "check the labels, and that the loss matches the output layer (tutorial 004's softmax "
                                "into from_logits=True never learns)"),
)


def learns_nowhere(g: pd.DataFrame) -> bool:
    """Whether some configuration of workload summary ``g`` finished and none of them learns."""
    ok = g[g["status"] == "ok"]
    return bool(len(ok)) and bool(ok["not_learning"].map(bool).all())


def not_learning_section(g: pd.DataFrame) -> list[str]:
    """The section of a workload where no configuration learns: each configuration's reasons, what to try (from
    :data:`ADVICE`, each said once), and that its speed, cost and bounds are not shown."""
    ok = g[g["status"] == "ok"]
    codes = {c for v in ok["not_learning"] for c in codes_of(v)}
    tries = list(dict.fromkeys(advice for when, advice in ADVICE if codes & set(when)))
    lines = ["### Does not learn", "",
             "No configuration of this workload learns, so its speedups, cost front and lower bounds are not shown: "
             "they would time training that says nothing.", ""]
    lines += [f"- {config_label(r)}: {not_learning_text(r['not_learning'])}" for _, r in ok.iterrows()]
    if tries:
        lines += ["", "What to try: " + "; ".join(tries) + "."]
    return [*lines, ""]
