"""What every plan-assembled hot slice shares: wiring a resolved plan to its runtime.

A task's assembled class turns its profile into a term plan and calls :meth:`_attach`; the
runtime (generated fused kernel, or the plan's NumPy implementations) owns the outputs, and
:meth:`compute` only gathers the batch arrays the active terms read.
"""

from __future__ import annotations

from typing import Any, ClassVar

from termplan.codegen import ScaleMode
from termplan.plan import ResolvedPlan
from termplan.runtime import Calibration, FusedRuntime, make_runtime
from termplan.tasks.base import StepOutputs, is_log_step


class PlanHotSlice:
    """Base of ``Assembled<Task>``: runtime, reused outputs, scale updates, compute."""

    task: ClassVar[str]
    path: ClassVar[str] = "assembled"

    def _attach(
        self,
        plan: ResolvedPlan,
        num_envs: int,
        backend: str,
        scale_mode: str | ScaleMode,
        num_threads: int | None,
        calibration: Calibration | None,
        timing: bool,
    ) -> None:
        """Build the runtime of ``plan`` and the output record handed out every call."""
        self.plan = plan
        self.runtime = make_runtime(  # compute() checks every batch field before each run
            plan, num_envs, backend, scale_mode, num_threads, calibration, timing, True
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

    @staticmethod
    def validate_batch(batch: Any, num_envs: int) -> Any:
        """The task's batch check, the one its other paths run (each task sets its own):
        every field, not only those the active terms read, so bad input fails the same way
        whichever path is selected."""
        raise NotImplementedError

    def set_scale(self, name: str, scale: float) -> None:
        """Change an active reward's weight (``scale_mode="runtime"`` or the NumPy backend)."""
        self.runtime.set_scale(name, scale)

    def compute(self, batch: Any, step: int = 0) -> StepOutputs:
        """Reward, termination, actor and critic observations of one step (reused outputs)."""
        self.validate_batch(batch, self.runtime.num_envs)
        views = tuple(getattr(batch, name) for name in self._names)
        self.outputs.logs = self.runtime.run(views, is_log_step(step))
        return self.outputs
