"""The 12 motion-tracking reward terms ``motion.tracking.reward.<name>.v1``: nine exp-kernel
tracking terms and three penalties, each with its generated expression and NumPy formula.
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
from termplan.tasks.motion_tracking import geometry as geo
from termplan.tasks.motion_tracking.config import (
    EE_INDICES,
    JOINT_LOWER,
    JOINT_UPPER,
    UNDESIRED_INDICES,
)
from termplan.tasks.motion_tracking.terms.inputs import F64, A, B, J, inputs_of


def _exp_kernel(
    error: Callable[[NumpyContext], np.ndarray],
) -> Callable[[NumpyContext], np.ndarray]:
    def fn(ctx: NumpyContext) -> np.ndarray:
        std = ctx.params["std"]
        return np.exp(-error(ctx) / (std * std))

    return fn


def _mean_sq(diff: np.ndarray) -> np.ndarray:
    flat = diff.reshape(diff.shape[0], -1).astype(F64)
    return np.sum(flat * flat, axis=1) / diff.shape[1]


def _np_root_pos(ctx: NumpyContext) -> np.ndarray:
    d = ctx.inputs["body_pos_w"][:, A].astype(F64) - ctx.inputs["robot_body_pos_w"][:, A]
    return np.sum(d * d, axis=1)


def _np_root_ori(ctx: NumpyContext) -> np.ndarray:
    q_m = ctx.inputs["body_quat_w"][:, A].astype(F64)
    return geo.quat_angle_sq(q_m, ctx.inputs["robot_body_quat_w"][:, A].astype(F64))


def _np_body_pos(ctx: NumpyContext) -> np.ndarray:
    return _mean_sq(ctx.memo["ref_pos"] - ctx.inputs["robot_body_pos_w"])


def _np_body_ori(ctx: NumpyContext) -> np.ndarray:
    angle = geo.quat_angle_sq(ctx.memo["ref_quat"], ctx.inputs["robot_body_quat_w"].astype(F64))
    return np.mean(angle, axis=1)


def _np_diff(a: str, b: str) -> Callable[[NumpyContext], np.ndarray]:
    return lambda ctx: _mean_sq(ctx.inputs[a] - ctx.inputs[b])


def _np_ee_z(ctx: NumpyContext) -> np.ndarray:
    ee = list(EE_INDICES)
    dz = ctx.inputs["body_pos_w"][:, ee, 2] - ctx.inputs["robot_body_pos_w"][:, ee, 2]
    return _mean_sq(dz)


def _np_action_rate(ctx: NumpyContext) -> np.ndarray:
    return _mean_sq(ctx.inputs["current_actions"] - ctx.inputs["last_actions"]) * J


def _np_joint_limit(ctx: NumpyContext) -> np.ndarray:
    q = ctx.inputs["dof_pos"]
    lo = np.maximum(JOINT_LOWER.astype(np.float32) - q, 0.0)
    hi = np.maximum(q - JOINT_UPPER.astype(np.float32), 0.0)
    v = (lo + hi).astype(F64)
    return np.sum(v * v, axis=1)


def _np_undesired(ctx: NumpyContext) -> np.ndarray:
    z = ctx.inputs["robot_body_pos_w"][:, list(UNDESIRED_INDICES), 2]
    return np.sum(z < ctx.params["undesired_contact_z"], axis=1).astype(F64)


#: Exp-kernel rewards: name -> (error fragment, count it is averaged over, inputs, NumPy error).
EXP_TERMS: dict[str, tuple[str, int, tuple[str, ...], Callable[[NumpyContext], np.ndarray]]] = {
    "motion_global_root_pos": (
        "root_pos_err",
        1,
        ("body_pos_w", "robot_body_pos_w"),
        _np_root_pos,
    ),
    "motion_global_root_ori": (
        "root_ori_err",
        1,
        ("body_quat_w", "robot_body_quat_w"),
        _np_root_ori,
    ),
    "motion_body_pos": (
        "body_pos_sum",
        B,
        ("body_pos_w", "body_quat_w", "robot_body_pos_w", "robot_body_quat_w"),
        _np_body_pos,
    ),
    "motion_body_ori": (
        "body_ori_sum",
        B,
        ("body_pos_w", "body_quat_w", "robot_body_pos_w", "robot_body_quat_w"),
        _np_body_ori,
    ),
    "motion_body_lin_vel": (
        "body_lin_sum",
        B,
        ("body_lin_vel_w", "robot_body_lin_vel_w"),
        _np_diff("body_lin_vel_w", "robot_body_lin_vel_w"),
    ),
    "motion_body_ang_vel": (
        "body_ang_sum",
        B,
        ("body_ang_vel_w", "robot_body_ang_vel_w"),
        _np_diff("body_ang_vel_w", "robot_body_ang_vel_w"),
    ),
    "motion_ee_body_pos_z": (
        "ee_sum",
        len(EE_INDICES),
        ("body_pos_w", "robot_body_pos_w"),
        _np_ee_z,
    ),
    "motion_joint_pos": (
        "jpos_sum",
        J,
        ("joint_pos", "dof_pos"),
        _np_diff("joint_pos", "dof_pos"),
    ),
    "motion_joint_vel": (
        "jvel_sum",
        J,
        ("joint_vel", "dof_vel"),
        _np_diff("joint_vel", "dof_vel"),
    ),
}


_STD = ParamSpec("std", ParamKind.FLOAT)


def _emit_exp(error: str, count: int) -> EmitFn:
    def emit(p: Mapping[str, Any]) -> TermCode:
        factor = -1.0 / (p["std"] * p["std"]) / count
        return TermCode(needs=(error,), value=f"math.exp({error} * {factor!r})")

    return emit


def _emit_undesired(p: Mapping[str, Any]) -> TermCode:
    thr = repr(float(p["undesired_contact_z"]))
    parts = [
        f"(1.0 if in_robot_body_pos_w[i, {b}, 2] < {thr} else 0.0)" for b in UNDESIRED_INDICES
    ]
    return TermCode(value=" + ".join(parts), inputs=("robot_body_pos_w",))


def reward_definitions() -> list[TermDefinition]:
    """The 12 reward definitions (nine exp-kernel terms, then the three penalties)."""
    defs = [
        TermDefinition(
            f"motion.tracking.reward.{name}.v1",
            TermKind.REWARD,
            inputs_of(*inputs),
            _exp_kernel(err_np),
            (_STD,),
            _emit_exp(err, count),
        )
        for name, (err, count, inputs, err_np) in EXP_TERMS.items()
    ]
    defs += [
        TermDefinition(
            "motion.tracking.reward.action_rate_l2.v1", TermKind.REWARD,
            inputs_of("current_actions", "last_actions"), _np_action_rate,
            emit=lambda p: TermCode(needs=("rate_sum",), value="rate_sum"),
        ),
        TermDefinition(
            "motion.tracking.reward.joint_limit.v1", TermKind.REWARD, inputs_of("dof_pos"),
            _np_joint_limit, emit=lambda p: TermCode(needs=("limit_sum",), value="limit_sum"),
        ),
        TermDefinition(
            "motion.tracking.reward.undesired_contacts.v1", TermKind.REWARD,
            inputs_of("robot_body_pos_w"), _np_undesired,
            (ParamSpec("undesired_contact_z", ParamKind.FLOAT, 0.05),), _emit_undesired,
        ),
    ]  # fmt: skip
    return defs
