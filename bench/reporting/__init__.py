"""The report side: point records -> tidy frames -> verdicts -> markdown, console tables, figures, compare.

Runs on any laptop: nothing here imports TensorFlow, Keras or JAX, nor the run side (``bench.runner``,
``bench.engines``); records (:mod:`bench.records`) are its only input. ``tests/test_import_contract.py``
fails on a violation.

Data flow: :mod:`~bench.reporting.frame` (records -> one row per point, then per configuration, with
speedups from :mod:`~bench.reporting.speedups`) -> :mod:`~bench.reporting.verdicts` (learning, parity,
best, winner, break-even) -> :mod:`~bench.reporting.markdown` (with :mod:`~bench.reporting.answer`,
:mod:`~bench.reporting.tables`, :mod:`~bench.reporting.plots`: a package of figure modules) and
:mod:`~bench.reporting.console`; :mod:`~bench.reporting.compare` sets two result folders side by side.
Numbers are written by :mod:`~bench.reporting.format` only.
"""
