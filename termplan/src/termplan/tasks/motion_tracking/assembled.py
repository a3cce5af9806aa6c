"""The plan-assembled path of the motion-tracking hot slice.

The profile becomes a term plan (:mod:`termplan.tasks.motion_tracking.terms`): a preamble
providing the shared geometry, the active rewards, the termination and the observation
copies. The generated kernel computes each env's geometry once, in registers, and only what
an active term or observation reads. ``backend="numpy"`` runs the same plan in NumPy.
"""

from __future__ import annotations

from termplan.codegen import ScaleMode
from termplan.tasks.motion_tracking.config import NoiseConfig
from termplan.tasks.motion_tracking.profiles import Profile
from termplan.tasks.motion_tracking.task import TASK
from termplan.tasks.motion_tracking.terms import build_plan
from termplan.tasks.plan_path import PlanHotSlice
from termplan.threads import Calibration


class AssembledMotionTracking(PlanHotSlice):
    """Motion-tracking hot slice from a generated, plan-specific fused kernel.

    Options: ``scale_mode`` (``"baked"``/``"runtime"``), ``backend`` (``"numba"``/
    ``"numpy"``), ``calibration`` (thread choice when ``num_threads`` is None) and
    ``timing`` (bind / execute / log seconds in ``runtime.times``).
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
        scale_mode: str | ScaleMode = ScaleMode.BAKED,
        backend: str = "numba",
        calibration: Calibration | None = None,
        timing: bool = False,
    ) -> None:
        self._setup(profile, num_envs, num_threads, noise)
        plan = build_plan(self.config, self.noise.active)
        self._attach(plan, self.num_envs, backend, scale_mode, num_threads, calibration, timing)
