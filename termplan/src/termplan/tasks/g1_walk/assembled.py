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

from termplan.codegen import ScaleMode
from termplan.tasks.g1_walk.config import NoiseConfig, check_default_angles
from termplan.tasks.g1_walk.profiles import Profile
from termplan.tasks.g1_walk.task import TASK
from termplan.tasks.g1_walk.terms import build_plan
from termplan.tasks.plan_path import PlanHotSlice
from termplan.threads import Calibration


class AssembledG1Walk(PlanHotSlice):
    """G1 walk hot slice from a generated, plan-specific fused kernel.

    Options beyond the common ones: ``scale_mode`` (``"baked"`` or ``"runtime"``, the latter
    allowing :meth:`set_scale` every step), ``backend`` (``"numba"`` or ``"numpy"``),
    ``calibration`` (thread choice per N when ``num_threads`` is None) and ``timing``
    (accumulate bind / execute / log seconds in ``runtime.times``).
    """

    spec = TASK
    config: Profile
    noise: NoiseConfig

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
        self._setup(profile, num_envs, num_threads, noise, scales=scales)
        angles = check_default_angles(default_angles)
        plan = build_plan(self.config, self.noise.enabled, angles)
        self._attach(plan, self.num_envs, backend, scale_mode, num_threads, calibration, timing)
