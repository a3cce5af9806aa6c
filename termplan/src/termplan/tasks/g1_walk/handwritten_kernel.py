"""The hand-written G1 walk Numba kernel: one ``prange`` pass does the whole hot slice.

Written the way a task-specific kernel is written by hand (the upstream pre-term-plan
design): a fixed slot order for the 22 reward terms (``config.TERM_ORDER``), every term
computed for every row and multiplied by its scale from a (22,) float64 array, hard-coded
observation offsets, per-thread log sums in a padded scratch indexed by
``numba.get_thread_id()``, and reward, termination and both observation rows written in the
same parallel pass. Scalars are float64; the state arrays are float32.

The pass runs over tiles of :data:`TILE` envs (memory layout in
:mod:`termplan.tasks.g1_walk.handwritten_layout`), in two loops per tile:

* a row loop (one env at a time): the 29-joint loop (both observation rows, and the pose and
  action-rate sums, kept in the thread's tile scratch), the small observations, termination;
  it too indexes every array through a 1-D view (~20% less time per call than 2-D indexing);
* a lane loop over the same envs (:mod:`termplan.tasks.g1_walk.handwritten_reward`),
  branch-free, so that LLVM vectorises it across envs: the 22 weighted reward terms and the
  reward. Its per-env inputs are read from 1-D views with
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

import numba
from numba import prange

from termplan.kernel_options import INLINE_OPTIONS, PARALLEL_OPTIONS
from termplan.tasks.g1_walk.handwritten_layout import at, cell, el, put
from termplan.tasks.g1_walk.handwritten_reward import lanes

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
        dq = el(dof_pos, i, 29, j) - default_angles[j]
        sq = dq * dq
        pose += pose_w[j] * sq
        upper += upper_w[j] * sq
        a = el(current, i, 29, j)
        da = float(a - el(last, i, 29, j))
        rate += da * da
        v = el(dof_vel, i, 29, j)
        put(obs, i, 98, 6 + j, dq)
        put(obs, i, 98, 35 + j, v * actor_vel_mult)
        put(obs, i, 98, 64 + j, a)
        put(critic, i, 101, 6 + j, dq)
        put(critic, i, 101, 35 + j, v * critic_vel_mult)
        put(critic, i, 101, 64 + j, a)
    return pose, upper, rate


@numba.njit(**INLINE_OPTIONS)
def _joint_noise_i(  # type: ignore[no-untyped-def]
    dof_pos, dof_vel, default_angles, noise_pos, noise_vel, actor_vel_mult, obs, i
):
    """Noise on: rewrite the actor's joint obs as ``(x + noise) * mult`` (1-D views)."""
    for j in range(29):
        dq = el(dof_pos, i, 29, j) - default_angles[j]
        put(obs, i, 98, 6 + j, dq + el(noise_pos, i, 29, j))
        v = el(dof_vel, i, 29, j) + el(noise_vel, i, 29, j)
        put(obs, i, 98, 35 + j, v * actor_vel_mult)


@numba.njit(**INLINE_OPTIONS)
def _terminated_i(gr, base_height, min_upright_gz, min_height, i):  # type: ignore[no-untyped-def]
    """Tilt beyond the limit or base too low; NaN in either input terminates (float64)."""
    too_tilted = tilted(at(gr, i, 3, 2), min_upright_gz)
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
        g, up = el(gy, i, 3, k), el(gr, i, 3, k)
        if noisy:
            put(obs, i, 98, k, (g + el(noise_gyro, i, 3, k)) * actor_gyro_mult)
            put(obs, i, 98, 3 + k, -(up + el(noise_gravity, i, 3, k)))
        else:
            put(obs, i, 98, k, g * actor_gyro_mult)
            put(obs, i, 98, 3 + k, -up)
        put(critic, i, 101, k, g * critic_gyro_mult)
        put(critic, i, 101, 3 + k, -up)
        command = el(cm, i, 3, k)
        put(obs, i, 98, 93 + k, command)
        put(critic, i, 101, 93 + k, command)
        put(critic, i, 101, 98 + k, el(lv, i, 3, k) * critic_linvel_mult)
    for k in range(2):
        phase = el(gp, i, 2, k)
        put(obs, i, 98, 96 + k, phase)
        put(critic, i, 101, 96 + k, phase)


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
    tile,
):
    """The whole hot slice, tile by tile (outputs written in place; module docstring).

    Every per-env array is read and written through a 1-D view, so row widths are literals
    in the index arithmetic; LLVM's runtime overlap checks of the vectorised lane loop then
    run once per tile, not per env. ``tile_scratch`` is
    (threads, :data:`SCRATCH_ROWS`, :data:`TILE`) float64; ``tile`` (at most :data:`TILE`)
    is the envs per tile, :func:`termplan.tiles.tile_length` of N and the thread count.
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
    for t in prange((n + tile - 1) // tile):
        tid = numba.get_thread_id()
        lo = t * tile
        count = min(tile, n - lo)
        for lane in range(count):
            i = lo + lane
            pose, upper, rate = _joints_i(
                dp, dv, cur, last, default_angles, pose_weights, upper_body_weights,
                actor_dof_vel_mult, critic_dof_vel_mult, ob, cr, i,
            )  # fmt: skip
            cells[cell(tid, 0, lane)] = pose
            cells[cell(tid, 1, lane)] = upper
            cells[cell(tid, 2, lane)] = rate
            if noisy:
                _joint_noise_i(dp, dv, default_angles, noise_p, noise_v, actor_dof_vel_mult, ob, i)
            _small_obs_i(
                lv, gy, gr, cm, gp, noise_gy, noise_gr, noisy, actor_gyro_mult,
                critic_gyro_mult, critic_linvel_mult, ob, cr, i,
            )  # fmt: skip
            terminated[i] = _terminated_i(gr, base_height, min_upright_gz, min_base_height, i)
        if do_log:
            lanes(
                lv, gy, gr, cm, gp, lp, rp, lq, rq, air, base_height, left_contact,
                right_contact, scale, ctrl_dt, tracking_sigma, base_height_target, swing_height,
                phase_sigma, min_fwd, close_threshold, reward, cells, log_scratch, tid, lo,
                count, True,
            )  # fmt: skip
        else:
            lanes(
                lv, gy, gr, cm, gp, lp, rp, lq, rq, air, base_height, left_contact,
                right_contact, scale, ctrl_dt, tracking_sigma, base_height_target, swing_height,
                phase_sigma, min_fwd, close_threshold, reward, cells, log_scratch, tid, lo,
                count, False,
            )  # fmt: skip
