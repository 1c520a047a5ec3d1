"""Suite -> ordered points (:class:`bench.job.point.Point`), grouped into worker processes. Pure Python (no
framework). The points of one (backend, strategy, repeat) are one group, one :class:`bench.job.point.WorkerJob`, one
process (the process is the unit that differs between runs), ordered repeat-major; ``steps_per_execution`` is resolved
here where an epoch's steps are known, so a point's id names the spe that runs. Rules: DESIGN.md, *Measurement rules*.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bench.config import USER_PIPELINE, SuiteConfig, axes_for, jit_values, most_repeats, shard_of, splits
from bench.job.point import Point, tuned
from bench.records.backends import declares
from bench.runner.steps import resolved_spe
from bench.workloads import dataset_size, get_workload


def plan(cfg: SuiteConfig, repeats: Sequence[int] | None = None) -> list[Point]:
    """Every point of the suite, in run order: repeat-major (all strategies' repeat 0, then repeat 1, ...), then
    backend and strategy; a request that resolves to a configuration already planned is planned once. ``repeats``:
    only these repeats (a round of ``repeats=auto``); default every repeat the run can have."""
    points: list[Point] = []
    seen: dict[str, int] = {}  # point id -> index in points
    for repeat in (range(most_repeats(cfg)) if repeats is None else repeats):
        for backend, strategy, procs in topologies(cfg):
            for workload in cfg.workloads:
                n_train, n_val = dataset_size(workload, cfg.data_scale, cfg.n_train, cfg.n_val, cfg.data)
                axes = axes_for(cfg, workload)
                pipelines = [USER_PIPELINE] if get_workload(workload, cfg.data).input_fn else cfg.input_pipelines
                for pipeline, batch in ((p, b) for p in pipelines for b in axes["batch_sizes"]):
                    listed = {"global_batch_size" if cfg.batch_scaling == "global" else "per_replica_batch_size": batch}
                    jits = jit_values(cfg, backend, strategy)
                    for requested, jit in ((r, j) for r in axes["steps_per_execution"] for j in jits):
                        spe, asked = resolved_spe(cfg, backend, strategy, n_train, batch, requested,
                                                  axes["steps_per_execution"])
                        for precision in cfg.precisions:
                            seed = cfg.seed + repeat if cfg.repeat_seeds == "distinct" else cfg.seed
                            point = Point(
                                workload=workload, strategy=strategy, steps_per_execution=spe, precision=precision,
                                repeat=repeat, seed=seed, epochs=cfg.epochs, n_train=n_train, n_val=n_val,
                                data_scale=cfg.data_scale, **listed, input_pipeline=pipeline,
                                all_reduce=cfg.all_reduce, tpu=cfg.tpu, backend=backend, data=cfg.data,
                                requested_steps_per_execution=asked, processes=procs, jit_compile=jit)
                            at = seen.get(point.point_id)
                            if at is None:
                                seen[point.point_id] = len(points)
                                points.append(point)
                            elif asked is None:  # the same configuration, asked for as it runs: name that
                                points[at] = point
    return in_shard(points, shard_of(cfg.shard))


def topologies(cfg: SuiteConfig) -> list[tuple[str, str, int]]:
    """(backend, strategy, processes) in run order: every backend and strategy with one process, and with each
    larger count of ``processes`` where it runs (a backend declared ``multi_process``, a strategy that splits into
    that many processes; one process per host, ``process_id``: also ``gpus`` and ``tpu``)."""
    return [(b, s, n) for b in cfg.backends for s in cfg.strategies for n in cfg.processes
            if n == 1 or (declares(b, "multi_process") and splits(s, n, cfg.process_id >= 0))]


def configuration_id(point: Point | str) -> str:
    """A point's id (or the point) without its repeat: what its repeats share."""
    return re.sub(r"-r\d+$", "", point if isinstance(point, str) else point.point_id)


def in_shard(points: list[Point], shard: tuple[int, int] | None) -> list[Point]:
    """Shard I of N: the configurations at positions I-1, I-1+N, ... of the sweep's configuration ids in sorted
    order, with all their repeats (a configuration's repeats stay on one machine, so its interval compares
    processes of one machine). The split depends on the sweep alone, so every machine given the same overrides
    and its own ``shard=I/N`` runs its share, and N shards run every point exactly once."""
    if shard is None:
        return points
    i, n = shard
    ids = sorted({configuration_id(p) for p in points})
    mine = {c for k, c in enumerate(ids) if k % n == i - 1}
    return [p for p in points if configuration_id(p) in mine]


def groups(points: list[Point]) -> dict[tuple[str, str, int, int, bool], list[Point]]:
    """Points by (backend, strategy name, processes, repeat, tuned input pipeline), in first-appearance order: one
    worker process (or one set of cooperating processes) per group, so every repeat runs in processes of its own
    and :func:`plan`'s order interleaves them across strategies. Points whose pipelines tf.data tunes
    (:func:`tuned`) run in workers of their own: a process that autotune slowed (docs/findings.md) never times a
    fixed pipeline, and under JAX only their worker may import TensorFlow."""
    out: dict[tuple[str, str, int, int, bool], list[Point]] = {}
    for p in points:
        out.setdefault((p.backend, p.strategy, p.processes, p.repeat, tuned(p.input_pipeline, p.backend)),
                       []).append(p)
    return out
