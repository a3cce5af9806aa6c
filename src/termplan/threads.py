"""Numba thread-count control, kept in one place so every path applies it the same way."""

from __future__ import annotations

import numba


def max_threads() -> int:
    """The size of Numba's pool (``NUMBA_NUM_THREADS`` or the core count)."""
    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def apply_threads(num_threads: int | None) -> None:
    """Mask Numba's pool to ``num_threads`` (``None`` leaves it as it is).

    Raises
    ------
    ValueError
        If ``num_threads`` is not in ``1..max_threads()``.
    """
    if num_threads is None:
        return
    limit = max_threads()
    if not 1 <= num_threads <= limit:
        raise ValueError(
            f"num_threads: expected 1..{limit} (NUMBA_NUM_THREADS), got {num_threads}"
        )
    if numba.get_num_threads() != num_threads:
        numba.set_num_threads(num_threads)
