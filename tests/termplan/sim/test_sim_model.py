"""The generated humanoid: structure, dimensions and the zero-action standing test."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest
from golden_check import check_golden

from termplan.sim import g1_spec
from termplan.sim.g1_spec import DEFAULT_ANGLES, JOINT_NAMES, TRACKED_BODIES
from termplan.sim.model import load_g1

pytestmark = pytest.mark.mujoco

UPSTREAM_ORDER = (
    "left_hip_pitch left_hip_roll left_hip_yaw left_knee left_ankle_pitch left_ankle_roll "
    "right_hip_pitch right_hip_roll right_hip_yaw right_knee right_ankle_pitch right_ankle_roll "
    "waist_yaw waist_roll waist_pitch "
    "left_shoulder_pitch left_shoulder_roll left_shoulder_yaw left_elbow left_wrist_roll "
    "left_wrist_pitch left_wrist_yaw right_shoulder_pitch right_shoulder_roll "
    "right_shoulder_yaw right_elbow right_wrist_roll right_wrist_pitch right_wrist_yaw"
).split()


def test_joints_follow_the_upstream_g1_order() -> None:
    model = load_g1().model
    assert list(JOINT_NAMES) == UPSTREAM_ORDER
    hinges = [model.joint(j).name for j in range(1, model.njnt)]
    assert hinges == [f"{name}_joint" for name in UPSTREAM_ORDER]
    assert [model.actuator(a).name for a in range(model.nu)] == UPSTREAM_ORDER
    assert model.jnt_type[0] == mujoco.mjtJoint.mjJNT_FREE
    assert (model.nq, model.nv, model.nu) == (36, 35, 29)


def test_limits_contain_the_default_pose_and_ctrl_ranges_match() -> None:
    model = load_g1().model
    lo, hi = model.jnt_range[1:, 0], model.jnt_range[1:, 1]
    assert np.all(lo < DEFAULT_ANGLES) and np.all(DEFAULT_ANGLES < hi)
    np.testing.assert_allclose(model.actuator_ctrlrange, model.jnt_range[1:])


def test_timestep_is_a_third_of_the_control_step() -> None:
    assert load_g1().model.opt.timestep == np.float64(0.02 / 3)


def test_tracked_bodies_and_sensor_layout() -> None:
    model = load_g1().model
    for name in TRACKED_BODIES:
        assert model.body(name).id > 0
    assert model.nsensordata == g1_spec.NUM_SENSORDATA
    slices = g1_spec.sensor_slices()
    for sensor in g1_spec.SENSORS:
        s = model.sensor(sensor.name)
        assert model.sensor_adr[s.id] == slices[sensor.name].start
        assert model.sensor_dim[s.id] == sensor.width
    assert sum(1 for s in g1_spec.SENSORS if s.element == "touch") == 8


def _run_standing(steps: int) -> tuple[np.ndarray, np.ndarray, mujoco.MjData]:
    g1 = load_g1()
    model, data = g1.model, mujoco.MjData(g1.model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("stand").id)
    data.ctrl[:] = DEFAULT_ANGLES  # zero action: ctrl = 0 * scale + default angles
    heights, up_z = np.empty(steps), np.empty(steps)
    upvector = g1_spec.sensor_slices()["upvector"]
    for k in range(steps):
        mujoco.mj_step(model, data, nstep=g1_spec.SUBSTEPS)
        heights[k] = data.qpos[2]
        up_z[k] = data.sensordata[upvector][2]
    return heights, up_z, data


def test_stands_for_a_1000_step_episode_under_zero_action() -> None:
    heights, up_z, data = _run_standing(1000)
    assert np.all(np.isfinite(data.qpos)) and np.all(np.isfinite(data.qvel))
    assert heights.min() > 0.65 and heights.max() < 0.78, (heights.min(), heights.max())
    assert up_z.min() > np.cos(np.radians(10.0)), up_z.min()  # never tilts past 10 degrees
    assert np.abs(data.qvel).max() < 0.05  # settled
    assert not np.any(data.warning.number)
    contacts = g1_spec.sensor_slices()
    first = contacts["left_foot_contact_0"].start
    assert np.all(data.sensordata[first : first + 8] > 0.5)  # all 8 sole corners loaded


def test_generated_mjcf_matches_the_golden_file() -> None:
    """Regenerate after an intended model change with ``pytest --update-golden``."""
    check_golden(Path(__file__).parent / "golden" / "g1_mjcf.xml", load_g1().xml)


def test_upvector_is_the_world_z_axis_in_the_body_frame() -> None:
    """The same tilt at any heading gives the same reading, R^T e_z (what a policy needs as
    gravity); the imu's own z axis in world coordinates would rotate with the heading."""
    g1 = load_g1()
    model, data = g1.model, mujoco.MjData(g1.model)
    upvector = g1_spec.sensor_slices()["upvector"]
    readings = []
    for yaw in (0.0, np.pi / 2, np.pi, -2.0):
        mujoco.mj_resetDataKeyframe(model, data, model.key("stand").id)
        tilt, heading = np.empty(4), np.empty(4)
        mujoco.mju_axisAngle2Quat(tilt, np.array([0.0, 1.0, 0.0]), 0.3)
        mujoco.mju_axisAngle2Quat(heading, np.array([0.0, 0.0, 1.0]), yaw)
        mujoco.mju_mulQuat(data.qpos[3:7], heading, tilt)
        mujoco.mj_forward(model, data)
        site = data.site("imu").xmat.reshape(3, 3)
        np.testing.assert_allclose(data.sensordata[upvector], site.T @ [0.0, 0.0, 1.0], atol=1e-9)
        readings.append(data.sensordata[upvector].copy())
    for r in readings[1:]:
        np.testing.assert_allclose(r, readings[0], atol=1e-9)
