"""The motion-tracking preamble ``motion.tracking.preamble.transforms.v1``: the shared per-env
geometry (anchor frames, yaw alignment, per-body reference poses) as fragments, which stay
in registers; only the sources and terms that need a quantity pull its code into the kernel.
"""

from __future__ import annotations

import numpy as np

from termplan.spec import (
    Fragment,
    NumpyContext,
    TermDefinition,
    TermKind,
    fragment,
)
from termplan.tasks.motion_tracking import geometry as geo
from termplan.tasks.motion_tracking.config import (
    DEFAULT_ANGLES,
)
from termplan.tasks.motion_tracking.terms.fragments import conj_mul_lines, load_lines, rot6d_lines
from termplan.tasks.motion_tracking.terms.inputs import F64, A, B, inputs_of

PREAMBLE_KEY = "motion.tracking.preamble.transforms.v1"


def _preamble_fragments() -> tuple[Fragment, ...]:
    """Per-env geometry shared by rewards, termination and observations (registers only)."""
    rot = (
        "ra00 = 1.0 - 2.0 * (ray * ray + raz * raz)",
        "ra01 = 2.0 * (rax * ray - raw * raz)",
        "ra02 = 2.0 * (rax * raz + raw * ray)",
        "ra10 = 2.0 * (rax * ray + raw * raz)",
        "ra11 = 1.0 - 2.0 * (rax * rax + raz * raz)",
        "ra12 = 2.0 * (ray * raz - raw * rax)",
        "ra20 = 2.0 * (rax * raz - raw * ray)",
        "ra21 = 2.0 * (ray * raz + raw * rax)",
        "ra22 = 1.0 - 2.0 * (rax * rax + ray * ray)",
    )
    yaw = (
        # q = q_r[a] (x) conj(q_m[a]); yaw = atan2(ya, yb). cos/sin from the normalised
        # pair and half angles by sqrt, instead of atan2 + 4 trig calls.
        "yqw = raw * mow + rax * mox + ray * moy + raz * moz",
        "yqx = -raw * mox + rax * mow - ray * moz + raz * moy",
        "yqy = -raw * moy + rax * moz + ray * mow - raz * mox",
        "yqz = -raw * moz - rax * moy + ray * mox + raz * mow",
        "ya = 2.0 * (yqw * yqz + yqx * yqy)",
        "yb = 1.0 - 2.0 * (yqy * yqy + yqz * yqz)",
        "yr = math.sqrt(ya * ya + yb * yb)",
        "yc = 1.0 if yr == 0.0 else yb / yr",
        "ys = 0.0 if yr == 0.0 else ya / yr",
        "yt = 0.5 * (1.0 - yc)",
        "yt = 0.0 if yt < 0.0 else yt",
        "ych = math.sqrt(0.5 * (1.0 + yc))",
        "ysh = math.copysign(math.sqrt(yt), ys)",
    )
    return (
        fragment(
            "anchor_r",
            inputs=("robot_body_quat_w", "robot_body_pos_w"),
            env=(
                *load_lines("ra", "robot_body_quat_w", str(A), "wxyz"),
                *load_lines("rap", "robot_body_pos_w", str(A), "xyz"),
            ),
        ),
        fragment(
            "anchor_m",
            inputs=("body_quat_w", "body_pos_w"),
            env=(
                *load_lines("mo", "body_quat_w", str(A), "wxyz"),
                *load_lines("mop", "body_pos_w", str(A), "xyz"),
            ),
        ),
        fragment("anchor_rot", needs=("anchor_r",), env=rot),
        fragment("yaw_align", needs=("anchor_r", "anchor_m"), env=yaw),
        fragment(
            "ref_pos",
            needs=("yaw_align",),
            inputs=("body_pos_w",),
            loop_body=(
                "dmx = float(in_body_pos_w[i, b, 0]) - mopx",
                "dmy = float(in_body_pos_w[i, b, 1]) - mopy",
                "refx = yc * dmx - ys * dmy + rapx",
                "refy = ys * dmx + yc * dmy + rapy",
                "refz = float(in_body_pos_w[i, b, 2])",
            ),
        ),
        fragment(
            "robot_pos_b",
            inputs=("robot_body_pos_w",),
            loop_body=load_lines("rb", "robot_body_pos_w", "b", "xyz"),
        ),
        fragment(
            "ref_quat",
            needs=("yaw_align",),
            inputs=("body_quat_w",),
            loop_body=(
                *load_lines("mq", "body_quat_w", "b", "wxyz"),
                "refqw = ych * mqw - ysh * mqz",
                "refqx = ych * mqx - ysh * mqy",
                "refqy = ych * mqy + ysh * mqx",
                "refqz = ych * mqz + ysh * mqw",
            ),
        ),
        fragment(
            "robot_quat_b",
            inputs=("robot_body_quat_w",),
            loop_body=load_lines("rq", "robot_body_quat_w", "b", "wxyz"),
        ),
        fragment(
            "body_pos_b",
            needs=("anchor_rot", "robot_pos_b"),
            loop_body=(
                "vbx = rbx - rapx",
                "vby = rby - rapy",
                "vbz = rbz - rapz",
                "bpb0 = ra00 * vbx + ra10 * vby + ra20 * vbz",
                "bpb1 = ra01 * vbx + ra11 * vby + ra21 * vbz",
                "bpb2 = ra02 * vbx + ra12 * vby + ra22 * vbz",
            ),
        ),
        fragment(
            "body_ori_b",
            needs=("anchor_r", "robot_quat_b"),
            loop_body=(*conj_mul_lines("ra", "rq", "bq"), *rot6d_lines("bq", "bob")),
        ),
        fragment(
            "anchor_pos_b",
            needs=("anchor_rot", "anchor_m"),
            env=(
                "avx = mopx - rapx",
                "avy = mopy - rapy",
                "avz = mopz - rapz",
                "apb0 = ra00 * avx + ra10 * avy + ra20 * avz",
                "apb1 = ra01 * avx + ra11 * avy + ra21 * avz",
                "apb2 = ra02 * avx + ra12 * avy + ra22 * avz",
            ),
        ),
        fragment(
            "anchor_ori_b",
            needs=("anchor_r", "anchor_m"),
            env=(*conj_mul_lines("ra", "mo", "aq"), *rot6d_lines("aq", "aob")),
        ),
    )


def _np_preamble(ctx: NumpyContext) -> np.ndarray:
    """Fill ``ctx.memo`` with the shared geometry (float64), as the kernel's fragments do."""
    x, memo = ctx.inputs, ctx.memo
    q_m, q_r = x["body_quat_w"].astype(F64), x["robot_body_quat_w"].astype(F64)
    p_m, p_r = x["body_pos_w"].astype(F64), x["robot_body_pos_w"].astype(F64)
    q_ra, q_ma, p_ra = q_r[:, A], q_m[:, A], p_r[:, A]
    psi = geo.yaw(geo.quat_mul(q_ra, geo.quat_conjugate(q_ma)))
    c, s = np.cos(psi)[:, None], np.sin(psi)[:, None]
    d = p_m - p_m[:, A : A + 1]
    ref_pos = np.empty_like(p_m)
    ref_pos[..., 0] = c * d[..., 0] - s * d[..., 1] + p_ra[:, None, 0]
    ref_pos[..., 1] = s * d[..., 0] + c * d[..., 1] + p_ra[:, None, 1]
    ref_pos[..., 2] = p_m[..., 2]
    memo["ref_pos"] = ref_pos
    memo["ref_quat"] = geo.quat_mul(geo.yaw_quat(psi)[:, None, :], q_m)
    rot_a = geo.quat_to_matrix(q_ra)
    conj_ra = geo.quat_conjugate(q_ra)
    memo["motion_anchor_pos_b"] = geo.mat_vec(rot_a, p_m[:, A] - p_ra, transpose=True)
    memo["motion_anchor_ori_b"] = geo.rot6d(geo.quat_mul(conj_ra, q_ma))
    body_pos = geo.mat_vec(rot_a[:, None], p_r - p_ra[:, None], transpose=True)
    memo["robot_body_pos_b"] = body_pos.reshape(ctx.num_envs, 3 * B)
    body_ori = geo.rot6d(geo.quat_mul(conj_ra[:, None], q_r))
    memo["robot_body_ori_b"] = body_ori.reshape(ctx.num_envs, 6 * B)
    default = DEFAULT_ANGLES.astype(np.float32)
    memo["joint_pos_rel"] = (x["dof_pos"] - default) - x["default_dof_pos_bias"]
    return np.empty(0)


def preamble_definition() -> TermDefinition:
    """The preamble term: the shared geometry fragments and their NumPy twin."""
    return TermDefinition(
        PREAMBLE_KEY,
        TermKind.PREAMBLE,
        inputs_of("body_pos_w", "body_quat_w", "robot_body_pos_w", "robot_body_quat_w", "dof_pos",
             "default_dof_pos_bias"),
        _np_preamble,
        fragments=_preamble_fragments(),
    )  # fmt: skip
