"""The run side: a validated suite -> planned points -> worker processes -> one record per point. :mod:`.session` runs
a suite end to end (:mod:`.plan`, :mod:`.rundir`, :mod:`.launcher`, :mod:`.progress`); in each worker process
:mod:`.worker` runs the points, measuring with :mod:`bench.measure`. Only worker processes import a framework
(:mod:`bench.engines`). The data flow, step by step: DESIGN.md, *Data flow*.
"""
