"""Where the hand-written G1 walk kernel keeps things: tiles, per-thread scratch, and the
1-D views its loops index every per-env array through.

The kernel (:mod:`termplan.tasks.g1_walk.handwritten_kernel`) runs over tiles of
:data:`TILE` envs. Its row loop leaves three sums per env in the thread's tile scratch
(:data:`SCRATCH_ROWS` rows, indexed by :func:`cell`), which its lane loop
(:mod:`termplan.tasks.g1_walk.handwritten_reward`) reads; both read and write through 1-D
views with literal row widths (:func:`el`, :func:`at`, :func:`put`), so LLVM sees constant
strides. The per-thread log sums go to a padded scratch of :data:`LOG_STRIDE` doubles a row.
"""

from __future__ import annotations

import numba
import numpy as np

from termplan.intrinsics import lane_index
from termplan.kernel_options import INLINE_OPTIONS

#: Doubles per thread row of the log scratch: 22 slots padded to a multiple of 16 (128 B),
#: so two threads never write the same cache line.
LOG_STRIDE = 32
#: Envs per tile (the lane loop's trip count). Of 128, 256 and 512, measured side by side in one
#: process (G1, N=65536, two threads), 512 was fastest for both G1 kernels: ~7% below 128.
TILE = 512
#: Rows of a thread's tile scratch: the pose, upper-body pose and action-rate sums the row loop
#: hands to the lane loop.
SCRATCH_ROWS = 3
#: Slots of the reward term list (``config.TERM_ORDER``).
NUM_TERMS = 22


@numba.njit(**INLINE_OPTIONS)
def el(a, i, width, column):  # type: ignore[no-untyped-def]
    """``a[i, column]`` of a row-major (n, width) array, read through its 1-D view ``a``."""
    return a[lane_index(i, width, column)]


@numba.njit(**INLINE_OPTIONS)
def put(a, i, width, column, value):  # type: ignore[no-untyped-def]
    """``a[i, column] = value`` for a row-major (n, width) array, through its 1-D view ``a``."""
    a[lane_index(i, width, column)] = value


@numba.njit(**INLINE_OPTIONS)
def at(a, i, width, column):  # type: ignore[no-untyped-def]
    """:func:`el` as float64."""
    return float(el(a, i, width, column))


@numba.njit(**INLINE_OPTIONS)
def cell(tid, row, lane):  # type: ignore[no-untyped-def]
    """Index of ``tile_scratch[tid, row, lane]`` in its flat view: literal strides, unsigned.

    With literal strides every scratch row is a constant offset from one base, so LLVM's
    runtime overlap checks treat them as one group.
    """
    return np.uint64(tid) * np.uint64(SCRATCH_ROWS * TILE) + np.uint64(row * TILE + lane)
