"""The G1 walk task as declarative terms: inputs, shared fragments, rewards, termination, obs.

Keys: ``g1.walk.reward.<formula>.v1`` (20 plan-supported reward names share 16 formulas),
``g1.walk.termination.tilt_or_height.v1``, ``g1.walk.observation.<source>.v1``.
Formulas and NaN rules follow :mod:`termplan.tasks.g1_walk.common`: float32 state is loaded
and widened to float64 (sums accumulate in float64); ``max``/``min`` propagate NaN; the
termination treats NaN as "terminate". :func:`build_plan` turns a profile into a plan.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from termplan.plan import ResolvedPlan, resolve_plan
from termplan.registry import TermRegistry
from termplan.spec import (
    Axis,
    Constant,
    EmitFn,
    Fragment,
    InputSpec,
    NumpyContext,
    ParamKind,
    ParamSpec,
    TermCode,
    TermConfig,
    TermDefinition,
    TermKind,
    VectorSource,
    fragment,
)
from termplan.tasks.g1_walk.config import (
    CTRL_DT,
    NUM_DOF,
    POSE_WEIGHTS,
    TERM_FORMULA,
    TERM_ORDER,
    UPPER_BODY_POSE_WEIGHTS,
    RewardConfig,
    min_upright_gz,
)
from termplan.tasks.g1_walk.layout import ACTOR_LAYOUT, CRITIC_LAYOUT, ObsSlot
from termplan.tasks.g1_walk.profiles import Profile

F32, F64 = "float32", "float64"
TWO_PI = 2.0 * np.pi
J = NUM_DOF


def _vec(name: str, width: int, dtype: str = F32) -> InputSpec:
    return InputSpec(name, (width,), dtype)


def _joint(name: str) -> InputSpec:
    return InputSpec(name, (J,), F32, axis="joint")


INPUTS: dict[str, InputSpec] = {
    s.name: s
    for s in (
        _vec("linvel", 3),
        _vec("gyro", 3),
        _vec("gravity", 3),
        _joint("dof_pos"),
        _joint("dof_vel"),
        _joint("current_actions"),
        _joint("last_actions"),
        _vec("commands", 3),
        _vec("gait_phase", 2),
        InputSpec("base_height", (), F32),
        _vec("left_foot_pos", 3),
        _vec("right_foot_pos", 3),
        _vec("left_foot_quat", 4),
        _vec("right_foot_quat", 4),
        InputSpec("left_contact", (), "bool"),
        InputSpec("right_contact", (), "bool"),
        _vec("feet_air_time", 2),
        _vec("noise_gyro", 3),
        _vec("noise_gravity", 3),
        _joint("noise_dof_pos"),
        _joint("noise_dof_vel"),
    )
}


def _ins(*names: str) -> tuple[InputSpec, ...]:
    return tuple(INPUTS[n] for n in names)


def _f(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.float64)


def _maxnan(a: np.ndarray, b: float) -> np.ndarray:
    return np.maximum(a, b)


# ------------------------------------------------------------------------ fragments


def _shared_fragments(default_angles: tuple[float, ...]) -> list[Fragment]:
    """Sub-expressions several terms or observations read (emitted once each)."""
    if any(default_angles):
        dq = fragment(
            "dq",
            inputs=("dof_pos",),
            constants=(Constant("C_DEFAULT_ANGLES", default_angles, F32),),
            loop_joint="dq = in_dof_pos[i, j] - C_DEFAULT_ANGLES[j]",
        )
    else:  # zero defaults: the subtraction is the identity, emit none
        dq = fragment("dq", inputs=("dof_pos",), loop_joint="dq = in_dof_pos[i, j]")
    return [
        fragment("vx", inputs=("linvel",), env="vx = float(in_linvel[i, 0])"),
        fragment("cx", inputs=("commands",), env="cx = float(in_commands[i, 0])"),
        fragment("fwd", needs=("vx",), env="fwd = vx if (vx != vx or vx > 0.0) else 0.0"),
        fragment(
            "cmd_den", needs=("cx",), env="cmd_den = cx if (cx != cx or cx > 1e-6) else 1e-6"
        ),
        fragment(
            "tilt",
            inputs=("gravity",),
            env=(
                "gx = float(in_gravity[i, 0])",
                "gy = float(in_gravity[i, 1])",
                "tilt = gx * gx + gy * gy",
            ),
        ),
        fragment(
            "spin",
            inputs=("gyro",),
            env=(
                "wx = float(in_gyro[i, 0])",
                "wy = float(in_gyro[i, 1])",
                "spin = wx * wx + wy * wy",
            ),
        ),
        dq,
        fragment(
            "pose_sum",
            needs=("dq",),
            constants=(Constant("C_POSE_W", tuple(float(w) for w in POSE_WEIGHTS), F64),),
            env="pose_sum = 0.0",
            loop_joint="pose_sum += C_POSE_W[j] * (dq * dq)",
        ),
        fragment(
            "upper_sum",
            needs=("dq",),
            constants=(
                Constant("C_UPPER_W", tuple(float(w) for w in UPPER_BODY_POSE_WEIGHTS), F64),
            ),
            env="upper_sum = 0.0",
            loop_joint="upper_sum += C_UPPER_W[j] * (dq * dq)",
        ),
        fragment(
            "rate_sum",
            inputs=("current_actions", "last_actions"),
            env="rate_sum = 0.0",
            loop_joint=(
                "da = in_current_actions[i, j] - in_last_actions[i, j]",
                "rate_sum += da * da",
            ),
        ),
        fragment(
            "feet_z",
            inputs=("left_foot_pos", "right_foot_pos"),
            env=("zl = float(in_left_foot_pos[i, 2])", "zr = float(in_right_foot_pos[i, 2])"),
        ),
    ]


def _gait_fragments(cfg: RewardConfig) -> tuple[Fragment, ...]:
    """Bezier swing heights ``h_l``/``h_r`` and the forward-speed gate (parameterised)."""
    swing = repr(float(cfg.feet_phase_swing_height))
    lines = []
    for side, col in (("l", 0), ("r", 1)):
        lines += [
            # fmod(p, 2pi) as p - 2pi * trunc(p / 2pi): same sign rule as fmod, exact by
            # Sterbenz for p in [pi, 4pi], and a rounding op instead of a libm loop.
            f"p_{side} = float(in_gait_phase[i, {col}]) + {np.pi!r}",
            f"x_{side} = (p_{side} - {TWO_PI!r} * np.trunc(p_{side} * {1.0 / TWO_PI!r})"
            f" - {np.pi!r} + {np.pi!r}) / {TWO_PI!r}",
            f"t_{side} = 2.0 * x_{side} - 1.0 if x_{side} > 0.5 else 2.0 * x_{side}",
            f"s_{side} = t_{side} * (t_{side} * (3.0 - 2.0 * t_{side}))",
            f"h_{side} = {swing} * (1.0 - s_{side}) if x_{side} > 0.5 else {swing} * s_{side}",
        ]
    min_fwd = repr(float(cfg.min_forward_speed_for_gait_reward))
    return (
        fragment("gait_heights", inputs=("gait_phase",), env=tuple(lines)),
        fragment("gait_gate", needs=("fwd",), env=f"gate = 1.0 if fwd >= {min_fwd} else 0.0"),
    )


# ----------------------------------------------------------------------- NumPy formulas


def _bezier(ctx: NumpyContext) -> tuple[np.ndarray, np.ndarray]:
    swing = ctx.params["feet_phase_swing_height"]
    x = (np.fmod(_f(ctx.inputs["gait_phase"]) + np.pi, TWO_PI) - np.pi + np.pi) / TWO_PI
    up = x > 0.5
    t = np.where(up, 2.0 * x - 1.0, 2.0 * x)
    s = t * (t * (3.0 - 2.0 * t))
    h = np.where(up, swing * (1.0 - s), swing * s)
    fwd = _maxnan(_f(ctx.inputs["linvel"][:, 0]), 0.0)
    gate = (fwd >= ctx.params["min_forward_speed_for_gait_reward"]).astype(np.float64)
    return h, gate


def _np_tracking_lin_vel(ctx: NumpyContext) -> np.ndarray:
    err = _f(ctx.inputs["commands"][:, :2]) - _f(ctx.inputs["linvel"][:, :2])
    return np.exp(-(np.sum(err * err, axis=1) / ctx.params["tracking_sigma"]))


def _np_tracking_ang_vel(ctx: NumpyContext) -> np.ndarray:
    err = _f(ctx.inputs["commands"][:, 2]) - _f(ctx.inputs["gyro"][:, 2])
    return np.exp(-((err * err) / ctx.params["tracking_sigma"]))


def _np_forward(ctx: NumpyContext) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    fwd = _maxnan(_f(ctx.inputs["linvel"][:, 0]), 0.0)
    cx = _f(ctx.inputs["commands"][:, 0])
    return fwd, cx, np.maximum(cx, 1e-6)


def _np_forward_progress(ctx: NumpyContext) -> np.ndarray:
    fwd, _, den = _np_forward(ctx)
    return np.minimum(fwd / den, 1.0)


def _np_under_speed(ctx: NumpyContext) -> np.ndarray:
    fwd, cx, den = _np_forward(ctx)
    return np.maximum(cx - fwd, 0.0) / den


def _np_square_pair(name: str, a: int, b: int) -> Callable[[NumpyContext], np.ndarray]:
    def fn(ctx: NumpyContext) -> np.ndarray:
        x = _f(ctx.inputs[name])
        return x[:, a] * x[:, a] + x[:, b] * x[:, b]

    return fn


def _np_lin_vel_z(ctx: NumpyContext) -> np.ndarray:
    vz = _f(ctx.inputs["linvel"][:, 2])
    return vz * vz


def _np_action_rate(ctx: NumpyContext) -> np.ndarray:
    diff = _f(ctx.inputs["current_actions"] - ctx.inputs["last_actions"])
    return np.sum(diff * diff, axis=1)


def _np_dq(ctx: NumpyContext) -> np.ndarray:
    angles = np.asarray(ctx.params["default_angles"], np.float32)
    return ctx.inputs["dof_pos"] - angles


def _np_weighted_pose(weights: np.ndarray) -> Callable[[NumpyContext], np.ndarray]:
    def fn(ctx: NumpyContext) -> np.ndarray:
        dq = _f(_np_dq(ctx))
        return np.sum(weights * (dq * dq), axis=1)

    return fn


def _np_base_height(ctx: NumpyContext) -> np.ndarray:
    dh = _f(ctx.inputs["base_height"]) - ctx.params["base_height_target"]
    return dh * dh


def _np_feet_ori(ctx: NumpyContext) -> np.ndarray:
    left, right = _f(ctx.inputs["left_foot_quat"]), _f(ctx.inputs["right_foot_quat"])
    return left[:, 1] ** 2 + left[:, 2] ** 2 + right[:, 1] ** 2 + right[:, 2] ** 2


def _np_feet_z(ctx: NumpyContext) -> tuple[np.ndarray, np.ndarray]:
    return _f(ctx.inputs["left_foot_pos"][:, 2]), _f(ctx.inputs["right_foot_pos"][:, 2])


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
    return (both & (_f(ctx.inputs["commands"][:, 0]) > 1e-6)).astype(np.float64)


def _np_close_feet(ctx: NumpyContext) -> np.ndarray:
    left, right = ctx.inputs["left_foot_pos"], ctx.inputs["right_foot_pos"]
    dx = _f(left[:, 0] - right[:, 0])
    dy = _f(left[:, 1] - right[:, 1])
    d = np.sqrt(dx * dx + dy * dy)
    threshold = ctx.params["close_feet_threshold"]
    return np.where(d < threshold, (d - threshold) ** 2, 0.0)


def _np_feet_air_time(ctx: NumpyContext) -> np.ndarray:
    t = _f(ctx.inputs["feet_air_time"])
    return np.sum((t > 0.05) & (t < 0.5), axis=1).astype(np.float64)


def _np_alive(ctx: NumpyContext) -> np.ndarray:
    return np.ones(ctx.num_envs, np.float64)


def _np_termination(ctx: NumpyContext) -> np.ndarray:
    gz = np.clip(_f(ctx.inputs["gravity"][:, 2]), -1.0, 1.0)
    upright = gz >= min_upright_gz(ctx.params["max_tilt_rad"])
    high = _f(ctx.inputs["base_height"]) >= ctx.params["min_base_height"]
    return ~(upright & high)


# ------------------------------------------------------------------------- definitions

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
            fragments=_gait_fragments(_gait_cfg(p)),
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
        f"g1.walk.reward.{formula}.v1", TermKind.REWARD, _ins(*inputs), numpy_fn, params, emit
    )


def _simple(value: str, needs: tuple[str, ...] = (), inputs: tuple[str, ...] = ()) -> EmitFn:
    """An emitter whose value needs no parameters."""
    return lambda p: TermCode(needs=needs, value=value, inputs=inputs)


def _reward_definitions(default_angles: tuple[float, ...]) -> list[TermDefinition]:
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
                fragments=(_LIN_ERR,),
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
                fragments=(_ANG_ERR,),
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


_LIN_ERR = fragment(
    "lin_err",
    needs=("vx", "cx"),
    inputs=("linvel", "commands"),
    env=("ex = cx - vx", "ey = float(in_commands[i, 1]) - float(in_linvel[i, 1])"),
)
_ANG_ERR = fragment(
    "ang_err",
    inputs=("gyro", "commands"),
    env="ez = float(in_commands[i, 2]) - float(in_gyro[i, 2])",
)
_EXTRA_FRAGMENTS = (
    fragment("fp_ratio", needs=("fwd", "cmd_den"), env="fp_ratio = fwd / cmd_den"),
    fragment("lag", needs=("cx", "fwd"), env="lag = cx - fwd"),
    fragment(
        "feet_ori",
        inputs=("left_foot_quat", "right_foot_quat"),
        env=(
            "ql1 = float(in_left_foot_quat[i, 1])",
            "ql2 = float(in_left_foot_quat[i, 2])",
            "qr1 = float(in_right_foot_quat[i, 1])",
            "qr2 = float(in_right_foot_quat[i, 2])",
            "feet_ori = ql1 * ql1 + ql2 * ql2 + qr1 * qr1 + qr2 * qr2",
        ),
    ),
    fragment("contacts", inputs=("left_contact", "right_contact")),
    fragment(
        "feet_xy_dist",
        inputs=("left_foot_pos", "right_foot_pos"),
        env=(
            "fdx = float(in_left_foot_pos[i, 0] - in_right_foot_pos[i, 0])",
            "fdy = float(in_left_foot_pos[i, 1] - in_right_foot_pos[i, 1])",
            "feet_d = math.sqrt(fdx * fdx + fdy * fdy)",
        ),
    ),
)


def _termination() -> TermDefinition:
    def emit(p: Mapping[str, Any]) -> TermCode:
        # the task's tilt rule, against a baked literal (NaN fails both comparisons, so a
        # NaN gravity still terminates)
        min_gz = min_upright_gz(p["max_tilt_rad"])
        return TermCode(
            needs=("gz_clip",),
            value=f"not (gz >= {min_gz!r} and "
            f"float(in_base_height[i]) >= {p['min_base_height']!r})",
            inputs=("base_height",),
        )

    return TermDefinition(
        "g1.walk.termination.tilt_or_height.v1",
        TermKind.TERMINATION,
        _ins("gravity", "base_height"),
        _np_termination,
        (
            ParamSpec("max_tilt_rad", ParamKind.FLOAT),
            ParamSpec("min_base_height", ParamKind.FLOAT),
        ),
        emit,
    )


_GZ_CLIP = fragment(
    "gz_clip",
    inputs=("gravity",),
    env=(
        "gz = float(in_gravity[i, 2])",
        "gz = 1.0 if gz > 1.0 else (-1.0 if gz < -1.0 else gz)",
    ),
)

# ----------------------------------------------------------------------- observations

#: Source name -> (vector source or None for a plain input, NumPy getter).
_NOISY = {
    "noisy_gyro": ("gyro", "noise_gyro"),
    "noisy_gravity": ("gravity", "noise_gravity"),
    "noisy_dof_pos_diff": ("dof_pos_diff", "noise_dof_pos"),
    "noisy_dof_vel": ("dof_vel", "noise_dof_vel"),
}


def _sources() -> list[VectorSource]:
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
        return _np_dq
    if name in _NOISY:
        base, noise = _NOISY[name]
        get = _np_source(base)
        return lambda ctx: get(ctx) + ctx.inputs[noise]
    return lambda ctx: ctx.inputs[name]


def _observation(source: str, default_angles: tuple[float, ...]) -> TermDefinition:
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
        _ins(*names),
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


@functools.lru_cache(maxsize=8)
def make_registry(default_angles: tuple[float, ...] = (0.0,) * J) -> TermRegistry:
    """The G1 walk term registry for given default joint angles (cached per vector)."""
    reg = TermRegistry("g1_walk", axes=(Axis("joint", J, "j"),))
    for spec in INPUTS.values():
        reg.add_input(spec)
    for frag in (*_shared_fragments(default_angles), *_EXTRA_FRAGMENTS, _GZ_CLIP):
        reg.add_fragment(frag)
    for vector in _sources():
        reg.add_source(vector)
    for definition in _reward_definitions(default_angles):
        reg.register(definition)
    reg.register(_termination())
    for name in OBS_SOURCES:
        reg.register(_observation(name, default_angles))
    return reg


# ------------------------------------------------------------------------------- plans


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
    configs += _obs_configs(ACTOR_LAYOUT, "obs", profile.walk_observation, noise)
    configs += _obs_configs(CRITIC_LAYOUT, "critic", profile.walk_observation, False)
    return configs, ("obs", "critic")


def _obs_configs(
    layout: tuple[ObsSlot, ...], group: str, walk: bool, noise: bool
) -> list[TermConfig]:
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
