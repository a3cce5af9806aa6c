"""The NumPy path of the G1 walk hot slice: the reference every Numba path is checked against.

One vectorised pass per active term (terms with scale 0 are skipped), then termination and
the observation copies, all into buffers allocated at construction (``out=`` everywhere), so
a steady-state call allocates nothing that grows with N. The reward and termination rules,
including NaN handling, are documented in :mod:`termplan.tasks.g1_walk`.

:class:`NumpyTerms` holds the vectorised formulas of the reward terms and owns every scratch
buffer, so evaluating a term allocates nothing that scales with N. Each method writes one
term's value for all envs into scratch and returns it; the value is valid until the next
method call. Velocity and posture terms run in float32 (the state's dtype); the gait terms,
base height and foot distance run in float64, as the hand-written kernel does, so thresholds
(``h <= H/2``, ``d < threshold``) decide alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from termplan.tasks.base import StepOutputs, TaskPath, allocate_outputs, is_log_step, log_key
from termplan.tasks.g1_walk.batch import G1Batch, validate
from termplan.tasks.g1_walk.config import (
    ACTOR_DIM,
    ACTOR_LAYOUT,
    CRITIC_DIM,
    CRITIC_LAYOUT,
    CTRL_DT,
    NUM_DOF,
    POSE_WEIGHTS,
    TERM_FORMULA,
    UPPER_BODY_POSE_WEIGHTS,
    NoiseConfig,
    ObsSlot,
    RewardConfig,
    check_default_angles,
)
from termplan.tasks.g1_walk.profiles import Profile
from termplan.tasks.g1_walk.task import TASK

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


_Term = tuple[str, float, Callable[[G1Batch], np.ndarray]]
#: One observation copy: source getter, noise field (or None), output view, multiplier.
_Copy = tuple[Callable[[G1Batch], np.ndarray], str | None, np.ndarray, float]


class NumpyG1Walk(TaskPath):
    """G1 walk hot slice in vectorised NumPy (see the module docstring)."""

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
        *,
        scales: Mapping[str, float] | None = None,
        default_angles: np.ndarray | None = None,
    ) -> None:
        self._setup(profile, num_envs, num_threads, noise, scales=scales)
        self._terms_impl = NumpyTerms(
            self.num_envs, self.config.reward, check_default_angles(default_angles)
        )
        self._terms: list[_Term] = [
            (log_key(name), scale, self._terms_impl.formula(TERM_FORMULA[name]))
            for _, name, scale in self.config.active_slots()
        ]
        self._gait = any(TERM_FORMULA[name] in GAIT_FORMULAS for name in self.config.active_terms)
        self._outputs = allocate_outputs(self.num_envs, ACTOR_DIM, CRITIC_DIM)
        self._sum = np.empty(self.num_envs, dtype=np.float64)
        self._weighted = np.empty(self.num_envs, dtype=np.float64)
        self._tilt = np.empty(self.num_envs, dtype=np.float64)
        self._ok = np.empty(self.num_envs, dtype=np.bool_)
        self._ok2 = np.empty(self.num_envs, dtype=np.bool_)
        self._copies = self._plan_copies(ACTOR_LAYOUT, self._outputs.obs, self.noise.enabled)
        self._copies += self._plan_copies(CRITIC_LAYOUT, self._outputs.critic, False)
        self._noisy = {3: np.empty((self.num_envs, 3), np.float32)}
        self._noisy[29] = np.empty((self.num_envs, 29), np.float32)

    def _plan_copies(
        self, layout: tuple[ObsSlot, ...], out: np.ndarray, noisy: bool
    ) -> list[_Copy]:
        copies: list[_Copy] = []
        for slot in layout:
            view = out[:, slot.offset : slot.offset + slot.width]
            noise = slot.noise if noisy else None
            copies.append((self._source(slot.source), noise, view, slot.multiplier(self.walk)))
        return copies

    def _source(self, name: str) -> Callable[[G1Batch], np.ndarray]:
        if name == "dof_pos_diff":
            diff = self._terms_impl.dof_pos_diff
            return lambda batch: diff

        def field(batch: G1Batch) -> np.ndarray:
            value: np.ndarray = getattr(batch, name)
            return value

        return field

    @property
    def walk(self) -> bool:
        """Whether the walk observation multipliers apply (from the profile)."""
        return self.config.walk_observation

    def compute(self, batch: G1Batch, step: int = 0) -> StepOutputs:
        """Reward, termination, actor and critic observations of one step (reused outputs)."""
        validate(batch, self.num_envs)
        self._terms_impl.prepare(batch, self._gait)
        self._outputs.logs = self._rewards(batch, is_log_step(step))
        self._terminate(batch)
        self._observe(batch)
        return self._outputs

    def _rewards(self, batch: G1Batch, log: bool) -> dict[str, float]:
        logs: dict[str, float] = {}
        total, weighted = self._sum, self._weighted
        total.fill(0.0)
        for key, scale, formula in self._terms:
            np.multiply(formula(batch), scale, out=weighted)
            np.add(total, weighted, out=total)
            if log:
                logs[key] = float(weighted.mean())
        np.multiply(total, CTRL_DT, out=self._outputs.reward)
        return logs

    def _terminate(self, batch: G1Batch) -> None:
        reward_cfg = self.config.reward
        tilt, ok, ok2 = self._tilt, self._ok, self._ok2
        np.copyto(tilt, batch.gravity[:, 2])
        np.clip(tilt, -1.0, 1.0, out=tilt)
        np.greater_equal(tilt, reward_cfg.min_upright_gz, out=ok)
        np.copyto(tilt, batch.base_height)
        np.greater_equal(tilt, reward_cfg.min_base_height, out=ok2)
        np.logical_and(ok, ok2, out=ok)
        np.logical_not(ok, out=self._outputs.terminated)

    def _observe(self, batch: G1Batch) -> None:
        for source, noise, view, multiplier in self._copies:
            values = source(batch)
            if noise is not None:
                values = np.add(values, getattr(batch, noise), out=self._noisy[view.shape[1]])
            if multiplier == 1.0:
                np.copyto(view, values)
            else:
                np.multiply(values, multiplier, out=view)
