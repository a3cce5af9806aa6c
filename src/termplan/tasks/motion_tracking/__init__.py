"""G1 motion tracking: the reward + termination + observation hot slice of a tracking policy.

Paths: ``numpy`` (vectorised, allocation-free), ``handwritten`` (one task-specific Numba
``prange`` kernel, the baseline) and, once its module exists, ``assembled`` (the term-plan
kernel). All take ``(profile, num_envs, num_threads=None, noise=None)`` and return the same
:class:`~termplan.tasks.base.StepOutputs` object from every ``compute(batch, step)``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from termplan.tasks.base import HotSlice, available_paths, build_path
from termplan.tasks.motion_tracking.batch import MotionBatch, draw_noise, make_batch, validate
from termplan.tasks.motion_tracking.config import (
    OWNER_VARIANTS,
    NoiseConfig,
    Profile,
    resolve_profile,
)
from termplan.tasks.motion_tracking.config import PROFILES as _PROFILE_TABLE
from termplan.tasks.motion_tracking.handwritten import HandwrittenMotionTracking
from termplan.tasks.motion_tracking.numpy_path import NumpyMotionTracking

_ASSEMBLED_MODULE = "termplan.tasks.motion_tracking.assembled"

#: Benchmark profile names.
PROFILES: tuple[str, ...] = tuple(_PROFILE_TABLE)


_CLASSES = {
    "numpy": "termplan.tasks.motion_tracking.numpy_path:NumpyMotionTracking",
    "handwritten": "termplan.tasks.motion_tracking.handwritten:HandwrittenMotionTracking",
    "assembled": f"{_ASSEMBLED_MODULE}:AssembledMotionTracking",
}

#: Paths this task implements ("assembled" only when its module is present).
PATHS: tuple[str, ...] = available_paths(_ASSEMBLED_MODULE)
_PATH_CLASSES = {p: _CLASSES[p] for p in PATHS}

__all__ = [
    "OWNER_VARIANTS",
    "PATHS",
    "PROFILES",
    "HandwrittenMotionTracking",
    "MotionBatch",
    "NoiseConfig",
    "NumpyMotionTracking",
    "Profile",
    "build",
    "draw_noise",
    "make_batch",
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
    resolved = partial(resolve_profile, profile)
    task = "motion_tracking"
    return build_path(task, _PATH_CLASSES, path, resolved, num_envs, num_threads, options)
