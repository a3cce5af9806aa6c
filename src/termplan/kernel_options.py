"""Numba compilation options shared by every kernel (hand-written and generated).

``fastmath=True`` would include the ``nnan``/``ninf`` flags, under which LLVM may assume no
NaN exists and ``isnan``/comparisons with NaN silently change meaning. We pass an explicit
flag set without them, so NaN behaviour is identical in NumPy and every Numba path.
"""

from __future__ import annotations

from typing import Any

FASTMATH_FLAGS: frozenset[str] = frozenset({"reassoc", "contract", "nsz", "arcp", "afn"})

#: Options for a parallel (``prange``) kernel.
PARALLEL_OPTIONS: dict[str, Any] = {
    "parallel": True,
    "fastmath": set(FASTMATH_FLAGS),
    "cache": True,
    "nogil": True,
    "error_model": "numpy",
}

#: Options for a serial kernel and for inlined per-row helpers.
SERIAL_OPTIONS: dict[str, Any] = {
    "fastmath": set(FASTMATH_FLAGS),
    "cache": True,
    "nogil": True,
    "error_model": "numpy",
}

#: Options for small per-row device helpers that the kernels inline.
INLINE_OPTIONS: dict[str, Any] = {**SERIAL_OPTIONS, "inline": "always"}
