"""The worker side: the code that runs inside a worker process (``python -m bench.worker``) and the preflight's child
(``python -m bench.worker.preflight``), and imports Keras and, through :mod:`bench.engines`, a framework. :mod:`.main`
runs a :class:`bench.job.point.WorkerJob`'s points, :mod:`.fit` one point's fit (with :mod:`.feeds`, :mod:`.devices`,
:mod:`.init_weights`, :mod:`.second_batch`). It never imports the orchestrator (:mod:`bench.runner`): what both
sides share is :mod:`bench.job` (rule: pyproject.toml, import-linter).
"""
