"""Reward scale profiles of the G1 walk task: the benchmark's three and the owners' YAMLs.

A :class:`Profile` is a scale per reward name plus the reward parameters. It is validated
when built: a non-zero scale for a name no path knows is a :class:`TermPlanError`, so a typo
in a config fails at construction instead of silently dropping a reward term.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import numpy as np

from termplan.errors import TermPlanError
from termplan.plan import check_weight
from termplan.tasks.g1_walk.config import (
    CTRL_DT,
    TERM_INDEX,
    TERM_ORDER,
    NoiseConfig,
    RewardConfig,
)

#: A profile in which any of these names appears uses the walk observation multipliers.
_WALK_MARKERS = ("penalty_orientation", "penalty_ang_vel_xy", "penalty_action_rate", "alive")
#: ... else, if any of these appears, it uses the plain (non-walk) multipliers.
_NON_WALK_MARKERS = ("orientation", "ang_vel_xy", "action_rate")


def uses_walk_observation(scales: Mapping[str, float], curriculum_enabled: bool = False) -> bool:
    """The upstream rule choosing the observation multipliers from the scale names.

    Membership of the name in ``scales`` counts (not the value), as upstream: walk markers win,
    then non-walk markers, else the episode-length curriculum flag decides.
    """
    if any(name in scales for name in _WALK_MARKERS):
        return True
    if any(name in scales for name in _NON_WALK_MARKERS):
        return False
    return curriculum_enabled


@dataclass(frozen=True)
class Profile:
    """One reward configuration: scales per reward name and the reward parameters.

    ``walk_observation`` is derived from the scale names (:func:`uses_walk_observation`).
    """

    name: str
    scales: Mapping[str, float]
    reward: RewardConfig = field(default_factory=RewardConfig)
    curriculum_enabled: bool = False
    walk_observation: bool = field(init=False)

    def __post_init__(self) -> None:
        clean = {}
        for term, value in self.scales.items():
            scale = float(value)
            if not math.isfinite(scale):
                raise TermPlanError(f"profile {self.name!r}: scale of {term!r} is {scale}")
            check_weight(term, scale, CTRL_DT)  # 0 is the one way to switch a term off
            if term not in TERM_INDEX and scale != 0.0:
                raise TermPlanError(
                    f"profile {self.name!r}: unknown reward term {term!r} with scale {scale}; "
                    f"known terms: {', '.join(TERM_ORDER)}"
                )
            clean[term] = scale
        object.__setattr__(self, "scales", MappingProxyType(clean))
        walk = uses_walk_observation(clean, self.curriculum_enabled)
        object.__setattr__(self, "walk_observation", walk)

    @property
    def active_terms(self) -> tuple[str, ...]:
        """Names with a non-zero scale, in :data:`TERM_ORDER` order."""
        return tuple(t for t in TERM_ORDER if self.scales.get(t, 0.0) != 0.0)

    def active_slots(self) -> tuple[tuple[int, str, float], ...]:
        """``(slot, name, scale)`` of every non-zero-scale term, in :data:`TERM_ORDER` order."""
        return tuple(
            (k, name, self.scales[name])
            for k, name in enumerate(TERM_ORDER)
            if self.scales.get(name, 0.0) != 0.0
        )

    def scale_vector(self) -> np.ndarray:
        """Scales in :data:`TERM_ORDER` slots, (22,) float64 (unknown zero-scale names drop)."""
        vector = np.zeros(len(TERM_ORDER), dtype=np.float64)
        for k, term in enumerate(TERM_ORDER):
            vector[k] = self.scales.get(term, 0.0)
        return vector


PPO_SCALES: dict[str, float] = {
    "tracking_lin_vel": 2.0,
    "tracking_ang_vel": 0.2,
    "feet_phase": 1.0,
    "lin_vel_z": -1.0,
    "ang_vel_xy": -0.25,
    "base_height": -500.0,
    "orientation": -5.0,
    "action_rate": -0.01,
    "pose": -0.1,
}
SAC_SCALES: dict[str, float] = {
    "tracking_lin_vel": 2.0,
    "tracking_ang_vel": 1.5,
    "penalty_ang_vel_xy": -1.0,
    "penalty_orientation": -10.0,
    "penalty_action_rate": -4.0,
    "pose": -0.5,
    "penalty_feet_ori": -20.0,
    "feet_phase": 5.0,
    "alive": 10.0,
}
#: The 20-term stress set of the term-plan era (every term the upstream plan supports).
FULL_SUPPORTED_PLAN_SCALES: dict[str, float] = {
    **SAC_SCALES,
    "forward_progress": 0.5,
    "under_speed": -0.5,
    "lin_vel_z": -1.0,
    "orientation": -5.0,
    "ang_vel_xy": -0.25,
    "action_rate": -0.01,
    "base_height": -500.0,
    "upper_body_pose": -0.1,
    "feet_phase_contrast": 1.0,
    "feet_phase_contact": 1.0,
    "feet_double_stance": -0.2,
}
#: The hand-written era's 22-term stress set: the 20 above plus two hand-written-only terms.
FULL_SUPPORTED_SCALES: dict[str, float] = {
    **FULL_SUPPORTED_PLAN_SCALES,
    "penalty_close_feet_xy": -2.0,
    "feet_air_time": 0.5,
}

PPO_REWARD = RewardConfig(feet_phase_tracking_sigma=0.008, min_base_height=0.55, max_tilt_deg=25.0)
SAC_REWARD = RewardConfig(feet_phase_tracking_sigma=0.04, min_base_height=0.3, max_tilt_deg=65.0)

#: Benchmark profile names, in report order.
PROFILES: tuple[str, ...] = ("ppo_default", "sac_default", "full_supported")

#: The benchmark profiles by name.
PROFILE_DEFS: dict[str, Profile] = {
    "ppo_default": Profile("ppo_default", PPO_SCALES, PPO_REWARD),
    "sac_default": Profile("sac_default", SAC_SCALES, SAC_REWARD),
    "full_supported": Profile("full_supported", FULL_SUPPORTED_SCALES, SAC_REWARD),
}

#: The 20-term full profile without the two hand-written-only terms (for plan-based paths).
FULL_SUPPORTED_PLAN = Profile("full_supported_plan", FULL_SUPPORTED_PLAN_SCALES, SAC_REWARD)

#: Real owner configurations (training YAMLs), to check that every owner config constructs.
#: ``ppo_motrix`` is partial: the study names 13 of its 16 terms (5 with their YAML values,
#: the rest at the PPO benchmark values); the 3 unnamed terms are left out, not guessed.
OWNER_VARIANTS: dict[str, Profile] = {
    "sac_mujoco": Profile("sac_mujoco", SAC_SCALES, SAC_REWARD),
    "sac_motrix": Profile(
        "sac_motrix",
        {
            "tracking_lin_vel": 2.2,
            "tracking_ang_vel": 1.8,
            "penalty_ang_vel_xy": -1.2,
            "penalty_orientation": -12.0,
            "penalty_action_rate": -2.5,
            "pose": -0.6,
            "penalty_feet_ori": -5.0,
            "feet_phase": 6.0,
            "alive": 12.0,
        },
        replace(SAC_REWARD, feet_phase_tracking_sigma=0.008),
    ),
    "ppo_motrix": Profile(
        "ppo_motrix",
        {
            **PPO_SCALES,
            "feet_phase_contrast": 1.5,
            "feet_phase_contact": 1.0,
            "feet_double_stance": -1.0,
            "base_height": -120.0,
            "upper_body_pose": -0.05,
        },
        replace(
            PPO_REWARD,
            min_forward_speed_for_gait_reward=0.05,
            base_height_target=0.765,
            min_base_height=0.5,
            max_tilt_deg=35.0,
        ),
    ),
}

#: Observation noise of the owner YAMLs (``ppo_motrix`` gravity scale not recorded: default).
OWNER_NOISE: dict[str, NoiseConfig] = {
    "sac_mujoco": NoiseConfig(level=1.0, gyro=0.0, gravity=0.0, joint_angle=0.01, joint_vel=0.1),
    "ppo_motrix": NoiseConfig(level=1.0, gyro=0.2, joint_angle=0.01, joint_vel=1.5),
}


def get_profile(name: str) -> Profile:
    """A benchmark profile or owner variant by name; unknown names are a ValueError."""
    known = {**PROFILE_DEFS, **OWNER_VARIANTS, FULL_SUPPORTED_PLAN.name: FULL_SUPPORTED_PLAN}
    if name not in known:
        raise ValueError(f"profile {name!r}: expected one of {', '.join(known)}")
    return known[name]


def resolve_profile(profile: str | Profile, scales: Mapping[str, float] | None = None) -> Profile:
    """Turn a name or :class:`Profile` (plus optional replacement ``scales``) into a Profile.

    ``scales`` replaces the whole scale set and keeps the profile's reward parameters; the
    result is validated like any profile (unknown active term -> :class:`TermPlanError`).
    """
    if isinstance(profile, str):
        base = get_profile(profile)
    elif isinstance(profile, Profile):
        base = profile
    else:
        raise ValueError(f"profile: expected a name or Profile, got {type(profile).__name__}")
    if scales is None:
        return base
    return Profile(f"{base.name}+custom", dict(scales), base.reward, base.curriculum_enabled)
