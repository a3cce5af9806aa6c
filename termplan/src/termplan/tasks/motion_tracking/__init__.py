"""G1 motion tracking: the reward + termination + observation hot slice of a tracking policy.

Paths: ``numpy`` (vectorised, allocation-free), ``handwritten`` (one task-specific Numba
``prange`` kernel, the baseline) and, once its module exists, ``assembled`` (the term-plan
kernel). All take ``(profile, num_envs, num_threads=None, noise=None)`` and return the same
:class:`~termplan.tasks.base.StepOutputs` object from every ``compute(batch, step)``.
"""

from __future__ import annotations

from typing import Any

from termplan.tasks.base import HotSlice
from termplan.tasks.motion_tracking.batch import MotionBatch, draw_noise, make_batch, validate
from termplan.tasks.motion_tracking.config import NoiseConfig
from termplan.tasks.motion_tracking.handwritten import HandwrittenMotionTracking
from termplan.tasks.motion_tracking.numpy_path import NumpyMotionTracking
from termplan.tasks.motion_tracking.profiles import (
    OWNER_VARIANTS,
    PROFILES,
    Profile,
    resolve_profile,
)
from termplan.tasks.motion_tracking.task import TASK

#: Paths this task implements ("assembled" only when its module is present).
PATHS: tuple[str, ...] = TASK.paths

__all__ = [
    "OWNER_VARIANTS",
    "PATHS",
    "PROFILES",
    "TASK",
    "HandwrittenMotionTracking",
    "MotionBatch",
    "NoiseConfig",
    "NumpyMotionTracking",
    "Profile",
    "build",
    "draw_noise",
    "make_batch",
    "profile_names",
    "resolve_profile",
    "validate",
]


def build(
    profile: str | Profile,
    num_envs: int,
    path: str,
    num_threads: int | None = None,
    **options: Any,
) -> HotSlice:
    """Build the hot slice of ``profile`` on ``path`` for ``num_envs`` envs.

    ``options`` are passed to the path's constructor (``noise=NoiseConfig(...)``); an
    option the path does not take is a ValueError listing the ones it does.

    Raises
    ------
    ValueError
        For an unknown path or profile (naming it).
    termplan.errors.TermPlanError
        For an unknown reward term with a non-zero scale.
    """
    return TASK.build(profile, num_envs, path, num_threads, **options)


def profile_names() -> tuple[str, ...]:
    """Every name :func:`build` accepts: benchmark profiles first, then owner variants."""
    return TASK.profile_names()
