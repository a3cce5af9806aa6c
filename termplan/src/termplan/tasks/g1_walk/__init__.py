"""G1 walk (29-DoF joystick) hot slice: reward, termination and observations of one step.

Paths: ``numpy`` (reference), ``handwritten`` (one task-specific Numba kernel) and, when its
module is present, ``assembled`` (the term-plan kernel). All share the batch
(:func:`make_batch`), the profiles (:data:`PROFILES`) and these semantics (the parity tests
check them):

* reward ``= CTRL_DT * sum_k scale_k * term_k`` over the terms with a non-zero scale; a term
  with scale 0 contributes exactly 0 even where its value is NaN or inf;
* ``reward/<name>`` logs (mean over envs of ``scale * term``, without ``CTRL_DT``) only on
  logging steps and only for non-zero scales, in ``config.TERM_ORDER`` order;
* termination ``not (clip(g_z, -1, 1) >= cos(max_tilt_rad)) or not (h >= min_base_height)``
  (the tilt test ``acos(g_z) <= max_tilt_rad`` against one float64 literal,
  :func:`~termplan.tasks.g1_walk.config.min_upright_gz`), computed in float64: a NaN gravity
  z or base height terminates the row;
* NaN anywhere else propagates through the formulas as computed (the reward and observations
  of that row become NaN where a NaN input reaches them). ``min``/``max`` propagate NaN like
  ``np.minimum``/``np.maximum``; comparisons with NaN are false.
"""

from __future__ import annotations

from typing import Any

from termplan.tasks.base import HotSlice
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
from termplan.tasks.g1_walk.task import TASK

#: Paths this task implements ("assembled" only once its module exists).
PATHS: tuple[str, ...] = TASK.paths

__all__ = [
    "OWNER_VARIANTS",
    "PATHS",
    "PROFILES",
    "TASK",
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
    """Build the ``path`` hot slice of ``profile`` for ``num_envs`` envs.

    ``profile`` is a name (a benchmark profile or an owner variant) or a :class:`Profile`.
    Options every path takes: ``noise`` (:class:`NoiseConfig`), ``scales`` (a mapping
    replacing the profile's scales; an unknown term with a non-zero scale is a
    ``TermPlanError``) and ``default_angles`` ((29,) floats); a path class may accept more
    keywords. Unknown paths, profiles and options are ValueErrors.
    """
    return TASK.build(profile, num_envs, path, num_threads, **options)


def profile_names() -> tuple[str, ...]:
    """Every name :func:`build` accepts: benchmark profiles first, then owner variants."""
    return TASK.profile_names()
