"""The matmul peak probe (and, asked, the bandwidth probe) in a process of its own, on the first device of a kind:
``python -m bench.measure.probe_child '{"backend", "device_kind", "precisions", "float32_matmul"}'`` prints one JSON
line ``{"device", "peaks": {precision or "bandwidth": {"flops_per_s" or "bytes_per_s", "probe"}}}``. Started by
:func:`bench.measure.peak_cache.start_peaks` before a worker's framework starts; ``--wait`` reads a line from stdin
before measuring. Method: docs/statistics.md.
"""

from __future__ import annotations

import contextlib
import json
import sys

STRATEGY = {"cpu": "cpu", "gpu": "gpu"}  # the one-device (or first-device) strategy each engine knows by that name


def main(argv: list[str]) -> int:
    args = json.loads(argv[1])
    from bench.engines import load, prepare_process

    prepare_process(args["backend"])
    with contextlib.redirect_stdout(sys.stderr):  # frameworks print; stdout carries the one JSON line
        from bench.measure.peak_cache import BANDWIDTH
        from bench.measure.probes import PEAK_DTYPES, matmul_peak, stream_bandwidth

        engine = load(args["backend"])
        _, info = engine.make_strategy(STRATEGY[args["device_kind"]])
        if info.device_kind == "gpu":  # the worker's float32 arithmetic (bench.config.keys: float32_matmul)
            engine.set_float32_matmul(args.get("float32_matmul", "framework"))
        device = info.devices[0]
        if "--wait" in argv:  # the worker imports its framework meanwhile: measure once it is idle
            sys.stdin.readline()
        peaks = {}
        for p in args["precisions"]:
            if p == BANDWIDTH:
                rate, sized = stream_bandwidth(engine, device)
                peaks[p] = {"bytes_per_s": rate, "probe": sized}
                continue
            flops, sized = matmul_peak(engine, device, PEAK_DTYPES[p])
            peaks[p] = {"flops_per_s": flops, "probe": sized}
    print(json.dumps({"device": device, "peaks": peaks}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
