"""The hand-written G1 walk Numba kernel: one ``prange`` pass does the whole hot slice.

Written the way a task-specific kernel is written by hand (the upstream pre-term-plan
design): a fixed slot order for the 22 reward terms (``config.TERM_ORDER``), every term
computed for every row and multiplied by its scale from a (22,) float64 array, hard-coded
observation offsets, per-thread log sums in a padded scratch indexed by
``numba.get_thread_id()``, and reward, termination and both observation rows written in the
same parallel pass. Scalars are float64; the state arrays are float32.

The pass runs over tiles of :data:`TILE` envs, in two loops per tile:

* a row loop (one env at a time): the 29-joint loop (both observation rows, and the pose and
  action-rate sums, kept in the thread's tile scratch), the small observations, termination;
  it too indexes every array through a 1-D view (~20% less time per call than 2-D indexing);
* a lane loop over the same envs, branch-free, so that LLVM vectorises it across envs: the
  22 weighted reward terms and the reward. Its per-env inputs are read from 1-D views with
  unsigned indices and literal row widths (``intrinsics.lane_index``); with 2-D indexing the
  row stride is a runtime value and the loop stays scalar. Measured (one thread): the reward
  terms went from ~42 ns per env (row by row, N=2048) to ~15 (lanes, N=16384), and the whole
  kernel from ~120 to ~73 ns per env (N=2048). On logging steps it also sums the 22
  weighted terms in registers (a 22-tuple carried through the loop), added to the thread's
  log row once per tile: storing them per env in the tile scratch and summing afterwards
  made a logging call 26% slower than a plain one (now ~10%; N=2048, one thread).

A term whose scale is 0 contributes exactly 0 (a select, not a multiply), so a NaN in an
input of an inactive term cannot poison the reward: the NumPy path skips such terms and
both must agree. Termination is evaluated in float64 with NaN counting as "terminate"
(see :mod:`termplan.tasks.g1_walk`).

The observation offsets below are literals on purpose (that is the hand-written style);
:mod:`termplan.tasks.g1_walk.handwritten` checks at import that they match ``config``'s layout.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import prange

from termplan.intrinsics import lane_exp, lane_index, weigh
from termplan.kernel_options import INLINE_OPTIONS, PARALLEL_OPTIONS

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
_ZEROS = (0.0,) * NUM_TERMS
#: Literal observation offsets used by the kernel (checked against ``config``'s layout at import).
KERNEL_OFFSETS = {
    "gyro": 0,
    "gravity": 3,
    "dof_pos": 6,
    "dof_vel": 35,
    "actions": 64,
    "commands": 93,
    "gait_phase": 96,
    "linvel": 98,
}
_TWO_PI = 2.0 * math.pi


@numba.njit(**INLINE_OPTIONS)
def _el(a, i, width, column):  # type: ignore[no-untyped-def]
    """``a[i, column]`` of a row-major (n, width) array, read through its 1-D view ``a``."""
    return a[lane_index(i, width, column)]


@numba.njit(**INLINE_OPTIONS)
def _put(a, i, width, column, value):  # type: ignore[no-untyped-def]
    """``a[i, column] = value`` for a row-major (n, width) array, through its 1-D view ``a``."""
    a[lane_index(i, width, column)] = value


@numba.njit(**INLINE_OPTIONS)
def _at(a, i, width, column):  # type: ignore[no-untyped-def]
    """:func:`_el` as float64."""
    return float(_el(a, i, width, column))


@numba.njit(**INLINE_OPTIONS)
def _max_nan(a, b):  # type: ignore[no-untyped-def]
    """``max`` that returns NaN if either side is NaN (as ``np.maximum``)."""
    return a if (a != a or a > b) else b


@numba.njit(**INLINE_OPTIONS)
def _min_nan(a, b):  # type: ignore[no-untyped-def]
    """``min`` that returns NaN if either side is NaN (as ``np.minimum``)."""
    return a if (a != a or a < b) else b


@numba.njit(**INLINE_OPTIONS)
def _cell(tid, row, lane):  # type: ignore[no-untyped-def]
    """Index of ``tile_scratch[tid, row, lane]`` in its flat view: literal strides, unsigned.

    With literal strides every scratch row is a constant offset from one base, so LLVM's
    runtime overlap checks treat them as one group.
    """
    return np.uint64(tid) * np.uint64(SCRATCH_ROWS * TILE) + np.uint64(row * TILE + lane)


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
    vx, vy, vz = _at(lv, i, 3, 0), _at(lv, i, 3, 1), _at(lv, i, 3, 2)
    wx, wy, wz = _at(gy, i, 3, 0), _at(gy, i, 3, 1), _at(gy, i, 3, 2)
    cx, cy, cz = _at(cm, i, 3, 0), _at(cm, i, 3, 1), _at(cm, i, 3, 2)
    ex, ey, ez = cx - vx, cy - vy, cz - wz
    forward = _max_nan(vx, 0.0)
    command = _max_nan(cx, 1e-6)
    gx, gyy = _at(gr, i, 3, 0), _at(gr, i, 3, 1)
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
    pose = cells[_cell(tid, 0, lane)]
    upper = cells[_cell(tid, 1, lane)]
    rate = cells[_cell(tid, 2, lane)]
    return (
        _weigh(scale, 9, rate),
        _weigh(scale, 10, rate),
        _weigh(scale, 12, pose),
        _weigh(scale, 13, upper),
    )


@numba.njit(**INLINE_OPTIONS)
def _feet_pose_terms(lp, rp, lq, rq, close_threshold, scale, i):  # type: ignore[no-untyped-def]
    """Slots 14-15: feet too close in xy, feet not flat."""
    dx = _at(lp, i, 3, 0) - _at(rp, i, 3, 0)
    dy = _at(lp, i, 3, 1) - _at(rp, i, 3, 1)
    d = math.sqrt(dx * dx + dy * dy)
    close = (d - close_threshold) * (d - close_threshold) if d < close_threshold else 0.0
    l1, l2 = _at(lq, i, 4, 1), _at(lq, i, 4, 2)
    r1, r2 = _at(rq, i, 4, 1), _at(rq, i, 4, 2)
    return (
        _weigh(scale, 14, close),
        _weigh(scale, 15, l1 * l1 + l2 * l2 + r1 * r1 + r2 * r2),
    )


@numba.njit(**INLINE_OPTIONS)
def _gait_terms(  # type: ignore[no-untyped-def]
    lv, cm, gp, lp, rp, left_contact, right_contact, air, swing, phase_sigma, min_fwd, scale, i
):
    """Slots 16-20: swing-height tracking, contrast, contact timing, double stance, air time."""
    hl = _swing_height(_at(gp, i, 2, 0), swing)
    hr = _swing_height(_at(gp, i, 2, 1), swing)
    gate = 1.0 if _max_nan(_at(lv, i, 3, 0), 0.0) >= min_fwd else 0.0
    zl, zr = _at(lp, i, 3, 2), _at(rp, i, 3, 2)
    el, er = zl - hl, zr - hr
    c = (zl - zr) - (hl - hr)
    half = 0.5 * swing
    ui = np.uint64(i)
    lc, rc = left_contact[ui], right_contact[ui]
    timing = (1.0 if lc == (hl <= half) else 0.0) + (1.0 if rc == (hr <= half) else 0.0)
    moving = _max_nan(_at(cm, i, 3, 0), 0.0) > 1e-6
    t0, t1 = _at(air, i, 2, 0), _at(air, i, 2, 1)
    flight = (1.0 if 0.05 < t0 < 0.5 else 0.0) + (1.0 if 0.05 < t1 < 0.5 else 0.0)
    return (
        _weigh(scale, 16, lane_exp(-((el * el + er * er) / phase_sigma)) * gate),
        _weigh(scale, 17, lane_exp(-((c * c) / phase_sigma)) * gate),
        _weigh(scale, 18, 0.5 * timing * gate),
        _weigh(scale, 19, 1.0 if (lc and rc and moving) else 0.0),
        _weigh(scale, 20, flight),
    )


@numba.njit(**INLINE_OPTIONS)
def tilted(gz, min_upright_gz):  # type: ignore[no-untyped-def]
    """``not (clip(gz, -1, 1) >= min_upright_gz)`` in float64 (NaN counts as tilted); the
    task's tilt rule, ``min_upright_gz = cos(max_tilt_rad)`` (``config.min_upright_gz``)."""
    if gz > 1.0:
        gz = 1.0
    elif gz < -1.0:
        gz = -1.0
    return not (gz >= min_upright_gz)


@numba.njit(**INLINE_OPTIONS)
def _joints_i(  # type: ignore[no-untyped-def]
    dof_pos,
    dof_vel,
    current,
    last,
    default_angles,
    pose_w,
    upper_w,
    actor_vel_mult,
    critic_vel_mult,
    obs,
    critic,
    i,
):
    """One pass over the 29 joints: pose sums, action rate, and clean joint obs (both rows).

    All arrays are 1-D views (literal row widths): through 2-D indexing the whole row loop
    took ~25% longer (N=2048, one thread: 0.143 vs 0.113 ms per call).
    """
    pose = 0.0
    upper = 0.0
    rate = 0.0
    for j in range(29):
        dq = _el(dof_pos, i, 29, j) - default_angles[j]
        sq = dq * dq
        pose += pose_w[j] * sq
        upper += upper_w[j] * sq
        a = _el(current, i, 29, j)
        da = float(a - _el(last, i, 29, j))
        rate += da * da
        v = _el(dof_vel, i, 29, j)
        _put(obs, i, 98, 6 + j, dq)
        _put(obs, i, 98, 35 + j, v * actor_vel_mult)
        _put(obs, i, 98, 64 + j, a)
        _put(critic, i, 101, 6 + j, dq)
        _put(critic, i, 101, 35 + j, v * critic_vel_mult)
        _put(critic, i, 101, 64 + j, a)
    return pose, upper, rate


@numba.njit(**INLINE_OPTIONS)
def _joint_noise_i(  # type: ignore[no-untyped-def]
    dof_pos, dof_vel, default_angles, noise_pos, noise_vel, actor_vel_mult, obs, i
):
    """Noise on: rewrite the actor's joint obs as ``(x + noise) * mult`` (1-D views)."""
    for j in range(29):
        dq = _el(dof_pos, i, 29, j) - default_angles[j]
        _put(obs, i, 98, 6 + j, dq + _el(noise_pos, i, 29, j))
        v = _el(dof_vel, i, 29, j) + _el(noise_vel, i, 29, j)
        _put(obs, i, 98, 35 + j, v * actor_vel_mult)


@numba.njit(**INLINE_OPTIONS)
def _terminated_i(gr, base_height, min_upright_gz, min_height, i):  # type: ignore[no-untyped-def]
    """Tilt beyond the limit or base too low; NaN in either input terminates (float64)."""
    too_tilted = tilted(_at(gr, i, 3, 2), min_upright_gz)
    return too_tilted or not (base_height[i] >= min_height)


@numba.njit(**INLINE_OPTIONS)
def _small_obs_i(  # type: ignore[no-untyped-def]
    lv,
    gy,
    gr,
    cm,
    gp,
    noise_gyro,
    noise_gravity,
    noisy,
    actor_gyro_mult,
    critic_gyro_mult,
    critic_linvel_mult,
    obs,
    critic,
    i,
):
    """Gyro, gravity (negated), commands, gait phase; the critic also gets linvel (1-D views)."""
    for k in range(3):
        g, up = _el(gy, i, 3, k), _el(gr, i, 3, k)
        if noisy:
            _put(obs, i, 98, k, (g + _el(noise_gyro, i, 3, k)) * actor_gyro_mult)
            _put(obs, i, 98, 3 + k, -(up + _el(noise_gravity, i, 3, k)))
        else:
            _put(obs, i, 98, k, g * actor_gyro_mult)
            _put(obs, i, 98, 3 + k, -up)
        _put(critic, i, 101, k, g * critic_gyro_mult)
        _put(critic, i, 101, 3 + k, -up)
        command = _el(cm, i, 3, k)
        _put(obs, i, 98, 93 + k, command)
        _put(critic, i, 101, 93 + k, command)
        _put(critic, i, 101, 98 + k, _el(lv, i, 3, k) * critic_linvel_mult)
    for k in range(2):
        phase = _el(gp, i, 2, k)
        _put(obs, i, 98, 96 + k, phase)
        _put(critic, i, 101, 96 + k, phase)


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
def _lanes(  # type: ignore[no-untyped-def]
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


@numba.njit(**PARALLEL_OPTIONS)
def g1_walk_kernel(  # type: ignore[no-untyped-def]
    linvel,
    gyro,
    gravity,
    dof_pos,
    dof_vel,
    current_actions,
    last_actions,
    commands,
    gait_phase,
    base_height,
    left_foot_pos,
    right_foot_pos,
    left_foot_quat,
    right_foot_quat,
    left_contact,
    right_contact,
    feet_air_time,
    noise_gyro,
    noise_gravity,
    noise_dof_pos,
    noise_dof_vel,
    default_angles,
    pose_weights,
    upper_body_weights,
    scale,
    ctrl_dt,
    tracking_sigma,
    base_height_target,
    min_base_height,
    min_upright_gz,
    swing_height,
    phase_sigma,
    min_fwd,
    close_threshold,
    actor_gyro_mult,
    actor_dof_vel_mult,
    critic_gyro_mult,
    critic_dof_vel_mult,
    critic_linvel_mult,
    noisy,
    do_log,
    obs,
    critic,
    reward,
    terminated,
    log_scratch,
    tile_scratch,
):
    """The whole hot slice, tile by tile (outputs written in place; module docstring).

    Every per-env array is read and written through a 1-D view, so row widths are literals
    in the index arithmetic; LLVM's runtime overlap checks of the vectorised lane loop then
    run once per tile, not per env. ``tile_scratch`` is
    (threads, :data:`SCRATCH_ROWS`, :data:`TILE`) float64.
    """
    n = reward.shape[0]
    lv, gy, gr = linvel.reshape(3 * n), gyro.reshape(3 * n), gravity.reshape(3 * n)
    cm, gp, air = commands.reshape(3 * n), gait_phase.reshape(2 * n), feet_air_time.reshape(2 * n)
    lp, rp = left_foot_pos.reshape(3 * n), right_foot_pos.reshape(3 * n)
    lq, rq = left_foot_quat.reshape(4 * n), right_foot_quat.reshape(4 * n)
    cells = tile_scratch.reshape(tile_scratch.size)
    dp, dv = dof_pos.reshape(29 * n), dof_vel.reshape(29 * n)
    cur, last = current_actions.reshape(29 * n), last_actions.reshape(29 * n)
    noise_p, noise_v = noise_dof_pos.reshape(29 * n), noise_dof_vel.reshape(29 * n)
    noise_gy, noise_gr = noise_gyro.reshape(3 * n), noise_gravity.reshape(3 * n)
    ob, cr = obs.reshape(98 * n), critic.reshape(101 * n)
    for t in prange((n + TILE - 1) // TILE):
        tid = numba.get_thread_id()
        lo = t * TILE
        count = min(TILE, n - lo)
        for lane in range(count):
            i = lo + lane
            pose, upper, rate = _joints_i(
                dp, dv, cur, last, default_angles, pose_weights, upper_body_weights,
                actor_dof_vel_mult, critic_dof_vel_mult, ob, cr, i,
            )  # fmt: skip
            cells[_cell(tid, 0, lane)] = pose
            cells[_cell(tid, 1, lane)] = upper
            cells[_cell(tid, 2, lane)] = rate
            if noisy:
                _joint_noise_i(dp, dv, default_angles, noise_p, noise_v, actor_dof_vel_mult, ob, i)
            _small_obs_i(
                lv, gy, gr, cm, gp, noise_gy, noise_gr, noisy, actor_gyro_mult,
                critic_gyro_mult, critic_linvel_mult, ob, cr, i,
            )  # fmt: skip
            terminated[i] = _terminated_i(gr, base_height, min_upright_gz, min_base_height, i)
        if do_log:
            _lanes(
                lv, gy, gr, cm, gp, lp, rp, lq, rq, air, base_height, left_contact,
                right_contact, scale, ctrl_dt, tracking_sigma, base_height_target, swing_height,
                phase_sigma, min_fwd, close_threshold, reward, cells, log_scratch, tid, lo,
                count, True,
            )  # fmt: skip
        else:
            _lanes(
                lv, gy, gr, cm, gp, lp, rp, lq, rq, air, base_height, left_contact,
                right_contact, scale, ctrl_dt, tracking_sigma, base_height_target, swing_height,
                phase_sigma, min_fwd, close_threshold, reward, cells, log_scratch, tid, lo,
                count, False,
            )  # fmt: skip
