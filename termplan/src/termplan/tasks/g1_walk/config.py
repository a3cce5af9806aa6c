"""Constants of the G1 walk hot slice: dimensions, reward term order, reward parameters and
the observation layout.

Every path (NumPy, hand-written Numba, plan-assembled Numba) and the term-plan compiler read
their constants from here, so a number is written exactly once. Values follow the upstream
G1 joystick task (29-DoF ``G1WalkFlat``) and its benchmark.

Observation layout: every slot is a scaled copy ``out[i, offset + j] = source[i, j] *
multiplier``. Actor slots with a ``noise`` field read ``source + noise`` when noise is enabled
(``noisy_x * mult``, as upstream); the critic always sees clean values. The multiplier depends
on the profile's walk-observation flag
(:func:`termplan.tasks.g1_walk.profiles.uses_walk_observation`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from termplan.arrays import check_parameters

#: Joints of the 29-DoF G1 (also the action dimension).
NUM_DOF = 29
#: Actor observation width: gyro 3 + gravity 3 + dof_pos 29 + dof_vel 29 + actions 29
#: + commands 3 + gait_phase 2.
ACTOR_DIM = 98
#: Critic observation width: the (clean) actor layout plus the local linear velocity (3).
CRITIC_DIM = 101
#: Control period in seconds; the step reward is ``CTRL_DT * sum_k scale_k * term_k``.
CTRL_DT = 0.02

#: Every reward name the hand-written kernel knows, in its fixed slot order (scale slot k).
#: Several names share one formula (``orientation``/``penalty_orientation``, ...).
TERM_ORDER: tuple[str, ...] = (
    "tracking_lin_vel",
    "tracking_ang_vel",
    "forward_progress",
    "under_speed",
    "lin_vel_z",
    "orientation",
    "penalty_orientation",
    "ang_vel_xy",
    "penalty_ang_vel_xy",
    "action_rate",
    "penalty_action_rate",
    "base_height",
    "pose",
    "upper_body_pose",
    "penalty_close_feet_xy",
    "penalty_feet_ori",
    "feet_phase",
    "feet_phase_contrast",
    "feet_phase_contact",
    "feet_double_stance",
    "feet_air_time",
    "alive",
)
#: Slot of each reward name in :data:`TERM_ORDER`.
TERM_INDEX: dict[str, int] = {name: k for k, name in enumerate(TERM_ORDER)}
#: Terms the hand-written kernel has but the upstream term plan does not (the assembled path
#: rejects a non-zero scale for them).
HANDWRITTEN_ONLY_TERMS: tuple[str, ...] = ("penalty_close_feet_xy", "feet_air_time")

#: Which formula each reward name uses (names sharing a formula share its implementation).
TERM_FORMULA: dict[str, str] = {
    **{name: name for name in TERM_ORDER},
    "penalty_orientation": "orientation",
    "penalty_ang_vel_xy": "ang_vel_xy",
    "penalty_action_rate": "action_rate",
    "penalty_feet_ori": "feet_ori",
}

#: Leg joints (2 x 6) come first; the remaining 17 are waist and arms.
NUM_LEG_DOF = 12


@dataclass(frozen=True)
class RewardConfig:
    """Reward and termination parameters (defaults: the sac_default benchmark profile).

    Attributes
    ----------
    tracking_sigma:
        Width of the velocity-tracking exponentials.
    gait_frequency:
        Gait frequency in Hz (the owner advances the phase; listed for completeness).
    feet_phase_swing_height:
        Peak swing height ``H`` of the Bezier foot trajectory, metres.
    feet_phase_tracking_sigma:
        Width of the foot-height tracking exponentials.
    min_forward_speed_for_gait_reward:
        Gait rewards are gated by ``max(v_x, 0) >= this`` (0 means always on).
    base_height_target:
        Target of the ``base_height`` penalty, metres.
    min_base_height:
        Terminate below this base height, metres.
    max_tilt_deg:
        Terminate when the body tilts more than this from upright, degrees.
    close_feet_threshold:
        Feet closer than this (xy distance) are penalised, metres.
    """

    tracking_sigma: float = 0.25
    gait_frequency: float = 1.5
    feet_phase_swing_height: float = 0.09
    feet_phase_tracking_sigma: float = 0.04
    min_forward_speed_for_gait_reward: float = 0.0
    base_height_target: float = 0.754
    min_base_height: float = 0.3
    max_tilt_deg: float = 65.0
    close_feet_threshold: float = 0.15

    def __post_init__(self) -> None:
        widths = ("tracking_sigma", "feet_phase_tracking_sigma")
        check_parameters("RewardConfig", vars(self), positive=widths)

    @property
    def max_tilt_rad(self) -> float:
        """The tilt limit in radians."""
        return float(np.radians(self.max_tilt_deg))

    @property
    def min_upright_gz(self) -> float:
        """What the termination compares gravity z against (:func:`min_upright_gz`)."""
        return min_upright_gz(self.max_tilt_rad)


def min_upright_gz(max_tilt_rad: float) -> float:
    """``cos(max_tilt_rad)``: a row is upright when ``clip(g_z, -1, 1) >= cos(max_tilt_rad)``.

    The same as ``acos(clip(g_z)) <= max_tilt_rad`` (``acos`` is decreasing), but every path
    compares against this one float64 value: NumPy's ``arccos`` and libm's ``acos`` differ by
    an ulp (``arccos(0.5)``), which split the paths exactly at the limit (60 degrees, g_z 0.5).
    """
    return math.cos(max_tilt_rad)


def _pose_weights() -> np.ndarray:
    legs = [0.01, 1.0, 5.0, 0.01, 5.0, 5.0] * 2
    weights = np.array(legs + [50.0] * (NUM_DOF - NUM_LEG_DOF), dtype=np.float64)
    weights.setflags(write=False)
    return weights


def _upper_body_weights(pose: np.ndarray) -> np.ndarray:
    weights = pose.copy()
    weights[:NUM_LEG_DOF] = 0.0
    weights.setflags(write=False)
    return weights


#: ``pose`` term weights, (29,) float64 (read-only).
POSE_WEIGHTS: np.ndarray = _pose_weights()
#: ``upper_body_pose`` weights: :data:`POSE_WEIGHTS` with the 12 leg joints zeroed.
UPPER_BODY_POSE_WEIGHTS: np.ndarray = _upper_body_weights(POSE_WEIGHTS)
#: Default joint angles, (29,) float64. Zero, as in the upstream benchmark's fake env; the
#: paths accept another vector through ``default_angles=``.
DEFAULT_ANGLES: np.ndarray = np.zeros(NUM_DOF, dtype=np.float64)
DEFAULT_ANGLES.setflags(write=False)


def check_default_angles(default_angles: np.ndarray | None) -> np.ndarray:
    """A read-only (29,) float64 copy of the default joint angles (``None``: zeros)."""
    if default_angles is None:
        return DEFAULT_ANGLES
    angles = np.asarray(default_angles, dtype=np.float64)
    if angles.shape != (NUM_DOF,) or not np.all(np.isfinite(angles)):
        raise ValueError(
            f"default_angles: expected {NUM_DOF} finite values, got shape {angles.shape}"
        )
    angles = angles.copy()
    angles.setflags(write=False)
    return angles


@dataclass(frozen=True)
class NoiseConfig:
    """Additive observation noise ``U(-1, 1) * level * scale`` (actor observations only).

    Level 0 (the default, and the benchmark's setting) means no noise: the paths ignore the
    batch's noise arrays. The owner draws the noise (:func:`batch.draw_noise`) so every path
    consumes the same numbers.
    """

    level: float = 0.0
    gyro: float = 0.1
    gravity: float = 0.05
    joint_angle: float = 0.02
    joint_vel: float = 0.3

    def __post_init__(self) -> None:
        for name in ("level", "gyro", "gravity", "joint_angle", "joint_vel"):
            value = getattr(self, name)
            if not np.isfinite(value) or value < 0:
                raise ValueError(f"NoiseConfig.{name}: expected a finite value >= 0, got {value}")

    @property
    def enabled(self) -> bool:
        """True when the actor observations get the noise arrays added."""
        return self.level > 0


@dataclass(frozen=True)
class ObsSlot:
    """One observation term.

    Attributes
    ----------
    name:
        Term label (upstream ``actor_gyro`` ...).
    source:
        Batch field copied (``dof_pos_diff`` means ``dof_pos - default_angles``).
    offset, width:
        Columns ``offset .. offset + width`` of the output row.
    walk_multiplier, plain_multiplier:
        Scale for walk profiles and for the others.
    noise:
        Batch noise field added first when noise is on (actor only), else ``None``.
    noise_scale:
        The :class:`~termplan.tasks.g1_walk.config.NoiseConfig` attribute scaling that noise.
    """

    name: str
    source: str
    offset: int
    width: int
    walk_multiplier: float = 1.0
    plain_multiplier: float = 1.0
    noise: str | None = None
    noise_scale: str | None = None

    def multiplier(self, walk: bool) -> float:
        """The multiplier for a walk (True) or plain (False) profile."""
        return self.walk_multiplier if walk else self.plain_multiplier


#: Per slot: (key, source, offset, width, walk multiplier, plain multiplier, noise, scale).
_SLOTS: tuple[tuple[str, str, int, int, float, float, str | None, str | None], ...] = (
    ("gyro", "gyro", 0, 3, 0.25, 1.0, "noise_gyro", "gyro"),
    ("gravity", "gravity", 3, 3, -1.0, -1.0, "noise_gravity", "gravity"),
    ("dof_pos", "dof_pos_diff", 6, NUM_DOF, 1.0, 1.0, "noise_dof_pos", "joint_angle"),
    ("dof_vel", "dof_vel", 35, NUM_DOF, 0.05, 1.0, "noise_dof_vel", "joint_vel"),
    ("actions", "current_actions", 64, NUM_DOF, 1.0, 1.0, None, None),
    ("commands", "commands", 93, 3, 1.0, 1.0, None, None),
    ("gait_phase", "gait_phase", 96, 2, 1.0, 1.0, None, None),
)


def _group(prefix: str, noisy: bool) -> tuple[ObsSlot, ...]:
    """The shared 98 columns; only the actor group carries noise fields."""
    return tuple(
        ObsSlot(
            f"{prefix}_{key}",
            source,
            offset,
            width,
            walk,
            plain,
            noise if noisy else None,
            scale if noisy else None,
        )
        for key, source, offset, width, walk, plain, noise, scale in _SLOTS
    )


#: Actor observation ``obs`` (N, 98): noisy when noise is enabled.
ACTOR_LAYOUT: tuple[ObsSlot, ...] = _group("actor", noisy=True)
#: Critic observation ``critic`` (N, 101): the clean actor layout plus ``linvel``.
CRITIC_LAYOUT: tuple[ObsSlot, ...] = (
    *_group("critic", noisy=False),
    ObsSlot("critic_linvel", "linvel", 98, 3, 2.0, 1.0),
)


def _check_tiles(layout: tuple[ObsSlot, ...], width: int) -> None:
    """Slots must tile ``0..width`` exactly, in order (no gap, no overlap)."""
    end = 0
    for slot in layout:
        if slot.offset != end:
            raise AssertionError(
                f"observation slot {slot.name} starts at {slot.offset}, not {end}"
            )
        end += slot.width
    if end != width:
        raise AssertionError(f"observation layout covers {end} columns, expected {width}")


_check_tiles(ACTOR_LAYOUT, ACTOR_DIM)
_check_tiles(CRITIC_LAYOUT, CRITIC_DIM)
