"""Timing shared by the Python benchmarks here (run as scripts: their directory is on sys.path)."""

import time


def median_us(body, iters):
    """The median of `iters` timed calls of body(), in microseconds."""
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        body()
        times.append((time.perf_counter() - t0) * 1e6)
    times.sort()
    return times[len(times) // 2]
