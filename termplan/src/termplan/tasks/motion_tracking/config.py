"""Constants, reward parameters and noise settings of the G1 motion-tracking hot slice.

Everything here is public and documented because the term-plan compiler reuses it: body and
joint counts, the anchor / end-effector / undesired-contact body sets, the observation widths
and layout, the fixed 12-slot term order of the hand-written kernel, the termination
thresholds and exp-kernel widths. The scale profiles are in
:mod:`~termplan.tasks.motion_tracking.profiles`. Quaternions are scalar-first (wxyz)
throughout the task.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

import numpy as np

from termplan.arrays import check_parameters

NUM_DOF: Final = 29
NUM_BODIES: Final = 14

#: The 14 tracked bodies, in the order of every (N, 14, .) array.
BODY_NAMES: Final[tuple[str, ...]] = (
    "pelvis",
    "left_hip_roll_link",
    "left_knee_link",
    "left_ankle_roll_link",
    "right_hip_roll_link",
    "right_knee_link",
    "right_ankle_roll_link",
    "torso_link",
    "left_shoulder_roll_link",
    "left_elbow_link",
    "left_wrist_yaw_link",
    "right_shoulder_roll_link",
    "right_elbow_link",
    "right_wrist_yaw_link",
)

#: Index of the anchor body (torso_link); the reference is yaw-aligned to it.
ANCHOR: Final = 7
#: End-effector bodies (ankles and wrists).
EE_INDICES: Final[tuple[int, ...]] = (3, 6, 10, 13)
#: Bodies whose contact with the ground is undesired: every non-end-effector body.
UNDESIRED_INDICES: Final[tuple[int, ...]] = tuple(
    b for b in range(NUM_BODIES) if b not in EE_INDICES
)

#: Actor obs: command 2n + anchor pos 3 + anchor ori 6 + linvel 3 + gyro 3 + 3 x n = 5n + 15.
ACTOR_DIM: Final = 5 * NUM_DOF + 15
#: Critic obs: the actor layout (clean) + body pos 3B + body ori 6B.
CRITIC_DIM: Final = ACTOR_DIM + 9 * NUM_BODIES
#: Critic obs of the SAC env, which appends the clean base linvel (3).
CRITIC_DIM_SAC: Final = CRITIC_DIM + 3

#: Control period in seconds; the total reward is ``CTRL_DT * sum_k s_k f_k``.
CTRL_DT: Final = 0.02

#: The 12 reward slots of the hand-written kernel, in slot order.
TERM_ORDER: Final[tuple[str, ...]] = (
    "motion_global_root_pos",
    "motion_global_root_ori",
    "motion_body_pos",
    "motion_body_ori",
    "motion_body_lin_vel",
    "motion_body_ang_vel",
    "motion_ee_body_pos_z",
    "motion_joint_pos",
    "motion_joint_vel",
    "action_rate_l2",
    "joint_limit",
    "undesired_contacts",
)
TERM_INDEX: Final = MappingProxyType({name: k for k, name in enumerate(TERM_ORDER)})

#: Actor observation blocks in layout order: (name, width).
ACTOR_LAYOUT: Final[tuple[tuple[str, int], ...]] = (
    ("command", 2 * NUM_DOF),
    ("anchor_pos", 3),
    ("anchor_ori", 6),
    ("linvel", 3),
    ("gyro", 3),
    ("joint_pos", NUM_DOF),
    ("dof_vel", NUM_DOF),
    ("actions", NUM_DOF),
)
#: Critic blocks after the (clean) actor layout; ``linvel_tail`` only in the SAC env.
CRITIC_EXTRA_LAYOUT: Final[tuple[tuple[str, int], ...]] = (
    ("body_pos", 3 * NUM_BODIES),
    ("body_ori", 6 * NUM_BODIES),
    ("linvel_tail", 3),
)


def _offsets(layout: tuple[tuple[str, int], ...], start: int) -> dict[str, int]:
    out, pos = {}, start
    for name, width in layout:
        out[name] = pos
        pos += width
    return out


#: Column offset of each actor block (the critic uses the same offsets for these blocks).
ACTOR_OFFSETS: Final = MappingProxyType(_offsets(ACTOR_LAYOUT, 0))
#: Column offset of each critic-only block.
CRITIC_OFFSETS: Final = MappingProxyType(_offsets(CRITIC_EXTRA_LAYOUT, ACTOR_DIM))

#: Default joint angles q0 (n,), float64.
DEFAULT_ANGLES: Final = np.linspace(-0.2, 0.2, NUM_DOF)
#: Joint range used by the benchmark batch (+-2.5 rad on every joint).
JOINT_RANGE: Final = 2.5
JOINT_LOWER: Final = np.full(NUM_DOF, -JOINT_RANGE)
JOINT_UPPER: Final = np.full(NUM_DOF, JOINT_RANGE)
for _arr in (DEFAULT_ANGLES, JOINT_LOWER, JOINT_UPPER):
    _arr.setflags(write=False)


@dataclass(frozen=True)
class Thresholds:
    """Termination thresholds (metres, except ``anchor_ori`` which is a gravity-z gap).

    The anchor orientation test runs only when ``anchor_ori < 2`` (a gravity-z gap is at
    most 2, so a larger threshold can never fire; upstream skips it then).
    """

    anchor_pos_z: float = 0.25
    anchor_ori: float = 0.8
    ee_body_pos_z: float = 0.25
    undesired_contact_z: float = 0.05

    def __post_init__(self) -> None:
        check_parameters("Thresholds", vars(self))


#: Standard deviations of the exp-kernel terms, ``f = exp(-e / std**2)``.
DEFAULT_STDS: Final = MappingProxyType(
    {
        "motion_global_root_pos": 0.3,
        "motion_global_root_ori": 0.4,
        "motion_body_pos": 0.3,
        "motion_body_ori": 0.4,
        "motion_body_lin_vel": 1.0,
        "motion_body_ang_vel": 3.14,
        "motion_ee_body_pos_z": 0.3,
        "motion_joint_pos": 0.2,
        "motion_joint_vel": 1.0,
    }
)


@dataclass(frozen=True)
class NoiseConfig:
    """Actor-observation noise: ``x + U(-1, 1) * level * scale`` (the critic stays clean).

    Level 0 (the default, and the benchmark setting) means no noise: the paths then do not
    read the batch's noise arrays at all.
    """

    level: float = 0.0
    linvel: float = 0.1
    gyro: float = 0.1
    joint_angle: float = 0.02
    joint_vel: float = 0.3

    def __post_init__(self) -> None:
        for name in ("level", "linvel", "gyro", "joint_angle", "joint_vel"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0.0):
                raise ValueError(f"noise {name}: expected a finite value >= 0, got {value}")

    @property
    def active(self) -> bool:
        """True when the actor observations carry noise."""
        return self.level > 0.0
