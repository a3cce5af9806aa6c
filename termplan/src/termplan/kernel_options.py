"""Numba compilation options shared by every kernel (hand-written and generated).

``fastmath=True`` would include the ``nnan``/``ninf`` flags, under which LLVM may assume no
NaN exists and ``isnan``/comparisons with NaN silently change meaning. We pass an explicit
flag set without them, so NaN behaviour is identical in NumPy and every Numba path.
"""

from __future__ import annotations

from typing import Any

import llvmlite.binding as llvm

from termplan import copy_propagation, numba_cache

#: LLVM's loop vectoriser gives up on a loop that needs more than 16 runtime SCEV predicates
#: (no-wrap checks of index expressions). A lane loop that reads a dozen row-major inputs
#: through flat indices (``intrinsics.lane_index``) needs more, and then runs scalar: the G1
#: walk reward lanes took 52 instead of 15 ns per env (N=16384, one thread). The checks run
#: once per loop entry, not per iteration. Set at import of this module, which every kernel
#: module (hand-written and generated) imports before it compiles anything.
SCEV_CHECK_THRESHOLD = 256
#: Numba's cache key does not include LLVM options: generated kernels name them in their text,
#: and this file's bytes are part of every kernel's key in :mod:`termplan.numba_cache`.
LLVM_OPTIONS: tuple[str, ...] = (f"-vectorize-scev-check-threshold={SCEV_CHECK_THRESHOLD}",)
for _option in LLVM_OPTIONS:
    llvm.set_option("termplan", _option)

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

#: Every kernel module imports this module before it defines a kernel: from here on, Numba
#: files termplan's kernels in the content-keyed cache.
numba_cache.register()
#: ... and compiles their parfor passes with the copy propagation that does not deep-copy its
#: sets (the same code; the G1 hand-written kernel compiles in 35 s instead of 82 s).
copy_propagation.install()
