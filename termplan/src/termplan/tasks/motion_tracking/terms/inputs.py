"""The batch fields the motion-tracking terms read."""

from __future__ import annotations

import numpy as np

from termplan.spec import (
    InputSpec,
)
from termplan.tasks.motion_tracking.config import (
    ANCHOR,
    NUM_BODIES,
    NUM_DOF,
)

A, B, J = ANCHOR, NUM_BODIES, NUM_DOF


F32 = "float32"


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


def inputs_of(*names: str) -> tuple[InputSpec, ...]:
    """The input specs of ``names``, in that order."""
    return tuple(INPUTS[n] for n in names)


F64 = np.float64
