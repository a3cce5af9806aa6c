"""The motion-tracking env on MuJoCo: reference clip, path parity, post-reset rows."""

from __future__ import annotations

import numpy as np
import pytest

from termplan import tasks
from termplan.collector.motion_env import MotionTrackingEnv
from termplan.collector.run import RunConfig, run_windows
from termplan.sim.model import load_g1
from termplan.sim.reference import ReferenceClip, procedural_clip

pytestmark = [pytest.mark.numba("motion_tracking"), pytest.mark.mujoco]

PATHS = tasks.task_module("motion_tracking").PATHS
N = 7


@pytest.fixture(scope="module")
def clip() -> ReferenceClip:
    return procedural_clip(load_g1(), frames=120, seed=2)


def _env(path: str, clip: ReferenceClip) -> MotionTrackingEnv:
    return MotionTrackingEnv(
        "sac_default", N, path, physics_threads=1, numba_threads=1, seed=5, clip=clip
    )


def test_clip_is_the_robots_own_kinematics(clip: ReferenceClip) -> None:
    assert clip.body_pos_w.shape == (120, 14, 3) and clip.joint_pos.shape == (120, 29)
    np.testing.assert_allclose(np.linalg.norm(clip.body_quat_w, axis=-1), 1.0, atol=1e-5)
    np.testing.assert_allclose(clip.body_pos_w[:, 0], clip.qpos[:, :3], atol=1e-6)  # pelvis
    # finite differences of positions agree with the sensor velocities
    diff = (clip.body_pos_w[2:] - clip.body_pos_w[:-2]) / (2 * 0.02)
    np.testing.assert_allclose(diff, clip.body_lin_vel_w[1:-1], atol=0.02)
    with pytest.raises(ValueError, match="frames"):
        procedural_clip(load_g1(), frames=1)


def test_a_reset_env_starts_on_its_reference(clip: ReferenceClip) -> None:
    env = _env("numpy", clip)
    try:
        first = env.reset_all()
        assert not first.terminated.any()
        np.testing.assert_allclose(
            env.batch.robot_body_pos_w, env.batch.body_pos_w, rtol=1e-5, atol=1e-5
        )
        # every tracking term at its maximum: reward = ctrl_dt * sum of the positive scales
        assert first.reward == pytest.approx(np.full(N, 0.02 * 5.0), abs=2e-3)
    finally:
        env.close()


def test_all_paths_give_the_same_first_step(clip: ReferenceClip) -> None:
    results = {}
    for path in PATHS:
        env = _env(path, clip)
        try:
            env.reset_all()
            actions = np.random.default_rng(0).uniform(-0.2, 0.2, (N, 29)).astype(np.float32)
            step = env.step(actions)
            results[path] = (step.out.reward.copy(), step.out.terminated.copy(),
                             step.out.obs.copy(), step.out.critic.copy())  # fmt: skip
        finally:
            env.close()
    ref = results["numpy"]
    for path, (reward, terminated, obs, critic) in results.items():
        np.testing.assert_allclose(reward, ref[0], rtol=1e-4, atol=1e-5, err_msg=path)
        np.testing.assert_array_equal(terminated, ref[1], err_msg=path)
        np.testing.assert_allclose(obs, ref[2], rtol=1e-5, atol=1e-5, err_msg=path)
        np.testing.assert_allclose(critic, ref[3], rtol=1e-5, atol=1e-5, err_msg=path)


@pytest.mark.parametrize("path", PATHS)
def test_clip_end_truncates_and_reset_rows_are_fresh(path: str, clip: ReferenceClip) -> None:
    env = _env(path, clip)
    try:
        env.reset_all()
        env.frame[3] = clip.num_frames - 2  # reaches the last frame in this step
        step = env.step(np.zeros((N, 29), np.float32))
        assert 3 in step.done_rows.tolist() and step.truncated[3]
        fresh = tasks.build("motion_tracking", "sac_default", N, "numpy").compute(env.batch, 1)
        np.testing.assert_allclose(step.out.obs, fresh.obs, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(step.out.critic, fresh.critic, rtol=1e-5, atol=1e-5)
    finally:
        env.close()


def test_interleaved_collector_paths_agree_on_the_first_step() -> None:
    configs = [
        RunConfig(task="motion_tracking", path=p, num_envs=N, steps=2, warmup=1, seed=1)
        for p in PATHS
    ]
    runs = run_windows(configs)
    ref = runs[0][0].first_rewards
    assert ref is not None and np.all(ref > 0)
    for result, record in runs:
        assert result.first_rewards is not None and record["task"] == "motion_tracking"
        np.testing.assert_allclose(result.first_rewards, ref, rtol=1e-4, atol=1e-5)
