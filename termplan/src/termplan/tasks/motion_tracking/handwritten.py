"""The hand-written Numba path of the motion-tracking hot slice (the baseline the assembled
path must beat).

:class:`HandwrittenMotionTracking` owns its outputs and log scratch (allocated once at
construction), validates the batch, masks Numba's pool to its thread count and runs
:func:`~termplan.tasks.motion_tracking.handwritten_kernel.motion_kernel` once per call.
"""

from __future__ import annotations

import numpy as np

from termplan.tasks.base import StepOutputs, TaskPath, is_log_step
from termplan.tasks.motion_tracking.batch import MotionBatch, validate
from termplan.tasks.motion_tracking.config import (
    ACTOR_DIM,
    CTRL_DT,
    DEFAULT_ANGLES,
    EE_INDICES,
    JOINT_LOWER,
    JOINT_UPPER,
    TERM_ORDER,
    UNDESIRED_INDICES,
    NoiseConfig,
)
from termplan.tasks.motion_tracking.handwritten_kernel import LOG_STRIDE, N_TERMS, B, motion_kernel
from termplan.tasks.motion_tracking.profiles import Profile
from termplan.tasks.motion_tracking.task import TASK
from termplan.threads import masked, max_threads


def _aligned_zeros(rows: int, cols: int) -> np.ndarray:
    """A zeroed float64 (rows, cols) array whose base is 64-byte aligned (no false sharing)."""
    raw = np.zeros(rows * cols + 8, dtype=np.float64)
    skip = (-raw.ctypes.data % 64) // 8
    return raw[skip : skip + rows * cols].reshape(rows, cols)


class HandwrittenMotionTracking(TaskPath):
    """The hand-written prange kernel for one profile and N envs; outputs allocated once."""

    spec = TASK
    path = "handwritten"
    config: Profile
    noise: NoiseConfig

    def __init__(
        self,
        profile: str | Profile,
        num_envs: int,
        num_threads: int | None = None,
        noise: NoiseConfig | None = None,
    ) -> None:
        self._setup(profile, num_envs, num_threads, noise)
        prof, num_envs = self.config, self.num_envs
        self._scale = prof.scale_vector()
        self._inv_var = prof.inv_var_vector()
        self._active = [(k, TERM_ORDER[k]) for k in range(N_TERMS) if self._scale[k] != 0.0]
        th = prof.thresholds
        self._thr = np.array(
            [CTRL_DT, th.anchor_pos_z, th.anchor_ori, th.ee_body_pos_z, th.undesired_contact_z]
        )
        self._flags = np.array(
            [
                self.noise.active,
                prof.check_anchor_ori and th.anchor_ori < 2.0,
                prof.terminate_on_undesired_contacts,
                prof.critic_linvel_tail,
            ]
        )
        self._is_ee = np.isin(np.arange(B), EE_INDICES)
        self._is_und = np.isin(np.arange(B), UNDESIRED_INDICES)
        self._joint_consts = (DEFAULT_ANGLES.copy(), JOINT_LOWER.copy(), JOINT_UPPER.copy())
        self._log = _aligned_zeros(max_threads(), LOG_STRIDE)
        self.outputs = StepOutputs(
            reward=np.zeros(num_envs, np.float32),
            terminated=np.zeros(num_envs, np.bool_),
            obs=np.zeros((num_envs, ACTOR_DIM), np.float32),
            critic=np.zeros((num_envs, prof.critic_dim), np.float32),
        )

    def compute(self, batch: MotionBatch, step: int = 0) -> StepOutputs:
        """Validate ``batch``, run the kernel with this object's thread count, return outputs."""
        b = validate(batch, self.num_envs)
        self._log.fill(0.0)
        out = self.outputs
        with masked(self.num_threads):
            motion_kernel(
                b.body_pos_w, b.body_quat_w, b.body_lin_vel_w, b.body_ang_vel_w,
                b.joint_pos, b.joint_vel,
                b.robot_body_pos_w, b.robot_body_quat_w, b.robot_body_lin_vel_w,
                b.robot_body_ang_vel_w, b.linvel, b.gyro, b.dof_pos, b.dof_vel,
                b.current_actions, b.last_actions, b.default_dof_pos_bias,
                b.noise_linvel, b.noise_gyro, b.noise_joint_pos, b.noise_dof_vel,
                *self._joint_consts, self._scale, self._inv_var, self._is_ee, self._is_und,
                self._thr, self._flags, out.obs, out.critic, out.reward, out.terminated, self._log,
            )  # fmt: skip
        out.logs = self._logs() if is_log_step(step) else {}
        return out

    def _logs(self) -> dict[str, float]:
        sums = self._log.sum(axis=0)
        return {f"reward/{name}": float(sums[k]) / self.num_envs for k, name in self._active}
