"""The report's figures (seaborn, PNG, Agg backend, no pyplot state): :mod:`.drawer` draws them as tasks in worker
processes, :mod:`.curves` / :mod:`.comparisons` / :mod:`.costs` build them, :mod:`.layout` is what every figure
shares, :mod:`.files` saves one figure to a file (notebooks, tests).
"""

import matplotlib

matplotlib.use("Agg")  # before any figure module imports seaborn or touches a backend: reports run headless
