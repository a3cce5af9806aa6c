"""Scalar device helpers shared by the hand-written and the generated kernels.

:func:`fast_exp` is ``exp`` without a library call. ``math.exp`` compiles to a call into
libm, and inside a large per-env loop body each call also makes the caller spill its live
floating-point registers. In the G1 walk kernel (three exps per env) the inline form cut the
compute-bound time by about 4-7% (N=8192, one thread). It is a Cody-Waite range reduction,
a degree-12 Taylor polynomial on ``|r| <= ln2/2`` (Estrin form) and an exponent built from
bits (:func:`f64_from_bits`). Its relative error is below 1e-13 (a few float64 ulp for the
kernels' arguments; fast-math may merge the two-part ln2 reduction, so it grows slowly with
``|x|``), far below every parity tolerance (the outputs are float32). Non-finite inputs and
results that would be subnormal or overflow take ``math.exp`` itself, so NaN, inf and 0
behave exactly as before.

:func:`lane_exp` is the same polynomial without any branch or call, for loops that LLVM
should vectorise across envs (a conditional call stops the loop vectoriser). Out of range it
selects instead of calling libm: NaN stays NaN, ``x > EXP_HIGH`` gives inf, ``x < EXP_LOW``
gives 0. Those differ from ``exp`` only for ``-745 < x < -708`` (``exp`` is a float64 subnormal,
below 1e-307) and ``709 < x < 709.8`` (``exp`` is above 8e307): hundreds of orders of
magnitude outside float32, so no float32 output and no tolerance can see it.

:func:`lane_index` turns an env index and a literal row width into an unsigned flat index.
Numba wraps negative signed indices (``i < 0 -> i + len``); for an index LLVM cannot prove
non-negative (one derived from the ``prange`` schedule) that select makes the address
non-affine, and the vectoriser falls back to gathers. With an unsigned index and a literal
width, ``a[lane_index(i, 3, c)]`` on a 1-D view is an affine stride-3 access that LLVM turns
into wide loads and shuffles.

Kernels inline these (``inline="always"``), so the caller's fast-math flags apply; the flag
set of :mod:`termplan.kernel_options` keeps NaN semantics, which the range check relies on.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any

import numba
import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import intrinsic

from termplan.kernel_options import INLINE_OPTIONS, SERIAL_OPTIONS

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
#: Inputs in (EXP_LOW, EXP_HIGH) take the polynomial; anything else (NaN included) libm.
EXP_LOW = -708.0
EXP_HIGH = 709.0


@intrinsic
def f64_from_bits(typingctx: Any, bits: Any) -> Any:
    """The float64 whose IEEE-754 bit pattern is the int64 ``bits`` (a register bitcast)."""
    if bits not in (types.int64, types.uint64):
        raise TypingError(f"f64_from_bits: expected a 64-bit integer, got {bits}")
    sig = types.float64(bits)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.bitcast(args[0], context.get_value_type(types.float64))

    return sig, codegen


@numba.njit(**INLINE_OPTIONS)
def _exp_in_range(x: float) -> float:
    """The polynomial ``exp`` of both helpers, for ``EXP_LOW <= x <= EXP_HIGH`` only."""
    k = math.floor(x * _LOG2E + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    # Estrin's scheme: the same degree-12 Taylor polynomial with a short dependency chain
    r2 = r * r
    r4 = r2 * r2
    q0 = (1.0 + r) + r2 * (0.5 + r * (1.0 / 6.0))
    q1 = (1.0 / 24.0 + r * (1.0 / 120.0)) + r2 * (1.0 / 720.0 + r * (1.0 / 5040.0))
    q2 = (1.0 / 40320.0 + r * (1.0 / 362880.0)) + r2 * (1.0 / 3628800.0 + r * (1.0 / 39916800.0))
    p = (q0 + r4 * q1) + (r4 * r4) * (q2 + r4 * (1.0 / 479001600.0))
    return p * f64_from_bits((np.int64(k) + 1023) << 52)  # type: ignore[call-arg]


@numba.njit(**INLINE_OPTIONS)
def fast_exp(x: float) -> float:
    """``exp(x)`` to a few float64 ulp, inline (see the module docstring)."""
    if not (x > EXP_LOW and x < EXP_HIGH):
        return math.exp(x)
    return _exp_in_range(x)


@numba.njit(**INLINE_OPTIONS)
def lane_exp(x: float) -> float:
    """``exp(x)`` without branches or calls (vectorisable; see the module docstring)."""
    y = _exp_in_range(min(max(x, EXP_LOW), EXP_HIGH))
    y = 0.0 if x < EXP_LOW else y
    y = math.inf if x > EXP_HIGH else y
    return x if x != x else y


@numba.njit(**INLINE_OPTIONS)
def weigh(value: float, scale: float) -> float:
    """``scale * value``, exactly 0 when ``scale`` is 0 even if ``value`` is NaN or inf.

    A select, not a branch (vectorisable), for weights read at run time: a term switched
    off by a zero weight must contribute 0, as an absent term does (NaN * 0 is NaN).
    """
    return scale * value if scale != 0.0 else 0.0


@numba.njit(**SERIAL_OPTIONS)
def lane_index(i: int, width: int, column: int) -> np.uint64:
    """``width * i + column`` as an unsigned index (see the module docstring).

    Not inlined by Numba (``inline="always"`` copies its IR into every call site at Numba's
    level, and kernels call it hundreds of times: the G1 hand-written kernel compiled in 67
    instead of 52 s); LLVM inlines it all the same, and the kernels run equally fast.
    """
    return np.uint64(i) * np.uint64(width) + np.uint64(column)


#: Hash of the source this process imported (read once, at import: a file edited later would
#: otherwise name helpers that were never compiled into the kernels).
_DIGEST = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def source_digest() -> str:
    """Hash of this module's source: generated kernels that import from here name it in
    their text, so a change here gives them a new cache key (Numba's cache would not see it).
    """
    return _DIGEST
