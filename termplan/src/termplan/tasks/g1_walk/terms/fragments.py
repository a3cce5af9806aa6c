"""Sub-expressions several G1 walk terms or observations share (each emitted once per env)."""

from __future__ import annotations

import numpy as np

from termplan.spec import (
    Constant,
    Fragment,
    NumpyContext,
    fragment,
)
from termplan.tasks.g1_walk.config import (
    POSE_WEIGHTS,
    UPPER_BODY_POSE_WEIGHTS,
    RewardConfig,
)
from termplan.tasks.g1_walk.terms.inputs import F32, F64

TWO_PI = 2.0 * np.pi


def shared_fragments(default_angles: tuple[float, ...]) -> list[Fragment]:
    """Sub-expressions several terms or observations read (emitted once each)."""
    if any(default_angles):
        dq = fragment(
            "dq",
            inputs=("dof_pos",),
            constants=(Constant("C_DEFAULT_ANGLES", default_angles, F32),),
            loop_joint="dq = in_dof_pos[i, j] - C_DEFAULT_ANGLES[j]",
        )
    else:  # zero defaults: the subtraction is the identity, emit none
        dq = fragment("dq", inputs=("dof_pos",), loop_joint="dq = in_dof_pos[i, j]")
    return [
        fragment("vx", inputs=("linvel",), env="vx = float(in_linvel[i, 0])"),
        fragment("cx", inputs=("commands",), env="cx = float(in_commands[i, 0])"),
        fragment("fwd", needs=("vx",), env="fwd = vx if (vx != vx or vx > 0.0) else 0.0"),
        fragment(
            "cmd_den", needs=("cx",), env="cmd_den = cx if (cx != cx or cx > 1e-6) else 1e-6"
        ),
        fragment(
            "tilt",
            inputs=("gravity",),
            env=(
                "gx = float(in_gravity[i, 0])",
                "gy = float(in_gravity[i, 1])",
                "tilt = gx * gx + gy * gy",
            ),
        ),
        fragment(
            "spin",
            inputs=("gyro",),
            env=(
                "wx = float(in_gyro[i, 0])",
                "wy = float(in_gyro[i, 1])",
                "spin = wx * wx + wy * wy",
            ),
        ),
        dq,
        fragment(
            "pose_sum",
            needs=("dq",),
            constants=(Constant("C_POSE_W", tuple(float(w) for w in POSE_WEIGHTS), F64),),
            env="pose_sum = 0.0",
            loop_joint="pose_sum += C_POSE_W[j] * (dq * dq)",
        ),
        fragment(
            "upper_sum",
            needs=("dq",),
            constants=(
                Constant("C_UPPER_W", tuple(float(w) for w in UPPER_BODY_POSE_WEIGHTS), F64),
            ),
            env="upper_sum = 0.0",
            loop_joint="upper_sum += C_UPPER_W[j] * (dq * dq)",
        ),
        fragment(
            "rate_sum",
            inputs=("current_actions", "last_actions"),
            env="rate_sum = 0.0",
            loop_joint=(
                "da = in_current_actions[i, j] - in_last_actions[i, j]",
                "rate_sum += da * da",
            ),
        ),
        fragment(
            "feet_z",
            inputs=("left_foot_pos", "right_foot_pos"),
            env=("zl = float(in_left_foot_pos[i, 2])", "zr = float(in_right_foot_pos[i, 2])"),
        ),
    ]


def gait_fragments(cfg: RewardConfig) -> tuple[Fragment, ...]:
    """Bezier swing heights ``h_l``/``h_r`` and the forward-speed gate (parameterised)."""
    swing = repr(float(cfg.feet_phase_swing_height))
    lines = []
    for side, col in (("l", 0), ("r", 1)):
        lines += [
            # fmod(p, 2pi) as p - 2pi * trunc(p / 2pi): same sign rule as fmod, exact by
            # Sterbenz for p in [pi, 4pi], and a rounding op instead of a libm loop.
            f"p_{side} = float(in_gait_phase[i, {col}]) + {np.pi!r}",
            f"x_{side} = (p_{side} - {TWO_PI!r} * np.trunc(p_{side} * {1.0 / TWO_PI!r})"
            f" - {np.pi!r} + {np.pi!r}) / {TWO_PI!r}",
            f"t_{side} = 2.0 * x_{side} - 1.0 if x_{side} > 0.5 else 2.0 * x_{side}",
            f"s_{side} = t_{side} * (t_{side} * (3.0 - 2.0 * t_{side}))",
            f"h_{side} = {swing} * (1.0 - s_{side}) if x_{side} > 0.5 else {swing} * s_{side}",
        ]
    min_fwd = repr(float(cfg.min_forward_speed_for_gait_reward))
    return (
        fragment("gait_heights", inputs=("gait_phase",), env=tuple(lines)),
        fragment("gait_gate", needs=("fwd",), env=f"gate = 1.0 if fwd >= {min_fwd} else 0.0"),
    )


def np_dq(ctx: NumpyContext) -> np.ndarray:
    """``dof_pos - default_angles`` in float32: the NumPy twin of the ``dq`` fragment."""
    angles = np.asarray(ctx.params["default_angles"], np.float32)
    return ctx.inputs["dof_pos"] - angles


LIN_ERR = fragment(
    "lin_err",
    needs=("vx", "cx"),
    inputs=("linvel", "commands"),
    env=("ex = cx - vx", "ey = float(in_commands[i, 1]) - float(in_linvel[i, 1])"),
)


ANG_ERR = fragment(
    "ang_err",
    inputs=("gyro", "commands"),
    env="ez = float(in_commands[i, 2]) - float(in_gyro[i, 2])",
)


EXTRA_FRAGMENTS = (
    fragment("fp_ratio", needs=("fwd", "cmd_den"), env="fp_ratio = fwd / cmd_den"),
    fragment("lag", needs=("cx", "fwd"), env="lag = cx - fwd"),
    fragment(
        "feet_ori",
        inputs=("left_foot_quat", "right_foot_quat"),
        env=(
            "ql1 = float(in_left_foot_quat[i, 1])",
            "ql2 = float(in_left_foot_quat[i, 2])",
            "qr1 = float(in_right_foot_quat[i, 1])",
            "qr2 = float(in_right_foot_quat[i, 2])",
            "feet_ori = ql1 * ql1 + ql2 * ql2 + qr1 * qr1 + qr2 * qr2",
        ),
    ),
    fragment("contacts", inputs=("left_contact", "right_contact")),
    fragment(
        "feet_xy_dist",
        inputs=("left_foot_pos", "right_foot_pos"),
        env=(
            "fdx = float(in_left_foot_pos[i, 0] - in_right_foot_pos[i, 0])",
            "fdy = float(in_left_foot_pos[i, 1] - in_right_foot_pos[i, 1])",
            "feet_d = math.sqrt(fdx * fdx + fdy * fdy)",
        ),
    ),
)


GZ_CLIP = fragment(
    "gz_clip",
    inputs=("gravity",),
    env=(
        "gz = float(in_gravity[i, 2])",
        "gz = 1.0 if gz > 1.0 else (-1.0 if gz < -1.0 else gz)",
    ),
)
