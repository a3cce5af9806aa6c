"""Build one collector run (env, actor, replay, thread split) and produce its record.

This is the edge that touches threads and the clock; the pieces it assembles are in
:mod:`budget`, :mod:`g1_env` / :mod:`motion_env`, :mod:`loop` and :mod:`metrics`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace
from typing import Any

from termplan import tasks
from termplan.arrays import check_count
from termplan.collector.actor import MlpActor
from termplan.collector.budget import ThreadSplit, apply_split, split_budget
from termplan.collector.loop import Collector, WindowResult, run_interleaved
from termplan.collector.metrics import counters_record, window_record
from termplan.collector.replay import ReplayRing
from termplan.collector.sim_env import SimEnv
from termplan.threads import max_threads

#: Env class of each task: (module, class name), imported on use.
ENV_CLASSES: dict[str, tuple[str, str]] = {
    "g1_walk": ("termplan.collector.g1_env", "G1WalkEnv"),
    "motion_tracking": ("termplan.collector.motion_env", "MotionTrackingEnv"),
}


@dataclass(frozen=True)
class RunConfig:
    """One collector run: task x profile x path at N envs, on a budget of ``cores``."""

    task: str
    path: str
    num_envs: int
    steps: int = 100
    warmup: int = 10
    profile: str = "sac_default"
    cores: int = 1
    seed: int = 0
    replay_steps: int = 64

    def validate(self) -> None:
        """Reject bad values with a ValueError naming the option."""
        if self.task not in tasks.TASKS:
            raise ValueError(f"task {self.task!r}: expected one of {', '.join(tasks.TASKS)}")
        checks = (
            ("num_envs", self.num_envs, 1),
            ("steps", self.steps, 1),
            ("warmup", self.warmup, 0),
            ("cores", self.cores, 1),
            ("replay_steps", self.replay_steps, 2),
        )
        for name, value, low in checks:
            check_count(name, value, low)
        available = tasks.task_module(self.task).PATHS
        if self.path not in available:
            raise ValueError(
                f"path {self.path!r} is not available for task {self.task!r} "
                f"(available: {', '.join(available)})"
            )


def make_env(cfg: RunConfig, physics_threads: int, numba_threads: int | None) -> SimEnv:
    """The env of ``cfg.task`` on ``cfg.path``."""
    module, name = ENV_CLASSES[cfg.task]
    cls = getattr(importlib.import_module(module), name)
    env: SimEnv = cls(
        cfg.profile, cfg.num_envs, cfg.path, physics_threads=physics_threads,
        numba_threads=numba_threads, seed=cfg.seed,
    )  # fmt: skip
    return env


def _record(cfg: RunConfig, result: WindowResult, split: ThreadSplit) -> dict[str, Any]:
    return {
        "task": cfg.task,
        "profile": cfg.profile,
        "path": cfg.path,
        "num_envs": cfg.num_envs,
        "steps": cfg.steps,
        "warmup": cfg.warmup,
        **window_record(result, cfg.num_envs),
        **counters_record(result),
        **split.as_record(),
    }


def _check_same_window(configs: list[RunConfig]) -> None:
    if not configs:
        raise ValueError("configs: expected at least one run")
    first = configs[0]
    for cfg in configs:
        cfg.validate()
        if replace(cfg, path=first.path) != first:
            raise ValueError(f"configs: interleaved runs must differ only in path, got {cfg}")


def run_windows(configs: list[RunConfig]) -> list[tuple[WindowResult, dict[str, Any]]]:
    """Run the active windows of ``configs`` (same task, N, budget; one per path) interleaved.

    Every path gets its own env (same seed, so the same initial state), actor and replay
    ring; their steps alternate (:func:`run_interleaved`). Returns (result, record) per run.
    """
    _check_same_window(configs)
    cfg0 = configs[0]
    split = split_budget(cfg0.cores)
    limiter = apply_split(split)
    numba_threads = min(split.numba, max_threads())
    envs: list[SimEnv] = []
    try:
        for cfg in configs:
            threads = None if cfg.path == "numpy" else numba_threads
            envs.append(make_env(cfg, split.physics, threads))
        collectors = [
            Collector(
                env,
                MlpActor(cfg0.num_envs, env.obs_dim, env.action_dim, seed=cfg0.seed),
                ReplayRing(
                    cfg0.replay_steps, cfg0.num_envs, env.obs_dim, env.critic_dim, env.action_dim
                ),
            )
            for env in envs
        ]
        results = run_interleaved(collectors, cfg0.steps, cfg0.warmup)
    finally:
        for env in envs:
            env.close()
        limiter.restore_original_limits()
    return [(r, _record(cfg, r, split)) for cfg, r in zip(configs, results, strict=True)]


def run_window(cfg: RunConfig) -> tuple[WindowResult, dict[str, Any]]:
    """Run the active window of one ``cfg``; returns the raw result and the record."""
    return run_windows([cfg])[0]
