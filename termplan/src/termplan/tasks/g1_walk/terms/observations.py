"""The G1 walk observation terms ``g1.walk.observation.<source>.v1`` and their layout configs."""

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
from termplan.tasks.g1_walk.config import (
    ObsSlot,
)
from termplan.tasks.g1_walk.terms.fragments import np_dq
from termplan.tasks.g1_walk.terms.inputs import INPUTS, J, inputs_of

#: Source name -> (vector source or None for a plain input, NumPy getter).
_NOISY = {
    "noisy_gyro": ("gyro", "noise_gyro"),
    "noisy_gravity": ("gravity", "noise_gravity"),
    "noisy_dof_pos_diff": ("dof_pos_diff", "noise_dof_pos"),
    "noisy_dof_vel": ("dof_vel", "noise_dof_vel"),
}


def vector_sources() -> list[VectorSource]:
    """The derived observation sources (joint offsets and the noisy actor copies)."""
    return [
        VectorSource("dof_pos_diff", J, "dq", "joint", needs=("dq",)),
        VectorSource(
            "noisy_gyro",
            3,
            "(in_gyro[i, {c}] + in_noise_gyro[i, {c}])",
            inputs=("gyro", "noise_gyro"),
        ),
        VectorSource(
            "noisy_gravity",
            3,
            "(in_gravity[i, {c}] + in_noise_gravity[i, {c}])",
            inputs=("gravity", "noise_gravity"),
        ),
        VectorSource(
            "noisy_dof_pos_diff",
            J,
            "(dq + in_noise_dof_pos[i, j])",
            "joint",
            needs=("dq",),
            inputs=("noise_dof_pos",),
        ),
        VectorSource(
            "noisy_dof_vel",
            J,
            "(in_dof_vel[i, j] + in_noise_dof_vel[i, j])",
            "joint",
            inputs=("dof_vel", "noise_dof_vel"),
        ),
    ]


def _np_source(name: str) -> Callable[[NumpyContext], np.ndarray]:
    if name == "dof_pos_diff":
        return np_dq
    if name in _NOISY:
        base, noise = _NOISY[name]
        get = _np_source(base)
        return lambda ctx: get(ctx) + ctx.inputs[noise]
    return lambda ctx: ctx.inputs[name]


def observation_definition(source: str, default_angles: tuple[float, ...]) -> TermDefinition:
    """The observation term copying ``source`` (times its ``multiplier`` parameter)."""
    get = _np_source(source)
    needs_dq = "dof_pos_diff" in source
    base = _NOISY.get(source, (source, None))
    names = [n for n in (base[0], base[1]) if n is not None and n in INPUTS]
    if needs_dq:
        names.append("dof_pos")
    params = [ParamSpec("multiplier", ParamKind.FLOAT, 1.0)]
    if needs_dq:
        params.append(ParamSpec("default_angles", ParamKind.FLOATS, default_angles))

    def numpy_fn(ctx: NumpyContext) -> np.ndarray:
        values = get(ctx)
        mult = ctx.params["multiplier"]
        return values if mult == 1.0 else values * mult

    return TermDefinition(
        f"g1.walk.observation.{source}.v1",
        TermKind.OBSERVATION,
        inputs_of(*names),
        numpy_fn,
        tuple(params),
        sources=(source,),
    )


OBS_SOURCES: tuple[str, ...] = (
    "gyro",
    "gravity",
    "dof_pos_diff",
    "dof_vel",
    "current_actions",
    "commands",
    "gait_phase",
    "linvel",
    *_NOISY,
)


def obs_configs(
    layout: tuple[ObsSlot, ...], group: str, walk: bool, noise: bool
) -> list[TermConfig]:
    """Term configs of one observation group, slot by slot (noisy sources when ``noise``)."""
    configs = []
    for slot in layout:
        source = slot.source
        if noise and slot.noise is not None:
            source = "noisy_" + source
        params = {"multiplier": slot.multiplier(walk)}
        configs.append(
            TermConfig(
                f"{group}.{slot.name}", f"g1.walk.observation.{source}.v1", 1.0, params, group
            )
        )
    return configs
