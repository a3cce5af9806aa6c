"""G1 motion tracking: the reward + termination + observation hot slice of a tracking policy.

Paths: ``numpy`` (vectorised, allocation-free), ``handwritten`` (one task-specific Numba
``prange`` kernel, the baseline) and, once its module exists, ``assembled`` (the term-plan
kernel). All take ``(profile, num_envs, num_threads=None, noise=None)`` and return the same
:class:`~termplan.tasks.base.StepOutputs` object from every ``compute(batch, step)``.
"""

from __future__ import annotations

import importlib
from typing import Any

from termplan.tasks.base import HotSlice, available_paths
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


#: Paths this task implements ("assembled" only when its module is present).
PATHS: tuple[str, ...] = available_paths(_ASSEMBLED_MODULE)

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

    ``options`` are passed to the path's constructor (``noise=NoiseConfig(...)``).

    Raises
    ------
    ValueError
        For an unknown path or profile (naming it).
    termplan.errors.TermPlanError
        For an unknown reward term with a non-zero scale.
    """
    if path not in PATHS:
        raise ValueError(f"path {path!r}: motion_tracking offers {', '.join(PATHS)}")
    prof = resolve_profile(profile)
    if path == "numpy":
        return NumpyMotionTracking(prof, num_envs, num_threads=num_threads, **options)
    if path == "handwritten":
        return HandwrittenMotionTracking(prof, num_envs, num_threads=num_threads, **options)
    assembled = importlib.import_module(_ASSEMBLED_MODULE)
    hot: HotSlice = assembled.AssembledMotionTracking(
        prof, num_envs, num_threads=num_threads, **options
    )
    return hot
