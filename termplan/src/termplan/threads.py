"""Numba thread counts: the pool mask every path applies the same way, and the calibration
that picks the assembled kernel's thread count per N.

* :func:`check_num_threads`, :func:`apply_threads` and :func:`masked` validate and apply a
  path's ``num_threads``.
* :func:`choose_threads` picks T for N from a :class:`Calibration`: measured by
  :func:`calibrate` (a plan's own kernel: ``runtime.calibrate_plan``), or the documented cost model
  :func:`model_calibration`. Pure: no clock, no Numba.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numba
import numpy as np

from termplan.arrays import is_integer


def max_threads() -> int:
    """The size of Numba's pool (``NUMBA_NUM_THREADS`` or the core count)."""
    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def check_num_threads(num_threads: object) -> int | None:
    """``num_threads`` as given to a path: ``None`` (the path's choice) or an int in
    ``1..max_threads()`` (bools, floats and strings are errors).

    Raises
    ------
    ValueError
        Naming ``num_threads``, the value and the accepted range.
    """
    if num_threads is None:
        return None
    limit = max_threads()
    if not is_integer(num_threads) or not 1 <= num_threads <= limit:
        raise ValueError(
            f"num_threads: expected None or an int in 1..{limit} (NUMBA_NUM_THREADS), "
            f"got {num_threads!r}"
        )
    return int(num_threads)


def apply_threads(num_threads: int | None) -> None:
    """Mask Numba's pool to ``num_threads`` (``None`` leaves it as it is).

    Raises
    ------
    ValueError
        If ``num_threads`` is not ``None`` or an int in ``1..max_threads()``.
    """
    threads = check_num_threads(num_threads)
    if threads is not None and numba.get_num_threads() != threads:
        numba.set_num_threads(threads)


@contextmanager
def masked(num_threads: int | None) -> Iterator[None]:
    """Mask Numba's pool to ``num_threads`` for the ``with`` block, then restore the mask.

    A path's thread count is its own: a kernel run with 1 thread must not leave the next
    path (say one built with ``num_threads=None``) running on 1 thread. ``None`` leaves
    the mask alone. The mask is per calling thread in Numba.
    """
    threads = check_num_threads(num_threads)
    if threads is None:
        yield
        return
    before = numba.get_num_threads()
    if before != threads:
        numba.set_num_threads(threads)
    try:
        yield
    finally:
        if before != threads:
            numba.set_num_threads(before)


# ------------------------------------------------------------------------ calibration


@dataclass(frozen=True)
class Calibration:
    """Seconds per call measured at sizes ``n`` for thread counts ``T`` (T=1: serial kernel).

    ``table`` is ``((n, ((T, seconds), ...)), ...)``, stored with sizes (and each row's T)
    ascending whatever order they are given in: :func:`_estimate` interpolates between
    neighbouring sizes, so an unsorted table would change the chosen T. A size, or a T
    within a size, given twice is an error (which measurement counts would be arbitrary).
    """

    table: tuple[tuple[int, tuple[tuple[int, float], ...]], ...]
    source: str = "measured"

    def __post_init__(self) -> None:
        if not self.table:
            raise ValueError("calibration: expected at least one size, got none")
        rows = sorted(((n, _checked_row(n, row)) for n, row in self.table), key=_first)
        size = _repeated(n for n, _ in rows)
        if size is not None:
            raise ValueError(f"calibration: size {size} given more than once")
        object.__setattr__(self, "table", tuple(rows))  # frozen: the one normalising write

    @classmethod
    def from_mapping(cls, table: Mapping[int, Mapping[int, float]], source: str) -> Calibration:
        """Build from ``{n: {T: seconds}}`` (sorted for a stable value)."""
        rows = tuple(
            (int(n), tuple(sorted((int(t), float(s)) for t, s in row.items())))
            for n, row in sorted(table.items())
        )
        return cls(rows, source)


def _first(pair: tuple[int, Any]) -> int:
    """Sort key of (size, row) and (T, seconds) pairs."""
    return pair[0]


def _repeated(ordered: Iterable[int]) -> int | None:
    """The first value of ascending ``ordered`` that occurs twice, else ``None``."""
    return next((a for a, b in pairwise(ordered) if a == b), None)


def _checked_row(n: int, row: Iterable[tuple[int, float]]) -> tuple[tuple[int, float], ...]:
    """Calibration row ``row`` of size ``n``, validated and sorted by T (each T once)."""
    entries = sorted(row, key=_first)
    if n < 1 or not entries:
        raise ValueError(f"calibration: size {n} needs n >= 1 and at least one entry")
    for t, seconds in entries:
        if t < 1 or not (math.isfinite(seconds) and seconds >= 0):
            raise ValueError(f"calibration: bad entry T={t} seconds={seconds} at n={n}")
    twice = _repeated(t for t, _ in entries)
    if twice is not None:
        raise ValueError(f"calibration: T={twice} given more than once at n={n}")
    return tuple(entries)


def _estimate(n: int, points: Sequence[tuple[int, float]]) -> float:
    """Per-call time at ``n`` from (size, seconds) points: affine interpolation in n."""
    if len(points) == 1:
        size, seconds = points[0]
        return seconds * n / size if n > size else seconds
    below = [p for p in points if p[0] <= n]
    above = [p for p in points if p[0] >= n]
    if below and above:
        (n0, s0), (n1, s1) = below[-1], above[0]
    elif above:  # below the smallest size: extrapolate from the two smallest
        (n0, s0), (n1, s1) = points[0], points[1]
    else:  # above the largest size: extrapolate from the two largest
        (n0, s0), (n1, s1) = points[-2], points[-1]
    if n1 == n0:
        return s0
    return max(0.0, s0 + (s1 - s0) * (n - n0) / (n1 - n0))


def choose_threads(n: int, calibration: Calibration, limit: int | None = None) -> int:
    """The thread count with the lowest estimated time at ``n`` (ties: fewer threads).

    Only thread counts measured at every calibrated size and within ``limit`` compete;
    1 always qualifies if measured. Pure: no clock, no Numba.
    """
    if n < 1:
        raise ValueError(f"n: expected >= 1, got {n}")
    common = set.intersection(*({t for t, _ in row} for _, row in calibration.table))
    candidates = sorted(t for t in common if limit is None or t <= limit)
    if not candidates:
        raise ValueError(f"calibration: no thread count <= {limit} measured at every size")
    best_t, best_s = candidates[0], math.inf
    for t in candidates:
        points = [(size, dict(row)[t]) for size, row in calibration.table]
        seconds = _estimate(n, points)
        if seconds < best_s:
            best_t, best_s = t, seconds
    return best_t


def model_calibration(
    threads: int, sizes: Iterable[int] = (64, 1024, 16384, 262144)
) -> Calibration:
    """A calibration from a cost model, used until :func:`calibrate` measures one.

    ``seconds(n, T) = launch(T) + n * 60 ns / T`` with ``launch(1) = 0`` (serial kernel) and
    ``launch(T) = 1 us + 0.5 us * T``: the per-region cost and per-env cost measured for a
    plan of this size on the development machines (numba-fusion.md sections 2.2 and 2.3).
    """
    table: dict[int, dict[int, float]] = {}
    for n in sizes:
        table[n] = {}
        for t in range(1, threads + 1):
            launch = 0.0 if t == 1 else 1e-6 + 0.5e-6 * t
            table[n][t] = launch + n * 60e-9 / t
    return Calibration.from_mapping(table, "model")


def calibrate(
    run: Callable[[int, int], float],
    sizes: Sequence[int],
    thread_counts: Sequence[int],
) -> Calibration:
    """Measure ``run(n, T)`` (seconds per call, e.g. a median) for every size x thread count."""
    table = {n: {t: float(run(n, t)) for t in thread_counts} for n in sizes}
    return Calibration.from_mapping(table, "measured")


def time_call(fn: Callable[[], Any], repeats: int = 15) -> float:
    """Median seconds of ``repeats`` calls of ``fn`` after one warm-up call."""
    fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return float(np.median(samples))
