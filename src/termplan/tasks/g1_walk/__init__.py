"""G1 walk (29-DoF joystick) hot slice: reward, termination and observations of one step.

Paths: ``numpy`` (reference), ``handwritten`` (one task-specific Numba kernel) and, when its
module is present, ``assembled`` (the term-plan kernel). All share the batch
(:func:`make_batch`), the profiles (:data:`PROFILES`) and the semantics documented in
:mod:`termplan.tasks.g1_walk.common`.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from typing import Any

from termplan.tasks.base import HotSlice, available_paths
from termplan.tasks.g1_walk.batch import G1Batch, draw_noise, make_batch, validate
from termplan.tasks.g1_walk.config import NoiseConfig, RewardConfig
from termplan.tasks.g1_walk.handwritten import HandwrittenG1Walk
from termplan.tasks.g1_walk.numpy_path import NumpyG1Walk
from termplan.tasks.g1_walk.profiles import (
    OWNER_VARIANTS,
    PROFILES,
    Profile,
    get_profile,
    resolve_profile,
)

ASSEMBLED_MODULE = "termplan.tasks.g1_walk.assembled"


#: Paths this task implements ("assembled" only once its module exists).
PATHS: tuple[str, ...] = available_paths(ASSEMBLED_MODULE)

__all__ = [
    "OWNER_VARIANTS",
    "PATHS",
    "PROFILES",
    "G1Batch",
    "HandwrittenG1Walk",
    "NoiseConfig",
    "NumpyG1Walk",
    "Profile",
    "RewardConfig",
    "build",
    "draw_noise",
    "get_profile",
    "make_batch",
    "resolve_profile",
    "validate",
]


def _path_class(path: str) -> Any:
    if path not in PATHS:
        raise ValueError(f"path {path!r}: g1_walk offers {', '.join(PATHS)}")
    if path == "numpy":
        return NumpyG1Walk
    if path == "handwritten":
        return HandwrittenG1Walk
    return importlib.import_module(ASSEMBLED_MODULE).AssembledG1Walk


def _keyword_options(cls: Any) -> tuple[str, ...]:
    """Keyword arguments of the path class beyond ``(profile, num_envs, num_threads)``."""
    params = inspect.signature(cls).parameters
    return tuple(p for p in params if p not in ("self", "profile", "num_envs", "num_threads"))


def build(
    profile: str | Profile,
    num_envs: int,
    path: str,
    num_threads: int | None = None,
    **options: Any,
) -> HotSlice:
    """Build the ``path`` hot slice of ``profile`` for ``num_envs`` envs.

    ``profile`` is a name (a benchmark profile or an owner variant) or a :class:`Profile`.
    Options every path takes: ``noise`` (:class:`NoiseConfig`), ``scales`` (a mapping
    replacing the profile's scales; an unknown term with a non-zero scale is a
    ``TermPlanError``) and ``default_angles`` ((29,) floats); a path class may accept more
    keywords. Unknown paths, profiles and options are ValueErrors.
    """
    cls = _path_class(path)
    accepted = _keyword_options(cls)
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ValueError(f"options {unknown}: path {path!r} accepts {', '.join(accepted)}")
    scales: Mapping[str, float] | None = options.pop("scales", None)
    resolved = resolve_profile(profile, scales)
    hot_slice: HotSlice = cls(resolved, num_envs, num_threads=num_threads, **options)
    return hot_slice


def profile_names() -> tuple[str, ...]:
    """Every name :func:`build` accepts: benchmark profiles first, then owner variants."""
    return (*PROFILES, *OWNER_VARIANTS)
