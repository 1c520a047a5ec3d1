"""Measurement, apart from the run machinery: what a worker measures and how, each with its units.

* :mod:`~bench.measure.timing`: the per-epoch timing callback (``perf_counter``; seconds per epoch, training
  and validation apart, exact steps from the optimizer's iteration count);
* :mod:`~bench.measure.flops`: analytic FLOPs per example (forward, weight and input gradients);
* :mod:`~bench.measure.datasheets`: vendor datasheet peaks by math mode (FLOP/s; no framework: the report's
  lower bounds read them too);
* :mod:`~bench.measure.probes`: the measured matmul peak (FLOP/s, through the engine), the input pipeline's own
  rate (examples/s), peak resident and device memory (bytes);
* :mod:`~bench.measure.predict`: the per-example validation predictions after the fit (for paired tests);
* :mod:`~bench.measure.env`: the host environment recorded with every point, by allowlist.

The run side (:mod:`bench.runner`) calls these; nothing here plans, launches or writes records.
"""
