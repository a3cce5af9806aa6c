"""The motion-tracking observation terms ``motion.tracking.observation.<source>.v1`` and the
source of each actor block.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from termplan.spec import (
    NumpyContext,
    ParamKind,
    ParamSpec,
    TermConfig,
    TermDefinition,
    TermKind,
    VectorSource,
)
from termplan.tasks.motion_tracking.terms.inputs import INPUTS, B, J, inputs_of

#: Workspace-backed sources: name -> (width, element template, axis, per-iteration, needs).
_GEOMETRY_SOURCES: dict[str, tuple[int, str, str | None, int, tuple[str, ...]]] = {
    "motion_anchor_pos_b": (3, "apb{c}", None, 1, ("anchor_pos_b",)),
    "motion_anchor_ori_b": (6, "aob{c}", None, 1, ("anchor_ori_b",)),
    "robot_body_pos_b": (3 * B, "bpb{c}", "body", 3, ("body_pos_b",)),
    "robot_body_ori_b": (6 * B, "bob{c}", "body", 6, ("body_ori_b",)),
    "joint_pos_rel": (J, "jpr", "joint", 1, ("jpr",)),
}


#: Noisy actor sources: name -> (clean source, noise input).
_NOISY: dict[str, tuple[str, str]] = {
    "noisy_linvel": ("linvel", "noise_linvel"),
    "noisy_gyro": ("gyro", "noise_gyro"),
    "noisy_joint_pos_rel": ("joint_pos_rel", "noise_joint_pos"),
    "noisy_dof_vel": ("dof_vel", "noise_dof_vel"),
}


def vector_sources() -> list[VectorSource]:
    """The geometry-backed and the noisy observation sources."""
    out = []
    for name, (width, element, axis, per_iter, needs) in _GEOMETRY_SOURCES.items():
        if axis is None:
            out.append(VectorSource(name, width, element, needs=needs))
        else:
            out.append(VectorSource(name, width, element, axis, per_iter, needs))
    out += [
        VectorSource(
            "noisy_linvel", 3, "(in_linvel[i, {c}] + in_noise_linvel[i, {c}])",
            inputs=("linvel", "noise_linvel"),
        ),
        VectorSource(
            "noisy_gyro", 3, "(in_gyro[i, {c}] + in_noise_gyro[i, {c}])",
            inputs=("gyro", "noise_gyro"),
        ),
        VectorSource(
            "noisy_joint_pos_rel", J, "(jpr + in_noise_joint_pos[i, j])", "joint", 1, ("jpr",),
            ("noise_joint_pos",),
        ),
        VectorSource(
            "noisy_dof_vel", J, "(in_dof_vel[i, j] + in_noise_dof_vel[i, j])", "joint",
            inputs=("dof_vel", "noise_dof_vel"),
        ),
    ]  # fmt: skip
    return out


def _np_source(name: str) -> Callable[[NumpyContext], np.ndarray]:
    if name in _GEOMETRY_SOURCES:
        return lambda ctx: ctx.memo[name]
    if name in _NOISY:
        clean, noise = _NOISY[name]
        get = _np_source(clean)
        return lambda ctx: get(ctx) + ctx.inputs[noise]
    return lambda ctx: ctx.inputs[name]


def observation_definition(label: str, sources: tuple[str, ...]) -> TermDefinition:
    """The observation term ``label``: its ``sources`` concatenated, times ``multiplier``."""
    getters = [_np_source(s) for s in sources]
    names: list[str] = []
    for s in sources:
        clean, noise = _NOISY.get(s, (s, ""))
        names += [n for n in (clean, noise) if n in INPUTS]

    def numpy_fn(ctx: NumpyContext) -> np.ndarray:
        parts = [np.asarray(g(ctx)).reshape(ctx.num_envs, -1) for g in getters]
        values = np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
        mult = ctx.params["multiplier"]
        return values if mult == 1.0 else values * mult

    return TermDefinition(
        f"motion.tracking.observation.{label}.v1",
        TermKind.OBSERVATION,
        inputs_of(*dict.fromkeys(names)),
        numpy_fn,
        (ParamSpec("multiplier", ParamKind.FLOAT, 1.0),),
        sources=sources,
    )


#: Observation term label -> sources it concatenates.
OBSERVATIONS: dict[str, tuple[str, ...]] = {
    "command": ("joint_pos", "joint_vel"),
    **{name: (name,) for name in _GEOMETRY_SOURCES},
    **{name: (name,) for name in _NOISY},
    **{name: (name,) for name in ("linvel", "gyro", "dof_vel", "current_actions")},
}


#: Actor block -> (clean source label, noisy source label).
ACTOR_SOURCES: dict[str, tuple[str, str]] = {
    "command": ("command", "command"),
    "anchor_pos": ("motion_anchor_pos_b", "motion_anchor_pos_b"),
    "anchor_ori": ("motion_anchor_ori_b", "motion_anchor_ori_b"),
    "linvel": ("linvel", "noisy_linvel"),
    "gyro": ("gyro", "noisy_gyro"),
    "joint_pos": ("joint_pos_rel", "noisy_joint_pos_rel"),
    "dof_vel": ("dof_vel", "noisy_dof_vel"),
    "actions": ("current_actions", "current_actions"),
}


def obs_config(group: str, block: str, label: str) -> TermConfig:
    """The config of observation block ``block`` of ``group``, read from source ``label``."""
    key = f"motion.tracking.observation.{label}.v1"
    return TermConfig(f"{group}.{block}", key, 1.0, {}, group)
