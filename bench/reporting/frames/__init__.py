"""Stage 2, frames: records -> the per-point, per-epoch and per-configuration frames, and the rules their columns
apply (keys, labels, speedups, targets, learning, peaks). Imports load and stats only; draws and writes nothing.
"""
