"""The motion-tracking task as declarative terms (preamble, 12 rewards, termination, obs).

Keys: ``motion.tracking.preamble.transforms.v1`` provides the shared per-env geometry as
fragments (anchor frames, yaw alignment, per-body reference poses), which stay in registers:
only the observation sources and terms that need a quantity pull its code into the kernel.
Rewards ``motion.tracking.reward.<name>.v1``, termination
``motion.tracking.termination.failures.v1``, observations
``motion.tracking.observation.<source>.v1``. Formulas and NaN rules follow
:mod:`termplan.tasks.motion_tracking.numpy_path` (termination fails closed and compares the
float32 differences exactly as the reference does).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from termplan.plan import ResolvedPlan, resolve_plan
from termplan.registry import TermRegistry
from termplan.spec import (
    Axis,
    Constant,
    EmitFn,
    Fragment,
    InputSpec,
    NumpyContext,
    ParamKind,
    ParamSpec,
    TermCode,
    TermConfig,
    TermDefinition,
    TermKind,
    VectorSource,
    fragment,
)
from termplan.tasks.motion_tracking import geometry as geo
from termplan.tasks.motion_tracking.config import (
    ACTOR_LAYOUT,
    ANCHOR,
    CTRL_DT,
    DEFAULT_ANGLES,
    EE_INDICES,
    JOINT_LOWER,
    JOINT_UPPER,
    NUM_BODIES,
    NUM_DOF,
    TERM_ORDER,
    UNDESIRED_INDICES,
)
from termplan.tasks.motion_tracking.profiles import Profile

A, B, J = ANCHOR, NUM_BODIES, NUM_DOF
F32 = "float32"
PREAMBLE_KEY = "motion.tracking.preamble.transforms.v1"


def _body(name: str, width: int) -> InputSpec:
    return InputSpec(name, (B, width), F32, axis="body")


def _joint(name: str) -> InputSpec:
    return InputSpec(name, (J,), F32, axis="joint")


INPUTS: dict[str, InputSpec] = {
    s.name: s
    for s in (
        _body("body_pos_w", 3),
        _body("body_quat_w", 4),
        _body("body_lin_vel_w", 3),
        _body("body_ang_vel_w", 3),
        _joint("joint_pos"),
        _joint("joint_vel"),
        _body("robot_body_pos_w", 3),
        _body("robot_body_quat_w", 4),
        _body("robot_body_lin_vel_w", 3),
        _body("robot_body_ang_vel_w", 3),
        InputSpec("linvel", (3,), F32),
        InputSpec("gyro", (3,), F32),
        _joint("dof_pos"),
        _joint("dof_vel"),
        _joint("current_actions"),
        _joint("last_actions"),
        _joint("default_dof_pos_bias"),
        InputSpec("noise_linvel", (3,), F32),
        InputSpec("noise_gyro", (3,), F32),
        _joint("noise_joint_pos"),
        _joint("noise_dof_vel"),
    )
}


def _ins(*names: str) -> tuple[InputSpec, ...]:
    return tuple(INPUTS[n] for n in names)


# --------------------------------------------------------------------------- fragments


def _acos_unit(x: str) -> str:
    """Inline ``acos(x)`` on [0, 1] (the task's A&S 4.4.46 polynomial, |error| <= 2e-8)."""
    c = geo.ACOS_COEFFS
    poly = repr(c[7])
    for coeff in reversed(c[:7]):
        poly = f"({poly} * {x} + {coeff!r})"
    return f"math.sqrt(1.0 - {x}) * {poly}"


def _rot6d(q: str, out: str) -> tuple[str, ...]:
    """Lines writing ``out0..out5`` = rot6d of quaternion ``{q}w, {q}x, {q}y, {q}z``."""
    w, x, y, z = (f"{q}{c}" for c in "wxyz")
    return (
        f"{out}0 = 1.0 - 2.0 * ({y} * {y} + {z} * {z})",
        f"{out}1 = 2.0 * ({x} * {y} - {w} * {z})",
        f"{out}2 = 2.0 * ({x} * {y} + {w} * {z})",
        f"{out}3 = 1.0 - 2.0 * ({x} * {x} + {z} * {z})",
        f"{out}4 = 2.0 * ({x} * {z} - {w} * {y})",
        f"{out}5 = 2.0 * ({y} * {z} + {w} * {x})",
    )


def _conj_mul(a: str, b: str, out: str) -> tuple[str, ...]:
    """Lines for ``out = conj(a) (x) b`` (wxyz components named ``{a}w`` ...)."""
    aw, ax, ay, az = (f"{a}{c}" for c in "wxyz")
    bw, bx, by, bz = (f"{b}{c}" for c in "wxyz")
    return (
        f"{out}w = {aw} * {bw} + {ax} * {bx} + {ay} * {by} + {az} * {bz}",
        f"{out}x = {aw} * {bx} - {ax} * {bw} - {ay} * {bz} + {az} * {by}",
        f"{out}y = {aw} * {by} + {ax} * {bz} - {ay} * {bw} - {az} * {bx}",
        f"{out}z = {aw} * {bz} - {ax} * {by} + {ay} * {bx} - {az} * {bw}",
    )


def _load(prefix: str, array: str, index: str, comps: str) -> tuple[str, ...]:
    return tuple(f"{prefix}{c} = float(in_{array}[i, {index}, {k}])" for k, c in enumerate(comps))


def _angle_sq(dot: str, out: str) -> tuple[str, ...]:
    """``out = (2 acos(min(|dot|, 1)))**2`` (NaN stays NaN)."""
    return (
        f"{out}_d = abs({dot})",
        f"{out}_d = 1.0 if {out}_d > 1.0 else {out}_d",
        f"{out}_a = 2.0 * {_acos_unit(out + '_d')}",
        f"{out} = {out}_a * {out}_a",
    )


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
                *_load("ra", "robot_body_quat_w", str(A), "wxyz"),
                *_load("rap", "robot_body_pos_w", str(A), "xyz"),
            ),
        ),
        fragment(
            "anchor_m",
            inputs=("body_quat_w", "body_pos_w"),
            env=(
                *_load("mo", "body_quat_w", str(A), "wxyz"),
                *_load("mop", "body_pos_w", str(A), "xyz"),
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
            loop_body=_load("rb", "robot_body_pos_w", "b", "xyz"),
        ),
        fragment(
            "ref_quat",
            needs=("yaw_align",),
            inputs=("body_quat_w",),
            loop_body=(
                *_load("mq", "body_quat_w", "b", "wxyz"),
                "refqw = ych * mqw - ysh * mqz",
                "refqx = ych * mqx - ysh * mqy",
                "refqy = ych * mqy + ysh * mqx",
                "refqz = ych * mqz + ysh * mqw",
            ),
        ),
        fragment(
            "robot_quat_b",
            inputs=("robot_body_quat_w",),
            loop_body=_load("rq", "robot_body_quat_w", "b", "wxyz"),
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
            loop_body=(*_conj_mul("ra", "rq", "bq"), *_rot6d("bq", "bob")),
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
            env=(*_conj_mul("ra", "mo", "aq"), *_rot6d("aq", "aob")),
        ),
    )


def _task_fragments() -> tuple[Fragment, ...]:
    """Reward sums and joint quantities (registry-level; pulled in only when needed)."""
    consts = (
        Constant("C_DEFAULT_ANGLES", tuple(float(np.float32(v)) for v in DEFAULT_ANGLES), F32),
        Constant("C_JOINT_LOWER", tuple(float(np.float32(v)) for v in JOINT_LOWER), F32),
        Constant("C_JOINT_UPPER", tuple(float(np.float32(v)) for v in JOINT_UPPER), F32),
    )
    ee_lines = tuple(
        f"eez{b} = in_body_pos_w[i, {b}, 2] - in_robot_body_pos_w[i, {b}, 2]" for b in EE_INDICES
    )
    ee_sum = " + ".join(f"float(eez{b}) * eez{b}" for b in EE_INDICES)
    return (
        fragment(
            "root_pos_err",
            needs=("anchor_r", "anchor_m"),
            env=(
                "rdx = mopx - rapx",
                "rdy = mopy - rapy",
                "rdz = mopz - rapz",
                "root_pos_err = rdx * rdx + rdy * rdy + rdz * rdz",
            ),
        ),
        fragment(
            "root_ori_err",
            needs=("anchor_r", "anchor_m"),
            env=_angle_sq("mow * raw + mox * rax + moy * ray + moz * raz", "root_ori_err"),
        ),
        fragment(
            "body_pos_sum",
            needs=("ref_pos", "robot_pos_b"),
            env="body_pos_sum = 0.0",
            loop_body=(
                "epx = refx - rbx",
                "epy = refy - rby",
                "epz = refz - rbz",
                "body_pos_sum += epx * epx + epy * epy + epz * epz",
            ),
        ),
        fragment(
            "body_ori_sum",
            needs=("ref_quat", "robot_quat_b"),
            env="body_ori_sum = 0.0",
            loop_body=(
                *_angle_sq("refqw * rqw + refqx * rqx + refqy * rqy + refqz * rqz", "boe"),
                "body_ori_sum += boe",
            ),
        ),
        _velocity_sum("body_lin_sum", "lin"),
        _velocity_sum("body_ang_sum", "ang"),
        fragment("ee_dz", inputs=("body_pos_w", "robot_body_pos_w"), env=ee_lines),
        fragment("ee_sum", needs=("ee_dz",), env=f"ee_sum = {ee_sum}"),
        _joint_sum("jpos_sum", "in_joint_pos[i, j] - in_dof_pos[i, j]", ("joint_pos", "dof_pos")),
        _joint_sum("jvel_sum", "in_joint_vel[i, j] - in_dof_vel[i, j]", ("joint_vel", "dof_vel")),
        _joint_sum(
            "rate_sum",
            "in_current_actions[i, j] - in_last_actions[i, j]",
            ("current_actions", "last_actions"),
        ),
        fragment(
            "limit_sum",
            inputs=("dof_pos",),
            constants=consts[1:],
            env="limit_sum = 0.0",
            loop_joint=(
                "vlo = C_JOINT_LOWER[j] - in_dof_pos[i, j]",
                "vhi = in_dof_pos[i, j] - C_JOINT_UPPER[j]",
                "vl = (0.0 if vlo <= 0.0 else vlo) + (0.0 if vhi <= 0.0 else vhi)",
                "limit_sum += vl * vl",
            ),
        ),
        fragment(
            "jpr",
            inputs=("dof_pos", "default_dof_pos_bias"),
            constants=consts[:1],
            loop_joint=(
                "jpr = (in_dof_pos[i, j] - C_DEFAULT_ANGLES[j])" " - in_default_dof_pos_bias[i, j]"
            ),
        ),
        fragment(
            "gz_gap",
            inputs=("body_quat_w", "robot_body_quat_w"),
            env=(
                f"gzm1 = float(in_body_quat_w[i, {A}, 1])",
                f"gzm2 = float(in_body_quat_w[i, {A}, 2])",
                f"gzr1 = float(in_robot_body_quat_w[i, {A}, 1])",
                f"gzr2 = float(in_robot_body_quat_w[i, {A}, 2])",
                "gz_gap = abs((2.0 * (gzm1 * gzm1 + gzm2 * gzm2) - 1.0)"
                " - (2.0 * (gzr1 * gzr1 + gzr2 * gzr2) - 1.0))",
            ),
        ),
    )


def _velocity_sum(name: str, kind: str) -> Fragment:
    m, r = f"body_{kind}_vel_w", f"robot_body_{kind}_vel_w"
    lines = [f"d{kind}{k} = in_{m}[i, b, {k}] - in_{r}[i, b, {k}]" for k in range(3)]
    lines.append(f"{name} += " + " + ".join(f"d{kind}{k} * d{kind}{k}" for k in range(3)))
    return fragment(name, inputs=(m, r), env=f"{name} = 0.0", loop_body=tuple(lines))


def _joint_sum(name: str, diff: str, inputs: tuple[str, ...]) -> Fragment:
    var = "d_" + name
    return fragment(
        name,
        inputs=inputs,
        env=f"{name} = 0.0",
        loop_joint=(f"{var} = {diff}", f"{name} += {var} * {var}"),
    )


# ------------------------------------------------------------------------ NumPy formulas

F64 = np.float64


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


def _exp_kernel(
    error: Callable[[NumpyContext], np.ndarray],
) -> Callable[[NumpyContext], np.ndarray]:
    def fn(ctx: NumpyContext) -> np.ndarray:
        std = ctx.params["std"]
        return np.exp(-error(ctx) / (std * std))

    return fn


def _mean_sq(diff: np.ndarray) -> np.ndarray:
    flat = diff.reshape(diff.shape[0], -1).astype(F64)
    return np.sum(flat * flat, axis=1) / diff.shape[1]


def _np_root_pos(ctx: NumpyContext) -> np.ndarray:
    d = ctx.inputs["body_pos_w"][:, A].astype(F64) - ctx.inputs["robot_body_pos_w"][:, A]
    return np.sum(d * d, axis=1)


def _np_root_ori(ctx: NumpyContext) -> np.ndarray:
    q_m = ctx.inputs["body_quat_w"][:, A].astype(F64)
    return geo.quat_angle_sq(q_m, ctx.inputs["robot_body_quat_w"][:, A].astype(F64))


def _np_body_pos(ctx: NumpyContext) -> np.ndarray:
    return _mean_sq(ctx.memo["ref_pos"] - ctx.inputs["robot_body_pos_w"])


def _np_body_ori(ctx: NumpyContext) -> np.ndarray:
    angle = geo.quat_angle_sq(ctx.memo["ref_quat"], ctx.inputs["robot_body_quat_w"].astype(F64))
    return np.mean(angle, axis=1)


def _np_diff(a: str, b: str) -> Callable[[NumpyContext], np.ndarray]:
    return lambda ctx: _mean_sq(ctx.inputs[a] - ctx.inputs[b])


def _np_ee_z(ctx: NumpyContext) -> np.ndarray:
    ee = list(EE_INDICES)
    dz = ctx.inputs["body_pos_w"][:, ee, 2] - ctx.inputs["robot_body_pos_w"][:, ee, 2]
    return _mean_sq(dz)


def _np_action_rate(ctx: NumpyContext) -> np.ndarray:
    return _mean_sq(ctx.inputs["current_actions"] - ctx.inputs["last_actions"]) * J


def _np_joint_limit(ctx: NumpyContext) -> np.ndarray:
    q = ctx.inputs["dof_pos"]
    lo = np.maximum(JOINT_LOWER.astype(np.float32) - q, 0.0)
    hi = np.maximum(q - JOINT_UPPER.astype(np.float32), 0.0)
    v = (lo + hi).astype(F64)
    return np.sum(v * v, axis=1)


def _np_undesired(ctx: NumpyContext) -> np.ndarray:
    z = ctx.inputs["robot_body_pos_w"][:, list(UNDESIRED_INDICES), 2]
    return np.sum(z < ctx.params["undesired_contact_z"], axis=1).astype(F64)


def _np_termination(ctx: NumpyContext) -> np.ndarray:
    p = ctx.params
    m_pos, r_pos = ctx.inputs["body_pos_w"], ctx.inputs["robot_body_pos_w"]
    alive = np.abs(m_pos[:, A, 2] - r_pos[:, A, 2]) <= p["anchor_pos_z"]
    if p["check_anchor_ori"] and p["anchor_ori"] < 2.0:
        gz_m = geo.gravity_z(ctx.inputs["body_quat_w"][:, A].astype(F64))
        gz_r = geo.gravity_z(ctx.inputs["robot_body_quat_w"][:, A].astype(F64))
        alive &= np.abs(gz_m - gz_r) <= p["anchor_ori"]
    ee = list(EE_INDICES)
    alive &= np.all(np.abs(m_pos[:, ee, 2] - r_pos[:, ee, 2]) <= p["ee_body_pos_z"], axis=1)
    if p["terminate_on_undesired_contacts"]:
        z = r_pos[:, list(UNDESIRED_INDICES), 2]
        alive &= np.all(z >= p["undesired_contact_z"], axis=1)
    return ~alive


# --------------------------------------------------------------------------- definitions

#: Exp-kernel rewards: name -> (error fragment, count it is averaged over, inputs, NumPy error).
_EXP_TERMS: dict[str, tuple[str, int, tuple[str, ...], Callable[[NumpyContext], np.ndarray]]] = {
    "motion_global_root_pos": (
        "root_pos_err",
        1,
        ("body_pos_w", "robot_body_pos_w"),
        _np_root_pos,
    ),
    "motion_global_root_ori": (
        "root_ori_err",
        1,
        ("body_quat_w", "robot_body_quat_w"),
        _np_root_ori,
    ),
    "motion_body_pos": (
        "body_pos_sum",
        B,
        ("body_pos_w", "body_quat_w", "robot_body_pos_w", "robot_body_quat_w"),
        _np_body_pos,
    ),
    "motion_body_ori": (
        "body_ori_sum",
        B,
        ("body_pos_w", "body_quat_w", "robot_body_pos_w", "robot_body_quat_w"),
        _np_body_ori,
    ),
    "motion_body_lin_vel": (
        "body_lin_sum",
        B,
        ("body_lin_vel_w", "robot_body_lin_vel_w"),
        _np_diff("body_lin_vel_w", "robot_body_lin_vel_w"),
    ),
    "motion_body_ang_vel": (
        "body_ang_sum",
        B,
        ("body_ang_vel_w", "robot_body_ang_vel_w"),
        _np_diff("body_ang_vel_w", "robot_body_ang_vel_w"),
    ),
    "motion_ee_body_pos_z": (
        "ee_sum",
        len(EE_INDICES),
        ("body_pos_w", "robot_body_pos_w"),
        _np_ee_z,
    ),
    "motion_joint_pos": (
        "jpos_sum",
        J,
        ("joint_pos", "dof_pos"),
        _np_diff("joint_pos", "dof_pos"),
    ),
    "motion_joint_vel": (
        "jvel_sum",
        J,
        ("joint_vel", "dof_vel"),
        _np_diff("joint_vel", "dof_vel"),
    ),
}
_STD = ParamSpec("std", ParamKind.FLOAT)


def _emit_exp(error: str, count: int) -> EmitFn:
    def emit(p: Mapping[str, Any]) -> TermCode:
        factor = -1.0 / (p["std"] * p["std"]) / count
        return TermCode(needs=(error,), value=f"math.exp({error} * {factor!r})")

    return emit


def _emit_undesired(p: Mapping[str, Any]) -> TermCode:
    thr = repr(float(p["undesired_contact_z"]))
    parts = [
        f"(1.0 if in_robot_body_pos_w[i, {b}, 2] < {thr} else 0.0)" for b in UNDESIRED_INDICES
    ]
    return TermCode(value=" + ".join(parts), inputs=("robot_body_pos_w",))


def _reward_definitions() -> list[TermDefinition]:
    defs = [
        TermDefinition(
            f"motion.tracking.reward.{name}.v1",
            TermKind.REWARD,
            _ins(*inputs),
            _exp_kernel(err_np),
            (_STD,),
            _emit_exp(err, count),
        )
        for name, (err, count, inputs, err_np) in _EXP_TERMS.items()
    ]
    defs += [
        TermDefinition(
            "motion.tracking.reward.action_rate_l2.v1", TermKind.REWARD,
            _ins("current_actions", "last_actions"), _np_action_rate,
            emit=lambda p: TermCode(needs=("rate_sum",), value="rate_sum"),
        ),
        TermDefinition(
            "motion.tracking.reward.joint_limit.v1", TermKind.REWARD, _ins("dof_pos"),
            _np_joint_limit, emit=lambda p: TermCode(needs=("limit_sum",), value="limit_sum"),
        ),
        TermDefinition(
            "motion.tracking.reward.undesired_contacts.v1", TermKind.REWARD,
            _ins("robot_body_pos_w"), _np_undesired,
            (ParamSpec("undesired_contact_z", ParamKind.FLOAT, 0.05),), _emit_undesired,
        ),
    ]  # fmt: skip
    return defs


def _emit_termination(p: Mapping[str, Any]) -> TermCode:
    checks = [
        f"abs(in_body_pos_w[i, {A}, 2] - in_robot_body_pos_w[i, {A}, 2])"
        f" <= {float(p['anchor_pos_z'])!r}"
    ]
    needs = ["ee_dz"]
    if p["check_anchor_ori"] and p["anchor_ori"] < 2.0:
        checks.append(f"gz_gap <= {float(p['anchor_ori'])!r}")
        needs.append("gz_gap")
    checks += [f"abs(eez{b}) <= {float(p['ee_body_pos_z'])!r}" for b in EE_INDICES]
    if p["terminate_on_undesired_contacts"]:
        thr = repr(float(p["undesired_contact_z"]))
        checks += [f"in_robot_body_pos_w[i, {b}, 2] >= {thr}" for b in UNDESIRED_INDICES]
    return TermCode(
        needs=tuple(needs),
        value="not (" + " and ".join(checks) + ")",
        inputs=("body_pos_w", "robot_body_pos_w"),
    )


def _termination() -> TermDefinition:
    return TermDefinition(
        "motion.tracking.termination.failures.v1",
        TermKind.TERMINATION,
        _ins("body_pos_w", "robot_body_pos_w", "body_quat_w", "robot_body_quat_w"),
        _np_termination,
        (
            ParamSpec("anchor_pos_z", ParamKind.FLOAT),
            ParamSpec("anchor_ori", ParamKind.FLOAT),
            ParamSpec("check_anchor_ori", ParamKind.BOOL, True),
            ParamSpec("ee_body_pos_z", ParamKind.FLOAT),
            ParamSpec("terminate_on_undesired_contacts", ParamKind.BOOL, False),
            ParamSpec("undesired_contact_z", ParamKind.FLOAT, 0.05),
        ),
        _emit_termination,
    )


def _preamble() -> TermDefinition:
    return TermDefinition(
        PREAMBLE_KEY,
        TermKind.PREAMBLE,
        _ins("body_pos_w", "body_quat_w", "robot_body_pos_w", "robot_body_quat_w", "dof_pos",
             "default_dof_pos_bias"),
        _np_preamble,
        fragments=_preamble_fragments(),
    )  # fmt: skip


# -------------------------------------------------------------------------- observations

#: Workspace-backed sources: name -> (width, element template, axis, per-iteration, needs).
_GEOMETRY_SOURCES: dict[str, tuple[int, str, str | None, int, tuple[str, ...]]] = {
    "motion_anchor_pos_b": (3, "apb{c}", None, 1, ("anchor_pos_b",)),
    "motion_anchor_ori_b": (6, "aob{c}", None, 1, ("anchor_ori_b",)),
    "robot_body_pos_b": (3 * B, "bpb{c}", "body", 3, ("body_pos_b",)),
    "robot_body_ori_b": (6 * B, "bob{c}", "body", 6, ("body_ori_b",)),
    "joint_pos_rel": (J, "jpr", "joint", 1, ("jpr",)),
}
#: Noisy actor sources: name -> (clean source, noise input).
_NOISY: dict[str, tuple[str, str]] = {
    "noisy_linvel": ("linvel", "noise_linvel"),
    "noisy_gyro": ("gyro", "noise_gyro"),
    "noisy_joint_pos_rel": ("joint_pos_rel", "noise_joint_pos"),
    "noisy_dof_vel": ("dof_vel", "noise_dof_vel"),
}


def _sources() -> list[VectorSource]:
    out = []
    for name, (width, element, axis, per_iter, needs) in _GEOMETRY_SOURCES.items():
        if axis is None:
            out.append(VectorSource(name, width, element, needs=needs))
        else:
            out.append(VectorSource(name, width, element, axis, per_iter, needs))
    out += [
        VectorSource(
            "noisy_linvel", 3, "(in_linvel[i, {c}] + in_noise_linvel[i, {c}])",
            inputs=("linvel", "noise_linvel"),
        ),
        VectorSource(
            "noisy_gyro", 3, "(in_gyro[i, {c}] + in_noise_gyro[i, {c}])",
            inputs=("gyro", "noise_gyro"),
        ),
        VectorSource(
            "noisy_joint_pos_rel", J, "(jpr + in_noise_joint_pos[i, j])", "joint", 1, ("jpr",),
            ("noise_joint_pos",),
        ),
        VectorSource(
            "noisy_dof_vel", J, "(in_dof_vel[i, j] + in_noise_dof_vel[i, j])", "joint",
            inputs=("dof_vel", "noise_dof_vel"),
        ),
    ]  # fmt: skip
    return out


def _np_source(name: str) -> Callable[[NumpyContext], np.ndarray]:
    if name in _GEOMETRY_SOURCES:
        return lambda ctx: ctx.memo[name]
    if name in _NOISY:
        clean, noise = _NOISY[name]
        get = _np_source(clean)
        return lambda ctx: get(ctx) + ctx.inputs[noise]
    return lambda ctx: ctx.inputs[name]


def _observation(label: str, sources: tuple[str, ...]) -> TermDefinition:
    getters = [_np_source(s) for s in sources]
    names: list[str] = []
    for s in sources:
        clean, noise = _NOISY.get(s, (s, ""))
        names += [n for n in (clean, noise) if n in INPUTS]

    def numpy_fn(ctx: NumpyContext) -> np.ndarray:
        parts = [np.asarray(g(ctx)).reshape(ctx.num_envs, -1) for g in getters]
        values = np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
        mult = ctx.params["multiplier"]
        return values if mult == 1.0 else values * mult

    return TermDefinition(
        f"motion.tracking.observation.{label}.v1",
        TermKind.OBSERVATION,
        _ins(*dict.fromkeys(names)),
        numpy_fn,
        (ParamSpec("multiplier", ParamKind.FLOAT, 1.0),),
        sources=sources,
    )


#: Observation term label -> sources it concatenates.
OBSERVATIONS: dict[str, tuple[str, ...]] = {
    "command": ("joint_pos", "joint_vel"),
    **{name: (name,) for name in _GEOMETRY_SOURCES},
    **{name: (name,) for name in _NOISY},
    **{name: (name,) for name in ("linvel", "gyro", "dof_vel", "current_actions")},
}


@functools.lru_cache(maxsize=1)
def make_registry() -> TermRegistry:
    """The motion-tracking term registry."""
    reg = TermRegistry("motion_tracking", axes=(Axis("body", B, "b"), Axis("joint", J, "j")))
    for spec in INPUTS.values():
        reg.add_input(spec)
    for frag in _task_fragments():
        reg.add_fragment(frag)
    for source in _sources():
        reg.add_source(source)
    for definition in (*_reward_definitions(), _termination(), _preamble()):
        reg.register(definition)
    for label, sources in OBSERVATIONS.items():
        reg.register(_observation(label, sources))
    return reg


# --------------------------------------------------------------------------------- plans

#: Actor block -> (clean source label, noisy source label).
_ACTOR_SOURCES: dict[str, tuple[str, str]] = {
    "command": ("command", "command"),
    "anchor_pos": ("motion_anchor_pos_b", "motion_anchor_pos_b"),
    "anchor_ori": ("motion_anchor_ori_b", "motion_anchor_ori_b"),
    "linvel": ("linvel", "noisy_linvel"),
    "gyro": ("gyro", "noisy_gyro"),
    "joint_pos": ("joint_pos_rel", "noisy_joint_pos_rel"),
    "dof_vel": ("dof_vel", "noisy_dof_vel"),
    "actions": ("current_actions", "current_actions"),
}


def plan_configs(profile: Profile, noise: bool) -> list[TermConfig]:
    """Preamble, rewards (TERM_ORDER), termination, actor obs, critic obs of ``profile``."""
    configs = [TermConfig("preamble", PREAMBLE_KEY)]
    profile.scale_vector()  # unknown active names raise TermPlanError
    th = profile.thresholds
    for name in TERM_ORDER:
        params: dict[str, Any] = {}
        if name in _EXP_TERMS:
            params["std"] = profile.stds[name]
        if name == "undesired_contacts":
            params["undesired_contact_z"] = th.undesired_contact_z
        key = f"motion.tracking.reward.{name}.v1"
        configs.append(TermConfig(name, key, profile.scales.get(name, 0.0), params))
    configs.append(
        TermConfig(
            "terminated",
            "motion.tracking.termination.failures.v1",
            1.0,
            {
                "anchor_pos_z": th.anchor_pos_z,
                "anchor_ori": th.anchor_ori,
                "check_anchor_ori": profile.check_anchor_ori,
                "ee_body_pos_z": th.ee_body_pos_z,
                "terminate_on_undesired_contacts": profile.terminate_on_undesired_contacts,
                "undesired_contact_z": th.undesired_contact_z,
            },
        )
    )
    for block, _ in ACTOR_LAYOUT:
        label = _ACTOR_SOURCES[block][1 if noise else 0]
        configs.append(_obs("obs", block, label))
    for block, _ in ACTOR_LAYOUT:
        configs.append(_obs("critic", block, _ACTOR_SOURCES[block][0]))
    configs.append(_obs("critic", "body_pos", "robot_body_pos_b"))
    configs.append(_obs("critic", "body_ori", "robot_body_ori_b"))
    if profile.critic_linvel_tail:
        configs.append(_obs("critic", "linvel_tail", "linvel"))
    return configs


def _obs(group: str, block: str, label: str) -> TermConfig:
    key = f"motion.tracking.observation.{label}.v1"
    return TermConfig(f"{group}.{block}", key, 1.0, {}, group)


def build_plan(profile: Profile, noise: bool = False) -> ResolvedPlan:
    """Resolve the plan of ``profile`` (``noise`` selects the noisy actor sources)."""
    return resolve_plan(make_registry(), plan_configs(profile, noise), ("obs", "critic"), CTRL_DT)
