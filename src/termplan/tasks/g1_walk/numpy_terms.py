"""Vectorised NumPy formulas of the G1 walk reward terms (the reference path's core).

:class:`NumpyTerms` owns every scratch buffer, so evaluating a term allocates nothing that
scales with N. Each method writes one term's value for all envs into scratch and returns it;
the value is valid until the next method call. Velocity and posture terms run in float32 (the
state's dtype); the gait terms, base height and foot distance run in float64, as the
hand-written kernel does, so thresholds (``h <= H/2``, ``d < threshold``) decide alike.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from termplan.tasks.g1_walk.batch import G1Batch
from termplan.tasks.g1_walk.config import (
    NUM_DOF,
    POSE_WEIGHTS,
    UPPER_BODY_POSE_WEIGHTS,
    RewardConfig,
)

F32, F64 = np.float32, np.float64
TWO_PI = 2.0 * np.pi
#: Formulas that read the Bezier swing heights and the forward-speed gate.
GAIT_FORMULAS = frozenset({"feet_phase", "feet_phase_contrast", "feet_phase_contact"})


class NumpyTerms:
    """Per-term formulas over a whole batch, writing into preallocated scratch."""

    def __init__(self, num_envs: int, reward: RewardConfig, default_angles: np.ndarray) -> None:
        n = num_envs
        self.cfg = reward
        self.default_angles = default_angles.astype(F32)
        self.pose_weights = POSE_WEIGHTS.astype(F32)
        self.upper_body_weights = UPPER_BODY_POSE_WEIGHTS.astype(F32)
        #: ``dof_pos - default_angles`` of the current batch (also an observation source).
        self.dof_pos_diff = np.empty((n, NUM_DOF), dtype=F32)
        self._joints = np.empty((n, NUM_DOF), dtype=F32)
        self._a, self._b = np.empty(n, dtype=F32), np.empty(n, dtype=F32)
        self._x, self._y = np.empty(n, dtype=F64), np.empty(n, dtype=F64)
        self._ones = np.ones(n, dtype=F32)
        self._m1, self._m2 = np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.bool_)
        self._pair_mask = np.empty((n, 2), dtype=np.bool_)
        self._pair_mask2 = np.empty((n, 2), dtype=np.bool_)
        self._t = np.empty((n, 2), dtype=F64)
        #: Bezier swing heights per foot (N, 2) and the gait gate (N,), float64.
        self.heights = np.empty((n, 2), dtype=F64)
        self.gate = np.empty(n, dtype=F64)

    def formula(self, name: str) -> Callable[[G1Batch], np.ndarray]:
        """The bound method evaluating formula ``name`` (see ``config.TERM_FORMULA``)."""
        method: Callable[[G1Batch], np.ndarray] = getattr(self, f"_{name}")
        return method

    def prepare(self, batch: G1Batch, gait: bool) -> None:
        """Shared per-step quantities: the joint offsets, and the gait heights if needed."""
        np.subtract(batch.dof_pos, self.default_angles, out=self.dof_pos_diff)
        if gait:
            self._swing_heights(batch.gait_phase)
            np.maximum(batch.linvel[:, 0], 0.0, out=self._a)
            min_fwd = F64(self.cfg.min_forward_speed_for_gait_reward)
            np.greater_equal(self._a, min_fwd, out=self._m1)
            np.copyto(self.gate, self._m1)

    def _swing_heights(self, phase: np.ndarray) -> None:
        """Cubic Bezier swing height ``bez(phi, H)`` for both feet, float64."""
        x, t, swing = self.heights, self._t, self._pair_mask
        np.copyto(x, phase)
        np.add(x, np.pi, out=x)
        np.fmod(x, TWO_PI, out=x)
        np.subtract(x, np.pi, out=x)
        np.add(x, np.pi, out=x)
        np.divide(x, TWO_PI, out=x)
        np.greater(x, 0.5, out=swing)  # second half: the foot comes down
        np.multiply(x, 2.0, out=t)
        np.subtract(t, 1.0, out=t, where=swing)
        np.multiply(t, -2.0, out=x)  # s = t * t * (3 - 2t)
        np.add(x, 3.0, out=x)
        np.multiply(t, x, out=x)
        np.multiply(t, x, out=x)
        np.subtract(1.0, x, out=x, where=swing)
        np.multiply(x, self.cfg.feet_phase_swing_height, out=x)

    def _square_sum(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``a**2 + b**2`` of two float32 columns."""
        np.square(a, out=self._a)
        np.square(b, out=self._b)
        return np.add(self._a, self._b, out=self._a)

    def _tracking_lin_vel(self, batch: G1Batch) -> np.ndarray:
        v, c = batch.linvel, batch.commands
        np.subtract(c[:, 0], v[:, 0], out=self._a)
        np.subtract(c[:, 1], v[:, 1], out=self._b)
        err = self._square_sum(self._a, self._b)
        np.divide(err, -self.cfg.tracking_sigma, out=err)
        return np.exp(err, out=err)

    def _tracking_ang_vel(self, batch: G1Batch) -> np.ndarray:
        err = np.subtract(batch.commands[:, 2], batch.gyro[:, 2], out=self._a)
        np.square(err, out=err)
        np.divide(err, -self.cfg.tracking_sigma, out=err)
        return np.exp(err, out=err)

    def _forward_progress(self, batch: G1Batch) -> np.ndarray:
        out = np.maximum(batch.linvel[:, 0], 0.0, out=self._a)
        np.divide(out, np.maximum(batch.commands[:, 0], 1e-6, out=self._b), out=out)
        return np.minimum(out, 1.0, out=out)

    def _under_speed(self, batch: G1Batch) -> np.ndarray:
        out = np.maximum(batch.linvel[:, 0], 0.0, out=self._a)
        np.subtract(batch.commands[:, 0], out, out=out)
        np.maximum(out, 0.0, out=out)
        return np.divide(out, np.maximum(batch.commands[:, 0], 1e-6, out=self._b), out=out)

    def _lin_vel_z(self, batch: G1Batch) -> np.ndarray:
        return np.square(batch.linvel[:, 2], out=self._a)

    def _orientation(self, batch: G1Batch) -> np.ndarray:
        return self._square_sum(batch.gravity[:, 0], batch.gravity[:, 1])

    def _ang_vel_xy(self, batch: G1Batch) -> np.ndarray:
        return self._square_sum(batch.gyro[:, 0], batch.gyro[:, 1])

    def _action_rate(self, batch: G1Batch) -> np.ndarray:
        diff = np.subtract(batch.current_actions, batch.last_actions, out=self._joints)
        np.square(diff, out=diff)
        return np.sum(diff, axis=1, out=self._a)

    def _base_height(self, batch: G1Batch) -> np.ndarray:
        np.copyto(self._x, batch.base_height)
        np.subtract(self._x, self.cfg.base_height_target, out=self._x)
        return np.square(self._x, out=self._x)

    def _weighted_pose(self, weights: np.ndarray) -> np.ndarray:
        sq = np.square(self.dof_pos_diff, out=self._joints)
        np.multiply(sq, weights, out=sq)
        return np.sum(sq, axis=1, out=self._a)

    def _pose(self, batch: G1Batch) -> np.ndarray:
        return self._weighted_pose(self.pose_weights)

    def _upper_body_pose(self, batch: G1Batch) -> np.ndarray:
        return self._weighted_pose(self.upper_body_weights)

    def _penalty_close_feet_xy(self, batch: G1Batch) -> np.ndarray:
        dist, tmp = self._x, self._y
        np.subtract(batch.left_foot_pos[:, 0], batch.right_foot_pos[:, 0], out=dist)
        np.square(dist, out=dist)
        np.subtract(batch.left_foot_pos[:, 1], batch.right_foot_pos[:, 1], out=tmp)
        np.square(tmp, out=tmp)
        np.add(dist, tmp, out=dist)
        np.sqrt(dist, out=dist)
        threshold = self.cfg.close_feet_threshold
        close = np.less(dist, threshold, out=self._m1)
        tmp.fill(0.0)
        np.subtract(dist, threshold, out=tmp, where=close)
        return np.square(tmp, out=tmp)

    def _feet_ori(self, batch: G1Batch) -> np.ndarray:
        left, right = batch.left_foot_quat, batch.right_foot_quat
        out = self._square_sum(left[:, 1], left[:, 2])
        np.square(right[:, 1], out=self._b)
        np.add(out, self._b, out=out)
        np.square(right[:, 2], out=self._b)
        return np.add(out, self._b, out=out)

    def _feet_phase(self, batch: G1Batch) -> np.ndarray:
        err, tmp = self._x, self._y
        np.subtract(batch.left_foot_pos[:, 2], self.heights[:, 0], out=err)
        np.square(err, out=err)
        np.subtract(batch.right_foot_pos[:, 2], self.heights[:, 1], out=tmp)
        np.square(tmp, out=tmp)
        np.add(err, tmp, out=err)
        return self._gated_exp(err)

    def _feet_phase_contrast(self, batch: G1Batch) -> np.ndarray:
        err, tmp = self._x, self._y
        np.copyto(err, batch.left_foot_pos[:, 2])
        np.subtract(err, batch.right_foot_pos[:, 2], out=err)
        np.subtract(self.heights[:, 0], self.heights[:, 1], out=tmp)
        np.subtract(err, tmp, out=err)
        np.square(err, out=err)
        return self._gated_exp(err)

    def _gated_exp(self, err: np.ndarray) -> np.ndarray:
        """``exp(-err / sigma_f) * gate`` in place (float64)."""
        np.divide(err, -self.cfg.feet_phase_tracking_sigma, out=err)
        np.exp(err, out=err)
        return np.multiply(err, self.gate, out=err)

    def _feet_phase_contact(self, batch: G1Batch) -> np.ndarray:
        stance = np.less_equal(
            self.heights, 0.5 * self.cfg.feet_phase_swing_height, out=self._pair_mask
        )
        left = np.equal(batch.left_contact, stance[:, 0], out=self._m1)
        right = np.equal(batch.right_contact, stance[:, 1], out=self._m2)
        out = np.add(left, right, out=self._x, dtype=F64)
        np.multiply(out, 0.5, out=out)
        return np.multiply(out, self.gate, out=out)

    def _feet_double_stance(self, batch: G1Batch) -> np.ndarray:
        both = np.logical_and(batch.left_contact, batch.right_contact, out=self._m1)
        moving = np.greater(batch.commands[:, 0], F64(1e-6), out=self._m2)
        np.logical_and(both, moving, out=both)
        np.copyto(self._a, both)
        return self._a

    def _feet_air_time(self, batch: G1Batch) -> np.ndarray:
        t = batch.feet_air_time
        inside = np.greater(t, F64(0.05), out=self._pair_mask)
        np.logical_and(inside, np.less(t, F64(0.5), out=self._pair_mask2), out=inside)
        return np.add.reduce(inside, axis=1, dtype=F32, out=self._a)

    def _alive(self, batch: G1Batch) -> np.ndarray:
        return self._ones
