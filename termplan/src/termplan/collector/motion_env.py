"""The Motion-tracking env on MuJoCo: reference playback, physics readback, resets.

The reference is a procedural clip of this robot (:mod:`termplan.sim.reference`: the
task's ``make_procedural_clip`` places bodies at random offsets that this robot cannot
match, so every env would terminate every step), played through the task's
:class:`MotionStore` (one ``np.take`` gather per array per step, as upstream). Each env plays
it from its own frame, sampled uniformly at reset, one frame per control step. A reset
puts the robot exactly on the reference state of the sampled frame (upstream ``set_state``
to the reference), with zero actions. Episodes are truncated after 500 steps (10 s) or at
the clip's last frame. The hot slice's default joint angles are the task constants; the
batch's ``default_dof_pos_bias`` shifts them onto this robot's standing pose.
"""

from __future__ import annotations

import numpy as np

from termplan import tasks
from termplan.collector.motion_store import (
    FRAME_KEYS,
    MotionStore,
    check_clip,
)
from termplan.collector.row_refresh import RowRefresher
from termplan.collector.sim_env import Rows, SimEnv, shift_actions
from termplan.sim.g1_spec import DEFAULT_ANGLES, TRACKED_BODIES, sensor_slices
from termplan.sim.model import load_g1
from termplan.sim.physics import BatchedPhysics
from termplan.sim.reference import ReferenceClip, procedural_clip
from termplan.tasks.motion_tracking.config import ACTOR_DIM, NUM_DOF
from termplan.tasks.motion_tracking.config import BODY_NAMES as TASK_BODIES
from termplan.tasks.motion_tracking.config import DEFAULT_ANGLES as TASK_DEFAULT_ANGLES
from termplan.tasks.motion_tracking.profiles import resolve_profile

EPISODE_LENGTH = 500
CLIP_FRAMES = 1000
_S = sensor_slices()
#: (robot batch field, sensor kind, width) of the robot body arrays.
_BODY_FIELDS = (
    ("robot_body_pos_w", "pos", 3),
    ("robot_body_quat_w", "quat", 4),
    ("robot_body_lin_vel_w", "linvel", 3),
    ("robot_body_ang_vel_w", "angvel", 3),
)
assert TRACKED_BODIES == TASK_BODIES


def _sensor_block(kind: str) -> slice:
    return slice(_S[f"{TRACKED_BODIES[0]}_{kind}"].start, _S[f"{TRACKED_BODIES[-1]}_{kind}"].stop)


class MotionTrackingEnv(SimEnv):
    """N motion-tracking envs; ``path`` selects the hot slice."""

    obs_dim, action_dim = ACTOR_DIM, NUM_DOF

    def __init__(
        self, profile: str, num_envs: int, path: str, *, physics_threads: int = 1,
        numba_threads: int | None = None, seed: int = 0, action_scale: float = 1.0,
        clip: ReferenceClip | None = None,
    ) -> None:  # fmt: skip
        def build(n: int) -> tasks.HotSlice:
            return tasks.build("motion_tracking", profile, n, path, num_threads=numba_threads)

        g1 = load_g1()
        self.critic_dim = resolve_profile(profile).critic_dim
        self.clip = clip if clip is not None else procedural_clip(g1, CLIP_FRAMES, seed)
        clip_arrays = {key: getattr(self.clip, key) for key in FRAME_KEYS}
        self.store = MotionStore([check_clip(clip_arrays, self.clip.fps)])
        # everything that can refuse its arguments first: the physics (a thread pool and the
        # process-wide MuJoCo warning handler) is built last, so a bad argument leaks nothing
        hot = build(num_envs)
        batch = tasks.make_batch("motion_tracking", num_envs, seed=seed, profile=profile)
        physics = BatchedPhysics(g1, num_envs, physics_threads)
        super().__init__(physics, hot, RowRefresher(build), batch, EPISODE_LENGTH, seed)
        batch.default_dof_pos_bias[:] = (DEFAULT_ANGLES - TASK_DEFAULT_ANGLES).astype(np.float32)
        self.action_scale = float(action_scale)
        self.frame = np.zeros(num_envs, dtype=np.int64)
        self._ctrl = np.zeros((num_envs, NUM_DOF), dtype=np.float64)
        self._blocks = {kind: _sensor_block(kind) for _, kind, _ in _BODY_FIELDS}
        self._reference = {key: getattr(batch, key) for key in FRAME_KEYS}

    def apply_action(self, actions: np.ndarray) -> np.ndarray:
        """Shift the action history, advance every env's reference frame, return PD targets."""
        ctrl = shift_actions(self.batch, actions, self.action_scale, self._ctrl)
        self.frame += 1
        np.minimum(self.frame, self.clip.num_frames - 1, out=self.frame)
        return ctrl

    def read_state(self, rows: Rows) -> None:
        """Reference frame and robot state of ``rows`` into the batch."""
        b, p = self.batch, self.physics
        self._gather_reference(rows)
        for robot_field, kind, width in _BODY_FIELDS:
            flat = getattr(b, robot_field).reshape(self.num_envs, len(TRACKED_BODIES) * width)
            flat[rows] = p.sensordata[rows, self._blocks[kind]]  # a view: writes the batch
        b.linvel[rows] = p.sensordata[rows, _S["local_linvel"]]
        b.gyro[rows] = p.sensordata[rows, _S["gyro"]]
        b.dof_pos[rows] = p.qpos[rows, 7:]
        b.dof_vel[rows] = p.qvel[rows, 6:]

    def _gather_reference(self, rows: Rows) -> None:
        if isinstance(rows, slice):
            self.store.gather(self.frame[rows], self._reference)
            return
        part = self.store.allocate(rows.size)
        self.store.gather(self.frame[rows], part)
        for key, values in part.items():
            self._reference[key][rows] = values

    def extra_truncation(self, truncated: np.ndarray) -> None:
        """Envs on the clip's last frame are truncated."""
        truncated |= self.frame >= self.clip.num_frames - 1

    def reset_rows(self, rows: np.ndarray) -> None:
        """Sample a frame per row and put the robot on that reference state."""
        frames = self.rng.integers(0, self.clip.num_frames - 1, size=rows.size)
        self.frame[rows] = frames
        self.batch.current_actions[rows] = 0.0
        self.batch.last_actions[rows] = 0.0
        self.physics.set_rows(rows, self.clip.qpos[frames], self.clip.qvel[frames])
        self.read_state(rows)
