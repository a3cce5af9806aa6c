"""The G1 walk env on MuJoCo: path parity, post-reset observation rows, fault resets."""

from __future__ import annotations

import math

import numpy as np
import pytest

from termplan import tasks
from termplan.collector.g1_env import PHASE_STEP, G1WalkEnv
from termplan.collector.run import RunConfig, run_window, run_windows
from termplan.sim.g1_spec import DEFAULT_ANGLES

pytestmark = [pytest.mark.numba("g1_walk"), pytest.mark.mujoco]

PATHS = tasks.task_module("g1_walk").PATHS
N = 7


def _env(path: str, seed: int = 3) -> G1WalkEnv:
    return G1WalkEnv("sac_default", N, path, physics_threads=1, numba_threads=1, seed=seed)


def _actions(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-0.3, 0.3, (N, 29)).astype(np.float32)


def test_apply_action_sets_ctrl_history_and_phase() -> None:
    env = _env("numpy")
    try:
        env.reset_all()
        phase = env.batch.gait_phase.copy()
        actions = _actions()
        ctrl = env.apply_action(actions)
        np.testing.assert_allclose(ctrl, actions.astype(np.float64) + DEFAULT_ANGLES, atol=1e-7)
        np.testing.assert_array_equal(env.batch.current_actions, actions)
        assert not env.batch.last_actions.any()
        expected = np.fmod(phase + np.float32(PHASE_STEP), np.float32(2 * math.pi))
        np.testing.assert_allclose(env.batch.gait_phase, expected, atol=1e-6)
    finally:
        env.close()


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (np.zeros(29, np.float32), "shape"),  # was broadcast to every env
        (np.full((1, 29), 0.3, np.float32), "shape"),
        (np.zeros((N, 28), np.float32), "shape"),
        (np.zeros((N, 29), np.int32), "float array"),
        ([[0.0] * 29] * N, "float array"),
    ],
)
def test_step_refuses_actions_of_the_wrong_shape(actions: object, message: str) -> None:
    env = _env("numpy")
    env.reset_all()
    with pytest.raises(ValueError, match=f"actions: .*{message}"):
        env.step(actions)  # type: ignore[arg-type]


def test_step_refuses_non_finite_actions_naming_the_rows() -> None:
    """A NaN action became a physics fault recorded as a failure (NaN in replay and logs)."""
    env = _env("numpy")
    env.reset_all()
    actions = _actions()
    actions[2, 0] = np.nan
    actions[5, 3] = np.inf
    with pytest.raises(ValueError, match=r"NaN or inf in rows \[2 5\]"):
        env.step(actions)
    env.step(_actions())  # the env is untouched and goes on


def test_reset_gait_phases_are_wrapped_like_stepped_ones() -> None:
    """[phi, phi + pi] is wrapped into [0, 2 pi) at reset too: one encoding per phase."""
    env = G1WalkEnv("sac_default", 64, "numpy", physics_threads=1, numba_threads=1, seed=5)
    try:
        env.reset_all()
        phase = env.batch.gait_phase
        assert phase.min() >= 0.0 and phase.max() < 2 * math.pi
        gap = np.fmod(phase[:, 1] - phase[:, 0] + 2 * math.pi, 2 * math.pi)
        np.testing.assert_allclose(gap, math.pi, atol=1e-5)
    finally:
        env.close()


def test_all_paths_give_the_same_first_step_from_the_same_state() -> None:
    results = {}
    for path in PATHS:
        env = _env(path)
        try:
            first = env.reset_all()
            obs0 = first.obs.copy()
            step = env.step(_actions())
            results[path] = (obs0, step.out.reward.copy(), step.out.terminated.copy(),
                             step.out.obs.copy())  # fmt: skip
        finally:
            env.close()
    ref = results["numpy"]
    assert np.all(np.isfinite(ref[1])) and np.any(ref[1] != 0)
    for path, (obs0, reward, terminated, obs) in results.items():
        np.testing.assert_allclose(obs0, ref[0], rtol=1e-6, atol=1e-6, err_msg=path)
        np.testing.assert_allclose(reward, ref[1], rtol=5e-5, atol=5e-5, err_msg=path)
        np.testing.assert_array_equal(terminated, ref[2], err_msg=path)
        np.testing.assert_allclose(obs, ref[3], rtol=1e-6, atol=1e-6, err_msg=path)


@pytest.mark.parametrize("path", PATHS)
def test_reset_rows_get_fresh_observations(path: str) -> None:
    env = _env(path)
    try:
        env.reset_all()
        env.episode_step[[1, 4]] = env.episode_length - 1  # truncate two envs now
        step = env.step(_actions())
        assert step.done_rows.tolist() == [1, 4] and step.truncated[[1, 4]].all()
        assert np.array_equal(step.terminal_obs.shape, (2, env.obs_dim))
        fresh = tasks.build(
            "g1_walk", "sac_default", N, "numpy", default_angles=DEFAULT_ANGLES
        ).compute(env.batch, 1)
        np.testing.assert_allclose(step.out.obs, fresh.obs, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(step.out.critic, fresh.critic, rtol=1e-6, atol=1e-6)
        assert not np.allclose(step.terminal_obs, step.out.obs[[1, 4]])
        assert env.episode_step[[1, 4]].tolist() == [0, 0]
        assert not env.batch.current_actions[[1, 4]].any()
    finally:
        env.close()


def test_a_nan_state_resets_only_that_env_and_the_run_goes_on() -> None:
    env = _env("numpy")
    try:
        env.reset_all()
        env.physics.qvel[2, 8] = np.nan  # inject into one env's joint velocity
        step = env.step(_actions())
        assert step.faults == 1 and env.fault_resets == 1
        assert step.done_rows.tolist() == [2]
        assert step.out.reward[2] == 0.0 and np.all(np.isfinite(step.out.reward))
        assert np.all(np.isfinite(step.out.obs)) and np.all(np.isfinite(step.terminal_obs))
        second = env.step(_actions(1))
        assert second.faults == 0 and np.all(np.isfinite(second.out.obs))
    finally:
        env.close()


def test_a_short_collector_window_reports_every_field() -> None:
    cfg = RunConfig(task="g1_walk", path="numpy", num_envs=N, steps=3, warmup=1, cores=2)
    result, record = run_window(cfg)
    for key in ("steps_per_s", "update_state_ms", "physics_ms", "other_ms", "cpu_util_pct",
                "action_select_median_ms", "env_step_median_ms", "replay_median_ms",
                "bookkeeping_median_ms", "weight_sync_median_ms", "reset_median_ms"):  # fmt: skip
        assert key in record, key
    assert record["steps_per_s"] > 0 and record["physics_threads"] == 2
    assert len(result.phases["env_step"]) == 3 and result.first_rewards is not None


def test_interleaved_collector_paths_agree_on_the_first_step() -> None:
    configs = [
        RunConfig(task="g1_walk", path=p, num_envs=N, steps=2, warmup=1, cores=2, seed=4)
        for p in PATHS
    ]
    runs = run_windows(configs)
    assert [record["path"] for _, record in runs] == list(PATHS)
    ref = runs[0][0].first_rewards
    assert ref is not None and np.all(np.isfinite(ref))
    for result, record in runs:
        assert result.first_rewards is not None
        np.testing.assert_allclose(result.first_rewards, ref, rtol=5e-5, atol=5e-5)
        assert record["cpu_util_pct"] == runs[0][1]["cpu_util_pct"]


def test_interleaved_runs_must_differ_only_in_path() -> None:
    a = RunConfig(task="g1_walk", path="numpy", num_envs=N, steps=2)
    with pytest.raises(ValueError, match="differ only in path"):
        run_windows([a, RunConfig(task="g1_walk", path="handwritten", num_envs=N + 1, steps=2)])
    with pytest.raises(ValueError, match="at least one"):
        run_windows([])


def test_a_refused_construction_leaks_no_physics() -> None:
    """A bad profile or thread count fails before the physics pool and the process-wide
    MuJoCo warning handler are taken (both envs)."""
    from termplan.collector.motion_env import MotionTrackingEnv
    from termplan.sim.physics import WARNINGS

    before = WARNINGS._users
    with pytest.raises(ValueError, match="profile"):
        G1WalkEnv("nope", 4, "numpy")
    with pytest.raises(ValueError, match="num_threads"):
        MotionTrackingEnv("sac_default", 4, "handwritten", numba_threads=999)
    assert WARNINGS._users == before
