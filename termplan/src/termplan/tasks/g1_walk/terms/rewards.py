"""The G1 walk reward terms: ``g1.walk.reward.<formula>.v1`` (22 reward names share 19
formulas), each with its generated expression; their NumPy implementation is the NumPy
path's (:class:`~termplan.tasks.g1_walk.numpy_path.NumpyTerms`), not a copy of it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from types import SimpleNamespace
from typing import Any, cast

import numpy as np

from termplan.spec import (
    EmitFn,
    NumpyContext,
    ParamKind,
    ParamSpec,
    TermCode,
    TermDefinition,
    TermKind,
)
from termplan.tasks.g1_walk.batch import G1Batch
from termplan.tasks.g1_walk.config import (
    DEFAULT_ANGLES,
    RewardConfig,
)
from termplan.tasks.g1_walk.numpy_path import GAIT_FORMULAS, NumpyTerms
from termplan.tasks.g1_walk.terms.fragments import ANG_ERR, LIN_ERR, gait_fragments
from termplan.tasks.g1_walk.terms.inputs import inputs_of

#: RewardConfig fields, the parameters a NumPy formula may take from its term's parameters.
_CONFIG_FIELDS = frozenset(f.name for f in fields(RewardConfig))


def numpy_formula(formula: str) -> Callable[[NumpyContext], np.ndarray]:
    """The NumPy path's own implementation of ``formula`` (:class:`NumpyTerms`), as the
    plan's NumPy backend runs it: one NumPy formula per term, shared by both NumPy runs.

    The term's parameters become the :class:`RewardConfig` (and default joint angles) the
    formula reads; the batch is the plan's bound inputs, read by name.
    """

    def fn(ctx: NumpyContext) -> np.ndarray:
        params = ctx.params
        cfg = RewardConfig(**{k: v for k, v in params.items() if k in _CONFIG_FIELDS})
        angles = np.asarray(params.get("default_angles", DEFAULT_ANGLES), np.float64)
        terms = NumpyTerms(ctx.num_envs, cfg, angles)
        batch = cast(G1Batch, SimpleNamespace(**ctx.inputs))  # the fields the formulas read
        terms.prepare(batch, formula in GAIT_FORMULAS)
        return terms.formula(formula)(batch)

    return fn


_SIGMA = ParamSpec("tracking_sigma", ParamKind.FLOAT, 0.25)


_GAIT_PARAMS = (
    ParamSpec("feet_phase_swing_height", ParamKind.FLOAT, 0.09),
    ParamSpec("feet_phase_tracking_sigma", ParamKind.FLOAT, 0.04),
    ParamSpec("min_forward_speed_for_gait_reward", ParamKind.FLOAT, 0.0),
)


_GAIT_INPUTS = ("linvel", "gait_phase", "left_foot_pos", "right_foot_pos")


def _gait_cfg(p: Mapping[str, Any]) -> RewardConfig:
    return RewardConfig(
        feet_phase_swing_height=p["feet_phase_swing_height"],
        feet_phase_tracking_sigma=p["feet_phase_tracking_sigma"],
        min_forward_speed_for_gait_reward=p["min_forward_speed_for_gait_reward"],
    )


def _emit_gait(value: str, extra: tuple[str, ...] = ()) -> EmitFn:
    def emit(p: Mapping[str, Any]) -> TermCode:
        sig = repr(float(p["feet_phase_tracking_sigma"]))
        half = repr(0.5 * float(p["feet_phase_swing_height"]))
        return TermCode(
            needs=("gait_heights", "gait_gate", *extra),
            value=value.format(sig=sig, half=half),
            fragments=gait_fragments(_gait_cfg(p)),
        )

    return emit


def _reward(
    formula: str,
    inputs: tuple[str, ...],
    emit: EmitFn,
    params: tuple[ParamSpec, ...] = (),
) -> TermDefinition:
    key = f"g1.walk.reward.{formula}.v1"
    numpy_fn = numpy_formula(formula)
    return TermDefinition(key, TermKind.REWARD, inputs_of(*inputs), numpy_fn, params, emit)


def _simple(value: str, needs: tuple[str, ...] = (), inputs: tuple[str, ...] = ()) -> EmitFn:
    """An emitter whose value needs no parameters."""
    return lambda p: TermCode(needs=needs, value=value, inputs=inputs)


def reward_definitions(default_angles: tuple[float, ...]) -> list[TermDefinition]:
    """Every reward formula, for the given default joint angles."""
    angles = ParamSpec("default_angles", ParamKind.FLOATS, default_angles)
    return [
        _reward(
            "tracking_lin_vel",
            ("linvel", "commands"),
            lambda p: TermCode(
                needs=("lin_err",),
                value=f"math.exp(-((ex * ex + ey * ey) / {p['tracking_sigma']!r}))",
                fragments=(LIN_ERR,),
            ),
            (_SIGMA,),
        ),
        _reward(
            "tracking_ang_vel",
            ("gyro", "commands"),
            lambda p: TermCode(
                value=f"math.exp(-((ez * ez) / {p['tracking_sigma']!r}))",
                needs=("ang_err",),
                fragments=(ANG_ERR,),
            ),
            (_SIGMA,),
        ),
        _reward(
            "forward_progress",
            ("linvel", "commands"),
            _simple(
                "fp_ratio if (fp_ratio != fp_ratio or fp_ratio < 1.0) else 1.0",
                needs=("fp_ratio",),
            ),
        ),
        _reward(
            "under_speed",
            ("linvel", "commands"),
            _simple("(lag if (lag != lag or lag > 0.0) else 0.0) / cmd_den", ("lag", "cmd_den")),
        ),
        _reward(
            "lin_vel_z",
            ("linvel",),
            _simple("float(in_linvel[i, 2]) * float(in_linvel[i, 2])", inputs=("linvel",)),
        ),
        _reward(
            "orientation",
            ("gravity",),
            _simple("tilt", ("tilt",)),
        ),
        _reward("ang_vel_xy", ("gyro",), _simple("spin", ("spin",))),
        _reward(
            "action_rate",
            ("current_actions", "last_actions"),
            _simple("rate_sum", ("rate_sum",)),
        ),
        _reward(
            "base_height",
            ("base_height",),
            lambda p: TermCode(
                value=f"(float(in_base_height[i]) - {p['base_height_target']!r}) ** 2",
                inputs=("base_height",),
            ),
            (ParamSpec("base_height_target", ParamKind.FLOAT, 0.754),),
        ),
        _reward(
            "pose",
            ("dof_pos",),
            _simple("pose_sum", ("pose_sum",)),
            (angles,),
        ),
        _reward(
            "upper_body_pose",
            ("dof_pos",),
            _simple("upper_sum", ("upper_sum",)),
            (angles,),
        ),
        _reward(
            "feet_ori",
            ("left_foot_quat", "right_foot_quat"),
            _simple("feet_ori", ("feet_ori",)),
        ),
        _reward(
            "feet_phase",
            _GAIT_INPUTS,
            _emit_gait(
                "math.exp(-(((zl - h_l) * (zl - h_l) + (zr - h_r) * (zr - h_r)) / {sig})) * gate",
                ("feet_z",),
            ),
            _GAIT_PARAMS,
        ),
        _reward(
            "feet_phase_contrast",
            _GAIT_INPUTS,
            _emit_gait(
                "math.exp(-((((zl - zr) - (h_l - h_r)) * ((zl - zr) - (h_l - h_r))) / {sig}))"
                " * gate",
                ("feet_z",),
            ),
            _GAIT_PARAMS,
        ),
        _reward(
            "feet_phase_contact",
            (*_GAIT_INPUTS, "left_contact", "right_contact"),
            _emit_gait(
                "0.5 * ((1.0 if in_left_contact[i] == (h_l <= {half}) else 0.0)"
                " + (1.0 if in_right_contact[i] == (h_r <= {half}) else 0.0)) * gate",
                ("contacts",),
            ),
            _GAIT_PARAMS,
        ),
        _reward(
            "feet_double_stance",
            ("commands", "left_contact", "right_contact"),
            _simple(
                "1.0 if (in_left_contact[i] and in_right_contact[i] and cx > 1e-6) else 0.0",
                ("cx", "contacts"),
            ),
        ),
        _reward("alive", (), _simple("1.0")),
        _reward(
            "penalty_close_feet_xy",
            ("left_foot_pos", "right_foot_pos"),
            lambda p: TermCode(
                needs=("feet_xy_dist",),
                value=f"(feet_d - {p['close_feet_threshold']!r}) ** 2 "
                f"if feet_d < {p['close_feet_threshold']!r} else 0.0",
            ),
            (ParamSpec("close_feet_threshold", ParamKind.FLOAT, 0.15),),
        ),
        _reward(
            "feet_air_time",
            ("feet_air_time",),
            _simple(
                "(1.0 if 0.05 < in_feet_air_time[i, 0] < 0.5 else 0.0)"
                " + (1.0 if 0.05 < in_feet_air_time[i, 1] < 0.5 else 0.0)",
                inputs=("feet_air_time",),
            ),
        ),
    ]


def reward_parameters(formula: str, cfg: RewardConfig) -> dict[str, float]:
    """The parameters a reward formula takes, from the profile's reward config."""
    if formula in ("tracking_lin_vel", "tracking_ang_vel"):
        return {"tracking_sigma": cfg.tracking_sigma}
    if formula.startswith("feet_phase"):
        return {
            "feet_phase_swing_height": cfg.feet_phase_swing_height,
            "feet_phase_tracking_sigma": cfg.feet_phase_tracking_sigma,
            "min_forward_speed_for_gait_reward": cfg.min_forward_speed_for_gait_reward,
        }
    if formula == "base_height":
        return {"base_height_target": cfg.base_height_target}
    if formula == "penalty_close_feet_xy":
        return {"close_feet_threshold": cfg.close_feet_threshold}
    return {}
