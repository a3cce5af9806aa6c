"""The hand-written motion-tracking Numba kernel (the upstream pre-#918 design).

The kernel makes one pass per env row: yaw-aligned reference and anchor transforms, all 12
reward terms evaluated unconditionally and weighted by a (12,) float64 scale array (a
zero-scale term contributes exactly 0, even from NaN inputs), the termination test, and
direct writes of the actor/critic observations at fixed column offsets. Reference bodies are
never stored: each body's reference pose lives in registers for the body loop. Per-term log
sums go to a padded per-thread float64 scratch indexed by ``numba.get_thread_id()``.

This is the bar the assembled kernel must beat, so it is written to be fast, not simple. NaN
behaviour matches :mod:`numpy_path` (termination fails closed, rewards and obs propagate NaN,
a NaN height is not an undesired contact for the reward).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import prange

from termplan.intrinsics import fast_exp, weigh
from termplan.kernel_options import INLINE_OPTIONS, PARALLEL_OPTIONS
from termplan.tasks.motion_tracking.config import (
    ACTOR_OFFSETS,
    ANCHOR,
    CRITIC_OFFSETS,
    EE_INDICES,
    NUM_BODIES,
    NUM_DOF,
    TERM_ORDER,
)
from termplan.tasks.motion_tracking.geometry import (
    Mat3,
    mat_t_vec_s,
    quat_angle_sq_s,
    quat_mul_s,
    quat_to_matrix_s,
    rot6d_s,
)

B, J, A = NUM_BODIES, NUM_DOF, ANCHOR
Arr = np.ndarray
Quad = tuple[float, float, float, float]
N_TERMS = len(TERM_ORDER)
#: Row stride of the per-thread log scratch: 16 doubles = two cache lines.
LOG_STRIDE = 16
_O_CMD = ACTOR_OFFSETS["command"]
_O_APOS = ACTOR_OFFSETS["anchor_pos"]
_O_AORI = ACTOR_OFFSETS["anchor_ori"]
_O_LIN = ACTOR_OFFSETS["linvel"]
_O_GYRO = ACTOR_OFFSETS["gyro"]
_O_JP = ACTOR_OFFSETS["joint_pos"]
_O_DV = ACTOR_OFFSETS["dof_vel"]
_O_ACT = ACTOR_OFFSETS["actions"]
_O_BPOS = CRITIC_OFFSETS["body_pos"]
_O_BORI = CRITIC_OFFSETS["body_ori"]
_O_TAIL = CRITIC_OFFSETS["linvel_tail"]
_INV_B = 1.0 / B
_INV_J = 1.0 / J
_INV_EE = 1.0 / len(EE_INDICES)


@numba.njit(**INLINE_OPTIONS)
def _relu(x: float) -> float:
    """``max(x, 0)`` that keeps NaN (like ``np.maximum``)."""
    return 0.0 if x <= 0.0 else x


@numba.njit(**INLINE_OPTIONS)
def _gz64(q: Arr, i: int, b: int) -> float:
    """Gravity-z of body ``b`` of row ``i`` in float64 (termination precision)."""
    x = np.float64(q[i, b, 1])
    y = np.float64(q[i, b, 2])
    return 2.0 * (x * x + y * y) - 1.0


@numba.njit(**INLINE_OPTIONS)
def _write_anchor_i(
    m_pos: Arr, m_quat: Arr, r_pos: Arr, r_quat: Arr, rot: Mat3, actor: Arr, critic: Arr, i: int
) -> None:
    """Motion anchor pose in the robot anchor frame -> actor and critic (pos 3, rot6d 6).

    ``rot`` is the robot anchor's rotation matrix (built once per row).
    """
    rw, rx, ry, rz = r_quat[i, A, 0], r_quat[i, A, 1], r_quat[i, A, 2], r_quat[i, A, 3]
    px, py, pz = mat_t_vec_s(
        rot,
        m_pos[i, A, 0] - r_pos[i, A, 0],
        m_pos[i, A, 1] - r_pos[i, A, 1],
        m_pos[i, A, 2] - r_pos[i, A, 2],
    )  # fmt: skip
    qw, qx, qy, qz = quat_mul_s(
        rw, -rx, -ry, -rz, m_quat[i, A, 0], m_quat[i, A, 1], m_quat[i, A, 2], m_quat[i, A, 3]
    )
    r00, r01, r10, r11, r20, r21 = rot6d_s(qw, qx, qy, qz)
    _put9(actor, i, _O_APOS, px, py, pz, r00, r01, r10, r11, r20, r21)
    _put9(critic, i, _O_APOS, px, py, pz, r00, r01, r10, r11, r20, r21)


@numba.njit(**INLINE_OPTIONS)
def _put9(
    out: Arr, i: int, o: int, v0: float, v1: float, v2: float, v3: float, v4: float,
    v5: float, v6: float, v7: float, v8: float,
) -> None:  # fmt: skip
    """Write 9 consecutive values at ``out[i, o:o + 9]``."""
    out[i, o] = v0
    out[i, o + 1] = v1
    out[i, o + 2] = v2
    out[i, o + 3] = v3
    out[i, o + 4] = v4
    out[i, o + 5] = v5
    out[i, o + 6] = v6
    out[i, o + 7] = v7
    out[i, o + 8] = v8


@numba.njit(**INLINE_OPTIONS)
def _yaw_alignment_i(m_quat: Arr, r_quat: Arr, i: int) -> tuple[float, float, float, float]:
    """``(cos psi/2, sin psi/2, cos psi, sin psi)`` of the yaw of ``q_r[a] (x) conj(q_m[a])``."""
    qw, qx, qy, qz = quat_mul_s(
        r_quat[i, A, 0], r_quat[i, A, 1], r_quat[i, A, 2], r_quat[i, A, 3],
        m_quat[i, A, 0], -m_quat[i, A, 1], -m_quat[i, A, 2], -m_quat[i, A, 3],
    )  # fmt: skip
    # psi = atan2(num, den); its cos/sin and half-angle cos/sin without any trig call
    num = 2.0 * (qw * qz + qx * qy)
    den = 1.0 - 2.0 * (qy * qy + qz * qz)
    r = math.sqrt(num * num + den * den)
    if r > 0.0:
        c, s = den / r, num / r
    elif r == 0.0:  # atan2(0, 0) = 0
        c, s = 1.0, 0.0
    else:  # NaN propagates
        c = s = r
    return math.sqrt(0.5 * (1.0 + c)), math.copysign(math.sqrt(0.5 * (1.0 - c)), s), c, s


@numba.njit(**INLINE_OPTIONS)
def _robot_bodies_i(r_pos: Arr, r_quat: Arr, rot: Mat3, critic: Arr, i: int) -> None:
    """Every robot body in the robot anchor frame -> critic body_pos / body_ori blocks.

    ``rot`` is the anchor's rotation matrix, built once per row and applied to all bodies.
    """
    aw, ax, ay, az = r_quat[i, A, 0], r_quat[i, A, 1], r_quat[i, A, 2], r_quat[i, A, 3]
    px0, py0, pz0 = r_pos[i, A, 0], r_pos[i, A, 1], r_pos[i, A, 2]
    for b in range(B):
        px, py, pz = mat_t_vec_s(
            rot, r_pos[i, b, 0] - px0, r_pos[i, b, 1] - py0, r_pos[i, b, 2] - pz0
        )
        o = _O_BPOS + 3 * b
        critic[i, o] = px
        critic[i, o + 1] = py
        critic[i, o + 2] = pz
        qw, qx, qy, qz = quat_mul_s(
            aw, -ax, -ay, -az, r_quat[i, b, 0], r_quat[i, b, 1], r_quat[i, b, 2], r_quat[i, b, 3]
        )
        r00, r01, r10, r11, r20, r21 = rot6d_s(qw, qx, qy, qz)
        o = _O_BORI + 6 * b
        critic[i, o] = r00
        critic[i, o + 1] = r01
        critic[i, o + 2] = r10
        critic[i, o + 3] = r11
        critic[i, o + 4] = r20
        critic[i, o + 5] = r21


@numba.njit(**INLINE_OPTIONS)
def _body_errors_i(
    m_pos: Arr, m_quat: Arr, r_pos: Arr, r_quat: Arr, align: Quad, i: int, b: int
) -> tuple[float, float, float]:
    """Squared position and rotation errors of body ``b`` against its yaw-aligned reference.

    The reference z is the motion's world z (a yaw rotation keeps z).
    """
    hc, hs, c, s = align
    dx = m_pos[i, b, 0] - m_pos[i, A, 0]
    dy = m_pos[i, b, 1] - m_pos[i, A, 1]
    ex = c * dx - s * dy + r_pos[i, A, 0] - r_pos[i, b, 0]
    ey = s * dx + c * dy + r_pos[i, A, 1] - r_pos[i, b, 1]
    ez = m_pos[i, b, 2] - r_pos[i, b, 2]
    mw, mx, my, mz = m_quat[i, b, 0], m_quat[i, b, 1], m_quat[i, b, 2], m_quat[i, b, 3]
    ori = quat_angle_sq_s(
        hc * mw - hs * mz, hc * mx - hs * my, hc * my + hs * mx, hc * mz + hs * mw,
        r_quat[i, b, 0], r_quat[i, b, 1], r_quat[i, b, 2], r_quat[i, b, 3],
    )  # fmt: skip
    return ex * ex + ey * ey + ez * ez, ori, ez


@numba.njit(**INLINE_OPTIONS)
def _vel_sq_i(m_vel: Arr, r_vel: Arr, i: int, b: int) -> float:
    """``|v_m[b] - v_r[b]|^2``."""
    ex = m_vel[i, b, 0] - r_vel[i, b, 0]
    ey = m_vel[i, b, 1] - r_vel[i, b, 1]
    ez = m_vel[i, b, 2] - r_vel[i, b, 2]
    return ex * ex + ey * ey + ez * ez


@numba.njit(**INLINE_OPTIONS)
def _body_loop_i(
    m_pos: Arr, m_quat: Arr, m_lin: Arr, m_ang: Arr, r_pos: Arr, r_quat: Arr, r_lin: Arr,
    r_ang: Arr, is_ee: Arr, is_und: Arr, thr: Arr, rot: Mat3, critic: Arr, i: int,
) -> tuple[float, float, float, float, float, float, bool, bool]:  # fmt: skip
    """Per-body sums of the body terms, EE/contact termination flags, critic body blocks.

    Returns (pos, ori, lin, ang, ee sums; undesired count; ee_fail; contact_fail).
    """
    align = _yaw_alignment_i(m_quat, r_quat, i)
    pos = ori = lin = ang = ee = contacts = 0.0
    ee_fail = contact_fail = False
    thr_ee, thr_contact = thr[3], thr[4]
    for b in range(B):
        p_err, o_err, ez = _body_errors_i(m_pos, m_quat, r_pos, r_quat, align, i, b)
        pos += p_err
        ori += o_err
        lin += _vel_sq_i(m_lin, r_lin, i, b)
        ang += _vel_sq_i(m_ang, r_ang, i, b)
        if is_ee[b]:
            ee += ez * ez
            ee_fail |= not (abs(ez) <= thr_ee)
        if is_und[b]:
            z = r_pos[i, b, 2]
            contacts += 1.0 if z < thr_contact else 0.0
            contact_fail |= not (z >= thr_contact)
    _robot_bodies_i(r_pos, r_quat, rot, critic, i)
    return pos, ori, lin, ang, ee, contacts, ee_fail, contact_fail


@numba.njit(**INLINE_OPTIONS)
def _joint_loop_i(
    m_jpos: Arr, m_jvel: Arr, dof_pos: Arr, dof_vel: Arr, cur: Arr, last: Arr, bias: Arr,
    noise_jp: Arr, noise_dv: Arr, default: Arr, lower: Arr, upper: Arr, add_noise: bool,
    actor: Arr, critic: Arr, i: int,
) -> Quad:  # fmt: skip
    """Joint obs blocks (command, joint_pos_rel, dof_vel, actions) and the joint sums."""
    jp = jv = rate = limit = 0.0
    for j in range(J):
        q, dq, a, mq, mdq = dof_pos[i, j], dof_vel[i, j], cur[i, j], m_jpos[i, j], m_jvel[i, j]
        rel = q - default[j] - bias[i, j]
        actor[i, _O_CMD + j] = mq
        actor[i, _O_CMD + J + j] = mdq
        actor[i, _O_ACT + j] = a
        critic[i, _O_CMD + j] = mq
        critic[i, _O_CMD + J + j] = mdq
        critic[i, _O_ACT + j] = a
        critic[i, _O_JP + j] = rel
        critic[i, _O_DV + j] = dq
        actor[i, _O_JP + j] = rel + noise_jp[i, j] if add_noise else rel
        actor[i, _O_DV + j] = dq + noise_dv[i, j] if add_noise else dq
        jp += (mq - q) * (mq - q)
        jv += (mdq - dq) * (mdq - dq)
        d = a - last[i, j]
        rate += d * d
        v = _relu(lower[j] - q) + _relu(q - upper[j])
        limit += v * v
    return jp, jv, rate, limit


@numba.njit(**INLINE_OPTIONS)
def _write_base_i(
    linvel: Arr, gyro: Arr, noise_lin: Arr, noise_gyro: Arr, add_noise: bool, tail: bool,
    actor: Arr, critic: Arr, i: int,
) -> None:  # fmt: skip
    """Base linvel / gyro blocks (noisy actor, clean critic, optional critic linvel tail)."""
    for k in range(3):
        v, w = linvel[i, k], gyro[i, k]
        critic[i, _O_LIN + k] = v
        critic[i, _O_GYRO + k] = w
        actor[i, _O_LIN + k] = v + noise_lin[i, k] if add_noise else v
        actor[i, _O_GYRO + k] = w + noise_gyro[i, k] if add_noise else w
        if tail:
            critic[i, _O_TAIL + k] = v


@numba.njit(**INLINE_OPTIONS)
def _anchor_errors_i(m_pos: Arr, m_quat: Arr, r_pos: Arr, r_quat: Arr, i: int) -> Quad:
    """Root position / orientation errors and the anchor termination gaps."""
    ex = m_pos[i, A, 0] - r_pos[i, A, 0]
    ey = m_pos[i, A, 1] - r_pos[i, A, 1]
    ez = m_pos[i, A, 2] - r_pos[i, A, 2]
    ori = quat_angle_sq_s(
        m_quat[i, A, 0], m_quat[i, A, 1], m_quat[i, A, 2], m_quat[i, A, 3],
        r_quat[i, A, 0], r_quat[i, A, 1], r_quat[i, A, 2], r_quat[i, A, 3],
    )  # fmt: skip
    dgz = _gz64(m_quat, i, A) - _gz64(r_quat, i, A)
    return np.float64(ex * ex + ey * ey + ez * ez), np.float64(ori), abs(ez), abs(dgz)


@numba.njit(**INLINE_OPTIONS)
def _score_i(
    values: tuple[float, ...], scale: Arr, inv_var: Arr, log_scratch: Arr, tid: int
) -> float:
    """``sum_k s_k f_k`` over all 12 slots (exp kernel where ``inv_var > 0``); logs."""
    total = 0.0
    for k in range(len(values)):
        f = fast_exp(-values[k] * inv_var[k]) if inv_var[k] != 0.0 else values[k]
        w = weigh(f, scale[k])
        total += w
        log_scratch[tid, k] += w
    return total


@numba.njit(**PARALLEL_OPTIONS)
def motion_kernel(
    m_pos: Arr, m_quat: Arr, m_lin: Arr, m_ang: Arr, m_jpos: Arr, m_jvel: Arr,
    r_pos: Arr, r_quat: Arr, r_lin: Arr, r_ang: Arr, linvel: Arr, gyro: Arr,
    dof_pos: Arr, dof_vel: Arr, cur: Arr, last: Arr, bias: Arr,
    noise_lin: Arr, noise_gyro: Arr, noise_jp: Arr, noise_dv: Arr,
    default: Arr, lower: Arr, upper: Arr, scale: Arr, inv_var: Arr,
    is_ee: Arr, is_und: Arr, thr: Arr, flags: Arr,
    actor: Arr, critic: Arr, reward: Arr, terminated: Arr, log_scratch: Arr,
) -> None:  # fmt: skip
    """The whole hot slice for every row. ``thr`` = (ctrl_dt, anchor_z, anchor_ori, ee_z,
    contact_z); ``flags`` = (add_noise, check_anchor_ori, terminate_on_contacts, linvel_tail).
    """
    add_noise, check_ori, on_contacts, tail = flags[0], flags[1], flags[2], flags[3]
    for i in prange(reward.shape[0]):
        tid = numba.get_thread_id()
        root_pos, root_ori, anchor_dz, anchor_dgz = _anchor_errors_i(
            m_pos, m_quat, r_pos, r_quat, i
        )
        rot = quat_to_matrix_s(r_quat[i, A, 0], r_quat[i, A, 1], r_quat[i, A, 2], r_quat[i, A, 3])
        pos, ori, lin, ang, ee, contacts, ee_fail, contact_fail = _body_loop_i(
            m_pos, m_quat, m_lin, m_ang, r_pos, r_quat, r_lin, r_ang, is_ee, is_und, thr,
            rot, critic, i,
        )  # fmt: skip
        jp, jv, rate, limit = _joint_loop_i(
            m_jpos, m_jvel, dof_pos, dof_vel, cur, last, bias, noise_jp, noise_dv,
            default, lower, upper, add_noise, actor, critic, i,
        )  # fmt: skip
        values = (
            root_pos, root_ori, pos * _INV_B, ori * _INV_B, lin * _INV_B, ang * _INV_B,
            ee * _INV_EE, jp * _INV_J, jv * _INV_J, rate, limit, contacts,
        )  # fmt: skip
        reward[i] = _score_i(values, scale, inv_var, log_scratch, tid) * thr[0]
        done = not (anchor_dz <= thr[1]) or ee_fail or (on_contacts and contact_fail)
        terminated[i] = done or (check_ori and not (anchor_dgz <= thr[2]))
        _write_anchor_i(m_pos, m_quat, r_pos, r_quat, rot, actor, critic, i)
        _write_base_i(linvel, gyro, noise_lin, noise_gyro, add_noise, tail, actor, critic, i)
