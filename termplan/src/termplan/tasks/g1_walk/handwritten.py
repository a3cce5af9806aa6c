"""The hand-written Numba path of the G1 walk hot slice (the baseline the assembled path must
beat).

:class:`HandwrittenG1Walk` owns its outputs and log scratch (allocated once at construction),
validates the batch, masks Numba's pool to its thread count and runs
:func:`~termplan.tasks.g1_walk.handwritten_kernel.g1_walk_kernel` once per call. Reward,
termination and NaN rules are those of :mod:`termplan.tasks.g1_walk`; the kernel
computes all 22 terms and weighs them by the profile's (22,) scale vector.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from termplan.tasks.base import StepOutputs, TaskPath, allocate_outputs, is_log_step, log_key
from termplan.tasks.g1_walk.batch import G1Batch, validate
from termplan.tasks.g1_walk.config import (
    ACTOR_DIM,
    ACTOR_LAYOUT,
    CRITIC_DIM,
    CRITIC_LAYOUT,
    CTRL_DT,
    POSE_WEIGHTS,
    TERM_ORDER,
    UPPER_BODY_POSE_WEIGHTS,
    NoiseConfig,
    ObsSlot,
    check_default_angles,
)
from termplan.tasks.g1_walk.handwritten_kernel import KERNEL_OFFSETS, g1_walk_kernel
from termplan.tasks.g1_walk.handwritten_layout import LOG_STRIDE, SCRATCH_ROWS, TILE
from termplan.tasks.g1_walk.profiles import Profile
from termplan.tasks.g1_walk.task import TASK
from termplan.threads import masked, max_threads
from termplan.tiles import TILE_CAPACITY, tile_length

#: Multipliers the kernel hard-codes: gravity is negated, the rest copied unscaled.
_FIXED_MULTIPLIERS = {
    "gravity": -1.0,
    "dof_pos": 1.0,
    "actions": 1.0,
    "commands": 1.0,
    "gait_phase": 1.0,
}


def _slot_key(slot: ObsSlot) -> str:
    """``actor_dof_vel`` -> ``dof_vel``."""
    return slot.name.split("_", 1)[1]


def check_layout_matches_kernel() -> None:
    """The kernel's literal offsets and fixed multipliers must equal ``layout``'s.

    Raises
    ------
    RuntimeError
        If someone changed the layout without changing the kernel (or the reverse).
    """
    for slot in (*ACTOR_LAYOUT, *CRITIC_LAYOUT):
        key = _slot_key(slot)
        if KERNEL_OFFSETS.get(key) != slot.offset:
            raise RuntimeError(f"kernel offset of {slot.name} differs from layout {slot.offset}")
        fixed = _FIXED_MULTIPLIERS.get(key)
        if fixed is not None and (slot.walk_multiplier, slot.plain_multiplier) != (fixed, fixed):
            raise RuntimeError(f"kernel hard-codes multiplier {fixed} for {slot.name}")


check_layout_matches_kernel()


def _multiplier(layout: tuple[ObsSlot, ...], key: str, walk: bool) -> float:
    return next(s.multiplier(walk) for s in layout if _slot_key(s) == key)


class HandwrittenG1Walk(TaskPath):
    """G1 walk hot slice as one hand-written ``prange`` kernel (see the module docstring)."""

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
        *,
        scales: Mapping[str, float] | None = None,
        default_angles: np.ndarray | None = None,
    ) -> None:
        self._setup(profile, num_envs, num_threads, noise, scales=scales)
        self._scale = self.config.scale_vector()
        self._active = self.config.active_slots()
        self._weights = (
            np.array(check_default_angles(default_angles), dtype=np.float64),
            np.array(POSE_WEIGHTS, dtype=np.float64),
            np.array(UPPER_BODY_POSE_WEIGHTS, dtype=np.float64),
        )
        self._scalars = self._kernel_scalars()
        self._log = np.zeros((max_threads(), LOG_STRIDE), dtype=np.float64)
        self._tiles = np.zeros((max_threads(), SCRATCH_ROWS, TILE), dtype=np.float64)
        self._outputs = allocate_outputs(self.num_envs, ACTOR_DIM, CRITIC_DIM)
        #: Envs per tile for this N and thread count (the pool's size when unset).
        self._tile = tile_length(self.num_envs, self.num_threads or max_threads())

    def _kernel_scalars(self) -> tuple[float, ...]:
        """Reward parameters then obs multipliers, in the kernel's argument order."""
        r, walk = self.config.reward, self.config.walk_observation
        return (
            CTRL_DT,
            r.tracking_sigma,
            r.base_height_target,
            r.min_base_height,
            r.min_upright_gz,
            r.feet_phase_swing_height,
            r.feet_phase_tracking_sigma,
            r.min_forward_speed_for_gait_reward,
            r.close_feet_threshold,
            _multiplier(ACTOR_LAYOUT, "gyro", walk),
            _multiplier(ACTOR_LAYOUT, "dof_vel", walk),
            _multiplier(CRITIC_LAYOUT, "gyro", walk),
            _multiplier(CRITIC_LAYOUT, "dof_vel", walk),
            _multiplier(CRITIC_LAYOUT, "linvel", walk),
        )

    def compute(self, batch: G1Batch, step: int = 0) -> StepOutputs:
        """Reward, termination, actor and critic observations of one step (reused outputs)."""
        validate(batch, self.num_envs)
        log = is_log_step(step)
        if log:
            self._log.fill(0.0)
        b, out = batch, self._outputs
        with masked(self.num_threads):
            g1_walk_kernel(
                b.linvel, b.gyro, b.gravity, b.dof_pos, b.dof_vel, b.current_actions,
                b.last_actions, b.commands, b.gait_phase, b.base_height, b.left_foot_pos,
                b.right_foot_pos, b.left_foot_quat, b.right_foot_quat, b.left_contact,
                b.right_contact, b.feet_air_time, b.noise_gyro, b.noise_gravity, b.noise_dof_pos,
                b.noise_dof_vel, *self._weights, self._scale, *self._scalars, self.noise.enabled,
                log, out.obs, out.critic, out.reward, out.terminated, self._log, self._tiles,
                self._tile,
            )  # fmt: skip
        out.logs = self._collect_logs() if log else {}
        return out

    def _collect_logs(self) -> dict[str, float]:
        totals = self._log.sum(axis=0)
        n = self.num_envs
        return {log_key(name): float(totals[k] / n) for k, name, _ in self._active}


assert len(TERM_ORDER) <= LOG_STRIDE
assert TILE == TILE_CAPACITY  # the scratch holds the longest tile tile_length picks
