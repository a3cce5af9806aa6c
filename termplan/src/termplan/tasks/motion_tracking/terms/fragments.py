"""Code builders and the registry-level fragments of the motion-tracking terms: reward sums
and joint quantities, pulled into a kernel only when an active term needs them.
"""

from __future__ import annotations

import numpy as np

from termplan.spec import (
    Constant,
    Fragment,
    fragment,
)
from termplan.tasks.motion_tracking import geometry as geo
from termplan.tasks.motion_tracking.config import (
    DEFAULT_ANGLES,
    EE_INDICES,
    JOINT_LOWER,
    JOINT_UPPER,
)
from termplan.tasks.motion_tracking.terms.inputs import F32, A


def _acos_unit(x: str) -> str:
    """Inline ``acos(x)`` on [0, 1] (the task's A&S 4.4.46 polynomial, |error| <= 2e-8)."""
    c = geo.ACOS_COEFFS
    poly = repr(c[7])
    for coeff in reversed(c[:7]):
        poly = f"({poly} * {x} + {coeff!r})"
    return f"math.sqrt(1.0 - {x}) * {poly}"


def rot6d_lines(q: str, out: str) -> tuple[str, ...]:
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


def conj_mul_lines(a: str, b: str, out: str) -> tuple[str, ...]:
    """Lines for ``out = conj(a) (x) b`` (wxyz components named ``{a}w`` ...)."""
    aw, ax, ay, az = (f"{a}{c}" for c in "wxyz")
    bw, bx, by, bz = (f"{b}{c}" for c in "wxyz")
    return (
        f"{out}w = {aw} * {bw} + {ax} * {bx} + {ay} * {by} + {az} * {bz}",
        f"{out}x = {aw} * {bx} - {ax} * {bw} - {ay} * {bz} + {az} * {by}",
        f"{out}y = {aw} * {by} + {ax} * {bz} - {ay} * {bw} - {az} * {bx}",
        f"{out}z = {aw} * {bz} - {ax} * {by} + {ay} * {bx} - {az} * {bw}",
    )


def load_lines(prefix: str, array: str, index: str, comps: str) -> tuple[str, ...]:
    """Lines loading ``in_{array}[i, {index}, k]`` as float64 into ``{prefix}{comp}``."""
    return tuple(f"{prefix}{c} = float(in_{array}[i, {index}, {k}])" for k, c in enumerate(comps))


def _angle_sq(dot: str, out: str) -> tuple[str, ...]:
    """``out = (2 acos(min(|dot|, 1)))**2`` (NaN stays NaN)."""
    return (
        f"{out}_d = abs({dot})",
        f"{out}_d = 1.0 if {out}_d > 1.0 else {out}_d",
        f"{out}_a = 2.0 * {_acos_unit(out + '_d')}",
        f"{out} = {out}_a * {out}_a",
    )


def task_fragments() -> tuple[Fragment, ...]:
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
