"""The motion-tracking task as declarative terms, by kind: inputs, fragments, the preamble,
12 rewards, termination, observations.

Keys: ``motion.tracking.preamble.transforms.v1`` (:mod:`.preamble`), rewards
``motion.tracking.reward.<name>.v1`` (:mod:`.rewards`), termination
``motion.tracking.termination.failures.v1`` (:mod:`.termination`), observations
``motion.tracking.observation.<source>.v1`` (:mod:`.observations`). Formulas and NaN rules
follow :mod:`termplan.tasks.motion_tracking.numpy_path`. :func:`build_plan` turns a profile
into a plan.
"""

from __future__ import annotations

import functools
from typing import Any

from termplan.plan import ResolvedPlan, resolve_plan
from termplan.registry import TermRegistry
from termplan.spec import Axis, TermConfig
from termplan.tasks.motion_tracking.config import ACTOR_LAYOUT, CTRL_DT, TERM_ORDER
from termplan.tasks.motion_tracking.profiles import Profile
from termplan.tasks.motion_tracking.terms.fragments import task_fragments
from termplan.tasks.motion_tracking.terms.inputs import INPUTS, B, J
from termplan.tasks.motion_tracking.terms.observations import (
    ACTOR_SOURCES,
    OBSERVATIONS,
    obs_config,
    observation_definition,
    vector_sources,
)
from termplan.tasks.motion_tracking.terms.preamble import PREAMBLE_KEY, preamble_definition
from termplan.tasks.motion_tracking.terms.rewards import EXP_TERMS, reward_definitions
from termplan.tasks.motion_tracking.terms.termination import termination_definition

__all__ = ["build_plan", "make_registry", "plan_configs"]


@functools.lru_cache(maxsize=1)
def make_registry() -> TermRegistry:
    """The motion-tracking term registry."""
    reg = TermRegistry("motion_tracking", axes=(Axis("body", B, "b"), Axis("joint", J, "j")))
    for spec in INPUTS.values():
        reg.add_input(spec)
    for frag in task_fragments():
        reg.add_fragment(frag)
    for source in vector_sources():
        reg.add_source(source)
    for definition in (*reward_definitions(), termination_definition(), preamble_definition()):
        reg.register(definition)
    for label, sources in OBSERVATIONS.items():
        reg.register(observation_definition(label, sources))
    return reg


def plan_configs(profile: Profile, noise: bool) -> list[TermConfig]:
    """Preamble, rewards (TERM_ORDER), termination, actor obs, critic obs of ``profile``."""
    configs = [TermConfig("preamble", PREAMBLE_KEY)]
    profile.scale_vector()  # unknown active names raise TermPlanError
    th = profile.thresholds
    for name in TERM_ORDER:
        params: dict[str, Any] = {}
        if name in EXP_TERMS:
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
        label = ACTOR_SOURCES[block][1 if noise else 0]
        configs.append(obs_config("obs", block, label))
    for block, _ in ACTOR_LAYOUT:
        configs.append(obs_config("critic", block, ACTOR_SOURCES[block][0]))
    configs.append(obs_config("critic", "body_pos", "robot_body_pos_b"))
    configs.append(obs_config("critic", "body_ori", "robot_body_ori_b"))
    if profile.critic_linvel_tail:
        configs.append(obs_config("critic", "linvel_tail", "linvel"))
    return configs


def build_plan(profile: Profile, noise: bool = False) -> ResolvedPlan:
    """Resolve the plan of ``profile`` (``noise`` selects the noisy actor sources)."""
    return resolve_plan(make_registry(), plan_configs(profile, noise), ("obs", "critic"), CTRL_DT)
