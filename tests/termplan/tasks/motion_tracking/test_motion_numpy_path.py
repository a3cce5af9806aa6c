"""The NumPy path against an independent per-row oracle (float64, SciPy rotations).

The oracle is written from the task definition, row by row, with rotation matrices from
SciPy instead of the project's quaternion helpers.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from termplan.tasks import motion_tracking as mt
from termplan.tasks.motion_tracking.config import (
    ANCHOR,
    CTRL_DT,
    DEFAULT_ANGLES,
    EE_INDICES,
    TERM_ORDER,
    UNDESIRED_INDICES,
)
from termplan.tasks.motion_tracking.profiles import PROFILE_DEFS

A = ANCHOR


def _rot(q: np.ndarray) -> Rotation:
    return Rotation.from_quat(np.asarray(q, np.float64)[..., [1, 2, 3, 0]])


def _angle_sq(q1: np.ndarray, q2: np.ndarray) -> np.ndarray:
    return (_rot(q1).inv() * _rot(q2)).magnitude() ** 2


def _row(b: mt.MotionBatch, i: int) -> dict[str, np.ndarray]:
    """Reference transforms of row i: yaw of R_r[a] R_m[a]^T, ref poses, anchor-frame data."""
    f64 = {k: np.asarray(getattr(b, k)[i], np.float64) for k in vars(b)}
    rel = _rot(f64["robot_body_quat_w"][A]) * _rot(f64["body_quat_w"][A]).inv()
    psi = rel.as_euler("ZYX")[0]
    turn = Rotation.from_rotvec([0.0, 0.0, psi])
    ref_pos = turn.apply(f64["body_pos_w"] - f64["body_pos_w"][A])
    ref_pos += [*f64["robot_body_pos_w"][A, :2], f64["body_pos_w"][A, 2]]
    ref_quat = (turn * _rot(f64["body_quat_w"])).as_quat()[:, [3, 0, 1, 2]]
    anchor = _rot(f64["robot_body_quat_w"][A])
    return {**f64, "ref_pos": ref_pos, "ref_quat": ref_quat, "anchor_inv": anchor.inv()}


def _terms(r: dict[str, np.ndarray]) -> np.ndarray:
    def mean_sq(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.mean(np.sum((a - b) ** 2, axis=-1)))

    q, lo, hi = r["dof_pos"], -2.5, 2.5
    limit = np.maximum(lo - q, 0) + np.maximum(q - hi, 0)
    ee = list(EE_INDICES)
    return np.array(
        [
            np.sum((r["body_pos_w"][A] - r["robot_body_pos_w"][A]) ** 2),
            _angle_sq(r["body_quat_w"][A], r["robot_body_quat_w"][A]),
            mean_sq(r["ref_pos"], r["robot_body_pos_w"]),
            np.mean(_angle_sq(r["ref_quat"], r["robot_body_quat_w"])),
            mean_sq(r["body_lin_vel_w"], r["robot_body_lin_vel_w"]),
            mean_sq(r["body_ang_vel_w"], r["robot_body_ang_vel_w"]),
            np.mean((r["ref_pos"][ee, 2] - r["robot_body_pos_w"][ee, 2]) ** 2),
            np.mean((r["joint_pos"] - q) ** 2),
            np.mean((r["joint_vel"] - r["dof_vel"]) ** 2),
            np.sum((r["current_actions"] - r["last_actions"]) ** 2),
            np.sum(limit**2),
            np.sum(r["robot_body_pos_w"][list(UNDESIRED_INDICES), 2] < 0.05),
        ]
    )


def _critic(r: dict[str, np.ndarray], tail: bool) -> np.ndarray:
    inv = r["anchor_inv"]
    rel_q = inv * _rot(r["body_quat_w"][A])
    body_q = inv * _rot(r["robot_body_quat_w"])
    parts = [
        r["joint_pos"],
        r["joint_vel"],
        inv.apply(r["body_pos_w"][A] - r["robot_body_pos_w"][A]),
        rel_q.as_matrix()[:, :2].ravel(),
        r["linvel"],
        r["gyro"],
        r["dof_pos"] - DEFAULT_ANGLES,
        r["dof_vel"],
        r["current_actions"],
        inv.apply(r["robot_body_pos_w"] - r["robot_body_pos_w"][A]).ravel(),
        body_q.as_matrix()[:, :, :2].ravel(),
    ]
    return np.concatenate([*parts, r["linvel"]] if tail else parts)


@pytest.mark.parametrize("profile", ["sac_default", "full_supported"])
def test_numpy_path_matches_oracle(profile: str) -> None:
    prof = PROFILE_DEFS[profile]
    batch = mt.make_batch(24, seed=8, profile=profile)
    out = mt.build(profile, 24, "numpy").compute(batch, 0)
    scales, inv_var = prof.scale_vector(), prof.inv_var_vector()
    weighted = np.zeros((24, len(TERM_ORDER)))
    for i in range(24):
        r = _row(batch, i)
        raw = _terms(r)
        f = np.where(inv_var > 0, np.exp(-raw * inv_var), raw)
        weighted[i] = scales * f
        assert out.reward[i] == pytest.approx(CTRL_DT * np.sum(scales * f), rel=1e-4, abs=1e-6)
        critic = _critic(r, prof.critic_linvel_tail)
        np.testing.assert_allclose(out.critic[i], critic, atol=2e-5)
        np.testing.assert_allclose(out.obs[i], critic[:160], atol=2e-5)
        assert out.terminated[i] == _terminated(r), i
    for k, name in enumerate(TERM_ORDER):
        if scales[k] != 0.0:
            want = weighted[:, k].mean()
            assert out.logs[f"reward/{name}"] == pytest.approx(want, rel=1e-4, abs=1e-6), name


def _terminated(r: dict[str, np.ndarray]) -> bool:
    gz = [-_rot(r[k][A]).as_matrix()[2, 2] for k in ("body_quat_w", "robot_body_quat_w")]
    ee = list(EE_INDICES)
    return bool(
        abs(r["body_pos_w"][A, 2] - r["robot_body_pos_w"][A, 2]) > 0.25
        or abs(gz[0] - gz[1]) > 0.8
        or np.any(np.abs(r["ref_pos"][ee, 2] - r["robot_body_pos_w"][ee, 2]) > 0.25)
    )
