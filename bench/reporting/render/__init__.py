"""Stage 6, render: the one :class:`~bench.reporting.verdicts.Analysis` and its frames -> text, JSON and PNG
(:mod:`.text` how every number is written, :mod:`.console`, :mod:`.report_json`, :mod:`.markdown`,
:mod:`.figures`). Computes no statistic.
"""
