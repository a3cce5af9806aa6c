"""Numba thread-count control, kept in one place so every path applies it the same way."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numba

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
