"""The off-policy collector's active window: warm-up steps, then measured steps.

Each step has five timed phases, as upstream's ``benchmark_offpolicy_collector_active``:
``weight_sync`` (no learner: zero work), ``action_select`` (the MLP actor on the current
observations), ``env_step`` (apply / physics / update_state / reset, timed inside the env),
``replay`` (copy the transition into the ring, then hand the next observations to the
actor's input buffer) and ``bookkeeping`` (episode returns and lengths, finished episodes,
per-term logs). The active time of a step is the sum of the five phases.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

import numpy as np

from termplan.collector.actor import MlpActor
from termplan.collector.cpu import read_cpu_times, utilisation_pct
from termplan.collector.replay import ReplayRing, Transition
from termplan.collector.sim_env import EnvStep, SimEnv
from termplan.sim.physics import WARNINGS

PHASES = ("weight_sync", "action_select", "env_step", "replay", "bookkeeping")
ENV_PARTS = ("apply", "physics", "update_state", "reset", "hot_slice")


@dataclass
class WindowResult:
    """Per-step samples (ms) of the measured window and its counters."""

    phases: dict[str, list[float]] = field(default_factory=lambda: {p: [] for p in PHASES})
    env_parts: dict[str, list[float]] = field(default_factory=lambda: {p: [] for p in ENV_PARTS})
    cpu_util_pct: float | None = None
    fault_resets: int = 0
    mujoco_warnings: int = 0
    episodes_finished: int = 0
    mean_episode_return: float | None = None
    mean_episode_length: float | None = None
    first_rewards: np.ndarray | None = None


class Collector:
    """Drives ``env`` with ``actor`` and fills ``replay`` (one instance per run)."""

    def __init__(self, env: SimEnv, actor: MlpActor, replay: ReplayRing) -> None:
        self.env, self.actor, self.replay = env, actor, replay
        n = env.num_envs
        self.obs = np.zeros((n, env.obs_dim), dtype=np.float32)
        self.critic = np.zeros((n, env.critic_dim), dtype=np.float32)
        self.returns = np.zeros(n, dtype=np.float64)
        self.lengths = np.zeros(n, dtype=np.int64)
        self.finished_returns: list[float] = []
        self.finished_lengths: list[int] = []
        self.logs: list[dict[str, float]] = []

    def start(self) -> None:
        """Reset every env and load the first observations."""
        first = self.env.reset_all()
        np.copyto(self.obs, first.obs)
        np.copyto(self.critic, first.critic)

    def step(self) -> tuple[list[float], EnvStep]:
        """One collector step; returns the five phase times (ms) and the env step."""
        t0 = time.perf_counter()
        self.actor.sync_weights()
        t1 = time.perf_counter()
        actions = self.actor.act(self.obs)
        t2 = time.perf_counter()
        result = self.env.step(actions)
        t3 = time.perf_counter()
        self._store(actions, result)
        t4 = time.perf_counter()
        self._bookkeep(result)
        t5 = time.perf_counter()
        marks = (t0, t1, t2, t3, t4, t5)
        return [(b - a) * 1e3 for a, b in itertools.pairwise(marks)], result

    def _store(self, actions: np.ndarray, r: EnvStep) -> None:
        out = r.out
        self.replay.add(
            Transition(
                self.obs,
                self.critic,
                actions,
                out.reward,
                out.obs,
                out.critic,
                r.done,
                out.terminated,
                r.done_rows,
                r.terminal_obs,
                r.terminal_critic,
            )  # fmt: skip
        )
        np.copyto(self.obs, out.obs)
        np.copyto(self.critic, out.critic)

    def _bookkeep(self, r: EnvStep) -> None:
        self.returns += r.out.reward
        self.lengths += 1
        rows = r.done_rows
        if rows.size:
            self.finished_returns.extend(self.returns[rows].tolist())
            self.finished_lengths.extend(self.lengths[rows].tolist())
            self.returns[rows] = 0.0
            self.lengths[rows] = 0
        if r.out.logs:
            self.logs.append(dict(r.out.logs))

    def record(self, result: WindowResult, first: bool) -> None:
        """One step whose times go into ``result`` (``first`` keeps its rewards)."""
        phases, env_step = self.step()
        if first:
            result.first_rewards = env_step.out.reward.copy()
        for name, ms in zip(PHASES, phases, strict=True):
            result.phases[name].append(ms)
        t = env_step.timings
        parts = (t.apply_ms, t.physics_ms, t.update_state_ms, t.reset_ms, t.hot_slice_ms)
        for name, ms in zip(ENV_PARTS, parts, strict=True):
            result.env_parts[name].append(ms)

    def summarize(self, result: WindowResult, faults_before: int, finished_before: int) -> None:
        """Fault and episode counters since the window started."""
        result.fault_resets = self.env.fault_resets - faults_before
        finished = self.finished_returns[finished_before:]
        result.episodes_finished = len(finished)
        if finished:
            result.mean_episode_return = float(np.mean(finished))
            result.mean_episode_length = float(np.mean(self.finished_lengths[finished_before:]))

    def run(self, steps: int, warmup: int) -> WindowResult:
        """This collector alone: see :func:`run_interleaved`."""
        return run_interleaved([self], steps, warmup)[0]


def run_interleaved(collectors: list[Collector], steps: int, warmup: int) -> list[WindowResult]:
    """Warm up, then measure ``steps`` steps of every collector, one step each per round.

    The order rotates every round, so slow drifts of a shared machine hit every collector
    alike (the ratio between paths is measured side by side). The CPU utilisation and the
    MuJoCo warning count are those of the whole interleaved window, the same for every
    collector. The rewards of each
    collector's first step are kept (for parity checks between paths).
    """
    results = [WindowResult() for _ in collectors]
    for c in collectors:
        c.start()
    for k in range(warmup):
        for c, r in zip(collectors, results, strict=True):
            _, env_step = c.step()
            if k == 0:
                r.first_rewards = env_step.out.reward.copy()
    before = [(c.env.fault_resets, len(c.finished_returns)) for c in collectors]
    cpu_start = read_cpu_times()
    warnings_start = WARNINGS.count
    order = list(range(len(collectors)))
    for k in range(steps):
        shift = k % len(order)
        for i in order[shift:] + order[:shift]:
            collectors[i].record(results[i], first=warmup == 0 and k == 0)
    cpu = utilisation_pct(cpu_start, read_cpu_times())
    for c, r, (faults, finished) in zip(collectors, results, before, strict=True):
        r.cpu_util_pct = cpu
        r.mujoco_warnings = WARNINGS.count - warnings_start
        c.summarize(r, faults, finished)
    return results
