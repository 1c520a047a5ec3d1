"""Target validation accuracies: which one a point of a workload must reach, and where it comes from."""

from __future__ import annotations

from bench.data import sources
from bench.workloads.base import Workload

# How the built-ins' targets were set (the seeds state accuracies for the real data sets only, which bench's
# embedded data is not): reference runs on this project's 2-core CPU box on 2026-11-23 (bench at cfb1f25) of the
# default suites at the reduced sizes (cnn: 3 epochs, text: 4, plant: 10), every configuration of cpu and cpu_x2,
# one process each. Target = the lowest final val accuracy p among the configurations that learn, minus one 95 %
# sampling error of the validation set, 1.96 * sqrt(p (1 - p) / n_val), rounded down to 0.05, so a configuration
# as good as the reference reaches it despite the noise of a small validation set:
#   fashion_cnn  p 0.887 (b128), n_val 1024: 0.868 -> 0.85   catsdogs_cnn  p 0.766 (b32), n_val 256: 0.714 -> 0.70
#   reuters_textcnn p 0.456 (b128), 1024: 0.426 -> 0.40      plant_cnn     p 0.898 (b16), n_val 128: 0.846 -> 0.80
# The broken-loss and layer-augmentation variants share their model's target; plant_transfer has none (without
# ImageNet weights in the Keras cache its accuracy means nothing). DESIGN.md, "Targets".
TARGET_SOURCE = "bench reference runs, 2026-11-23 (DESIGN.md, Targets)"


def target_for(workload: Workload, data: str, data_scale: str, n_train: int, n_val: int) -> tuple[float, str] | None:
    """(target validation accuracy, where it comes from) for a point of ``workload``, or None: a user workload's
    own ``target_accuracy``; a built-in's only on its embedded data at a scale it has a target for, with that
    scale's sizes (``n_train``/``n_val`` changed: another data set, no target)."""
    target = workload.target_accuracy
    if target is None:
        return None
    if not isinstance(target, dict):
        return float(target), "workload"
    if data != sources.SYNTHETIC or data_scale not in target:
        return None
    sizes = workload.full if data_scale == "full" else workload.reduced
    return (float(target[data_scale]), TARGET_SOURCE) if (n_train, n_val) == tuple(sizes) else None
