"""``python -m bench.worker``: a worker process, started by the launcher (:mod:`bench.runner.launcher`); the job comes
as one JSON line on stdin (:func:`bench.worker.main.main`)."""

import sys

from bench.worker.main import main

if __name__ == "__main__":
    sys.exit(main())
