"""The orchestrator: what runs in bench's own process and never imports a framework. A validated suite -> planned
points -> worker processes -> one record per point: :mod:`.session` runs a suite end to end (:mod:`.inputs`,
:mod:`.preflight`'s parent side, :mod:`.plan`, :mod:`.rundir`, :mod:`.unsupported`, :mod:`.launcher` or
:mod:`.dask_launcher` with :mod:`.processes`, :mod:`.racing`, :mod:`.progress`). The code inside a worker process is
:mod:`bench.worker`, started as ``python -m bench.worker``, never imported here; the job and record both sides share
is :mod:`bench.job` (rule: pyproject.toml, import-linter). The data flow: DESIGN.md, *Data flow*.
"""
