"""The run side: a validated suite -> planned points -> worker processes -> one record per point.

:mod:`~bench.runner.session` runs a suite end to end: :mod:`~bench.runner.plan` (points, strategy groups,
worker jobs), :mod:`~bench.runner.rundir` (run ids, manifest, resume bookkeeping),
:mod:`~bench.runner.launcher` (one worker process per group, time limits, crashes as records) with
:mod:`~bench.runner.progress`; inside each worker process, :mod:`~bench.runner.worker` runs the points,
measuring with :mod:`bench.measure` (timing, FLOPs, probes, environment) and, in tests, injecting faults
with :mod:`~bench.runner.faults`. Framework code lives in
:mod:`bench.engines`; only worker processes import it. The run side writes records
(:mod:`bench.records`) and, at the end of a run, asks :mod:`bench.reporting` for the table and report.
"""
