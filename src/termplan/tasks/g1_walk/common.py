"""Pieces every G1 walk path shares: construction arguments, output buffers, log keys.

Semantics all paths implement identically (and the parity tests check):

* reward ``= CTRL_DT * sum_k scale_k * term_k`` over the terms with a non-zero scale; a term
  with scale 0 contributes exactly 0 even where its value is NaN or inf;
* ``reward/<name>`` logs (mean over envs of ``scale * term``, without ``CTRL_DT``) only on
  logging steps and only for non-zero scales, in :data:`TERM_ORDER` order;
* termination ``not (clip(g_z, -1, 1) >= cos(max_tilt_rad)) or not (h >= min_base_height)``
  (the tilt test ``acos(g_z) <= max_tilt_rad`` against one float64 literal,
  :func:`~termplan.tasks.g1_walk.config.min_upright_gz`), computed in float64: a NaN gravity
  z or base height terminates the row;
* NaN anywhere else propagates through the formulas as computed (the reward and observations
  of that row become NaN where a NaN input reaches them). ``min``/``max`` propagate NaN like
  ``np.minimum``/``np.maximum``; comparisons with NaN are false.
"""

from __future__ import annotations

import numpy as np

from termplan.tasks.base import StepOutputs
from termplan.tasks.g1_walk.config import (
    ACTOR_DIM,
    CRITIC_DIM,
    DEFAULT_ANGLES,
    NUM_DOF,
    TERM_ORDER,
)
from termplan.tasks.g1_walk.profiles import Profile

TASK = "g1_walk"


def check_default_angles(default_angles: np.ndarray | None) -> np.ndarray:
    """A read-only (29,) float64 copy of the default joint angles (``None``: zeros)."""
    if default_angles is None:
        return DEFAULT_ANGLES
    angles = np.asarray(default_angles, dtype=np.float64)
    if angles.shape != (NUM_DOF,) or not np.all(np.isfinite(angles)):
        raise ValueError(
            f"default_angles: expected {NUM_DOF} finite values, got shape {angles.shape}"
        )
    angles = angles.copy()
    angles.setflags(write=False)
    return angles


def allocate_outputs(num_envs: int) -> StepOutputs:
    """The output buffers a path owns and returns every call."""
    return StepOutputs(
        reward=np.zeros(num_envs, dtype=np.float32),
        terminated=np.zeros(num_envs, dtype=np.bool_),
        obs=np.zeros((num_envs, ACTOR_DIM), dtype=np.float32),
        critic=np.zeros((num_envs, CRITIC_DIM), dtype=np.float32),
    )


def log_key(term: str) -> str:
    """The logs key of a reward term."""
    return f"reward/{term}"


def active_slots(profile: Profile) -> tuple[tuple[int, str, float], ...]:
    """``(slot, name, scale)`` of every non-zero-scale term, in :data:`TERM_ORDER` order."""
    return tuple(
        (k, name, profile.scales[name])
        for k, name in enumerate(TERM_ORDER)
        if profile.scales.get(name, 0.0) != 0.0
    )
