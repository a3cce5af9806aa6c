"""The env step shared by both tasks, in the upstream order, with its four timed parts.

``step(actions)``: **apply** the action (task: ctrl, action history, phase/frame counters),
**physics** (one control step of MuJoCo for every env), **update_state** (read the physics
state into the task's float32 batch, then the hot slice of the chosen path), **reset** of
the done envs (terminated, truncated at the episode length, or faulted physics): their
terminal observation rows are kept for the replay buffer, they get a new initial state and
their observation rows are recomputed *after* the reset (:mod:`row_refresh`), so no path ever
hands out a stale row.

A faulted env (non-finite or exploding physics, see :mod:`termplan.sim.physics`) counts as
terminated; its reward is set to 0 and its terminal observation rows to 0, so no NaN reaches
the replay buffer, and :attr:`SimEnv.fault_resets` counts it.
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from termplan.collector.row_refresh import RowRefresher
from termplan.sim.g1_spec import DEFAULT_ANGLES
from termplan.sim.physics import BatchedPhysics
from termplan.tasks.base import HotSlice, StepOutputs

Rows = np.ndarray | slice


def check_actions(actions: object, num_envs: int, action_dim: int) -> np.ndarray:
    """``actions`` if it is a float array of one finite row per env, else a ValueError.

    The action step copies with broadcasting, so a ``(29,)`` or ``(1, 29)`` array was
    applied to every env, and a NaN action became a physics fault recorded as a failure
    transition (NaN in the replay's actions and the reward logs). The finiteness test is a
    float64 sum (no temporary array in the measured step); only a failure looks further.
    """
    want = (num_envs, action_dim)
    if not isinstance(actions, np.ndarray) or actions.shape != want or actions.dtype.kind != "f":
        got = (
            f"shape {actions.shape} dtype {actions.dtype}"
            if isinstance(actions, np.ndarray)
            else type(actions).__name__
        )
        raise ValueError(f"actions: expected a float array of shape {want}, got {got}")
    if not math.isfinite(actions.sum(dtype=np.float64)):
        rows = np.flatnonzero(~np.isfinite(actions).all(axis=1))
        raise ValueError(f"actions: expected finite values, got NaN or inf in rows {rows[:8]}")
    return actions


def shift_actions(batch: Any, actions: np.ndarray, scale: float, ctrl: np.ndarray) -> np.ndarray:
    """The action step both tasks share: ``last <- current <- actions`` in the batch, and the
    PD targets ``DEFAULT_ANGLES + scale * actions`` written into ``ctrl`` (returned)."""
    np.copyto(batch.last_actions, batch.current_actions)
    np.copyto(batch.current_actions, actions)
    np.multiply(actions, scale, out=ctrl)
    ctrl += DEFAULT_ANGLES
    return ctrl


@dataclass(frozen=True)
class EnvTimings:
    """Wall time of the four parts of one env step, in ms."""

    apply_ms: float
    physics_ms: float
    update_state_ms: float
    reset_ms: float
    hot_slice_ms: float  # the hot-slice call alone (part of update_state_ms)


@dataclass(frozen=True)
class EnvStep:
    """What one env step returns (arrays are env-owned and reused; copy what you keep)."""

    out: StepOutputs  # reward, terminated; obs/critic already refreshed for reset rows
    truncated: np.ndarray  # (N,) bool
    done: np.ndarray  # (N,) bool
    done_rows: np.ndarray  # (k,) rows reset in this step
    terminal_obs: np.ndarray  # (k, obs_dim) pre-reset observation rows
    terminal_critic: np.ndarray  # (k, critic_dim)
    faults: int  # rows whose physics faulted in this step
    timings: EnvTimings


class SimEnv(ABC):
    """N envs of one task on batched physics and one hot-slice path."""

    obs_dim: int
    critic_dim: int
    action_dim: int

    def __init__(
        self, physics: BatchedPhysics, hot: HotSlice, refresher: RowRefresher, batch: Any,
        episode_length: int, seed: int,
    ) -> None:  # fmt: skip
        self.physics, self.hot, self.refresher, self.batch = physics, hot, refresher, batch
        refresher.prepare(batch, physics.num_envs)
        self.num_envs = physics.num_envs
        self.episode_length = episode_length
        self.rng = np.random.default_rng(seed)
        self.episode_step = np.zeros(self.num_envs, dtype=np.int64)
        self.truncated = np.zeros(self.num_envs, dtype=np.bool_)
        self.done = np.zeros(self.num_envs, dtype=np.bool_)
        self.fault_resets = 0
        self.step_index = 0
        self.out: StepOutputs | None = None

    @abstractmethod
    def apply_action(self, actions: np.ndarray) -> np.ndarray:
        """Record ``actions`` in the task state and return the (N, nu) float64 ctrl."""

    @abstractmethod
    def read_state(self, rows: Rows) -> None:
        """Copy the physics state of ``rows`` into the batch (float32)."""

    @abstractmethod
    def reset_rows(self, rows: np.ndarray) -> None:
        """New episode for ``rows``: task state, physics state, then :meth:`read_state`."""

    def extra_truncation(self, truncated: np.ndarray) -> None:  # noqa: B027 - optional hook
        """Task-specific truncation, OR-ed into ``truncated`` in place (default: none)."""

    def reset_all(self) -> StepOutputs:
        """Start every env afresh and compute the first observations."""
        rows = np.arange(self.num_envs)
        self.reset_rows(rows)
        self.episode_step[:] = 0
        self.out = self.hot.compute(self.batch, self.step_index)
        return self.out

    def step(self, actions: np.ndarray) -> EnvStep:
        """Advance every env one control step (see the module docstring)."""
        t0 = time.perf_counter()
        ctrl = self.apply_action(check_actions(actions, self.num_envs, self.action_dim))
        t1 = time.perf_counter()
        fault = self.physics.step(ctrl)
        t2 = time.perf_counter()
        self.read_state(slice(None))
        t_hot = time.perf_counter()
        out = self.hot.compute(self.batch, self.step_index)
        t3 = time.perf_counter()
        rows, term_obs, term_critic, faults = self._finish_episodes(out, fault)
        t4 = time.perf_counter()
        self.step_index += 1
        self.out = out
        pairs = ((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t_hot, t3))
        timings = EnvTimings(*((b - a) * 1e3 for a, b in pairs))
        return EnvStep(
            out, self.truncated, self.done, rows, term_obs, term_critic, faults, timings
        )

    def _finish_episodes(
        self, out: StepOutputs, fault: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        self.episode_step += 1
        np.greater_equal(self.episode_step, self.episode_length, out=self.truncated)
        self.extra_truncation(self.truncated)
        out.terminated |= fault
        np.logical_or(out.terminated, self.truncated, out=self.done)
        rows = np.flatnonzero(self.done)
        term_obs, term_critic = out.obs[rows], out.critic[rows]  # fancy index: copies
        faults = int(np.count_nonzero(fault))
        if faults:
            out.reward[fault] = 0.0
            bad = fault[rows]
            term_obs[bad] = 0.0
            term_critic[bad] = 0.0
            self.fault_resets += faults
        if rows.size:
            self.reset_rows(rows)
            self.episode_step[rows] = 0
            self.refresher.refresh(self.batch, rows, out)
        return rows, term_obs, term_critic, faults

    def close(self) -> None:
        """Release the physics thread pool."""
        self.physics.close()
