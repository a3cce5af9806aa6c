"""The G1 walk env on MuJoCo: action -> ctrl, gait phase, physics readback, resets.

Upstream semantics (``G1WalkFlat``): ``ctrl = a * action_scale + default_angles``; the gait
phase advances by ``2*pi*1.5*0.02`` rad per step (mod 2*pi) when the action is applied; the
command ``[vx, vy, wz] ~ U(vel_limit)`` is drawn at reset only, with ``|xy| <= 0.2`` zeroed;
a reset puts the base at a random xy in +-0.5 m and yaw in +-pi, base velocities
``U(+-reset_base_qvel_limit)``, joints at the default pose, actions at zero, and the gait
phase at ``[phi, phi + pi]`` with ``phi ~ U(0, 2*pi)``. Episodes last 1000 steps (20 s).
"""

from __future__ import annotations

import math

import numpy as np

from termplan import tasks
from termplan.collector.row_refresh import RowRefresher
from termplan.collector.sim_env import Rows, SimEnv, shift_actions
from termplan.sim.g1_spec import CTRL_DT, DEFAULT_ANGLES, sensor_slices
from termplan.sim.model import load_g1
from termplan.sim.physics import BatchedPhysics
from termplan.tasks.g1_walk.config import ACTOR_DIM, CRITIC_DIM, NUM_DOF

GAIT_FREQUENCY = 1.5
PHASE_STEP = 2.0 * math.pi * GAIT_FREQUENCY * CTRL_DT
#: Command box ``[[vx, vy, wz] lower], [upper]]`` (upstream ``Commands.vel_limit``).
VEL_LIMIT = np.array([[-0.6, -0.4, -0.8], [1.0, 0.4, 0.8]])
EPISODE_LENGTH = 1000
_S = sensor_slices()


def _contact_block(side: str) -> slice:
    first, last = _S[f"{side}_foot_contact_0"], _S[f"{side}_foot_contact_3"]
    return slice(first.start, last.stop)


class G1WalkEnv(SimEnv):
    """N G1 walk envs; ``path`` selects the hot slice (numpy / handwritten / assembled)."""

    obs_dim, critic_dim, action_dim = ACTOR_DIM, CRITIC_DIM, NUM_DOF

    def __init__(
        self, profile: str, num_envs: int, path: str, *, physics_threads: int = 1,
        numba_threads: int | None = None, seed: int = 0, action_scale: float = 1.0,
        reset_base_qvel_limit: float = 0.5,
    ) -> None:  # fmt: skip
        def build(n: int) -> tasks.HotSlice:
            return tasks.build(
                "g1_walk", profile, n, path, num_threads=numba_threads,
                default_angles=DEFAULT_ANGLES,
            )  # fmt: skip

        # everything that can refuse its arguments first: the physics (a thread pool and the
        # process-wide MuJoCo warning handler) is built last, so a bad profile leaks nothing
        hot = build(num_envs)
        batch = tasks.make_batch("g1_walk", num_envs, seed=seed, profile=profile)
        physics = BatchedPhysics(load_g1(), num_envs, physics_threads)
        super().__init__(physics, hot, RowRefresher(build), batch, EPISODE_LENGTH, seed)
        self.action_scale = float(action_scale)
        self.reset_base_qvel_limit = float(reset_base_qvel_limit)
        self._ctrl = np.zeros((num_envs, NUM_DOF), dtype=np.float64)
        self._contact = (_contact_block("left"), _contact_block("right"))

    def apply_action(self, actions: np.ndarray) -> np.ndarray:
        """Shift the action history, advance the gait phase, return the PD targets."""
        ctrl = shift_actions(self.batch, actions, self.action_scale, self._ctrl)
        phase = self.batch.gait_phase
        phase += np.float32(PHASE_STEP)
        np.fmod(phase, np.float32(2.0 * math.pi), out=phase)
        return ctrl

    def read_state(self, rows: Rows) -> None:
        """Sensors, joints and base height of ``rows`` into the batch; feet air time."""
        b, sens, p = self.batch, self.physics.sensordata, self.physics
        b.linvel[rows] = sens[rows, _S["local_linvel"]]
        b.gyro[rows] = sens[rows, _S["gyro"]]
        b.gravity[rows] = sens[rows, _S["upvector"]]
        b.dof_pos[rows] = p.qpos[rows, 7:]
        b.dof_vel[rows] = p.qvel[rows, 6:]
        b.base_height[rows] = p.qpos[rows, 2]
        for side in ("left", "right"):
            getattr(b, f"{side}_foot_pos")[rows] = sens[rows, _S[f"{side}_foot_pos"]]
            getattr(b, f"{side}_foot_quat")[rows] = sens[rows, _S[f"{side}_foot_quat"]]
        b.left_contact[rows] = (sens[rows, self._contact[0]] > 0.5).any(axis=1)
        b.right_contact[rows] = (sens[rows, self._contact[1]] > 0.5).any(axis=1)
        air = b.feet_air_time[rows] + np.float32(CTRL_DT)
        air[:, 0] *= ~b.left_contact[rows]
        air[:, 1] *= ~b.right_contact[rows]
        b.feet_air_time[rows] = air

    def reset_rows(self, rows: np.ndarray) -> None:
        """New command, gait phase and standing pose for ``rows``."""
        k, b, rng = rows.size, self.batch, self.rng
        commands = rng.uniform(VEL_LIMIT[0], VEL_LIMIT[1], size=(k, 3))
        commands[np.linalg.norm(commands[:, :2], axis=1) <= 0.2, :2] = 0.0
        b.commands[rows] = commands
        phi = rng.uniform(0.0, 2.0 * math.pi, size=k)
        # wrapped like every later step (advance), so a phase has one encoding in the replay
        b.gait_phase[rows] = np.fmod(np.stack([phi, phi + math.pi], axis=1), 2.0 * math.pi)
        b.current_actions[rows] = 0.0
        b.last_actions[rows] = 0.0
        b.feet_air_time[rows] = 0.0
        qpos, qvel = self._initial_state(k)
        self.physics.set_rows(rows, qpos, qvel)
        self.read_state(rows)
        b.feet_air_time[rows] = 0.0

    def _initial_state(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        rng = self.rng
        qpos = np.tile(self.physics.g1.stand_qpos, (k, 1))
        qpos[:, :2] += rng.uniform(-0.5, 0.5, size=(k, 2))
        yaw = rng.uniform(-math.pi, math.pi, size=k)
        qpos[:, 3] = np.cos(yaw / 2)
        qpos[:, 6] = np.sin(yaw / 2)
        qvel = np.zeros((k, self.physics.model.nv))
        limit = self.reset_base_qvel_limit
        qvel[:, :6] = rng.uniform(-limit, limit, size=(k, 6))
        return qpos, qvel
