"""Batched physics: equals one MjData stepped alone, detects faults per env, validates input."""

from __future__ import annotations

from collections.abc import Iterator

import mujoco
import numpy as np
import pytest

from termplan.sim.g1_spec import DEFAULT_ANGLES, SUBSTEPS
from termplan.sim.model import load_g1
from termplan.sim.physics import BatchedPhysics

pytestmark = pytest.mark.mujoco


@pytest.fixture
def physics() -> Iterator[BatchedPhysics]:
    g1 = load_g1()
    phys = BatchedPhysics(g1, 7, num_threads=2)
    rows = np.arange(7)
    qvel = np.zeros((7, g1.nv))
    qvel[:, 6:] = np.linspace(-0.5, 0.5, 7)[:, None]  # a different state per env
    phys.set_rows(rows, np.tile(g1.stand_qpos, (7, 1)), qvel)
    yield phys
    phys.close()


def test_one_step_matches_a_single_mjdata(physics: BatchedPhysics) -> None:
    g1 = physics.g1
    ctrl = np.tile(DEFAULT_ANGLES, (7, 1)) + np.linspace(0, 0.1, 7)[:, None]
    start_qvel = physics.qvel[3].copy()
    fault = physics.step(ctrl)
    assert not fault.any()
    data = mujoco.MjData(g1.model)
    data.qpos[:] = g1.stand_qpos
    data.qvel[:] = start_qvel
    data.ctrl[:] = ctrl[3]
    for _ in range(SUBSTEPS):
        mujoco.mj_step(g1.model, data)
    np.testing.assert_allclose(physics.qpos[3], data.qpos, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(physics.qvel[3], data.qvel, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(physics.sensordata[3], data.sensordata, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(physics.state[:, 0], SUBSTEPS * g1.model.opt.timestep)


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e12, 5e3])
def test_a_bad_state_faults_only_its_env(physics: BatchedPhysics, bad: float) -> None:
    physics.qvel[2, 3] = bad
    fault = physics.step(np.tile(DEFAULT_ANGLES, (7, 1)))
    assert fault.tolist() == [False, False, True, False, False, False, False]
    if not np.isfinite(bad) or bad > 1e10:
        assert physics.warnings.count >= 1  # MuJoCo's own warning, counted not printed


def test_set_rows_resets_time_and_sensors(physics: BatchedPhysics) -> None:
    physics.step(np.tile(DEFAULT_ANGLES, (7, 1)))
    g1 = physics.g1
    physics.set_rows(np.array([5]), g1.stand_qpos[None], np.zeros((1, g1.nv)))
    assert physics.state[5, 0] == 0.0 and physics.state[4, 0] > 0.0
    data = mujoco.MjData(g1.model)
    data.qpos[:] = g1.stand_qpos
    mujoco.mj_forward(g1.model, data)
    np.testing.assert_allclose(physics.sensordata[5], data.sensordata)


@pytest.mark.parametrize(
    ("ctrl", "message"),
    [
        (np.zeros((1, 29)), r"ctrl: expected an array of shape \(7, 29\)"),  # was broadcast
        (np.zeros(29), r"ctrl: expected an array of shape \(7, 29\)"),
        (np.zeros((7, 28)), r"got \(7, 28\)"),
        ([[0.0] * 29] * 7, "got list"),
    ],
)
def test_bad_ctrl_is_named(physics: BatchedPhysics, ctrl: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        physics.step(ctrl)  # type: ignore[arg-type]


def test_bad_rows_and_states_are_named(physics: BatchedPhysics) -> None:
    g1 = physics.g1
    qpos, qvel = g1.stand_qpos[None], np.zeros((1, g1.nv))
    for rows in (np.array([7]), np.array([-1]), np.array([1.0]), np.array([[1]])):
        with pytest.raises(ValueError, match=r"rows: expected distinct env indices in 0\.\.6"):
            physics.set_rows(rows, qpos, qvel)
    with pytest.raises(ValueError, match="rows: expected distinct"):
        physics.set_rows(np.array([2, 2]), np.repeat(qpos, 2, 0), np.repeat(qvel, 2, 0))
    with pytest.raises(ValueError, match=r"qpos: expected an array of shape \(2, "):
        physics.set_rows(np.array([2, 3]), qpos, qvel)
    bad = qpos.copy()
    bad[0, 9] = np.nan
    with pytest.raises(ValueError, match="qpos: expected finite values"):
        physics.set_rows(np.array([2]), bad, qvel)


@pytest.mark.parametrize(("n", "threads"), [(0, 1), (2, 0), (True, 1)])
def test_bad_sizes_are_rejected(n: int, threads: int) -> None:
    with pytest.raises(ValueError, match="num_envs|num_threads"):
        BatchedPhysics(load_g1(), n, threads)


def test_warning_handler_is_restored_when_the_last_physics_closes() -> None:
    before = mujoco.get_mju_user_warning()
    first = BatchedPhysics(load_g1(), 1)
    second = BatchedPhysics(load_g1(), 1)
    assert mujoco.get_mju_user_warning() is first.warnings is second.warnings
    first.close()
    first.close()  # idempotent
    assert mujoco.get_mju_user_warning() is second.warnings
    second.close()
    assert mujoco.get_mju_user_warning() is before
