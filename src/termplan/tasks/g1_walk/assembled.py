"""The plan-assembled path of the G1 walk hot slice.

The profile becomes a term plan (:mod:`termplan.tasks.g1_walk.terms`); the generator emits
one fused kernel per plan with the active set, weights, offsets and parameters as literals;
:class:`AssembledG1Walk` binds the batch arrays the active terms read (validated only when an
array object changes) and runs the serial or parallel, logging or non-logging variant.
``backend="numpy"`` runs the same plan through its NumPy implementations instead.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from termplan.arrays import check_count
from termplan.codegen import ScaleMode
from termplan.runtime import Calibration
from termplan.tasks.base import check_config
from termplan.tasks.g1_walk.batch import validate
from termplan.tasks.g1_walk.common import (
    TASK,
    check_default_angles,
)
from termplan.tasks.g1_walk.config import NoiseConfig
from termplan.tasks.g1_walk.profiles import Profile, resolve_profile
from termplan.tasks.g1_walk.terms import build_plan
from termplan.tasks.plan_path import PlanHotSlice


class AssembledG1Walk(PlanHotSlice):
    """G1 walk hot slice from a generated, plan-specific fused kernel.

    Options beyond the common ones: ``scale_mode`` (``"baked"`` or ``"runtime"``, the latter
    allowing :meth:`set_scale` every step), ``backend`` (``"numba"`` or ``"numpy"``),
    ``calibration`` (thread choice per N when ``num_threads`` is None) and ``timing``
    (accumulate bind / execute / log seconds in ``runtime.times``).
    """

    task = TASK
    validate_batch = staticmethod(validate)

    def __init__(
        self,
        profile: str | Profile,
        num_envs: int,
        num_threads: int | None = None,
        noise: NoiseConfig | None = None,
        *,
        scales: Mapping[str, float] | None = None,
        default_angles: np.ndarray | None = None,
        scale_mode: str | ScaleMode = ScaleMode.BAKED,
        backend: str = "numba",
        calibration: Calibration | None = None,
        timing: bool = False,
    ) -> None:
        self.config = resolve_profile(profile, scales)
        self.profile = self.config.name
        self.num_envs = check_count("num_envs", num_envs)
        self.noise = check_config("noise", noise, NoiseConfig)
        angles = check_default_angles(default_angles)
        plan = build_plan(self.config, self.noise.enabled, angles)
        self._attach(plan, self.num_envs, backend, scale_mode, num_threads, calibration, timing)
