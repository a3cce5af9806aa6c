"""The hand-written G1 walk Numba kernel: one ``prange`` pass does the whole hot slice.

Written the way a task-specific kernel is written by hand (the upstream pre-term-plan
design): a fixed slot order for the 22 reward terms (``config.TERM_ORDER``), every term
computed for every row and multiplied by its scale from a (22,) float64 array, hard-coded
observation offsets, per-thread log sums in a padded scratch indexed by
``numba.get_thread_id()``, and reward, termination and both observation rows written in the
same pass over an env. Scalars are float64; the state arrays are float32.

A term whose scale is 0 contributes exactly 0 (a select, not a multiply), so a NaN in an
input of an inactive term cannot poison the reward: the NumPy path skips such terms and
both must agree. Termination is evaluated in float64 with NaN counting as "terminate"
(see :mod:`termplan.tasks.g1_walk.common`).

The observation offsets below are literals on purpose (that is the hand-written style);
:mod:`termplan.tasks.g1_walk.handwritten` checks at import that they match ``layout``.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import prange

from termplan.intrinsics import fast_exp
from termplan.kernel_options import INLINE_OPTIONS, PARALLEL_OPTIONS

#: Doubles per thread row of the log scratch: 22 slots padded to a multiple of 16 (128 B),
#: so two threads never write the same cache line.
LOG_STRIDE = 32
#: Literal observation offsets used by the kernel (checked against ``layout`` at import).
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
def _max_nan(a, b):  # type: ignore[no-untyped-def]
    """``max`` that returns NaN if either side is NaN (as ``np.maximum``)."""
    if a != a or a > b:
        return a
    return b


@numba.njit(**INLINE_OPTIONS)
def _min_nan(a, b):  # type: ignore[no-untyped-def]
    """``min`` that returns NaN if either side is NaN (as ``np.minimum``)."""
    if a != a or a < b:
        return a
    return b


@numba.njit(**INLINE_OPTIONS)
def _weigh(scale, k, value, log, tid, do_log):  # type: ignore[no-untyped-def]
    """``scale[k] * value`` (exactly 0 when the scale is 0), summed into the thread's log row."""
    s = scale[k]
    w = s * value if s != 0.0 else 0.0
    if do_log:
        log[tid, k] += w
    return w


@numba.njit(**INLINE_OPTIONS)
def fmod_two_pi(y):  # type: ignore[no-untyped-def]
    """``np.fmod(y, 2*pi)``, bit for bit, without the library call for ``0 <= y < 4*pi``.

    In that range the remainder is ``y`` or ``y - 2*pi``, and the subtraction is exact
    (Sterbenz: ``2*pi <= y <= 2 * (2*pi)``), so it equals the exact ``fmod``. Anything else
    (larger, negative, NaN) takes ``np.fmod``.
    """
    if 0.0 <= y < 2.0 * _TWO_PI:
        return y - _TWO_PI if y >= _TWO_PI else y
    return np.fmod(y, _TWO_PI)


@numba.njit(**INLINE_OPTIONS)
def _swing_height(phase, swing):  # type: ignore[no-untyped-def]
    """Cubic Bezier foot height ``bez(phase, H)``: up in the first half-cycle, down after."""
    x = (fmod_two_pi(phase + math.pi) - math.pi + math.pi) / _TWO_PI
    if x <= 0.5:
        t = 2.0 * x
        return swing * (t * (t * (3.0 - 2.0 * t)))
    t = 2.0 * x - 1.0
    return swing * (1.0 - t * (t * (3.0 - 2.0 * t)))


@numba.njit(**INLINE_OPTIONS)
def _base_terms_i(  # type: ignore[no-untyped-def]
    linvel, gyro, gravity, commands, base_height, scale, sigma, height_target, log, tid, do_log, i
):
    """Slots 0-8, 11 and 21: velocity tracking, body motion, orientation, height, alive."""
    vx, vy, vz = float(linvel[i, 0]), float(linvel[i, 1]), float(linvel[i, 2])
    wx, wy, wz = float(gyro[i, 0]), float(gyro[i, 1]), float(gyro[i, 2])
    cx, cy, cz = float(commands[i, 0]), float(commands[i, 1]), float(commands[i, 2])
    ex, ey, ez = cx - vx, cy - vy, cz - wz
    r = _weigh(scale, 0, fast_exp(-((ex * ex + ey * ey) / sigma)), log, tid, do_log)
    r += _weigh(scale, 1, fast_exp(-((ez * ez) / sigma)), log, tid, do_log)
    forward = _max_nan(vx, 0.0)
    command = _max_nan(cx, 1e-6)
    r += _weigh(scale, 2, _min_nan(forward / command, 1.0), log, tid, do_log)
    r += _weigh(scale, 3, _max_nan(cx - forward, 0.0) / command, log, tid, do_log)
    r += _weigh(scale, 4, vz * vz, log, tid, do_log)
    gx, gy = float(gravity[i, 0]), float(gravity[i, 1])
    tilt = gx * gx + gy * gy
    r += _weigh(scale, 5, tilt, log, tid, do_log)
    r += _weigh(scale, 6, tilt, log, tid, do_log)
    spin = wx * wx + wy * wy
    r += _weigh(scale, 7, spin, log, tid, do_log)
    r += _weigh(scale, 8, spin, log, tid, do_log)
    dh = float(base_height[i]) - height_target
    r += _weigh(scale, 11, dh * dh, log, tid, do_log)
    r += _weigh(scale, 21, 1.0, log, tid, do_log)
    return r


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
    """One pass over the 29 joints: pose sums, action rate, and clean joint obs (both rows)."""
    pose = 0.0
    upper = 0.0
    rate = 0.0
    for j in range(29):
        dq = dof_pos[i, j] - default_angles[j]
        sq = dq * dq
        pose += pose_w[j] * sq
        upper += upper_w[j] * sq
        da = float(current[i, j] - last[i, j])
        rate += da * da
        v = dof_vel[i, j]
        a = current[i, j]
        obs[i, 6 + j] = dq
        obs[i, 35 + j] = v * actor_vel_mult
        obs[i, 64 + j] = a
        critic[i, 6 + j] = dq
        critic[i, 35 + j] = v * critic_vel_mult
        critic[i, 64 + j] = a
    return pose, upper, rate


@numba.njit(**INLINE_OPTIONS)
def _joint_noise_i(  # type: ignore[no-untyped-def]
    dof_pos, dof_vel, default_angles, noise_pos, noise_vel, actor_vel_mult, obs, i
):
    """Noise on: rewrite the actor's joint obs as ``(x + noise) * mult``."""
    for j in range(29):
        obs[i, 6 + j] = (dof_pos[i, j] - default_angles[j]) + noise_pos[i, j]
        obs[i, 35 + j] = (dof_vel[i, j] + noise_vel[i, j]) * actor_vel_mult


@numba.njit(**INLINE_OPTIONS)
def _joint_terms_i(pose, upper, rate, scale, log, tid, do_log):  # type: ignore[no-untyped-def]
    """Slots 9, 10, 12, 13: action rate (twice), pose, upper-body pose."""
    r = _weigh(scale, 9, rate, log, tid, do_log)
    r += _weigh(scale, 10, rate, log, tid, do_log)
    r += _weigh(scale, 12, pose, log, tid, do_log)
    r += _weigh(scale, 13, upper, log, tid, do_log)
    return r


@numba.njit(**INLINE_OPTIONS)
def _feet_pose_terms_i(  # type: ignore[no-untyped-def]
    left_pos, right_pos, left_quat, right_quat, close_threshold, scale, log, tid, do_log, i
):
    """Slots 14-15: feet too close in xy, feet not flat."""
    dx = float(left_pos[i, 0] - right_pos[i, 0])
    dy = float(left_pos[i, 1] - right_pos[i, 1])
    d = math.sqrt(dx * dx + dy * dy)
    close = (d - close_threshold) * (d - close_threshold) if d < close_threshold else 0.0
    r = _weigh(scale, 14, close, log, tid, do_log)
    l1, l2 = float(left_quat[i, 1]), float(left_quat[i, 2])
    r1, r2 = float(right_quat[i, 1]), float(right_quat[i, 2])
    r += _weigh(scale, 15, l1 * l1 + l2 * l2 + r1 * r1 + r2 * r2, log, tid, do_log)
    return r


@numba.njit(**INLINE_OPTIONS)
def _gait_terms_i(  # type: ignore[no-untyped-def]
    linvel,
    commands,
    gait_phase,
    left_pos,
    right_pos,
    left_contact,
    right_contact,
    air_time,
    swing,
    phase_sigma,
    min_fwd,
    scale,
    log,
    tid,
    do_log,
    i,
):
    """Slots 16-20: swing-height tracking, contrast, contact timing, double stance, air time."""
    hl = _swing_height(float(gait_phase[i, 0]), swing)
    hr = _swing_height(float(gait_phase[i, 1]), swing)
    gate = 1.0 if _max_nan(float(linvel[i, 0]), 0.0) >= min_fwd else 0.0
    zl, zr = float(left_pos[i, 2]), float(right_pos[i, 2])
    el, er = zl - hl, zr - hr
    r = _weigh(scale, 16, fast_exp(-((el * el + er * er) / phase_sigma)) * gate, log, tid, do_log)
    c = (zl - zr) - (hl - hr)
    r += _weigh(scale, 17, fast_exp(-((c * c) / phase_sigma)) * gate, log, tid, do_log)
    half = 0.5 * swing
    lc, rc = left_contact[i], right_contact[i]
    timing = (1.0 if lc == (hl <= half) else 0.0) + (1.0 if rc == (hr <= half) else 0.0)
    r += _weigh(scale, 18, 0.5 * timing * gate, log, tid, do_log)
    moving = _max_nan(float(commands[i, 0]), 0.0) > 1e-6
    r += _weigh(scale, 19, 1.0 if (lc and rc and moving) else 0.0, log, tid, do_log)
    t0, t1 = air_time[i, 0], air_time[i, 1]
    air = (1.0 if 0.05 < t0 < 0.5 else 0.0) + (1.0 if 0.05 < t1 < 0.5 else 0.0)
    r += _weigh(scale, 20, air, log, tid, do_log)
    return r


@numba.njit(**INLINE_OPTIONS)
def tilted(gz, max_tilt_rad, cos_low, cos_high):  # type: ignore[no-untyped-def]
    """``not (acos(clip(gz, -1, 1)) <= max_tilt_rad)`` in float64 (NaN counts as tilted).

    ``cos_low < cos(max_tilt_rad) < cos_high`` bracket the threshold by a margin far above
    the rounding of ``acos``, so outside the bracket the answer is known without calling it
    (``acos`` falls at least as fast as its argument rises); inside it, and for NaN, ``acos``
    decides. The result equals the plain formula.
    """
    if gz > 1.0:
        gz = 1.0
    elif gz < -1.0:
        gz = -1.0
    if gz > cos_high:
        return False
    if gz < cos_low:
        return True
    return not (math.acos(gz) <= max_tilt_rad)


@numba.njit(**INLINE_OPTIONS)
def _terminated_i(  # type: ignore[no-untyped-def]
    gravity, base_height, max_tilt_rad, cos_low, cos_high, min_height, i
):
    """Tilt beyond the limit or base too low; NaN in either input terminates (float64)."""
    too_tilted = tilted(float(gravity[i, 2]), max_tilt_rad, cos_low, cos_high)
    return too_tilted or not (base_height[i] >= min_height)


@numba.njit(**INLINE_OPTIONS)
def _small_obs_i(  # type: ignore[no-untyped-def]
    linvel,
    gyro,
    gravity,
    commands,
    gait_phase,
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
    """Gyro, gravity (negated), commands, gait phase; the critic also gets linvel."""
    for k in range(3):
        g, up = gyro[i, k], gravity[i, k]
        if noisy:
            obs[i, k] = (g + noise_gyro[i, k]) * actor_gyro_mult
            obs[i, 3 + k] = -(up + noise_gravity[i, k])
        else:
            obs[i, k] = g * actor_gyro_mult
            obs[i, 3 + k] = -up
        critic[i, k] = g * critic_gyro_mult
        critic[i, 3 + k] = -up
        obs[i, 93 + k] = commands[i, k]
        critic[i, 93 + k] = commands[i, k]
        critic[i, 98 + k] = linvel[i, k] * critic_linvel_mult
    for k in range(2):
        obs[i, 96 + k] = gait_phase[i, k]
        critic[i, 96 + k] = gait_phase[i, k]


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
    max_tilt_rad,
    swing_height,
    phase_sigma,
    min_fwd,
    close_threshold,
    cos_tilt_low,
    cos_tilt_high,
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
):
    """The whole hot slice, one env row per ``prange`` iteration (outputs written in place)."""
    for i in prange(reward.shape[0]):
        tid = numba.get_thread_id()
        r = _base_terms_i(
            linvel,
            gyro,
            gravity,
            commands,
            base_height,
            scale,
            tracking_sigma,
            base_height_target,
            log_scratch,
            tid,
            do_log,
            i,
        )
        pose, upper, rate = _joints_i(
            dof_pos,
            dof_vel,
            current_actions,
            last_actions,
            default_angles,
            pose_weights,
            upper_body_weights,
            actor_dof_vel_mult,
            critic_dof_vel_mult,
            obs,
            critic,
            i,
        )
        if noisy:
            _joint_noise_i(
                dof_pos,
                dof_vel,
                default_angles,
                noise_dof_pos,
                noise_dof_vel,
                actor_dof_vel_mult,
                obs,
                i,
            )
        r += _joint_terms_i(pose, upper, rate, scale, log_scratch, tid, do_log)
        r += _feet_pose_terms_i(
            left_foot_pos,
            right_foot_pos,
            left_foot_quat,
            right_foot_quat,
            close_threshold,
            scale,
            log_scratch,
            tid,
            do_log,
            i,
        )
        r += _gait_terms_i(
            linvel,
            commands,
            gait_phase,
            left_foot_pos,
            right_foot_pos,
            left_contact,
            right_contact,
            feet_air_time,
            swing_height,
            phase_sigma,
            min_fwd,
            scale,
            log_scratch,
            tid,
            do_log,
            i,
        )
        reward[i] = r * ctrl_dt
        terminated[i] = _terminated_i(
            gravity, base_height, max_tilt_rad, cos_tilt_low, cos_tilt_high, min_base_height, i
        )
        _small_obs_i(
            linvel,
            gyro,
            gravity,
            commands,
            gait_phase,
            noise_gyro,
            noise_gravity,
            noisy,
            actor_gyro_mult,
            critic_gyro_mult,
            critic_linvel_mult,
            obs,
            critic,
            i,
        )
