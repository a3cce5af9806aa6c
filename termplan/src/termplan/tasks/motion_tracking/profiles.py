"""Reward scale profiles of the G1 motion-tracking task: the benchmark's three and the owners'.

The benchmark profiles follow upstream ``benchmark_g1_motion_tracking_numba.py``; the owner
variants are real training configurations, each of which must construct on every path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final

import numpy as np

from termplan.arrays import check_parameters
from termplan.errors import TermPlanError
from termplan.plan import check_weight
from termplan.tasks.motion_tracking.config import (
    CRITIC_DIM,
    CRITIC_DIM_SAC,
    CTRL_DT,
    DEFAULT_STDS,
    TERM_INDEX,
    TERM_ORDER,
    NoiseConfig,
    Thresholds,
)


@dataclass(frozen=True)
class Profile:
    """One scale profile: which reward terms run, with which scales, stds and thresholds.

    ``scales`` maps term name to scale (terms absent or 0.0 are off). ``critic_linvel_tail``
    selects the SAC env's 289-wide critic. Unknown names are rejected by :meth:`scale_vector`
    only when their scale is non-zero, as upstream does.
    """

    name: str
    scales: MappingProxyType[str, float]
    stds: MappingProxyType[str, float] = field(default_factory=lambda: DEFAULT_STDS)
    thresholds: Thresholds = field(default_factory=Thresholds)
    critic_linvel_tail: bool = False
    terminate_on_undesired_contacts: bool = False
    check_anchor_ori: bool = True

    def __post_init__(self) -> None:
        check_parameters(f"profile {self.name!r} stds", self.stds, positive=tuple(self.stds))

    @property
    def critic_dim(self) -> int:
        """Width of the critic observation (286, or 289 with the linvel tail)."""
        return CRITIC_DIM_SAC if self.critic_linvel_tail else CRITIC_DIM

    def active_terms(self) -> tuple[str, ...]:
        """Names with a non-zero scale, in :data:`TERM_ORDER`; unknown names raise."""
        self.scale_vector()
        return tuple(n for n in TERM_ORDER if self.scales.get(n, 0.0) != 0.0)

    def scale_vector(self) -> np.ndarray:
        """The (12,) float64 scales in slot order.

        Raises
        ------
        TermPlanError
            If a term not in :data:`TERM_ORDER` has a non-zero scale, or a scale is not finite.
        """
        vec = np.zeros(len(TERM_ORDER), dtype=np.float64)
        for name, value in self.scales.items():
            if not math.isfinite(value):
                raise TermPlanError(f"profile {self.name!r}: scale of {name!r} is {value}")
            check_weight(name, value, CTRL_DT)  # 0 is the one way to switch a term off
            if name not in TERM_INDEX:
                if value != 0.0:
                    raise TermPlanError(
                        f"profile {self.name!r}: unknown reward term {name!r} with scale "
                        f"{value}; expected one of {', '.join(TERM_ORDER)}"
                    )
                continue
            vec[TERM_INDEX[name]] = value
        return vec

    def inv_var_vector(self) -> np.ndarray:
        """The (12,) float64 ``1/std**2`` in slot order (0 for the non-exp terms)."""
        vec = np.zeros(len(TERM_ORDER), dtype=np.float64)
        for name, std in self.stds.items():
            if name in TERM_INDEX:
                vec[TERM_INDEX[name]] = 1.0 / (std * std)
        return vec


def _scales(**values: float) -> MappingProxyType[str, float]:
    return MappingProxyType(dict(values))


_SAC_SCALES = _scales(
    motion_global_root_pos=0.5,
    motion_global_root_ori=0.5,
    motion_body_pos=1.0,
    motion_body_ori=1.0,
    motion_body_lin_vel=1.0,
    motion_body_ang_vel=1.0,
    motion_joint_pos=0.0,
    motion_joint_vel=0.0,
    action_rate_l2=-0.1,
    joint_limit=-2.0,
    undesired_contacts=-0.1,
)
_PPO_SCALES = _scales(
    motion_global_root_pos=1.0,
    motion_global_root_ori=0.5,
    motion_body_pos=1.0,
    motion_body_ori=1.0,
    motion_body_lin_vel=1.0,
    motion_body_ang_vel=1.0,
    motion_joint_pos=0.0,
    motion_joint_vel=0.0,
    action_rate_l2=-0.05,
    joint_limit=-10.0,
    undesired_contacts=-0.1,
)
_FULL_SCALES = _scales(
    motion_global_root_pos=1.0,
    motion_global_root_ori=0.5,
    motion_body_pos=1.0,
    motion_body_ori=1.0,
    motion_body_lin_vel=1.0,
    motion_body_ang_vel=1.0,
    motion_ee_body_pos_z=0.3,
    motion_joint_pos=0.4,
    motion_joint_vel=0.2,
    action_rate_l2=-0.1,
    joint_limit=-10.0,
    undesired_contacts=-0.1,
)

#: The benchmark profiles by name. sac_default runs in the SAC env (critic 289); the other two
#: in the base env (critic 286). All use the default thresholds and no contact termination.
PROFILE_DEFS: Final = MappingProxyType(
    {
        "sac_default": Profile("sac_default", _SAC_SCALES, critic_linvel_tail=True),
        "ppo_default": Profile("ppo_default", _PPO_SCALES),
        "full_supported": Profile("full_supported", _FULL_SCALES),
    }
)

#: Benchmark profile names, in report order.
PROFILES: Final[tuple[str, ...]] = tuple(PROFILE_DEFS)

#: Real owner configurations (not benchmark profiles): the SAC owner YAML
#: (``conf/offpolicy/task/sac/g1_motion_tracking/mujoco.yaml``, thresholds 0.5) and the
#: default ``RewardConfig`` used by the PPO owner. Every one must construct on every path.
OWNER_VARIANTS: Final = MappingProxyType(
    {
        "sac_owner_yaml": Profile(
            "sac_owner_yaml",
            _scales(
                motion_global_root_pos=1.0,
                motion_global_root_ori=0.5,
                motion_body_pos=2.0,
                motion_body_ori=1.0,
                motion_body_lin_vel=1.0,
                motion_body_ang_vel=1.0,
                motion_joint_pos=0.0,
                motion_joint_vel=0.0,
                action_rate_l2=-0.1,
                joint_limit=-2.0,
                undesired_contacts=-0.1,
            ),
            thresholds=Thresholds(anchor_pos_z=0.5, ee_body_pos_z=0.5),
            critic_linvel_tail=True,
        ),
        "reward_config_default": Profile(
            "reward_config_default",
            _scales(
                motion_global_root_pos=0.5,
                motion_global_root_ori=0.5,
                motion_body_pos=1.0,
                motion_body_ori=1.0,
                motion_body_lin_vel=1.0,
                motion_body_ang_vel=1.0,
                motion_ee_body_pos_z=0.0,
                motion_joint_pos=0.0,
                motion_joint_vel=0.0,
                action_rate_l2=-0.1,
                joint_limit=-10.0,
            ),
        ),
    }
)


#: Noise of the SAC owner YAML (level 1, joint angle 0.01, joint vel 1.5, gyro 0.2).
SAC_OWNER_NOISE: Final = NoiseConfig(level=1.0, gyro=0.2, joint_angle=0.01, joint_vel=1.5)


def resolve_profile(profile: str | Profile | None) -> Profile:
    """A profile by name (``None`` means sac_default) or a :class:`Profile` as given.

    Raises
    ------
    ValueError
        For an unknown profile name, listing the known ones.
    """
    if profile is None:
        return PROFILE_DEFS["sac_default"]
    if isinstance(profile, Profile):
        return profile
    if profile in PROFILE_DEFS:
        return PROFILE_DEFS[profile]
    if profile in OWNER_VARIANTS:
        return OWNER_VARIANTS[profile]
    known = ", ".join([*PROFILES, *OWNER_VARIANTS])
    raise ValueError(f"profile {profile!r}: expected one of {known}")
