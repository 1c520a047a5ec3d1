"""What a built-in workload's records trained, by ``workload_revision``: part of the record contract, so a report can
say which definition a record trained. Pure data, no imports: the registry takes each revision from :data:`CURRENT`,
the report reads :func:`earlier_definition`. The revisions: docs/workloads.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

LOGITS_SINCE = 2
CURRENT: dict[str, int] = {name: LOGITS_SINCE for name in (  # built-ins whose definition changed: today's revision
    "fashion_cnn", "reuters_textcnn", "plant_cnn", "plant_cnn_layer_aug", "plant_transfer")} | {"catsdogs_cnn": 3}


@dataclass(frozen=True)
class Earlier:
    """An earlier definition of a built-in: what its records of that revision trained."""

    output: str  # what differed, short (a report's workload label: ``catsdogs_cnn/sigmoid output …``)
    literal: str = ""  # today's variant that trains it, when there is one
    change: str = ""  # what differed from today's, in words, where it is not the output and loss (revision 1's)
    changes: tuple[str, ...] = ()  # every change from its revision to today's, oldest first (:data:`CHANGES`)

    @property
    def label(self) -> str:
        """What a report appends to the workload's name: ``sigmoid output, earlier definition``."""
        return f"{self.output}, earlier definition"


_PROBABILITIES = {"fashion_cnn": ("softmax output", "fashion_cnn_softmax"),
                  "catsdogs_cnn": ("sigmoid output", "catsdogs_cnn_sigmoid"), "reuters_textcnn": ("softmax output", ""),
                  "plant_cnn": ("softmax output", ""), "plant_cnn_layer_aug": ("softmax output", ""),
                  "plant_transfer": ("softmax output", "")}
EARLIER: dict[tuple[str, int], Earlier] = {  # (built-in, revision) -> what that revision trained
    (name, 1): Earlier(output, literal) for name, (output, literal) in _PROBABILITIES.items()} | {
    ("catsdogs_cnn", 2): Earlier("128 x 128 inputs", change="128 x 128 inputs and, at the reduced scale, 256 "
                                 "training images, where today's trains 64 x 64 (the same images at half resolution) "
                                 "and 512")}


# What each revision changed from the one before it: the report lists every change since a record's revision
_OUTPUT = "logits out, read with from_logits=True (probabilities before)"
CHANGES: dict[tuple[str, int], tuple[str, ...]] = {(name, LOGITS_SINCE): (_OUTPUT,) for name in _PROBABILITIES} | {
    ("catsdogs_cnn", 3): ("64 x 64 inputs, the same images at half resolution (128 x 128 before)",
                          "512 training images at the reduced scale (256 before)",
                          "target 0.85 at the reduced scale (0.70 before)")}


def changes_since(workload: str, revision: int) -> tuple[str, ...]:
    """Every change to built-in ``workload`` after ``revision`` up to today's, oldest first."""
    return tuple(c for r in range(revision + 1, CURRENT.get(workload, revision) + 1)
                 for c in CHANGES.get((workload, r), ()))


def earlier_definition(workload: str, revision: int | None, source: str | None = None) -> Earlier | None:
    """What a record of ``workload`` at ``revision`` (None: written before records carried it, revision 1) trained
    when that is not today's definition of the built-in; None for today's, for a built-in that never changed, and
    for a user's workload (``source``)."""
    if source or workload not in CURRENT or (revision or 1) == CURRENT[workload]:
        return None
    found = EARLIER.get((workload, revision or 1))
    return None if found is None else replace(found, changes=changes_since(workload, revision or 1))
