"""The NumPy path of the G1 walk hot slice: the reference every Numba path is checked against.

One vectorised pass per active term (terms with scale 0 are skipped), then termination and
the observation copies, all into buffers allocated at construction (``out=`` everywhere), so
a steady-state call allocates nothing that grows with N. The reward and termination rules,
including NaN handling, are documented in :mod:`termplan.tasks.g1_walk`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from termplan.tasks.base import StepOutputs, TaskPath, allocate_outputs, is_log_step, log_key
from termplan.tasks.g1_walk.batch import G1Batch, validate
from termplan.tasks.g1_walk.config import (
    ACTOR_DIM,
    CRITIC_DIM,
    CTRL_DT,
    TERM_FORMULA,
    NoiseConfig,
    check_default_angles,
)
from termplan.tasks.g1_walk.layout import ACTOR_LAYOUT, CRITIC_LAYOUT, ObsSlot
from termplan.tasks.g1_walk.numpy_terms import GAIT_FORMULAS, NumpyTerms
from termplan.tasks.g1_walk.profiles import Profile
from termplan.tasks.g1_walk.task import TASK

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
