"""The lane loop of the hand-written G1 walk kernel: the 22 weighted reward terms and the
reward of a tile's envs, in the fixed slot order of ``config.TERM_ORDER``.

Branch-free, so that LLVM vectorises it across envs. Its per-env inputs are read from 1-D
views with unsigned indices and literal row widths (``intrinsics.lane_index``, through
:mod:`termplan.tasks.g1_walk.handwritten_layout`); with 2-D indexing the row stride is a
runtime value and the loop stays scalar. On logging steps it also sums the 22 weighted terms
in registers (a 22-tuple carried through the loop), added to the thread's log row once per
tile. Figures in :mod:`termplan.tasks.g1_walk.handwritten_kernel`.

A term whose scale is 0 contributes exactly 0 (a select, not a multiply), so a NaN in an
input of an inactive term cannot poison the reward: the NumPy path skips such terms and
both must agree.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from termplan.intrinsics import lane_exp, weigh
from termplan.kernel_options import INLINE_OPTIONS
from termplan.tasks.g1_walk.handwritten_layout import NUM_TERMS, at, cell

_ZEROS = (0.0,) * NUM_TERMS
_TWO_PI = 2.0 * math.pi


@numba.njit(**INLINE_OPTIONS)
def _max_nan(a, b):  # type: ignore[no-untyped-def]
    """``max`` that returns NaN if either side is NaN (as ``np.maximum``)."""
    return a if (a != a or a > b) else b


@numba.njit(**INLINE_OPTIONS)
def _min_nan(a, b):  # type: ignore[no-untyped-def]
    """``min`` that returns NaN if either side is NaN (as ``np.minimum``)."""
    return a if (a != a or a < b) else b


@numba.njit(**INLINE_OPTIONS)
def _weigh(scale, k, value):  # type: ignore[no-untyped-def]
    """``scale[k] * value``, exactly 0 when the scale is 0 (:func:`~termplan.intrinsics.weigh`)."""
    return weigh(value, scale[k])


@numba.njit(**INLINE_OPTIONS)
def fmod_two_pi(y):  # type: ignore[no-untyped-def]
    """``np.fmod(y, 2*pi)`` without a branch or call, bit for bit for ``0 <= y < 4*pi``.

    In that range the remainder is ``y`` or ``y - 2*pi``, and the subtraction is exact
    (Sterbenz: ``2*pi <= y <= 2 * (2*pi)``), so it equals the exact ``fmod``. Elsewhere
    (larger or negative phases) it is ``y - 2*pi * trunc(y / (2*pi))``, within a few ulp of
    ``|y|`` of it; NaN and inf give NaN as ``fmod`` does.
    """
    near = y - _TWO_PI if y >= _TWO_PI else y
    far = y - _TWO_PI * np.trunc(y * (1.0 / _TWO_PI))
    return near if (y >= 0.0 and y < 2.0 * _TWO_PI) else far


@numba.njit(**INLINE_OPTIONS)
def _swing_height(phase, swing):  # type: ignore[no-untyped-def]
    """Cubic Bezier foot height ``bez(phase, H)``: up in the first half-cycle, down after."""
    x = (fmod_two_pi(phase + math.pi) - math.pi + math.pi) / _TWO_PI
    down = x > 0.5
    t = 2.0 * x - 1.0 if down else 2.0 * x
    s = t * (t * (3.0 - 2.0 * t))
    return swing * (1.0 - s) if down else swing * s


@numba.njit(**INLINE_OPTIONS)
def _base_terms(lv, gy, gr, cm, base_height, scale, sigma, height_target, i):  # type: ignore[no-untyped-def]
    """Slots 0-8, 11 and 21: velocity tracking, body motion, orientation, height, alive."""
    vx, vy, vz = at(lv, i, 3, 0), at(lv, i, 3, 1), at(lv, i, 3, 2)
    wx, wy, wz = at(gy, i, 3, 0), at(gy, i, 3, 1), at(gy, i, 3, 2)
    cx, cy, cz = at(cm, i, 3, 0), at(cm, i, 3, 1), at(cm, i, 3, 2)
    ex, ey, ez = cx - vx, cy - vy, cz - wz
    forward = _max_nan(vx, 0.0)
    command = _max_nan(cx, 1e-6)
    gx, gyy = at(gr, i, 3, 0), at(gr, i, 3, 1)
    tilt = gx * gx + gyy * gyy
    spin = wx * wx + wy * wy
    dh = float(base_height[np.uint64(i)]) - height_target
    return (
        _weigh(scale, 0, lane_exp(-((ex * ex + ey * ey) / sigma))),
        _weigh(scale, 1, lane_exp(-((ez * ez) / sigma))),
        _weigh(scale, 2, _min_nan(forward / command, 1.0)),
        _weigh(scale, 3, _max_nan(cx - forward, 0.0) / command),
        _weigh(scale, 4, vz * vz),
        _weigh(scale, 5, tilt),
        _weigh(scale, 6, tilt),
        _weigh(scale, 7, spin),
        _weigh(scale, 8, spin),
        _weigh(scale, 11, dh * dh),
        _weigh(scale, 21, 1.0),
    )


@numba.njit(**INLINE_OPTIONS)
def _joint_terms(scale, cells, tid, lane):  # type: ignore[no-untyped-def]
    """Slots 9, 10, 12, 13: action rate (twice), pose, upper-body pose (row-loop sums)."""
    pose = cells[cell(tid, 0, lane)]
    upper = cells[cell(tid, 1, lane)]
    rate = cells[cell(tid, 2, lane)]
    return (
        _weigh(scale, 9, rate),
        _weigh(scale, 10, rate),
        _weigh(scale, 12, pose),
        _weigh(scale, 13, upper),
    )


@numba.njit(**INLINE_OPTIONS)
def _feet_pose_terms(lp, rp, lq, rq, close_threshold, scale, i):  # type: ignore[no-untyped-def]
    """Slots 14-15: feet too close in xy, feet not flat."""
    dx = at(lp, i, 3, 0) - at(rp, i, 3, 0)
    dy = at(lp, i, 3, 1) - at(rp, i, 3, 1)
    d = math.sqrt(dx * dx + dy * dy)
    close = (d - close_threshold) * (d - close_threshold) if d < close_threshold else 0.0
    l1, l2 = at(lq, i, 4, 1), at(lq, i, 4, 2)
    r1, r2 = at(rq, i, 4, 1), at(rq, i, 4, 2)
    return (
        _weigh(scale, 14, close),
        _weigh(scale, 15, l1 * l1 + l2 * l2 + r1 * r1 + r2 * r2),
    )


@numba.njit(**INLINE_OPTIONS)
def _gait_terms(  # type: ignore[no-untyped-def]
    lv, cm, gp, lp, rp, left_contact, right_contact, air, swing, phase_sigma, min_fwd, scale, i
):
    """Slots 16-20: swing-height tracking, contrast, contact timing, double stance, air time."""
    hl = _swing_height(at(gp, i, 2, 0), swing)
    hr = _swing_height(at(gp, i, 2, 1), swing)
    gate = 1.0 if _max_nan(at(lv, i, 3, 0), 0.0) >= min_fwd else 0.0
    zl, zr = at(lp, i, 3, 2), at(rp, i, 3, 2)
    el, er = zl - hl, zr - hr
    c = (zl - zr) - (hl - hr)
    half = 0.5 * swing
    ui = np.uint64(i)
    lc, rc = left_contact[ui], right_contact[ui]
    timing = (1.0 if lc == (hl <= half) else 0.0) + (1.0 if rc == (hr <= half) else 0.0)
    moving = _max_nan(at(cm, i, 3, 0), 0.0) > 1e-6
    t0, t1 = at(air, i, 2, 0), at(air, i, 2, 1)
    flight = (1.0 if 0.05 < t0 < 0.5 else 0.0) + (1.0 if 0.05 < t1 < 0.5 else 0.0)
    return (
        _weigh(scale, 16, lane_exp(-((el * el + er * er) / phase_sigma)) * gate),
        _weigh(scale, 17, lane_exp(-((c * c) / phase_sigma)) * gate),
        _weigh(scale, 18, 0.5 * timing * gate),
        _weigh(scale, 19, 1.0 if (lc and rc and moving) else 0.0),
        _weigh(scale, 20, flight),
    )


@numba.njit(**INLINE_OPTIONS)
def _weighted_terms(  # type: ignore[no-untyped-def]
    lv, gy, gr, cm, gp, lp, rp, lq, rq, air, base_height, left_contact, right_contact, scale,
    sigma, height_target, swing, phase_sigma, min_fwd, close_threshold, cells, tid, lane, i,
):  # fmt: skip
    """The 22 weighted reward terms of env ``i``, in slot order."""
    b = _base_terms(lv, gy, gr, cm, base_height, scale, sigma, height_target, i)
    j = _joint_terms(scale, cells, tid, lane)
    f = _feet_pose_terms(lp, rp, lq, rq, close_threshold, scale, i)
    g = _gait_terms(
        lv, cm, gp, lp, rp, left_contact, right_contact, air, swing, phase_sigma, min_fwd, scale, i
    )
    return (
        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], j[0], j[1],
        b[9], j[2], j[3], f[0], f[1], g[0], g[1], g[2], g[3], g[4], b[10],
    )  # fmt: skip


@numba.njit(**INLINE_OPTIONS)
def _total(w):  # type: ignore[no-untyped-def]
    """Sum of the 22 weighted terms, in slot order (literal indices keep the tuple in
    registers; a loop over it would index it through memory and the lane loop ran scalar)."""
    return (
        w[0] + w[1] + w[2] + w[3] + w[4] + w[5] + w[6] + w[7] + w[8] + w[9] + w[10] + w[11]
        + w[12] + w[13] + w[14] + w[15] + w[16] + w[17] + w[18] + w[19] + w[20] + w[21]
    )  # fmt: skip


@numba.njit(**INLINE_OPTIONS)
def _add(a, w):  # type: ignore[no-untyped-def]
    """Element-wise sum of two 22-tuples (the per-term log sums of a lane loop)."""
    return (
        a[0] + w[0], a[1] + w[1], a[2] + w[2], a[3] + w[3], a[4] + w[4], a[5] + w[5],
        a[6] + w[6], a[7] + w[7], a[8] + w[8], a[9] + w[9], a[10] + w[10], a[11] + w[11],
        a[12] + w[12], a[13] + w[13], a[14] + w[14], a[15] + w[15], a[16] + w[16],
        a[17] + w[17], a[18] + w[18], a[19] + w[19], a[20] + w[20], a[21] + w[21],
    )  # fmt: skip


@numba.njit(**INLINE_OPTIONS)
def lanes(  # type: ignore[no-untyped-def]
    lv, gy, gr, cm, gp, lp, rp, lq, rq, air, base_height, left_contact, right_contact, scale,
    ctrl_dt, sigma, height_target, swing, phase_sigma, min_fwd, close_threshold, reward, cells,
    log, tid, lo, count, do_log,
):  # fmt: skip
    """Lane loop: the reward of envs ``lo .. lo + count`` (branch-free, so LLVM vectorises it
    across envs). On logging steps (``do_log``, a literal at each call site) the 22 weighted
    terms are also summed in registers, then added to the thread's log row once per tile."""
    acc = _ZEROS
    for lane in range(count):
        i = lo + lane
        w = _weighted_terms(
            lv, gy, gr, cm, gp, lp, rp, lq, rq, air, base_height, left_contact, right_contact,
            scale, sigma, height_target, swing, phase_sigma, min_fwd, close_threshold, cells,
            tid, lane, i,
        )  # fmt: skip
        reward[np.uint64(i)] = _total(w) * ctrl_dt
        if do_log:
            acc = _add(acc, w)
    if do_log:
        for k in range(NUM_TERMS):
            log[tid, k] += acc[k]
