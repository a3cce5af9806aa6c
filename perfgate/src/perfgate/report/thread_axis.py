"""The thread-count axis the report's scaling charts share (pure): their size and the x of a
thread count, log2 of it between the chart's fewest and most threads, so that 8, 32 and 64
threads sit where the wall clock's time chart and the simulated E(T) chart both put them."""

from __future__ import annotations

import math

#: width, height and margin of a thread-scaling chart (SVG units)
WIDTH, HEIGHT, PAD = 260.0, 140.0, 24.0


def thread_x(threads: int, lo: float, hi: float) -> float:
    """x of ``threads`` on the log2 axis from ``lo`` to ``hi`` (log2 of the chart's fewest
    and most threads; one thread count alone sits at the left margin)."""
    return PAD + (math.log2(threads) - lo) / ((hi - lo) or 1.0) * (WIDTH - 2 * PAD)
