"""G1 walk (29-DoF joystick) hot slice: reward, termination and observations of one step.

Paths: ``numpy`` (reference), ``handwritten`` (one task-specific Numba kernel) and, when its
module is present, ``assembled`` (the term-plan kernel). All share the batch
(:func:`make_batch`), the profiles (:data:`PROFILES`) and the semantics documented in
:mod:`termplan.tasks.g1_walk.common`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from termplan.tasks.base import HotSlice, available_paths, build_path
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


_CLASSES = {
    "numpy": "termplan.tasks.g1_walk.numpy_path:NumpyG1Walk",
    "handwritten": "termplan.tasks.g1_walk.handwritten:HandwrittenG1Walk",
    "assembled": f"{ASSEMBLED_MODULE}:AssembledG1Walk",
}
_PATH_CLASSES = {p: _CLASSES[p] for p in PATHS}


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
    scales: Mapping[str, float] | None = options.pop("scales", None)
    resolved = partial(resolve_profile, profile, scales)
    return build_path("g1_walk", _PATH_CLASSES, path, resolved, num_envs, num_threads, options)


def profile_names() -> tuple[str, ...]:
    """Every name :func:`build` accepts: benchmark profiles first, then owner variants."""
    return (*PROFILES, *OWNER_VARIANTS)
