"""What crosses the process boundary, shared by the orchestrator (:mod:`bench.runner`) and the worker
(:mod:`bench.worker`): the job (:mod:`.point`: ``Point``, ``WorkerJob``, sent as one JSON line), the record every
point gets whoever writes it (:mod:`.point_record`: the worker, or the launcher for a worker that died) and the
test-only ``BENCH_FAULT`` rules (:mod:`.faults`). A package of its own, below both sides, because each side must be
able to import it without importing the other; it imports neither, nor a framework (pyproject.toml, import-linter).
"""
