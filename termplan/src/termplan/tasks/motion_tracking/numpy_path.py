"""NumPy path of the motion-tracking hot slice: vectorised, in place, allocation-free.

Per call: the shared preamble (yaw-aligned reference, anchor-relative transforms, §2.4), the
active reward terms (zero-scale terms are skipped), the termination test, and the actor /
critic observations. Every array lives in preallocated scratch or in the output buffers, and
the same output objects are returned each call.

NaN policy (shared with the hand-written path):

* termination fails closed: each test is written as "terminate unless the value is within
  its threshold", so a NaN termination input terminates its row;
* continuous rewards and observations propagate NaN;
* ``undesired_contacts`` counts a body only when ``z < threshold`` holds (NaN is not a
  contact for the reward), and zero-scale terms contribute exactly 0 whatever their inputs.

The reference's yaw alignment rotates about world z, so a reference body keeps the motion's
world z exactly; both paths use ``body_pos_w[..., 2]`` for it (no round-off near a threshold).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from termplan.tasks.base import StepOutputs, TaskPath, is_log_step
from termplan.tasks.motion_tracking import geometry as geo
from termplan.tasks.motion_tracking.batch import MotionBatch, validate
from termplan.tasks.motion_tracking.config import (
    ACTOR_DIM,
    ACTOR_OFFSETS,
    ANCHOR,
    CRITIC_OFFSETS,
    CTRL_DT,
    DEFAULT_ANGLES,
    EE_INDICES,
    JOINT_LOWER,
    JOINT_UPPER,
    NUM_BODIES,
    NUM_DOF,
    TERM_ORDER,
    UNDESIRED_INDICES,
    NoiseConfig,
)
from termplan.tasks.motion_tracking.profiles import Profile
from termplan.tasks.motion_tracking.task import TASK

A, B, J = ANCHOR, NUM_BODIES, NUM_DOF
F32 = np.float32


def _take_z(pos: np.ndarray, bodies: tuple[int, ...], out: np.ndarray) -> None:
    """``out[:, k] = pos[:, bodies[k], 2]`` by column copies (``np.take`` on a strided view
    would copy the whole source first)."""
    for k, body in enumerate(bodies):
        out[:, k] = pos[:, body, 2]


class _Scratch:
    """Every intermediate array of one call, allocated once for N envs."""

    def __init__(self, n: int) -> None:
        self.n1 = np.empty(n, F32)
        self.n2 = np.empty(n, F32)
        self.n64 = np.empty(n, np.float64)
        self.n64b = np.empty(n, np.float64)
        self.n64c = np.empty(n, np.float64)
        self.yaw_tmp = np.empty((2, n), F32)
        self.q_n = np.empty((n, 4), F32)
        self.q_n2 = np.empty((n, 4), F32)
        self.conj_ra = np.empty((n, 4), F32)
        self.v_n = np.empty((n, 3), F32)
        self.rot_a = np.empty((n, 3, 3), F32)
        self.cos_sin = np.empty((n, 2), F32)
        self.nb1 = np.empty((n, B), F32)
        self.nb2 = np.empty((n, B), F32)
        self.nb3 = np.empty((n, B), F32)
        self.vec_nb = np.empty((n, B, 3), F32)
        self.ref_pos = np.empty((n, B, 3), F32)
        self.ref_quat = np.empty((n, B, 4), F32)
        self.q_nb = np.empty((n, B, 4), F32)
        self.body_pos = np.empty((n, B, 3), F32)
        self.body_ori = np.empty((n, B, 6), F32)
        self.nj1 = np.empty((n, J), F32)
        self.nj2 = np.empty((n, J), F32)
        self.ee1 = np.empty((n, len(EE_INDICES)), F32)
        self.ee2 = np.empty((n, len(EE_INDICES)), F32)
        self.und = np.empty((n, len(UNDESIRED_INDICES)), F32)
        self.und_flag = np.empty((n, len(UNDESIRED_INDICES)), np.bool_)
        self.ee_flag = np.empty((n, len(EE_INDICES)), np.bool_)
        self.flag = np.empty(n, np.bool_)


class NumpyMotionTracking(TaskPath):
    """The vectorised NumPy hot slice for one profile and N envs (``num_threads`` unused)."""

    spec = TASK
    path = "numpy"
    config: Profile
    noise: NoiseConfig

    def __init__(
        self,
        profile: str | Profile,
        num_envs: int,
        num_threads: int | None = None,  # checked, unused: NumPy runs single-threaded
        noise: NoiseConfig | None = None,
    ) -> None:
        self._setup(profile, num_envs, num_threads, noise)
        num_envs = self.num_envs
        scales = self.config.scale_vector()
        self._inv_var = self.config.inv_var_vector()
        self._active = [(k, TERM_ORDER[k], float(s)) for k, s in enumerate(scales) if s != 0.0]
        self._terms = self._term_table()
        self._ws = _Scratch(num_envs)
        self._default = DEFAULT_ANGLES.astype(F32)
        self._lower = JOINT_LOWER.astype(F32)
        self._upper = JOINT_UPPER.astype(F32)
        self.outputs = StepOutputs(
            reward=np.zeros(num_envs, F32),
            terminated=np.zeros(num_envs, np.bool_),
            obs=np.zeros((num_envs, ACTOR_DIM), F32),
            critic=np.zeros((num_envs, self.config.critic_dim), F32),
        )

    def compute(self, batch: MotionBatch, step: int = 0) -> StepOutputs:
        """Run the hot slice on ``batch`` and return the reused outputs."""
        b = validate(batch, self.num_envs)
        self._preamble(b)
        logs = self._rewards(b, is_log_step(step))
        self._terminate(b)
        self._write_obs(b)
        self.outputs.logs = logs
        return self.outputs

    # ------------------------------------------------------------------ preamble

    def _preamble(self, b: MotionBatch) -> None:
        """Reference transforms, anchor-relative command and robot body transforms."""
        ws, actor = self._ws, self.outputs.obs
        q_ra, q_ma = b.robot_body_quat_w[:, A], b.body_quat_w[:, A]
        geo.quat_conjugate(q_ra, out=ws.conj_ra)
        geo.quat_to_matrix(q_ra, out=ws.rot_a, tmp=ws.n1)
        self._reference(b)
        # motion anchor in the robot anchor frame: position and rot6d orientation
        np.subtract(b.body_pos_w[:, A], b.robot_body_pos_w[:, A], out=ws.v_n)
        o = ACTOR_OFFSETS["anchor_pos"]
        geo.mat_vec(ws.rot_a, ws.v_n, out=actor[:, o : o + 3], tmp=ws.n1, transpose=True)
        geo.quat_mul(ws.conj_ra, q_ma, out=ws.q_n, tmp=ws.n1)
        o = ACTOR_OFFSETS["anchor_ori"]
        geo.rot6d(ws.q_n, out=actor[:, o : o + 6], tmp=ws.n1)
        # robot bodies in the robot anchor frame
        np.subtract(b.robot_body_pos_w, b.robot_body_pos_w[:, A : A + 1], out=ws.vec_nb)
        # computed contiguously, then copied as blocks (strided writes into the wide critic
        # rows cost several times more)
        geo.mat_vec(ws.rot_a[:, None], ws.vec_nb, out=ws.body_pos, tmp=ws.nb1, transpose=True)
        self._critic_block("body_pos")[...] = ws.body_pos.reshape(self.num_envs, 3 * B)
        geo.quat_mul(ws.conj_ra[:, None], b.robot_body_quat_w, out=ws.q_nb, tmp=ws.nb1)
        geo.rot6d(ws.q_nb, out=ws.body_ori, tmp=ws.nb1)
        self._critic_block("body_ori")[...] = ws.body_ori.reshape(self.num_envs, 6 * B)

    def _reference(self, b: MotionBatch) -> None:
        """Yaw-align the reference to the robot anchor: ``ws.ref_quat`` and ``ws.ref_pos``."""
        ws = self._ws
        geo.quat_conjugate(b.body_quat_w[:, A], out=ws.q_n2)
        geo.quat_mul(b.robot_body_quat_w[:, A], ws.q_n2, out=ws.q_n, tmp=ws.n1)
        psi = geo.yaw(ws.q_n, out=ws.n2, tmp=ws.yaw_tmp)
        # half-angle cos/sin for the quaternion, full-angle for R_z
        np.multiply(psi, 0.5, out=ws.n1)
        c, s = ws.cos_sin[:, 0:1], ws.cos_sin[:, 1:2]
        np.cos(ws.n1, out=c[:, 0])
        np.sin(ws.n1, out=s[:, 0])
        mw, mx, my, mz = (b.body_quat_w[..., k] for k in range(4))
        rq = ws.ref_quat
        geo.sum_products(rq[..., 0], ws.nb1, [(1, c, mw), (-1, s, mz)])
        geo.sum_products(rq[..., 1], ws.nb1, [(1, c, mx), (-1, s, my)])
        geo.sum_products(rq[..., 2], ws.nb1, [(1, c, my), (1, s, mx)])
        geo.sum_products(rq[..., 3], ws.nb1, [(1, c, mz), (1, s, mw)])
        np.cos(psi, out=c[:, 0])
        np.sin(psi, out=s[:, 0])
        d = ws.vec_nb
        np.subtract(b.body_pos_w, b.body_pos_w[:, A : A + 1], out=d)
        rp = ws.ref_pos
        geo.sum_products(rp[..., 0], ws.nb1, [(1, c, d[..., 0]), (-1, s, d[..., 1])])
        geo.sum_products(rp[..., 1], ws.nb1, [(1, s, d[..., 0]), (1, c, d[..., 1])])
        np.add(rp[..., 0], b.robot_body_pos_w[:, A : A + 1, 0], out=rp[..., 0])
        np.add(rp[..., 1], b.robot_body_pos_w[:, A : A + 1, 1], out=rp[..., 1])
        rp[..., 2] = b.body_pos_w[..., 2]

    def _critic_block(self, name: str) -> np.ndarray:
        width = {"body_pos": 3 * B, "body_ori": 6 * B, "linvel_tail": 3}[name]
        o = CRITIC_OFFSETS[name]
        return self.outputs.critic[:, o : o + width]

    # ------------------------------------------------------------------ rewards

    def _term_table(self) -> dict[str, Callable[[MotionBatch, np.ndarray], None]]:
        return {
            "motion_global_root_pos": self._root_pos,
            "motion_global_root_ori": self._root_ori,
            "motion_body_pos": self._body_pos,
            "motion_body_ori": self._body_ori,
            "motion_body_lin_vel": self._body_lin_vel,
            "motion_body_ang_vel": self._body_ang_vel,
            "motion_ee_body_pos_z": self._ee_body_pos_z,
            "motion_joint_pos": self._joint_pos,
            "motion_joint_vel": self._joint_vel,
            "action_rate_l2": self._action_rate,
            "joint_limit": self._joint_limit,
            "undesired_contacts": self._undesired,
        }

    def _rewards(self, b: MotionBatch, log: bool) -> dict[str, float]:
        """``reward = ctrl_dt * sum_k s_k f_k`` over active terms; logs of ``s_k f_k``."""
        reward, f = self.outputs.reward, self._ws.n1
        reward.fill(0.0)
        logs: dict[str, float] = {}
        for k, name, scale in self._active:
            self._terms[name](b, f)
            if self._inv_var[k] != 0.0:
                np.multiply(f, -self._inv_var[k], out=f)
                np.exp(f, out=f)
            np.multiply(f, scale, out=f)
            np.add(reward, f, out=reward)
            if log:
                logs[f"reward/{name}"] = float(np.add.reduce(f, dtype=np.float64)) / len(f)
        np.multiply(reward, CTRL_DT, out=reward)
        return logs

    def _mean_sq(self, diff: np.ndarray, out: np.ndarray) -> None:
        """``out = mean over axis 1 of |diff|**2`` (for (N, B, 3): mean squared norm)."""
        flat = diff.reshape(diff.shape[0], -1)
        np.einsum("ij,ij->i", flat, flat, out=out)
        np.multiply(out, 1.0 / diff.shape[1], out=out)

    def _root_pos(self, b: MotionBatch, out: np.ndarray) -> None:
        np.subtract(b.body_pos_w[:, A], b.robot_body_pos_w[:, A], out=self._ws.v_n)
        np.einsum("ij,ij->i", self._ws.v_n, self._ws.v_n, out=out)

    def _root_ori(self, b: MotionBatch, out: np.ndarray) -> None:
        q_m, q_r = b.body_quat_w[:, A], b.robot_body_quat_w[:, A]
        geo.quat_angle_sq(q_m, q_r, out=out, tmp=self._ws.n2)

    def _body_pos(self, b: MotionBatch, out: np.ndarray) -> None:
        np.subtract(self._ws.ref_pos, b.robot_body_pos_w, out=self._ws.vec_nb)
        self._mean_sq(self._ws.vec_nb, out)

    def _body_ori(self, b: MotionBatch, out: np.ndarray) -> None:
        ws = self._ws
        geo.quat_angle_sq(ws.ref_quat, b.robot_body_quat_w, out=ws.nb2, tmp=ws.nb3)
        np.add.reduce(ws.nb2, axis=1, out=out)
        np.multiply(out, 1.0 / B, out=out)

    def _body_lin_vel(self, b: MotionBatch, out: np.ndarray) -> None:
        np.subtract(b.body_lin_vel_w, b.robot_body_lin_vel_w, out=self._ws.vec_nb)
        self._mean_sq(self._ws.vec_nb, out)

    def _body_ang_vel(self, b: MotionBatch, out: np.ndarray) -> None:
        np.subtract(b.body_ang_vel_w, b.robot_body_ang_vel_w, out=self._ws.vec_nb)
        self._mean_sq(self._ws.vec_nb, out)

    def _ee_body_pos_z(self, b: MotionBatch, out: np.ndarray) -> None:
        ws = self._ws
        _take_z(ws.ref_pos, EE_INDICES, ws.ee1)
        _take_z(b.robot_body_pos_w, EE_INDICES, ws.ee2)
        np.subtract(ws.ee1, ws.ee2, out=ws.ee1)
        self._mean_sq(ws.ee1, out)

    def _joint_pos(self, b: MotionBatch, out: np.ndarray) -> None:
        np.subtract(b.joint_pos, b.dof_pos, out=self._ws.nj1)
        self._mean_sq(self._ws.nj1, out)

    def _joint_vel(self, b: MotionBatch, out: np.ndarray) -> None:
        np.subtract(b.joint_vel, b.dof_vel, out=self._ws.nj1)
        self._mean_sq(self._ws.nj1, out)

    def _action_rate(self, b: MotionBatch, out: np.ndarray) -> None:
        np.subtract(b.current_actions, b.last_actions, out=self._ws.nj1)
        np.einsum("ij,ij->i", self._ws.nj1, self._ws.nj1, out=out)

    def _joint_limit(self, b: MotionBatch, out: np.ndarray) -> None:
        """``sum_j (max(lo - q, 0) + max(q - hi, 0))**2`` (NaN propagates)."""
        ws = self._ws
        np.subtract(self._lower, b.dof_pos, out=ws.nj1)
        np.maximum(ws.nj1, 0.0, out=ws.nj1)
        np.subtract(b.dof_pos, self._upper, out=ws.nj2)
        np.maximum(ws.nj2, 0.0, out=ws.nj2)
        np.add(ws.nj1, ws.nj2, out=ws.nj1)
        np.einsum("ij,ij->i", ws.nj1, ws.nj1, out=out)

    def _undesired(self, b: MotionBatch, out: np.ndarray) -> None:
        """Number of undesired bodies with ``z < threshold`` (compared in float64)."""
        ws = self._ws
        _take_z(b.robot_body_pos_w, UNDESIRED_INDICES, ws.und)
        thr = np.float64(self.config.thresholds.undesired_contact_z)
        np.less(ws.und, thr, out=ws.und_flag)
        np.add.reduce(ws.und_flag, axis=1, dtype=F32, out=out)

    # ------------------------------------------------------------------ termination

    def _terminate(self, b: MotionBatch) -> None:
        """Fail-closed termination: a row stays alive only if every test passes."""
        ws, th, done = self._ws, self.config.thresholds, self.outputs.terminated
        np.subtract(b.body_pos_w[:, A, 2], b.robot_body_pos_w[:, A, 2], out=ws.n1)
        np.abs(ws.n1, out=ws.n1)
        np.less_equal(ws.n1, np.float64(th.anchor_pos_z), out=done)
        if self.config.check_anchor_ori and th.anchor_ori < 2.0:
            self._gravity_z64(b.body_quat_w[:, A], ws.n64)
            self._gravity_z64(b.robot_body_quat_w[:, A], ws.n64b)
            np.subtract(ws.n64, ws.n64b, out=ws.n64)
            np.abs(ws.n64, out=ws.n64)
            np.less_equal(ws.n64, th.anchor_ori, out=ws.flag)
            np.logical_and(done, ws.flag, out=done)
        _take_z(b.body_pos_w, EE_INDICES, ws.ee1)
        _take_z(b.robot_body_pos_w, EE_INDICES, ws.ee2)
        np.subtract(ws.ee1, ws.ee2, out=ws.ee1)
        np.abs(ws.ee1, out=ws.ee1)
        np.less_equal(ws.ee1, np.float64(th.ee_body_pos_z), out=ws.ee_flag)
        np.logical_and.reduce(ws.ee_flag, axis=1, out=ws.flag)
        np.logical_and(done, ws.flag, out=done)
        if self.config.terminate_on_undesired_contacts:
            _take_z(b.robot_body_pos_w, UNDESIRED_INDICES, ws.und)
            np.greater_equal(ws.und, np.float64(th.undesired_contact_z), out=ws.und_flag)
            np.logical_and.reduce(ws.und_flag, axis=1, out=ws.flag)
            np.logical_and(done, ws.flag, out=done)
        np.logical_not(done, out=done)

    def _gravity_z64(self, q: np.ndarray, out: np.ndarray) -> None:
        """``2 (x**2 + y**2) - 1`` in float64 (termination precision)."""
        tmp = self._ws.n64c
        np.square(q[:, 1], out=out, dtype=np.float64)
        np.square(q[:, 2], out=tmp, dtype=np.float64)
        np.add(out, tmp, out=out)
        np.multiply(out, 2.0, out=out)
        np.subtract(out, 1.0, out=out)

    # ------------------------------------------------------------------ observations

    def _write_obs(self, b: MotionBatch) -> None:
        """Actor (noisy when the noise level is > 0) and critic (clean) observations.

        The anchor blocks were written into the actor by the preamble and the body blocks
        into the critic; the critic's joint_pos_rel block is the clean source of the actor's.
        """
        actor, critic, off = self.outputs.obs, self.outputs.critic, ACTOR_OFFSETS
        o = off["command"]
        actor[:, o : o + J] = b.joint_pos
        actor[:, o + J : o + 2 * J] = b.joint_vel
        critic[:, : off["linvel"]] = actor[:, : off["linvel"]]
        jp = critic[:, off["joint_pos"] : off["joint_pos"] + J]
        np.subtract(b.dof_pos, self._default, out=jp)
        np.subtract(jp, b.default_dof_pos_bias, out=jp)
        blocks = (
            ("linvel", b.linvel, b.noise_linvel),
            ("gyro", b.gyro, b.noise_gyro),
            ("joint_pos", jp, b.noise_joint_pos),
            ("dof_vel", b.dof_vel, b.noise_dof_vel),
            ("actions", b.current_actions, None),
        )
        for name, clean, noise in blocks:
            o, width = off[name], clean.shape[1]
            if name != "joint_pos":
                critic[:, o : o + width] = clean
            if noise is not None and self.noise.active:
                np.add(clean, noise, out=actor[:, o : o + width])
            else:
                actor[:, o : o + width] = clean
        if self.config.critic_linvel_tail:
            self._critic_block("linvel_tail")[...] = b.linvel
