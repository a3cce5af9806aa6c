"""The batch fields the G1 walk terms read, and how their NumPy implementations read them."""

from __future__ import annotations

import numpy as np

from termplan.spec import (
    InputSpec,
)
from termplan.tasks.g1_walk.config import (
    NUM_DOF,
)

F32, F64 = "float32", "float64"


J = NUM_DOF


def _vec(name: str, width: int, dtype: str = F32) -> InputSpec:
    return InputSpec(name, (width,), dtype)


def _joint(name: str) -> InputSpec:
    return InputSpec(name, (J,), F32, axis="joint")


INPUTS: dict[str, InputSpec] = {
    s.name: s
    for s in (
        _vec("linvel", 3),
        _vec("gyro", 3),
        _vec("gravity", 3),
        _joint("dof_pos"),
        _joint("dof_vel"),
        _joint("current_actions"),
        _joint("last_actions"),
        _vec("commands", 3),
        _vec("gait_phase", 2),
        InputSpec("base_height", (), F32),
        _vec("left_foot_pos", 3),
        _vec("right_foot_pos", 3),
        _vec("left_foot_quat", 4),
        _vec("right_foot_quat", 4),
        InputSpec("left_contact", (), "bool"),
        InputSpec("right_contact", (), "bool"),
        _vec("feet_air_time", 2),
        _vec("noise_gyro", 3),
        _vec("noise_gravity", 3),
        _joint("noise_dof_pos"),
        _joint("noise_dof_vel"),
    )
}


def inputs_of(*names: str) -> tuple[InputSpec, ...]:
    """The input specs of ``names``, in that order."""
    return tuple(INPUTS[n] for n in names)


def as_f64(x: np.ndarray) -> np.ndarray:
    """``x`` widened to float64 (how the termination's NumPy twin reads float32 state)."""
    return np.asarray(x, np.float64)
