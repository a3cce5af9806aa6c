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
from termplan.runtime import Calibration, FusedRuntime, make_runtime
from termplan.tasks.base import StepOutputs, is_log_step
from termplan.tasks.g1_walk.batch import G1Batch
from termplan.tasks.g1_walk.common import (
    TASK,
    check_default_angles,
    check_noise,
    check_num_envs,
)
from termplan.tasks.g1_walk.config import NoiseConfig
from termplan.tasks.g1_walk.profiles import Profile, resolve_profile
from termplan.tasks.g1_walk.terms import build_plan


class AssembledG1Walk:
    """G1 walk hot slice from a generated, plan-specific fused kernel.

    Options beyond the common ones: ``scale_mode`` (``"baked"`` or ``"runtime"``, the latter
    allowing :meth:`set_scale` every step), ``backend`` (``"numba"`` or ``"numpy"``),
    ``calibration`` (thread choice per N when ``num_threads`` is None) and ``timing``
    (accumulate bind / execute / log seconds in ``runtime.times``).
    """

    task = TASK
    path = "assembled"

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
        self.num_envs = check_num_envs(num_envs)
        self.noise = check_noise(noise)
        angles = check_default_angles(default_angles)
        self.plan = build_plan(self.config, self.noise.enabled, angles)
        self.runtime = make_runtime(
            self.plan, self.num_envs, backend, scale_mode, num_threads, calibration, timing
        )
        self.num_threads = self.runtime.threads if isinstance(self.runtime, FusedRuntime) else 1
        groups = self.runtime.outputs.groups
        self._names = self.runtime.input_names
        self._outputs = StepOutputs(
            self.runtime.outputs.reward,
            self.runtime.outputs.terminated,
            groups["obs"],
            groups["critic"],
        )

    def set_scale(self, name: str, scale: float) -> None:
        """Change an active reward's weight (``scale_mode="runtime"`` or the NumPy backend)."""
        self.runtime.set_scale(name, scale)

    def compute(self, batch: G1Batch, step: int = 0) -> StepOutputs:
        """Reward, termination, actor and critic observations of one step (reused outputs)."""
        if not isinstance(batch, G1Batch):
            raise ValueError(f"batch: expected a G1Batch, got {type(batch).__name__}")
        views = tuple(getattr(batch, name) for name in self._names)
        self._outputs.logs = self.runtime.run(views, is_log_step(step))
        return self._outputs
