"""The plan-assembled path of the motion-tracking hot slice.

The profile becomes a term plan (:mod:`termplan.tasks.motion_tracking.terms`): a preamble
providing the shared geometry, the active rewards, the termination and the observation
copies. The generated kernel computes each env's geometry once, in registers, and only what
an active term or observation reads. ``backend="numpy"`` runs the same plan in NumPy.
"""

from __future__ import annotations

from termplan.codegen import ScaleMode
from termplan.runtime import Calibration, FusedRuntime, make_runtime
from termplan.tasks.base import StepOutputs, is_log_step
from termplan.tasks.motion_tracking.batch import MotionBatch
from termplan.tasks.motion_tracking.config import NoiseConfig, Profile, resolve_profile
from termplan.tasks.motion_tracking.terms import build_plan


class AssembledMotionTracking:
    """Motion-tracking hot slice from a generated, plan-specific fused kernel.

    Options: ``scale_mode`` (``"baked"``/``"runtime"``), ``backend`` (``"numba"``/
    ``"numpy"``), ``calibration`` (thread choice when ``num_threads`` is None) and
    ``timing`` (bind / execute / log seconds in ``runtime.times``).
    """

    task = "motion_tracking"
    path = "assembled"

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
        if isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs: expected >= 1, got {num_envs}")
        self._profile = resolve_profile(profile)
        self.profile = self._profile.name
        self.num_envs = num_envs
        self.noise = noise if noise is not None else NoiseConfig()
        self.plan = build_plan(self._profile, self.noise.active)
        self.runtime = make_runtime(
            self.plan, num_envs, backend, scale_mode, num_threads, calibration, timing
        )
        self.num_threads = self.runtime.threads if isinstance(self.runtime, FusedRuntime) else 1
        groups = self.runtime.outputs.groups
        self._names = self.runtime.input_names
        self.outputs = StepOutputs(
            self.runtime.outputs.reward,
            self.runtime.outputs.terminated,
            groups["obs"],
            groups["critic"],
        )

    def set_scale(self, name: str, scale: float) -> None:
        """Change an active reward's weight (``scale_mode="runtime"`` or the NumPy backend)."""
        self.runtime.set_scale(name, scale)

    def compute(self, batch: MotionBatch, step: int = 0) -> StepOutputs:
        """Run the hot slice on ``batch`` and return the reused outputs."""
        if not isinstance(batch, MotionBatch):
            raise ValueError(f"batch: expected a MotionBatch, got {type(batch).__name__}")
        views = tuple(getattr(batch, name) for name in self._names)
        self.outputs.logs = self.runtime.run(views, is_log_step(step))
        return self.outputs
