"""A ring replay buffer of whole env steps: obs, action, reward, next obs, done, critic obs.

``done`` marks rows whose episode ended (and were reset); ``terminated`` those that ended by
a failure. A row done but not terminated hit the time limit (or the end of the reference
clip): its value must be bootstrapped from the terminal observation, not zeroed.

Each :meth:`ReplayRing.add` writes one slot of N rows (copies, since the env reuses its
output buffers). For rows that finished an episode, the *terminal* observation (computed
before the reset) replaces the post-reset one in ``next_obs``/``next_critic``, as upstream's
``terminal_next_obs`` contract does. Memory is allocated and touched once at construction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from termplan.arrays import check_count


@dataclass(frozen=True)
class Transition:
    """One env step of N rows, as the env produced it (views; the ring copies them)."""

    obs: np.ndarray  # (N, obs_dim) float32, the observation the action was chosen from
    critic: np.ndarray  # (N, critic_dim) float32
    action: np.ndarray  # (N, action_dim) float32
    reward: np.ndarray  # (N,) float32
    next_obs: np.ndarray  # (N, obs_dim) float32, post-reset for done rows
    next_critic: np.ndarray  # (N, critic_dim) float32
    done: np.ndarray  # (N,) bool: the episode ended (terminated or truncated); row reset
    terminated: np.ndarray  # (N,) bool: ended by a failure (a learner does not bootstrap);
    # done and not terminated is a time-limit truncation (bootstrap from terminal_obs)
    done_rows: np.ndarray  # (k,) int64 rows that finished an episode
    terminal_obs: np.ndarray  # (k, obs_dim) their pre-reset observations
    terminal_critic: np.ndarray  # (k, critic_dim)


def _touched(shape: tuple[int, ...], dtype: type[np.generic]) -> np.ndarray:
    """A zeroed array whose pages are already faulted in (``np.zeros`` maps them lazily,
    which would bill the first pass over the ring to the measured ``replay`` phase)."""
    out: np.ndarray = np.empty(shape, dtype=dtype)
    out.fill(0)
    return out


def _check_rows(t: Transition, num_envs: int) -> None:
    """Every per-env field has ``num_envs`` rows; terminal rows match ``done_rows``."""
    fields = ("obs", "critic", "action", "reward", "next_obs", "next_critic", "done")
    for name in (*fields, "terminated"):
        rows = getattr(t, name).shape[:1]
        if rows != (num_envs,):
            raise ValueError(f"transition {name}: expected {num_envs} rows, got shape {rows}")
    k = t.done_rows.shape[0]
    for name in ("terminal_obs", "terminal_critic"):
        if getattr(t, name).shape[:1] != (k,):
            raise ValueError(
                f"transition {name}: expected one row per done row ({k}), "
                f"got {getattr(t, name).shape[0]}"
            )


class ReplayRing:
    """``capacity_steps`` slots of ``num_envs`` rows; the oldest slot is overwritten."""

    def __init__(
        self, capacity_steps: int, num_envs: int, obs_dim: int, critic_dim: int, action_dim: int
    ) -> None:
        c, n = check_count("capacity_steps", capacity_steps, 2), num_envs
        self.capacity_steps = c
        self.obs = _touched((c, n, obs_dim), np.float32)
        self.next_obs = _touched((c, n, obs_dim), np.float32)
        self.critic = _touched((c, n, critic_dim), np.float32)
        self.next_critic = _touched((c, n, critic_dim), np.float32)
        self.action = _touched((c, n, action_dim), np.float32)
        self.reward = _touched((c, n), np.float32)
        self.done = _touched((c, n), np.bool_)
        self.terminated = _touched((c, n), np.bool_)
        self.cursor = 0
        self.size = 0

    def add(self, t: Transition) -> None:
        """Copy one transition into the next slot (a ValueError if its rows do not fit:
        the copies broadcast, so one row would otherwise fill every env's slot)."""
        _check_rows(t, self.obs.shape[1])
        k = self.cursor
        np.copyto(self.obs[k], t.obs)
        np.copyto(self.critic[k], t.critic)
        np.copyto(self.action[k], t.action)
        np.copyto(self.reward[k], t.reward)
        np.copyto(self.next_obs[k], t.next_obs)
        np.copyto(self.next_critic[k], t.next_critic)
        np.copyto(self.done[k], t.done)
        np.copyto(self.terminated[k], t.terminated)
        if t.done_rows.size:
            self.next_obs[k, t.done_rows] = t.terminal_obs
            self.next_critic[k, t.done_rows] = t.terminal_critic
        self.cursor = (k + 1) % self.capacity_steps
        self.size = min(self.size + 1, self.capacity_steps)
