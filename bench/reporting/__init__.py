"""The report side: point records -> frames -> analysis -> verdicts -> claims -> markdown, console tables, report.json,
figures.

Runs on any laptop: nothing here imports TensorFlow, Keras, JAX or PyTorch, nor the run side (``bench.runner``,
``bench.engines``); records (:mod:`bench.records`) are its only input. One folder per stage of the data flow, each
importing only the stages below it (``tests/test_import_contract.py`` fails on a violation):

- :mod:`~bench.reporting.stats` (0): numbers in, numbers out (NumPy, SciPy);
- :mod:`~bench.reporting.load` (1): records made inert, the price table: the only modules that read input;
- :mod:`~bench.reporting.frames` (2): records -> per-point, per-epoch and per-configuration frames (keys, labels,
  speedups, targets, learning, peaks);
- :mod:`~bench.reporting.analysis` (3): judgements as data (accuracy, seeds, trade-off, race, cost, compare);
- :mod:`~bench.reporting.verdicts` (4): the one :class:`~bench.reporting.verdicts.Analysis` every output is built from;
- :mod:`~bench.reporting.claims` (5): each workload's conclusions as numbers and codes, computed once;
- :mod:`~bench.reporting.render` (6): words, console tables, report.json, markdown, figures (computes no statistic and
  no ratio);
- :mod:`~bench.reporting.build` (7): the report's pipeline; :mod:`~bench.reporting.commands` (8): the command lines.
"""
