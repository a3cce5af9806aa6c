"""The G1 walk task as declarative terms, by kind: inputs, shared fragments, rewards,
termination, observations.

Keys: ``g1.walk.reward.<formula>.v1`` (:mod:`.rewards`), ``g1.walk.termination.tilt_or_height.v1``
(:mod:`.termination`), ``g1.walk.observation.<source>.v1`` (:mod:`.observations`).
Formulas and NaN rules follow the :mod:`termplan.tasks.g1_walk` docstring: float32 state is
loaded and widened to float64 (sums accumulate in float64); ``max``/``min`` propagate NaN; the
termination treats NaN as "terminate". :func:`build_plan` turns a profile into a plan.
"""

from __future__ import annotations

import functools

import numpy as np

from termplan.plan import ResolvedPlan, resolve_plan
from termplan.registry import TermRegistry
from termplan.spec import Axis, TermConfig
from termplan.tasks.g1_walk.config import (
    ACTOR_LAYOUT,
    CRITIC_LAYOUT,
    CTRL_DT,
    TERM_FORMULA,
    TERM_ORDER,
)
from termplan.tasks.g1_walk.profiles import Profile
from termplan.tasks.g1_walk.terms.fragments import EXTRA_FRAGMENTS, GZ_CLIP, shared_fragments
from termplan.tasks.g1_walk.terms.inputs import INPUTS, J
from termplan.tasks.g1_walk.terms.observations import (
    OBS_SOURCES,
    obs_configs,
    observation_definition,
    vector_sources,
)
from termplan.tasks.g1_walk.terms.rewards import reward_definitions, reward_parameters
from termplan.tasks.g1_walk.terms.termination import termination_definition

__all__ = ["build_plan", "make_registry", "plan_configs"]


@functools.lru_cache(maxsize=8)
def make_registry(default_angles: tuple[float, ...] = (0.0,) * J) -> TermRegistry:
    """The G1 walk term registry for given default joint angles (cached per vector)."""
    reg = TermRegistry("g1_walk", axes=(Axis("joint", J, "j"),))
    for spec in INPUTS.values():
        reg.add_input(spec)
    for frag in (*shared_fragments(default_angles), *EXTRA_FRAGMENTS, GZ_CLIP):
        reg.add_fragment(frag)
    for vector in vector_sources():
        reg.add_source(vector)
    for definition in reward_definitions(default_angles):
        reg.register(definition)
    reg.register(termination_definition())
    for name in OBS_SOURCES:
        reg.register(observation_definition(name, default_angles))
    return reg


def plan_configs(profile: Profile, noise: bool) -> tuple[list[TermConfig], tuple[str, ...]]:
    """Term configs of ``profile``: all 22 rewards in TERM_ORDER (zero scales included, the
    resolver drops them), the termination, then the actor and critic observations.

    Unlike upstream's plan, the two formerly hand-written-only terms (close feet, air time)
    are plan terms too, so the 22-term ``full_supported`` profile runs on every path.
    """
    configs = []
    for name in TERM_ORDER:
        formula = TERM_FORMULA[name]
        params = reward_parameters(formula, profile.reward)
        configs.append(
            TermConfig(name, f"g1.walk.reward.{formula}.v1", profile.scales.get(name, 0.0), params)
        )
    configs.append(
        TermConfig(
            "terminated",
            "g1.walk.termination.tilt_or_height.v1",
            1.0,
            {
                "max_tilt_rad": profile.reward.max_tilt_rad,
                "min_base_height": profile.reward.min_base_height,
            },
        )
    )
    configs += obs_configs(ACTOR_LAYOUT, "obs", profile.walk_observation, noise)
    configs += obs_configs(CRITIC_LAYOUT, "critic", profile.walk_observation, False)
    return configs, ("obs", "critic")


def build_plan(
    profile: Profile, noise: bool = False, default_angles: np.ndarray | None = None
) -> ResolvedPlan:
    """Resolve the plan of ``profile`` (``noise`` selects the noisy actor sources)."""
    angles = tuple(float(a) for a in (default_angles if default_angles is not None else [0.0] * J))
    configs, groups = plan_configs(profile, noise)
    if any(angles):
        configs = [_with_angles(c, angles) for c in configs]
    return resolve_plan(make_registry(angles), configs, groups, CTRL_DT)


def _with_angles(config: TermConfig, angles: tuple[float, ...]) -> TermConfig:
    if config.key.endswith((".pose.v1", ".upper_body_pose.v1")) or "dof_pos_diff" in config.key:
        return TermConfig(
            config.name,
            config.key,
            config.scale,
            {**config.parameters, "default_angles": angles},
            config.group,
        )
    return config
