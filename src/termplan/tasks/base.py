"""The task API every hot-slice path implements.

A *hot slice* is one step's reward + termination + actor/critic observation assembly for N
parallel envs. Each task offers the same computation through several *paths* (NumPy,
hand-written Numba, plan-assembled Numba); the benchmark and the parity tests only speak
this API.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

#: Every path name a task may offer, in the order reports list them.
PATHS: tuple[str, ...] = ("numpy", "handwritten", "assembled")

#: Per-term reward logs are produced on steps where ``step % LOG_EVERY == 0`` (upstream: 4).
LOG_EVERY = 4


def available_paths(assembled_module: str) -> tuple[str, ...]:
    """A task's paths: NumPy and hand-written always, "assembled" once its module exists.

    Checked with ``find_spec`` (no import), so asv can benchmark commits that predate the
    assembled path with today's suites.
    """
    paths: tuple[str, ...] = ("numpy", "handwritten")
    if importlib.util.find_spec(assembled_module) is not None:
        paths += ("assembled",)
    return paths


def is_log_step(step: int) -> bool:
    """True when per-term logs are due at ``step``."""
    return step % LOG_EVERY == 0


@dataclass
class StepOutputs:
    """What one hot-slice call produces.

    The arrays are owned by the task object and reused call after call (same ``id``), so
    callers copy what they keep. ``logs`` maps ``"reward/<term>"`` to the mean over envs of
    ``scale * term`` (without ``ctrl_dt``), and is empty on non-logging steps.
    """

    reward: np.ndarray  # (N,) float32, already multiplied by ctrl_dt
    terminated: np.ndarray  # (N,) bool
    obs: np.ndarray  # (N, actor_dim) float32
    critic: np.ndarray  # (N, critic_dim) float32
    logs: dict[str, float] = field(default_factory=dict)


class HotSlice(Protocol):
    """One task x profile x path, sized for ``num_envs``; outputs preallocated once."""

    task: str
    profile: str
    path: str
    num_envs: int

    def compute(self, batch: Any, step: int = 0) -> StepOutputs:
        """Run the hot slice on ``batch`` (validated) and return the reused outputs."""
        ...
