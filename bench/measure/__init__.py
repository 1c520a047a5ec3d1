"""Measurement, apart from the run machinery: what a worker measures and how, each with its units. :mod:`.timing`
(the epoch callback), :mod:`.flops` and :mod:`.traffic` (analytic counts), :mod:`.datasheets` (vendor peaks),
:mod:`.probes` (matmul peak, bandwidth, input rate, memory), :mod:`.predict`, :mod:`.env`. The run side calls them;
nothing here plans, launches or writes records. Method: docs/statistics.md.
"""
