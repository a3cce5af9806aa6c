"""What every plan-assembled hot slice shares: wiring a resolved plan to its runtime.

A task's assembled class runs the common preamble (:meth:`TaskPath._setup`), turns its
profile into a term plan and calls :meth:`_attach`; the runtime (generated fused kernel, or
the plan's NumPy implementations) owns the outputs, and :meth:`compute` only gathers the
batch arrays the active terms read.
"""

from __future__ import annotations

from typing import Any

from termplan.codegen import ScaleMode
from termplan.plan import ResolvedPlan
from termplan.runtime import FusedRuntime, make_runtime
from termplan.tasks.base import StepOutputs, TaskPath, is_log_step
from termplan.threads import Calibration


class PlanHotSlice(TaskPath):
    """Base of ``Assembled<Task>``: runtime, reused outputs, scale updates, compute."""

    path = "assembled"

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
        #: The task's batch check, the one its other paths run: every field, not only those
        #: the active terms read, so bad input fails the same way whichever path is selected.
        self._validate = self.spec.validate
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

    def set_scale(self, name: str, scale: float) -> None:
        """Change an active reward's weight (``scale_mode="runtime"`` or the NumPy backend)."""
        self.runtime.set_scale(name, scale)

    def compute(self, batch: Any, step: int = 0) -> StepOutputs:
        """Reward, termination, actor and critic observations of one step (reused outputs)."""
        self._validate(batch, self.runtime.num_envs)
        views = tuple(getattr(batch, name) for name in self._names)
        self.outputs.logs = self.runtime.run(views, is_log_step(step))
        return self.outputs
