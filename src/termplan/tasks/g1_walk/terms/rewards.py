"""The G1 walk reward terms: ``g1.walk.reward.<formula>.v1`` (22 reward names share 19
formulas), each with its generated expression and its NumPy implementation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

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
from termplan.tasks.g1_walk.config import (
    POSE_WEIGHTS,
    UPPER_BODY_POSE_WEIGHTS,
    RewardConfig,
)
from termplan.tasks.g1_walk.terms.fragments import ANG_ERR, LIN_ERR, TWO_PI, gait_fragments, np_dq
from termplan.tasks.g1_walk.terms.inputs import as_f64, inputs_of, max_nan


def _bezier(ctx: NumpyContext) -> tuple[np.ndarray, np.ndarray]:
    swing = ctx.params["feet_phase_swing_height"]
    x = (np.fmod(as_f64(ctx.inputs["gait_phase"]) + np.pi, TWO_PI) - np.pi + np.pi) / TWO_PI
    up = x > 0.5
    t = np.where(up, 2.0 * x - 1.0, 2.0 * x)
    s = t * (t * (3.0 - 2.0 * t))
    h = np.where(up, swing * (1.0 - s), swing * s)
    fwd = max_nan(as_f64(ctx.inputs["linvel"][:, 0]), 0.0)
    gate = (fwd >= ctx.params["min_forward_speed_for_gait_reward"]).astype(np.float64)
    return h, gate


def _np_tracking_lin_vel(ctx: NumpyContext) -> np.ndarray:
    err = as_f64(ctx.inputs["commands"][:, :2]) - as_f64(ctx.inputs["linvel"][:, :2])
    return np.exp(-(np.sum(err * err, axis=1) / ctx.params["tracking_sigma"]))


def _np_tracking_ang_vel(ctx: NumpyContext) -> np.ndarray:
    err = as_f64(ctx.inputs["commands"][:, 2]) - as_f64(ctx.inputs["gyro"][:, 2])
    return np.exp(-((err * err) / ctx.params["tracking_sigma"]))


def _np_forward(ctx: NumpyContext) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    fwd = max_nan(as_f64(ctx.inputs["linvel"][:, 0]), 0.0)
    cx = as_f64(ctx.inputs["commands"][:, 0])
    return fwd, cx, np.maximum(cx, 1e-6)


def _np_forward_progress(ctx: NumpyContext) -> np.ndarray:
    fwd, _, den = _np_forward(ctx)
    return np.minimum(fwd / den, 1.0)


def _np_under_speed(ctx: NumpyContext) -> np.ndarray:
    fwd, cx, den = _np_forward(ctx)
    return np.maximum(cx - fwd, 0.0) / den


def _np_square_pair(name: str, a: int, b: int) -> Callable[[NumpyContext], np.ndarray]:
    def fn(ctx: NumpyContext) -> np.ndarray:
        x = as_f64(ctx.inputs[name])
        return x[:, a] * x[:, a] + x[:, b] * x[:, b]

    return fn


def _np_lin_vel_z(ctx: NumpyContext) -> np.ndarray:
    vz = as_f64(ctx.inputs["linvel"][:, 2])
    return vz * vz


def _np_action_rate(ctx: NumpyContext) -> np.ndarray:
    diff = as_f64(ctx.inputs["current_actions"] - ctx.inputs["last_actions"])
    return np.sum(diff * diff, axis=1)


def _np_weighted_pose(weights: np.ndarray) -> Callable[[NumpyContext], np.ndarray]:
    def fn(ctx: NumpyContext) -> np.ndarray:
        dq = as_f64(np_dq(ctx))
        return np.sum(weights * (dq * dq), axis=1)

    return fn


def _np_base_height(ctx: NumpyContext) -> np.ndarray:
    dh = as_f64(ctx.inputs["base_height"]) - ctx.params["base_height_target"]
    return dh * dh


def _np_feet_ori(ctx: NumpyContext) -> np.ndarray:
    left, right = as_f64(ctx.inputs["left_foot_quat"]), as_f64(ctx.inputs["right_foot_quat"])
    return left[:, 1] ** 2 + left[:, 2] ** 2 + right[:, 1] ** 2 + right[:, 2] ** 2


def _np_feet_z(ctx: NumpyContext) -> tuple[np.ndarray, np.ndarray]:
    return as_f64(ctx.inputs["left_foot_pos"][:, 2]), as_f64(ctx.inputs["right_foot_pos"][:, 2])


def _np_feet_phase(ctx: NumpyContext) -> np.ndarray:
    h, gate = _bezier(ctx)
    zl, zr = _np_feet_z(ctx)
    err = (zl - h[:, 0]) ** 2 + (zr - h[:, 1]) ** 2
    return np.exp(-(err / ctx.params["feet_phase_tracking_sigma"])) * gate


def _np_feet_phase_contrast(ctx: NumpyContext) -> np.ndarray:
    h, gate = _bezier(ctx)
    zl, zr = _np_feet_z(ctx)
    c = (zl - zr) - (h[:, 0] - h[:, 1])
    return np.exp(-((c * c) / ctx.params["feet_phase_tracking_sigma"])) * gate


def _np_feet_phase_contact(ctx: NumpyContext) -> np.ndarray:
    h, gate = _bezier(ctx)
    stance = h <= 0.5 * ctx.params["feet_phase_swing_height"]
    left = ctx.inputs["left_contact"] == stance[:, 0]
    right = ctx.inputs["right_contact"] == stance[:, 1]
    return 0.5 * (left.astype(np.float64) + right) * gate


def _np_feet_double_stance(ctx: NumpyContext) -> np.ndarray:
    both = ctx.inputs["left_contact"] & ctx.inputs["right_contact"]
    return (both & (as_f64(ctx.inputs["commands"][:, 0]) > 1e-6)).astype(np.float64)


def _np_close_feet(ctx: NumpyContext) -> np.ndarray:
    left, right = ctx.inputs["left_foot_pos"], ctx.inputs["right_foot_pos"]
    dx = as_f64(left[:, 0] - right[:, 0])
    dy = as_f64(left[:, 1] - right[:, 1])
    d = np.sqrt(dx * dx + dy * dy)
    threshold = ctx.params["close_feet_threshold"]
    return np.where(d < threshold, (d - threshold) ** 2, 0.0)


def _np_feet_air_time(ctx: NumpyContext) -> np.ndarray:
    t = as_f64(ctx.inputs["feet_air_time"])
    return np.sum((t > 0.05) & (t < 0.5), axis=1).astype(np.float64)


def _np_alive(ctx: NumpyContext) -> np.ndarray:
    return np.ones(ctx.num_envs, np.float64)


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
    numpy_fn: Callable[[NumpyContext], np.ndarray],
    emit: EmitFn,
    params: tuple[ParamSpec, ...] = (),
) -> TermDefinition:
    return TermDefinition(
        f"g1.walk.reward.{formula}.v1", TermKind.REWARD, inputs_of(*inputs), numpy_fn, params, emit
    )


def _simple(value: str, needs: tuple[str, ...] = (), inputs: tuple[str, ...] = ()) -> EmitFn:
    """An emitter whose value needs no parameters."""
    return lambda p: TermCode(needs=needs, value=value, inputs=inputs)


def reward_definitions(default_angles: tuple[float, ...]) -> list[TermDefinition]:
    """Every reward formula, for the given default joint angles."""
    angles = ParamSpec("default_angles", ParamKind.FLOATS, default_angles)
    ub_weights = np.asarray(UPPER_BODY_POSE_WEIGHTS, np.float64)
    return [
        _reward(
            "tracking_lin_vel",
            ("linvel", "commands"),
            _np_tracking_lin_vel,
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
            _np_tracking_ang_vel,
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
            _np_forward_progress,
            _simple(
                "fp_ratio if (fp_ratio != fp_ratio or fp_ratio < 1.0) else 1.0",
                needs=("fp_ratio",),
            ),
        ),
        _reward(
            "under_speed",
            ("linvel", "commands"),
            _np_under_speed,
            _simple("(lag if (lag != lag or lag > 0.0) else 0.0) / cmd_den", ("lag", "cmd_den")),
        ),
        _reward(
            "lin_vel_z",
            ("linvel",),
            _np_lin_vel_z,
            _simple("float(in_linvel[i, 2]) * float(in_linvel[i, 2])", inputs=("linvel",)),
        ),
        _reward(
            "orientation",
            ("gravity",),
            _np_square_pair("gravity", 0, 1),
            _simple("tilt", ("tilt",)),
        ),
        _reward(
            "ang_vel_xy", ("gyro",), _np_square_pair("gyro", 0, 1), _simple("spin", ("spin",))
        ),
        _reward(
            "action_rate",
            ("current_actions", "last_actions"),
            _np_action_rate,
            _simple("rate_sum", ("rate_sum",)),
        ),
        _reward(
            "base_height",
            ("base_height",),
            _np_base_height,
            lambda p: TermCode(
                value=f"(float(in_base_height[i]) - {p['base_height_target']!r}) ** 2",
                inputs=("base_height",),
            ),
            (ParamSpec("base_height_target", ParamKind.FLOAT, 0.754),),
        ),
        _reward(
            "pose",
            ("dof_pos",),
            _np_weighted_pose(np.asarray(POSE_WEIGHTS, np.float64)),
            _simple("pose_sum", ("pose_sum",)),
            (angles,),
        ),
        _reward(
            "upper_body_pose",
            ("dof_pos",),
            _np_weighted_pose(ub_weights),
            _simple("upper_sum", ("upper_sum",)),
            (angles,),
        ),
        _reward(
            "feet_ori",
            ("left_foot_quat", "right_foot_quat"),
            _np_feet_ori,
            _simple("feet_ori", ("feet_ori",)),
        ),
        _reward(
            "feet_phase",
            _GAIT_INPUTS,
            _np_feet_phase,
            _emit_gait(
                "math.exp(-(((zl - h_l) * (zl - h_l) + (zr - h_r) * (zr - h_r)) / {sig})) * gate",
                ("feet_z",),
            ),
            _GAIT_PARAMS,
        ),
        _reward(
            "feet_phase_contrast",
            _GAIT_INPUTS,
            _np_feet_phase_contrast,
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
            _np_feet_phase_contact,
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
            _np_feet_double_stance,
            _simple(
                "1.0 if (in_left_contact[i] and in_right_contact[i] and cx > 1e-6) else 0.0",
                ("cx", "contacts"),
            ),
        ),
        _reward("alive", (), _np_alive, _simple("1.0")),
        _reward(
            "penalty_close_feet_xy",
            ("left_foot_pos", "right_foot_pos"),
            _np_close_feet,
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
            _np_feet_air_time,
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
