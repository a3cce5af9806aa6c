"""A procedural reference motion *of this robot*, from forward kinematics.

The Motion task scores the robot against reference body poses; references that another
skeleton produced would put the anchor or the feet tens of centimetres off and terminate
every env every step. So the clip here is a smooth joint trajectory around the standing pose
(the base held at the standing pose, joints ``default + sum of two sines`` per joint, arms
swinging wider than legs), turned into world-frame body positions, quaternions (wxyz) and
linear / angular velocities of the 14 tracked bodies by MuJoCo itself (``mj_forward`` with
the analytic joint velocities, read from the frame sensors). The full ``qpos``/``qvel`` per
frame are kept so an env can be reset exactly onto a frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from termplan.arrays import check_count
from termplan.sim.g1_spec import CTRL_DT, JOINT_LOWER, JOINT_UPPER, NUM_DOF, sensor_slices
from termplan.sim.model import G1Model

_LEG_AMPLITUDE = 0.05
_UPPER_AMPLITUDE = 0.35


@dataclass(frozen=True)
class ReferenceClip:
    """Frames ``F`` of the reference; body arrays are (F, 14, .), joints (F, 29), float32."""

    fps: float
    body_pos_w: np.ndarray
    body_quat_w: np.ndarray
    body_lin_vel_w: np.ndarray
    body_ang_vel_w: np.ndarray
    joint_pos: np.ndarray
    joint_vel: np.ndarray
    qpos: np.ndarray  # (F, nq) float64, exact robot state of each frame
    qvel: np.ndarray  # (F, nv) float64

    @property
    def num_frames(self) -> int:
        """F."""
        return int(self.joint_pos.shape[0])


def _joint_trajectory(frames: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    t = np.arange(frames)[:, None] * CTRL_DT
    amp = np.full(NUM_DOF, _UPPER_AMPLITUDE)
    amp[:12] = _LEG_AMPLITUDE
    freq = rng.uniform(0.3, 1.2, size=(2, NUM_DOF))
    phase = rng.uniform(0.0, 2.0 * math.pi, size=(2, NUM_DOF))
    arg = 2.0 * math.pi * freq[:, None, :] * t[None] + phase[:, None, :]
    offset = 0.5 * amp * (np.sin(arg[0]) + np.sin(arg[1]))
    rate = 0.5 * amp * 2.0 * math.pi * (freq[0] * np.cos(arg[0]) + freq[1] * np.cos(arg[1]))
    return offset, rate


def _body_sensor_blocks() -> dict[str, slice]:
    s = sensor_slices()
    out = {}
    for kind in ("pos", "quat", "linvel", "angvel"):
        out[kind] = slice(s[f"pelvis_{kind}"].start, s[f"right_wrist_yaw_link_{kind}"].stop)
    return out


def procedural_clip(g1: G1Model, frames: int = 500, seed: int = 0) -> ReferenceClip:
    """The reference clip (see the module docstring); ``frames >= 2``."""
    frames = check_count("frames", frames, 2)
    offset, rate = _joint_trajectory(frames, seed)
    qpos = np.tile(g1.stand_qpos, (frames, 1))
    qpos[:, 7:] = np.clip(qpos[:, 7:] + offset, JOINT_LOWER, JOINT_UPPER)
    qvel = np.zeros((frames, g1.nv))
    qvel[:, 6:] = rate
    data = mujoco.MjData(g1.model)
    sens = np.empty((frames, g1.model.nsensordata))
    for f in range(frames):
        data.qpos[:], data.qvel[:] = qpos[f], qvel[f]
        mujoco.mj_forward(g1.model, data)
        sens[f] = data.sensordata
    blocks = _body_sensor_blocks()

    def body(kind: str, width: int) -> np.ndarray:
        return np.ascontiguousarray(sens[:, blocks[kind]].reshape(frames, -1, width), np.float32)

    return ReferenceClip(
        fps=1.0 / CTRL_DT,
        body_pos_w=body("pos", 3),
        body_quat_w=body("quat", 4),
        body_lin_vel_w=body("linvel", 3),
        body_ang_vel_w=body("angvel", 3),
        joint_pos=qpos[:, 7:].astype(np.float32),
        joint_vel=rate.astype(np.float32),
        qpos=qpos,
        qvel=qvel,
    )
