"""Every reward term, the termination and the observation layout against hand formulas.

One env with chosen values; each term is run alone (scale 1) through both paths and compared
with a plain-Python float64 evaluation written from the upstream formulas, so the two paths
cannot be wrong together.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from termplan.tasks import g1_walk
from termplan.tasks.g1_walk import make_batch
from termplan.tasks.g1_walk.config import (
    CTRL_DT,
    POSE_WEIGHTS,
    TERM_ORDER,
    UPPER_BODY_POSE_WEIGHTS,
    RewardConfig,
)
from termplan.tasks.g1_walk.profiles import SAC_REWARD

pytestmark = pytest.mark.numba("g1_walk")

ANGLES = np.linspace(0.05, -0.05, 29)


def _batch():
    b = make_batch(1, seed=1)
    b.linvel[0] = [0.5, 0.1, -0.05]
    b.gyro[0] = [0.1, -0.2, 0.3]
    b.gravity[0] = [0.05, -0.03, 0.998]
    b.commands[0] = [0.7, -0.1, 0.2]
    b.base_height[0] = 0.74
    b.dof_pos[0] = np.linspace(-0.1, 0.1, 29)
    b.current_actions[0] = np.linspace(0.2, -0.2, 29)
    b.last_actions[0] = np.linspace(0.1, -0.3, 29)
    b.gait_phase[0] = [1.0, 4.5]
    b.left_foot_pos[0] = [-0.05, -0.03, 0.04]
    b.right_foot_pos[0] = [0.05, 0.04, 0.02]
    b.left_foot_quat[0] = [0.99, 0.03, -0.02, 0.01]
    b.right_foot_quat[0] = [0.98, -0.01, 0.05, 0.0]
    b.left_contact[0], b.right_contact[0] = True, False
    b.feet_air_time[0] = [0.3, 0.6]
    return b


def _bez(phase: float, swing: float) -> float:
    x = (math.fmod(phase + math.pi, 2 * math.pi) - math.pi + math.pi) / (2 * math.pi)
    t = 2 * x if x <= 0.5 else 2 * x - 1
    s = t**3 + 3 * t**2 * (1 - t)
    return swing * s if x <= 0.5 else swing * (1 - s)


def _expected(b, cfg: RewardConfig) -> dict[str, float]:
    """Every term's value for env 0, from the upstream formulas (float64)."""
    v, w, g, c = (b.linvel[0].astype(float), b.gyro[0].astype(float),
                  b.gravity[0].astype(float), b.commands[0].astype(float))  # fmt: skip
    sig, swing, sigf = (
        cfg.tracking_sigma,
        cfg.feet_phase_swing_height,
        cfg.feet_phase_tracking_sigma,
    )
    dq = b.dof_pos[0].astype(float) - ANGLES
    rate = float(np.sum((b.current_actions[0].astype(float) - b.last_actions[0]) ** 2))
    hl, hr = _bez(float(b.gait_phase[0, 0]), swing), _bez(float(b.gait_phase[0, 1]), swing)
    zl, zr = float(b.left_foot_pos[0, 2]), float(b.right_foot_pos[0, 2])
    gate = 1.0 if max(v[0], 0) >= cfg.min_forward_speed_for_gait_reward else 0.0
    d = math.hypot(*(b.left_foot_pos[0, :2].astype(float) - b.right_foot_pos[0, :2]))
    ql, qr = b.left_foot_quat[0].astype(float), b.right_foot_quat[0].astype(float)
    cl, cr = bool(b.left_contact[0]), bool(b.right_contact[0])
    values = {
        "tracking_lin_vel": math.exp(-((c[0] - v[0]) ** 2 + (c[1] - v[1]) ** 2) / sig),
        "tracking_ang_vel": math.exp(-((c[2] - w[2]) ** 2) / sig),
        "forward_progress": min(max(v[0], 0) / max(c[0], 1e-6), 1.0),
        "under_speed": max(c[0] - max(v[0], 0), 0) / max(c[0], 1e-6),
        "lin_vel_z": v[2] ** 2,
        "orientation": g[0] ** 2 + g[1] ** 2,
        "ang_vel_xy": w[0] ** 2 + w[1] ** 2,
        "action_rate": rate,
        "base_height": (float(b.base_height[0]) - cfg.base_height_target) ** 2,
        "pose": float(np.sum(POSE_WEIGHTS * dq**2)),
        "upper_body_pose": float(np.sum(UPPER_BODY_POSE_WEIGHTS * dq**2)),
        "penalty_close_feet_xy": (d - cfg.close_feet_threshold) ** 2,
        "penalty_feet_ori": ql[1] ** 2 + ql[2] ** 2 + qr[1] ** 2 + qr[2] ** 2,
        "feet_phase": math.exp(-((zl - hl) ** 2 + (zr - hr) ** 2) / sigf) * gate,
        "feet_phase_contrast": math.exp(-(((zl - zr) - (hl - hr)) ** 2) / sigf) * gate,
        "feet_phase_contact": 0.5 * ((cl == (hl <= swing / 2)) + (cr == (hr <= swing / 2))) * gate,
        "feet_double_stance": float(cl and cr and c[0] > 1e-6),
        "feet_air_time": 1.0,  # 0.3 is inside (0.05, 0.5), 0.6 is not
        "alive": 1.0,
    }
    for alias, base in [("penalty_orientation", "orientation"),
                        ("penalty_ang_vel_xy", "ang_vel_xy"),
                        ("penalty_action_rate", "action_rate")]:  # fmt: skip
        values[alias] = values[base]
    return values


def test_fixture_exercises_branches() -> None:
    """The chosen env hits the non-trivial branches (close feet, both Bezier halves)."""
    b = _batch()
    assert math.hypot(0.1, 0.07) < SAC_REWARD.close_feet_threshold
    x = [(float(p) + math.pi) % (2 * math.pi) / (2 * math.pi) for p in b.gait_phase[0]]
    assert x[0] > 0.5 >= x[1]


@pytest.mark.parametrize("path", ["numpy", "handwritten"])
@pytest.mark.parametrize("term", TERM_ORDER)
def test_each_term_alone(term, path) -> None:
    b = _batch()
    expected = _expected(b, SAC_REWARD)[term]
    hot = g1_walk.build("sac_default", 1, path, scales={term: 1.0}, default_angles=ANGLES)
    out = hot.compute(b, step=0)
    assert list(out.logs) == [f"reward/{term}"]
    np.testing.assert_allclose(out.logs[f"reward/{term}"], expected, rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(out.reward[0], CTRL_DT * expected, rtol=2e-6, atol=1e-8)


@pytest.mark.parametrize("path", ["numpy", "handwritten"])
def test_weighted_sum_and_scale(path) -> None:
    b = _batch()
    values = _expected(b, SAC_REWARD)
    scales = {"tracking_lin_vel": 2.0, "pose": -0.5, "alive": 10.0, "feet_phase": 5.0}
    hot = g1_walk.build("sac_default", 1, path, scales=scales, default_angles=ANGLES)
    out = hot.compute(b, step=0)
    total = sum(s * values[k] for k, s in scales.items())
    np.testing.assert_allclose(out.reward[0], CTRL_DT * total, rtol=2e-6)
    np.testing.assert_allclose(out.logs["reward/pose"], -0.5 * values["pose"], rtol=2e-6)


@pytest.mark.parametrize("path", ["numpy", "handwritten"])
@pytest.mark.parametrize(
    ("gz", "height", "terminated"),
    [
        (math.cos(math.radians(64.0)), 0.7, False),
        (math.cos(math.radians(66.0)), 0.7, True),
        (1.0, 0.31, False),
        (1.0, 0.29, True),
    ],
)
def test_termination_by_hand(path, gz, height, terminated) -> None:
    b = _batch()
    b.gravity[0, 2], b.base_height[0] = gz, height
    out = g1_walk.build("sac_default", 1, path).compute(b)
    assert bool(out.terminated[0]) is terminated


@pytest.mark.parametrize("path", ["numpy", "handwritten"])
@pytest.mark.parametrize(("profile", "walk"), [("sac_default", True), ("ppo_default", False)])
def test_observation_layout_by_hand(path, profile, walk) -> None:
    b = _batch()
    out = g1_walk.build(profile, 1, path, default_angles=ANGLES).compute(b)
    gyro_m, vel_m, lin_m = (0.25, 0.05, 2.0) if walk else (1.0, 1.0, 1.0)
    dq = b.dof_pos[0] - ANGLES
    actor = np.concatenate([
        b.gyro[0] * gyro_m, -b.gravity[0], dq, b.dof_vel[0] * vel_m,
        b.current_actions[0], b.commands[0], b.gait_phase[0],
    ])  # fmt: skip
    np.testing.assert_allclose(out.obs[0], actor, rtol=1e-6, atol=1e-7)
    critic = np.concatenate([actor, b.linvel[0] * lin_m])
    np.testing.assert_allclose(out.critic[0], critic, rtol=1e-6, atol=1e-7)
